import type { Event } from '../events/event.js';
import { newId } from '../utils/ids.js';
import type { MemoryService } from './memory-service.js';

/**
 * Memory jobs: the work memory does after a turn (indexing, and the agent side's profile,
 * observation and fact extraction), kept in an outbox beside the sessions so that nothing but one
 * enqueue runs on the response path (docs/decisions/0034-memory-stores-and-jobs.md).
 */

/** Built-in job kinds; other kinds are plain strings registered with a worker. */
export type MemoryJobKind = 'index' | 'profile' | 'observe' | 'facts' | (string & {});

export type MemoryJobStatus = 'pending' | 'running' | 'done' | 'failed';

export interface MemoryJob {
  id: string;
  kind: MemoryJobKind;
  appName: string;
  userId: string;
  sessionId?: string;
  /** The events the job is about; enqueue is idempotent by (kind, event id). */
  eventIds: string[];
  /** How many times a worker has started it. */
  attempts: number;
  status: MemoryJobStatus;
  /** ms: not claimed before this (retries back off). */
  runAfter: number;
  /** ms */
  createdAt: number;
  /** The last failure's message. */
  lastError?: string;
  /** Free JSON for the handler. */
  payload?: Record<string, unknown>;
}

export interface EnqueueMemoryJob {
  kind: MemoryJobKind;
  appName: string;
  userId: string;
  sessionId?: string;
  eventIds: readonly string[];
  payload?: Record<string, unknown>;
}

export interface ClaimMemoryJobsParams {
  /** Who claims; a claim is a lease that another worker may take over after `leaseMs`. */
  workerId: string;
  /** Most jobs claimed (all of one kind). */
  limit: number;
  leaseMs: number;
  /** Only these kinds (default: any). */
  kinds?: readonly string[];
  now?: number;
}

export interface MemoryJobStats {
  pending: number;
  running: number;
  done: number;
  failed: number;
  /** ms: the earliest `runAfter` of a pending job, when one waits. */
  nextRunAt?: number;
}

/**
 * The outbox. `enqueue` drops the event ids already enqueued for the same kind (a job whose ids
 * were all enqueued before is not created; a job without event ids always is). `claim` hands out
 * pending jobs whose time has come, or running jobs whose lease expired, oldest first, all of one
 * kind, and counts an attempt. `complete` and `fail` only act for the worker holding the claim.
 */
export interface MemoryJobQueue {
  /** Kinds enqueued for every committed turn by the Runner (default `['index']`). */
  readonly turnKinds: Set<string>;
  enqueue(jobs: readonly EnqueueMemoryJob[], options?: { signal?: AbortSignal }): Promise<MemoryJob[]>;
  claim(params: ClaimMemoryJobsParams): Promise<MemoryJob[]>;
  complete(ids: readonly string[], workerId: string): Promise<void>;
  /** `retryAt` undefined: the job is failed for good. */
  fail(id: string, workerId: string, error: string, retryAt: number | undefined): Promise<void>;
  stats(params?: { appName?: string; userId?: string }): Promise<MemoryJobStats>;
  /** Newest first, for tools and the dev UI. */
  list(params?: {
    appName?: string;
    userId?: string;
    status?: MemoryJobStatus;
    limit?: number;
  }): Promise<MemoryJob[]>;
}

/** A memory service whose post-turn work goes through a job queue. */
export interface MemoryServiceWithJobs extends MemoryService {
  readonly jobs: MemoryJobQueue;
}

export function hasMemoryJobs(memory: MemoryService | undefined): memory is MemoryServiceWithJobs {
  return !!memory && typeof (memory as Partial<MemoryServiceWithJobs>).jobs === 'object';
}

/** The events of one turn, as the Runner enqueues them. */
export interface TurnEvents {
  appName: string;
  userId: string;
  sessionId: string;
  events: readonly Event[];
}

/**
 * Enqueues one job per `turnKinds` kind of the queue, and per kind of `options.kinds` (those the
 * agent's `memory` options need), for a committed turn (what the Runner calls).
 */
export async function enqueueTurnJobs(
  queue: MemoryJobQueue,
  turn: TurnEvents,
  options?: { signal?: AbortSignal; kinds?: readonly MemoryJobKind[] },
): Promise<MemoryJob[]> {
  const eventIds = turn.events.filter((e) => !e.partial).map((e) => e.id);
  const kinds = options?.kinds?.length ? new Set([...queue.turnKinds, ...options.kinds]) : queue.turnKinds;
  if (eventIds.length === 0 || kinds.size === 0) return [];
  return queue.enqueue(
    [...kinds].map((kind) => ({
      kind,
      appName: turn.appName,
      userId: turn.userId,
      sessionId: turn.sessionId,
      eventIds,
    })),
    options,
  );
}

interface StoredJob extends MemoryJob {
  claimedBy?: string;
  leaseUntil?: number;
}

/** The outbox in process memory, for in-memory setups and tests. */
export class InMemoryMemoryJobQueue implements MemoryJobQueue {
  readonly turnKinds = new Set<string>(['index']);
  private readonly jobs = new Map<string, StoredJob>();
  private readonly seen = new Set<string>();

  async enqueue(jobs: readonly EnqueueMemoryJob[]): Promise<MemoryJob[]> {
    const created: MemoryJob[] = [];
    const now = Date.now();
    for (const job of jobs) {
      const fresh = job.eventIds.filter((id) => !this.seen.has(`${job.kind}\u0000${id}`));
      if (job.eventIds.length > 0 && fresh.length === 0) continue;
      for (const id of fresh) this.seen.add(`${job.kind}\u0000${id}`);
      const stored: StoredJob = {
        id: newId(),
        kind: job.kind,
        appName: job.appName,
        userId: job.userId,
        ...(job.sessionId !== undefined ? { sessionId: job.sessionId } : {}),
        eventIds: [...new Set(fresh)],
        attempts: 0,
        status: 'pending',
        runAfter: now,
        createdAt: now,
        ...(job.payload ? { payload: structuredClone(job.payload) } : {}),
      };
      this.jobs.set(stored.id, stored);
      created.push(publicJob(stored));
    }
    return created;
  }

  async claim(params: ClaimMemoryJobsParams): Promise<MemoryJob[]> {
    const now = params.now ?? Date.now();
    const ready = [...this.jobs.values()]
      .filter(
        (j) =>
          (!params.kinds || params.kinds.includes(j.kind)) &&
          ((j.status === 'pending' && j.runAfter <= now) ||
            (j.status === 'running' && (j.leaseUntil ?? 0) <= now)),
      )
      .sort((a, b) => a.createdAt - b.createdAt);
    const first = ready[0];
    if (!first) return [];
    const batch = ready.filter((j) => j.kind === first.kind).slice(0, Math.max(1, params.limit));
    for (const j of batch) {
      j.status = 'running';
      j.attempts++;
      j.claimedBy = params.workerId;
      j.leaseUntil = now + params.leaseMs;
    }
    return batch.map(publicJob);
  }

  async complete(ids: readonly string[], workerId: string): Promise<void> {
    for (const id of ids) {
      const j = this.jobs.get(id);
      if (!j || j.claimedBy !== workerId || j.status !== 'running') continue;
      j.status = 'done';
      j.claimedBy = undefined;
      j.leaseUntil = undefined;
    }
  }

  async fail(id: string, workerId: string, error: string, retryAt: number | undefined): Promise<void> {
    const j = this.jobs.get(id);
    if (!j || j.claimedBy !== workerId || j.status !== 'running') return;
    j.lastError = error;
    j.claimedBy = undefined;
    j.leaseUntil = undefined;
    if (retryAt === undefined) j.status = 'failed';
    else {
      j.status = 'pending';
      j.runAfter = retryAt;
    }
  }

  async stats(params?: { appName?: string; userId?: string }): Promise<MemoryJobStats> {
    const stats: MemoryJobStats = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const j of this.jobs.values()) {
      if (params?.appName !== undefined && j.appName !== params.appName) continue;
      if (params?.userId !== undefined && j.userId !== params.userId) continue;
      stats[j.status]++;
      if (j.status === 'pending' && (stats.nextRunAt === undefined || j.runAfter < stats.nextRunAt))
        stats.nextRunAt = j.runAfter;
      if (j.status === 'running' && j.leaseUntil !== undefined)
        stats.nextRunAt = Math.min(stats.nextRunAt ?? j.leaseUntil, j.leaseUntil);
    }
    return stats;
  }

  async list(params?: {
    appName?: string;
    userId?: string;
    status?: MemoryJobStatus;
    limit?: number;
  }): Promise<MemoryJob[]> {
    return [...this.jobs.values()]
      .filter(
        (j) =>
          (params?.appName === undefined || j.appName === params.appName) &&
          (params?.userId === undefined || j.userId === params.userId) &&
          (params?.status === undefined || j.status === params.status),
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, params?.limit ?? 100)
      .map(publicJob);
  }
}

function publicJob(j: StoredJob): MemoryJob {
  const { claimedBy: _c, leaseUntil: _l, ...rest } = j;
  return structuredClone({ ...rest, eventIds: [...rest.eventIds] });
}

export interface MemoryJobContext {
  memory: MemoryService;
  signal: AbortSignal;
  workerId: string;
}

/** Runs a batch of jobs of one kind. Throwing fails every job of the batch (each retried). */
export type MemoryJobHandler = (jobs: readonly MemoryJob[], context: MemoryJobContext) => Promise<void>;

export interface MemoryJobWorkerOptions {
  queue: MemoryJobQueue;
  memory: MemoryService;
  /** Loads a turn's events for the built-in 'index' handler (e.g. from the session service). */
  loadEvents?: (job: MemoryJob, signal: AbortSignal) => Promise<readonly Event[]>;
  /** Most jobs one handler call gets (default 32). */
  batchSize?: number;
  /** Attempts before a job is failed for good (default 5). */
  maxAttempts?: number;
  /** Backoff of retry n (1-based), ms (default 200 · 2^(n-1), at most 60 s). */
  backoffMs?: (attempt: number) => number;
  /** How long a claim lasts before another worker may take the job over (default 60 s). */
  leaseMs?: number;
  /** Idle poll interval of `start()` (default 500 ms). */
  pollMs?: number;
  workerId?: string;
  /** Called when a handler fails (the job is retried or failed). */
  onError?: (error: unknown, jobs: readonly MemoryJob[]) => void;
}
