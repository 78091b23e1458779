import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { FunctionDeclaration } from '../models/llm.js';
import { BaseTool } from '../tools/base-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import {
  transferInstruction as adkTransferInstruction,
  TRANSFER_TOOL_DESCRIPTION,
  TRANSFER_TOOL_NAME,
} from './adk-prompts.js';

export { TRANSFER_TOOL_NAME } from './adk-prompts.js';

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

/**
 * The transfer tool of one agent, declared as ADK declares it: `agent_name` is a string whose
 * enum lists exactly the valid targets, in transfer order.
 */
export class TransferToAgentTool extends BaseTool {
  constructor(private readonly targets: BaseAgent[]) {
    super({ name: TRANSFER_TOOL_NAME, description: TRANSFER_TOOL_DESCRIPTION });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          agent_name: { type: 'string', enum: this.targets.map((t) => t.name) },
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
    // ADK's transfer function returns nothing, which its tools report as a null result.
    return { result: null };
  }
}

/** The instruction section that lists the transfer targets (ADK's text); none without targets. */
export function transferInstruction(agent: LlmAgent, targets: BaseAgent[]): string | undefined {
  return targets.length > 0 ? adkTransferInstruction(agent, targets) : undefined;
}
