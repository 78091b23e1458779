import type { MemoryJobQueue } from './jobs.js';

// Waking this process's memory workers on an enqueue: kept apart from the worker itself, which a
// Runner loads only when it starts one.

const listeners = new WeakMap<MemoryJobQueue, Set<() => void>>();

/** Calls `wake` whenever {@link wakeMemoryWorkers} is called for `queue` in this process. */
export function onMemoryJobsEnqueued(queue: MemoryJobQueue, wake: () => void): () => void {
  let set = listeners.get(queue);
  if (!set) {
    set = new Set();
    listeners.set(queue, set);
  }
  set.add(wake);
  return () => {
    set.delete(wake);
  };
}

/** Wakes this process's started workers of `queue` (the Runner calls it after its enqueue). */
export function wakeMemoryWorkers(queue: MemoryJobQueue): void {
  for (const wake of listeners.get(queue) ?? []) wake();
}
