import type { BaseAgent } from './base-agent.js';

/**
 * Set by the workflow agents on themselves (SequentialAgent, LoopAgent, ParallelAgent). The Runner
 * asks for it instead of `instanceof`, so an app whose agent tree has none of them does not bundle
 * their code (docs/decisions/0024-portable-core.md), as `workflow/brand.ts` does for the graph Workflow.
 */
const AGENT_KIND: unique symbol = Symbol.for('@adk/core.agentKind');

/** The kind of a workflow agent: how the Runner resumes below it and names its branches. */
export type WorkflowAgentKind = 'sequential' | 'loop' | 'parallel';

export function setAgentKind(agent: BaseAgent, kind: WorkflowAgentKind): void {
  (agent as unknown as Record<symbol, WorkflowAgentKind>)[AGENT_KIND] = kind;
}

export function agentKindOf(agent: BaseAgent): WorkflowAgentKind | undefined {
  return (agent as unknown as Record<symbol, WorkflowAgentKind | undefined>)[AGENT_KIND];
}
