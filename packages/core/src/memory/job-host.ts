import type { Event } from '../events/event.js';
import type { SessionService } from '../sessions/session.js';
import {
  type MemoryJob,
  type MemoryJobHandler,
  type MemoryJobKind,
  type MemoryJobQueue,
  MemoryJobWorker,
  type MemoryServiceWithJobs,
} from './jobs.js';

/**
 * Where memory jobs run by themselves: a Runner whose memory service has a job queue starts one
 * {@link MemoryJobWorker} in its process (stopped by `runner.close()`), and `@adk/server` starts one
 * beside its run worker (docs/decisions/0063-where-memory-jobs-run.md).
 */
export interface MemoryWorkerConfig {
  /**
   * Handlers by job kind, beside the built-in `'index'` one (which loads each job's events from the
   * session service and indexes them); a handler given for `'index'` replaces it.
   */
  handlers?: Partial<Record<MemoryJobKind, MemoryJobHandler>>;
  /** Most jobs one handler call gets (default 32). */
  batchSize?: number;
  /** Attempts before a job is failed for good (default 5). */
  maxAttempts?: number;
  /** How long a claim lasts before another worker may take the job over (ms, default 60 s). */
  leaseMs?: number;
  /** Idle poll interval (ms, default 500); an enqueue in this process wakes the worker at once. */
  pollMs?: number;
  workerId?: string;
  /** Told about a failed job batch or claim (the worker keeps going). */
  onError?: (error: unknown, jobs: readonly MemoryJob[]) => void;
}

/** A memory job worker whose 'index' handler reads the jobs' events from `sessionService`. */
export function createMemoryJobWorker(
  memory: MemoryServiceWithJobs,
  sessionService: SessionService,
  config: MemoryWorkerConfig = {},
): MemoryJobWorker {
  const worker = new MemoryJobWorker({
    queue: memory.jobs,
    memory,
    loadEvents: (job, signal) => loadJobEvents(sessionService, job, signal),
    ...(config.batchSize !== undefined ? { batchSize: config.batchSize } : {}),
    ...(config.maxAttempts !== undefined ? { maxAttempts: config.maxAttempts } : {}),
    ...(config.leaseMs !== undefined ? { leaseMs: config.leaseMs } : {}),
    ...(config.pollMs !== undefined ? { pollMs: config.pollMs } : {}),
    ...(config.workerId !== undefined ? { workerId: config.workerId } : {}),
    ...(config.onError ? { onError: config.onError } : {}),
  });
  for (const [kind, handler] of Object.entries(config.handlers ?? {}))
    if (handler) worker.registerHandler(kind, handler);
  return worker;
}

/** The events of a job's session (only those the job names are indexed). */
async function loadJobEvents(
  sessionService: SessionService,
  job: MemoryJob,
  signal: AbortSignal,
): Promise<readonly Event[]> {
  signal.throwIfAborted();
  if (job.sessionId === undefined) return [];
  const session = await sessionService.getSession({
    appName: job.appName,
    userId: job.userId,
    sessionId: job.sessionId,
  });
  return session?.events ?? [];
}

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

/**
 * Starts a worker in the background and wakes it on every enqueue to its queue in this process.
 * `stop()` waits for the batch in progress (its jobs are completed or failed, never left leased).
 */
export function startMemoryJobWorker(
  worker: MemoryJobWorker,
  queue: MemoryJobQueue,
): { stop(): Promise<void> } {
  worker.start();
  const off = onMemoryJobsEnqueued(queue, () => worker.notify());
  return {
    async stop() {
      off();
      await worker.stop();
    },
  };
}
