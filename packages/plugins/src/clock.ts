import { CancelledError } from '@adk/core';

/**
 * Time for plugins that wait or expire things (rate limit, fallback backoff, circuit breaker,
 * cache TTL). Tests inject a fake one so that nothing really sleeps.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with a CancelledError when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new CancelledError('The wait was cancelled'));
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(new CancelledError('The wait was cancelled'));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * A clock for tests: time stands still until {@link ManualClock.advance} moves it. By default a
 * `sleep` advances the clock at once by the time asked for, so code that backs off runs instantly;
 * with `autoAdvance: false` sleepers wait until the test advances the clock past their deadline.
 * Every sleep is recorded.
 */
export class ManualClock implements Clock {
  /** The durations passed to `sleep`, in order. */
  readonly sleeps: number[] = [];
  private readonly autoAdvance: boolean;
  private timers: { due: number; wake: () => void }[] = [];

  constructor(
    private time = 0,
    options: { autoAdvance?: boolean } = {},
  ) {
    this.autoAdvance = options.autoAdvance ?? true;
  }

  now(): number {
    return this.time;
  }

  /** Sleepers waiting for the clock to move (with `autoAdvance: false`). */
  get waiting(): number {
    return this.timers.length;
  }

  /** Moves time forward and wakes, in deadline order, every sleeper that is due. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.due <= this.time).sort((a, b) => a.due - b.due);
    this.timers = this.timers.filter((t) => t.due > this.time);
    for (const t of due) t.wake();
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new CancelledError('The wait was cancelled');
    this.sleeps.push(ms);
    if (this.autoAdvance) {
      this.time += Math.max(0, ms);
      // Yield so that concurrent waiters interleave as they would with real timers.
      await Promise.resolve();
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const timer = {
        due: this.time + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(new CancelledError('The wait was cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }
}
