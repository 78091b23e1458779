import type { BaseAgent } from '../agents/base-agent.js';
import type { Workflow } from './workflow.js';

/**
 * Set on every graph Workflow. The Runner asks for it instead of `instanceof Workflow`, so an app
 * without workflows does not bundle the graph engine (the Runner stays tree-shakable).
 */
export const WORKFLOW_BRAND: unique symbol = Symbol.for('@adk/core.Workflow');

/** Whether `agent` is a graph Workflow (by brand: works across copies of the package too). */
export function isWorkflowAgent(agent: BaseAgent | undefined): agent is Workflow {
  return agent !== undefined && (agent as { [WORKFLOW_BRAND]?: true })[WORKFLOW_BRAND] === true;
}
