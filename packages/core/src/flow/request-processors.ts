import type { BaseAgent } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { LlmAgent } from '../agents/llm-agent.js';
import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { BaseTool } from '../tools/base-tool.js';

/** The parts of an LlmAgent step that multi-agent features plug into. */
export const requestProcessors = {
  extraTools(_agent: LlmAgent, _ctx: InvocationContext): BaseTool[] {
    return [];
  },
  transferInstruction(_agent: LlmAgent, _ctx: InvocationContext): string | undefined {
    return undefined;
  },
  transferTarget(agent: LlmAgent, name: string): BaseAgent | undefined {
    return agent.rootAgent.findAgent(name);
  },
  async compress(_agent: LlmAgent, _ctx: InvocationContext, contents: Content[]): Promise<Content[]> {
    return contents;
  },
  // biome-ignore lint/correctness/useYield: extension point, yields in later features
  async *resume(
    _agent: LlmAgent,
    _ctx: InvocationContext,
  ): AsyncGenerator<Event, 'continue' | 'stop', undefined> {
    return 'continue';
  },
};
