import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { FunctionDeclaration } from '../models/llm.js';
import { BaseTool } from '../tools/base-tool.js';
import type { ToolContext } from '../tools/tool-context.js';

export const TRANSFER_TOOL_NAME = 'transfer_to_agent';

/**
 * Where an LlmAgent may hand the conversation: its sub-agents; its parent unless
 * disallowTransferToParent; its peers unless disallowTransferToPeers (parent must be an LlmAgent).
 */
export function transferTargets(agent: LlmAgent): BaseAgent[] {
  const targets: BaseAgent[] = [...agent.subAgents];
  const parent = agent.parentAgent;
  if (parent instanceof LlmAgent) {
    if (!agent.disallowTransferToParent) targets.push(parent);
    if (!agent.disallowTransferToPeers)
      for (const peer of parent.subAgents) if (peer !== agent) targets.push(peer);
  }
  return targets;
}

/** The transfer tool of one agent: its schema enumerates exactly the valid targets. */
export class TransferToAgentTool extends BaseTool {
  constructor(private readonly targets: BaseAgent[]) {
    super({
      name: TRANSFER_TOOL_NAME,
      description:
        'Transfers the conversation to another agent that is better suited to answer. Use the exact agent name.',
    });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          agent_name: {
            type: 'string',
            enum: this.targets.map((t) => t.name),
            description: 'The agent to transfer to',
          },
        },
        required: ['agent_name'],
      },
    };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const name = args.agent_name;
    const valid = this.targets.map((t) => t.name);
    if (typeof name !== 'string' || !valid.includes(name)) {
      return {
        error: `Cannot transfer to ${JSON.stringify(name)}: it is not an agent you may transfer to. Valid agents: ${valid.join(', ')}.`,
      };
    }
    context.transferToAgent(name);
    return { transferred_to: name };
  }
}

/** The instruction section that lists the transfer targets. */
export function transferInstruction(agent: LlmAgent, targets: BaseAgent[]): string | undefined {
  if (targets.length === 0) return undefined;
  const lines = targets.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ''}`);
  const parent = agent.parentAgent;
  const parentNote =
    parent && targets.includes(parent)
      ? `\nIf none of these agents and not you can help, transfer back to your parent agent ${parent.name}.`
      : '';
  return `You can hand the conversation to one of these agents:\n${lines.join('\n')}\nIf another agent is better suited to the request, call ${TRANSFER_TOOL_NAME} with its name; otherwise answer yourself.${parentNote}`;
}
