import type { Event } from '../events/event.js';
import { newId } from '../utils/ids.js';
import type { MemoryJob, MemoryJobHandler, MemoryJobKind, MemoryJobWorkerOptions } from './jobs.js';

// The worker lives apart from the job types and the enqueue a turn does: a Runner loads it only
// when it starts one (docs/decisions/0024-portable-core.md).

/**
 * Claims jobs in batches and hands them to the handler registered for their kind. A job whose
 * kind has no handler waits (another worker may have one). The built-in 'index' handler indexes
 * the job's events through `addEventsToMemory` when `loadEvents` is given.
 */
export class MemoryJobWorker {
  readonly workerId: string;
  private readonly handlers = new Map<string, MemoryJobHandler>();
  private readonly options: MemoryJobWorkerOptions;
  private loop: Promise<void> | undefined;
  private controller: AbortController | undefined;
  private wake: (() => void) | undefined;

  constructor(options: MemoryJobWorkerOptions) {
    this.options = options;
    this.workerId = options.workerId ?? `memory-worker-${newId()}`;
    const { loadEvents } = options;
    if (loadEvents && options.memory.addEventsToMemory) {
      this.handlers.set('index', async (jobs, ctx) => {
        const add = ctx.memory.addEventsToMemory?.bind(ctx.memory);
        if (!add) return;
        // One batched call per session: the store embeds the batch's texts together.
        const bySession = new Map<string, { job: MemoryJob; events: Event[] }>();
        for (const job of jobs) {
          const events = await loadEvents(job, ctx.signal);
          const wanted = new Set(job.eventIds);
          const key = `${job.appName}\u0000${job.userId}\u0000${job.sessionId ?? ''}`;
          const group = bySession.get(key) ?? { job, events: [] };
          group.events.push(...events.filter((e) => wanted.has(e.id)));
          bySession.set(key, group);
        }
        for (const { job, events } of bySession.values()) {
          if (events.length === 0) continue;
          await add({
            appName: job.appName,
            userId: job.userId,
            ...(job.sessionId !== undefined ? { sessionId: job.sessionId } : {}),
            events,
            signal: ctx.signal,
          });
        }
      });
    }
  }

  /** Registers (or replaces) the handler of a kind. */
  registerHandler(kind: MemoryJobKind, handler: MemoryJobHandler): this {
    this.handlers.set(kind, handler);
    this.wake?.();
    return this;
  }

  get kinds(): string[] {
    return [...this.handlers.keys()];
  }

  /** Claims and runs one batch; resolves to how many jobs it ran. */
  async runOnce(signal?: AbortSignal): Promise<number> {
    const kinds = this.kinds;
    if (kinds.length === 0) return 0;
    const { queue } = this.options;
    const jobs = await queue.claim({
      workerId: this.workerId,
      limit: this.options.batchSize ?? 32,
      leaseMs: this.options.leaseMs ?? 60_000,
      kinds,
    });
    const first = jobs[0];
    if (!first) return 0;
    const handler = this.handlers.get(first.kind);
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (!handler) throw new Error(`no handler for memory job kind '${first.kind}'`);
      await handler(jobs, { memory: this.options.memory, signal: ac.signal, workerId: this.workerId });
      await queue.complete(
        jobs.map((j) => j.id),
        this.workerId,
      );
    } catch (error) {
      this.options.onError?.(error, jobs);
      const message = error instanceof Error ? error.message : String(error);
      const max = this.options.maxAttempts ?? 5;
      const backoff = this.options.backoffMs ?? ((n: number) => Math.min(60_000, 200 * 2 ** (n - 1)));
      for (const job of jobs) {
        await queue.fail(
          job.id,
          this.workerId,
          message,
          job.attempts >= max ? undefined : Date.now() + backoff(job.attempts),
        );
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    return jobs.length;
  }

  /**
   * Runs jobs until none is pending or running (retries included: it waits out their backoff).
   * Jobs of kinds without a handler here are left alone. Tests call it to make memory deterministic.
   */
  async flush(options?: { signal?: AbortSignal; appName?: string; userId?: string }): Promise<void> {
    for (;;) {
      options?.signal?.throwIfAborted();
      if ((await this.runOnce(options?.signal)) > 0) continue;
      const stats = await this.pendingOfMyKinds(options);
      if (stats.count === 0) return;
      const wait = Math.max(1, Math.min(1000, (stats.nextRunAt ?? Date.now()) - Date.now()));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async pendingOfMyKinds(options?: {
    appName?: string;
    userId?: string;
  }): Promise<{ count: number; nextRunAt?: number }> {
    const kinds = new Set(this.kinds);
    let count = 0;
    let nextRunAt: number | undefined;
    for (const status of ['pending', 'running'] as const) {
      const jobs = await this.options.queue.list({ ...options, status, limit: 10_000 });
      for (const j of jobs) {
        if (!kinds.has(j.kind)) continue;
        count++;
        const at = j.status === 'pending' ? j.runAfter : Date.now() + 50;
        nextRunAt = nextRunAt === undefined ? at : Math.min(nextRunAt, at);
      }
    }
    return nextRunAt === undefined ? { count } : { count, nextRunAt };
  }

  /** Runs in the background until `stop()`. */
  start(): void {
    if (this.loop) return;
    const controller = new AbortController();
    this.controller = controller;
    this.loop = (async () => {
      while (!controller.signal.aborted) {
        let ran = 0;
        try {
          ran = await this.runOnce(controller.signal);
        } catch (error) {
          this.options.onError?.(error, []);
        }
        if (ran > 0 || controller.signal.aborted) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, this.options.pollMs ?? 500);
          // An idle worker does not keep the process alive (pending jobs stay in the outbox).
          timer.unref?.();
          function done() {
            clearTimeout(timer);
            resolve();
          }
          this.wake = done;
          controller.signal.addEventListener('abort', done, { once: true });
        });
        this.wake = undefined;
      }
    })();
  }

  /** Wakes a started worker now (e.g. right after an enqueue). */
  notify(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
    this.loop = undefined;
    this.controller = undefined;
  }
}
