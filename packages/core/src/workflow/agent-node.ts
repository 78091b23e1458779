import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { contentText } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import { tryParseJson } from '../utils/json.js';
import { BaseNode, type BaseNodeOptions } from './base-node.js';
import type { NodeContext } from './node-context.js';

/** The text a node's input becomes when an agent receives it as a user turn. */
export function inputText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input);
}

/** Whether the event is the agent's own text reply (not a call, not a chunk). */
function isReply(agent: BaseAgent, event: Event): boolean {
  if (event.partial || event.author !== agent.name || event.errorCode) return false;
  const parts = event.content?.parts;
  if (!parts || parts.length === 0) return false;
  let text = false;
  for (const part of parts) {
    if (part.functionCall || part.functionResponse) return false;
    if (part.text !== undefined && !part.thought) text = true;
  }
  return text;
}

/**
 * An agent (other than a workflow) as a node. It runs on a branch of its own per run, so it sees
 * the conversation and its input but not its siblings' turns; its input arrives as a user turn
 * (unless it is the user's message itself) and its last reply is its output, parsed as JSON when
 * the agent has an `outputSchema`.
 */
export class AgentNode extends BaseNode {
  readonly agent: BaseAgent;

  constructor(agent: BaseAgent, options: Partial<BaseNodeOptions> = {}) {
    super({ description: agent.description, ...options, name: options.name ?? agent.name });
    this.agent = agent;
  }

  async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<unknown, void, undefined> {
    const parent = ctx.invocationContext;
    const branch = `${parent.branch ?? ctx.workflowName}.${this.name}@${ctx.runId}`;
    const agentCtx = parent.with({ branch, signal: ctx.abortSignal, scope: { ended: false } });
    const userText = contentText(parent.userContent);
    if (input !== undefined && input !== null && !(typeof input === 'string' && input === userText)) {
      if (!ctx.replay.inputTurns.has(ctx.path)) {
        yield createEvent({
          invocationId: ctx.invocationId,
          author: 'user',
          branch,
          content: { role: 'user', parts: [{ text: inputText(input) }] },
          nodeInfo: { path: ctx.path },
        });
      }
    }
    let reply: Event | undefined;
    for await (const event of this.agent.run(agentCtx)) {
      if (isReply(this.agent, event)) {
        // Only the node's last reply carries its output (an earlier one keeps its text).
        if (reply) yield withoutOutput(reply);
        reply = event;
        continue;
      }
      if (reply && !event.partial) {
        yield withoutOutput(reply);
        reply = undefined;
      }
      yield event;
    }
    if (reply) {
      const text = contentText(reply.content);
      const schema = this.agent instanceof LlmAgent ? this.agent.outputSchema : undefined;
      reply.output = schema ? (reply.output ?? tryParseJson(text) ?? text) : text;
      reply.nodeInfo = { path: ctx.path, messageAsOutput: true };
      yield reply;
    }
  }
}

function withoutOutput(event: Event): Event {
  if (event.output === undefined) return event;
  const { output: _output, ...rest } = event;
  return rest;
}
