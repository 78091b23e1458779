import { ServerError } from './errors.js';

/** A run in progress: its abort signal, and `end()` once it is over. */
export interface TrackedRun {
  readonly signal: AbortSignal;
  end(): void;
}

/** Counts the runs in progress so shutdown can let them finish, then abort what is left. */
export class RunTracker {
  private readonly active = new Set<{ controller: AbortController; done: () => void }>();
  private idle: (() => void)[] = [];
  private closing = false;

  get size(): number {
    return this.active.size;
  }

  /** True once shutdown has begun: new runs are refused, and `/ready` says so to load balancers. */
  get draining(): boolean {
    return this.closing;
  }

  /** Starts tracking a run; refused once shutdown has begun. */
  start(): TrackedRun {
    if (this.closing) throw new ServerError('SHUTTING_DOWN', 'The server is shutting down');
    const controller = new AbortController();
    const entry = {
      controller,
      done: () => {
        if (!this.active.delete(entry)) return;
        if (this.active.size === 0) for (const resolve of this.idle.splice(0)) resolve();
      },
    };
    this.active.add(entry);
    return { signal: controller.signal, end: entry.done };
  }

  /** Refuses new runs, waits up to `graceMs` for the others, then aborts them and waits for them to end. */
  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    if (this.active.size === 0) return;
    const idle = new Promise<void>((resolve) => this.idle.push(resolve));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([idle, timeout]);
    clearTimeout(timer);
    if (outcome !== 'timeout') return;
    for (const { controller } of this.active)
      controller.abort(new ServerError('SHUTTING_DOWN', 'The server is shutting down'));
    // Aborted runs still commit their "cancelled" event; give them a moment to do so.
    const settle = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
    await Promise.race([idle, settle]);
  }
}
