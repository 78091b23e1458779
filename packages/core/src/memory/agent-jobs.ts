import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { Llm } from '../models/llm.js';
import { resolveModel } from '../models/registry.js';
import type { SessionService } from '../sessions/session.js';
import { factsMemoryJobHandler } from './facts.js';
import type { MemoryJobHandler, MemoryJobKind, MemoryJobQueue } from './jobs.js';
import { observeMemoryJobHandler } from './observe.js';
import { profileMemoryJobHandler } from './profile.js';

/** The memory job handlers an agent tree's `memory` options need, and the kinds enqueued per turn. */
export interface AgentMemoryJobs {
  /** By kind: `'profile'` (background profiles), `'observe'`, `'facts'`; absent kinds are not needed. */
  handlers: Partial<Record<MemoryJobKind, MemoryJobHandler>>;
  /** Kinds the Runner must enqueue for every committed turn (`'profile'`, `'facts'`). */
  turnKinds: MemoryJobKind[];
}

/**
 * Walks an agent tree and builds the job handlers its `memory` options need: the first agent with a
 * background profile, observations or facts configures that kind (a job kind has one handler). Each
 * model defaults to the agent's. Pass `handlers` to a worker (or a Runner's `memoryWorker`), and
 * add `turnKinds` to the queue with {@link useAgentMemoryJobs} or by hand.
 */
export function agentMemoryJobs(
  root: BaseAgent,
  services: { sessionService: SessionService; model?: Llm | string },
): AgentMemoryJobs {
  const jobs: AgentMemoryJobs = { handlers: {}, turnKinds: [] };
  const visit = (agent: BaseAgent) => {
    const memory = agent instanceof LlmAgent ? agent.memory : undefined;
    const model = services.model ?? (agent instanceof LlmAgent ? agent.canonicalModel : undefined);
    if (memory?.profile?.update === 'background' && !jobs.handlers.profile && model !== undefined) {
      jobs.handlers.profile = profileMemoryJobHandler(memory.profile, {
        model: resolveModel(model),
        sessionService: services.sessionService,
      });
      jobs.turnKinds.push('profile');
    }
    if (memory?.observe && !jobs.handlers.observe)
      jobs.handlers.observe = observeMemoryJobHandler(memory.observe, {
        sessionService: services.sessionService,
        ...(model !== undefined ? { model } : {}),
      });
    if (memory?.facts && !jobs.handlers.facts) {
      jobs.handlers.facts = factsMemoryJobHandler(memory.facts, {
        sessionService: services.sessionService,
        ...(model !== undefined ? { model } : {}),
      });
      jobs.turnKinds.push('facts');
    }
    for (const sub of agent.subAgents) visit(sub);
  };
  visit(root);
  return jobs;
}

/**
 * {@link agentMemoryJobs}, registered on a worker, with the per-turn kinds added to its queue.
 * Returns the kinds registered.
 */
export function useAgentMemoryJobs(
  root: BaseAgent,
  target: {
    worker: { registerHandler(kind: MemoryJobKind, handler: MemoryJobHandler): unknown };
    queue: MemoryJobQueue;
  },
  services: { sessionService: SessionService; model?: Llm | string },
): MemoryJobKind[] {
  const { handlers, turnKinds } = agentMemoryJobs(root, services);
  for (const [kind, handler] of Object.entries(handlers))
    if (handler) target.worker.registerHandler(kind, handler);
  for (const kind of turnKinds) target.queue.turnKinds.add(kind);
  return Object.keys(handlers);
}
