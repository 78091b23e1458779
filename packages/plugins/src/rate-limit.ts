import {
  type BeforeModelArgs,
  type CallbackContext,
  ConfigError,
  type LlmResponse,
  type Plugin,
} from '@adk/core';
import { type Clock, systemClock } from './clock.js';

/** The error code of the response given when a call is refused. */
export const RATE_LIMITED = 'RATE_LIMITED';

export interface RateLimitPluginOptions {
  /** Model calls allowed per window. */
  limit: number;
  /** The window, in ms (sliding). */
  windowMs: number;
  /** Whose calls are counted together: each user of the app (default), the whole app, or a key of your own. */
  per?: 'user' | 'app' | ((context: CallbackContext) => string);
  /**
   * Over the limit: `'refuse'` (default) ends the model call with a `RATE_LIMITED` error, `'wait'`
   * waits for a free slot (cancelled with the run).
   */
  mode?: 'refuse' | 'wait';
  /** In `'wait'` mode, refuse instead when the wait would be longer than this (default: no limit). */
  maxWaitMs?: number;
  /** Default `'rate_limit'`. */
  name?: string;
  clock?: Clock;
}

/**
 * Limits model calls per time window, per user or per app, with a sliding window. Over the limit
 * it waits for a slot or refuses with a `RATE_LIMITED` error event that says when to retry.
 * Counting is atomic (no await between check and count), so concurrent invocations never exceed
 * the limit. Limits are per process.
 */
export class RateLimitPlugin implements Plugin {
  readonly name: string;
  private readonly options: RateLimitPluginOptions;
  private readonly clock: Clock;
  /** key → timestamps of the calls in the current window, oldest first */
  private readonly windows = new Map<string, number[]>();

  constructor(options: RateLimitPluginOptions) {
    if (!(options.limit >= 1) || !(options.windowMs > 0)) {
      throw new ConfigError('RateLimitPlugin needs limit ≥ 1 and windowMs > 0');
    }
    this.name = options.name ?? 'rate_limit';
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  private keyOf(context: CallbackContext): string {
    const per = this.options.per ?? 'user';
    const app = context.invocationContext.appName;
    if (per === 'app') return `app\u0000${app}`;
    if (per === 'user') return `user\u0000${app}\u0000${context.userId}`;
    return `custom\u0000${per(context)}`;
  }

  /** Calls counted in the current window for a context's key. */
  usage(context: CallbackContext): number {
    return this.current(this.keyOf(context), this.clock.now()).length;
  }

  private current(key: string, now: number): number[] {
    const stamps = this.windows.get(key) ?? [];
    let expired = 0;
    while (expired < stamps.length && (stamps[expired] as number) <= now - this.options.windowMs) expired++;
    if (expired > 0) stamps.splice(0, expired);
    if (stamps.length === 0) this.windows.delete(key);
    return stamps;
  }

  /** Takes a slot if one is free; otherwise returns how long until one frees up. */
  private take(key: string): number {
    const now = this.clock.now();
    const stamps = this.current(key, now);
    if (stamps.length < this.options.limit) {
      stamps.push(now);
      this.windows.set(key, stamps);
      return 0;
    }
    return (stamps[0] as number) + this.options.windowMs - now;
  }

  async beforeModel({ context }: BeforeModelArgs): Promise<LlmResponse | undefined> {
    const key = this.keyOf(context);
    const mode = this.options.mode ?? 'refuse';
    const maxWait = this.options.maxWaitMs ?? Number.POSITIVE_INFINITY;
    let waited = 0;
    for (;;) {
      const wait = this.take(key);
      if (wait <= 0) return undefined;
      if (mode === 'refuse' || waited + wait > maxWait) return this.refusal(context, wait);
      await this.clock.sleep(wait, context.signal);
      waited += wait;
    }
  }

  private refusal(context: CallbackContext, retryAfterMs: number): LlmResponse {
    const { limit, windowMs } = this.options;
    const per = this.options.per ?? 'user';
    const who =
      per === 'app'
        ? `app "${context.invocationContext.appName}"`
        : per === 'user'
          ? `user "${context.userId}"`
          : 'this key';
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return {
      errorCode: RATE_LIMITED,
      errorMessage: `Rate limit reached: at most ${limit} model call(s) per ${formatWindow(windowMs)} for ${who}. Try again in ${seconds} s.`,
      customMetadata: { rate_limit: { limit, windowMs, retryAfterMs } },
    };
  }
}

function formatWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? 'hour' : `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  if (ms % 1000 === 0) return ms === 1000 ? 'second' : `${ms / 1000} seconds`;
  return `${ms} ms`;
}
