import type { BaseAgent } from '../agents/base-agent.js';
import type { AgentMemoryOptions } from './agent-memory.js';
import {
  enqueueTurnJobs,
  type MemoryJob,
  type MemoryJobKind,
  type MemoryJobQueue,
  type TurnEvents,
} from './jobs.js';

// Kept apart from agent-jobs.ts (which builds the handlers and loads the profile, facts and observe
// code), and loaded by the Runner with the first turn it commits to a memory with a job queue.

/**
 * The job kinds an agent tree's `memory` options need enqueued for every committed turn: `'profile'`
 * for a background profile, `'facts'` for fact extraction. (`'observe'` jobs are enqueued by the
 * observer itself when the history has grown enough.)
 */
export function memoryTurnKinds(root: BaseAgent): MemoryJobKind[] {
  const kinds = new Set<MemoryJobKind>();
  for (const agent of root.descendantsAndSelf()) {
    const memory = (agent as { memory?: AgentMemoryOptions }).memory;
    if (memory?.profile?.update === 'background') kinds.add('profile');
    if (memory?.facts) kinds.add('facts');
  }
  return [...kinds];
}

const kindsOf = new WeakMap<BaseAgent, MemoryJobKind[]>();

/** {@link enqueueTurnJobs} with the kinds `root`'s `memory` options need (found once per agent tree). */
export function enqueueAgentTurnJobs(
  queue: MemoryJobQueue,
  root: BaseAgent,
  turn: TurnEvents,
  options?: { signal?: AbortSignal },
): Promise<MemoryJob[]> {
  let kinds = kindsOf.get(root);
  if (!kinds) {
    kinds = memoryTurnKinds(root);
    kindsOf.set(root, kinds);
  }
  return enqueueTurnJobs(queue, turn, { ...options, kinds });
}
