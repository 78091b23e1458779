import { CancelledError } from '../errors/errors.js';
import { delay } from '../utils/abort.js';
import { isPlainObject } from '../utils/json.js';
import { type RetryConfig, retryMs } from '../workflow/retry-config.js';
import { isApiCallError } from './api-call-error.js';

/** @deprecated Use {@link RetryConfig}, the one retry configuration (this is an alias of it). */
export type RetryOptions = RetryConfig;

const DEFAULTS = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 20_000,
  backoffFactor: 2,
  maxRetryAfterMs: 60_000,
};

/**
 * The wait a response asks for: `retry-after-ms` (OpenAI), `Retry-After` in seconds or as an HTTP
 * date, or Gemini's `google.rpc.RetryInfo.retryDelay` ("37s", "1.5s") in the error body.
 */
export function retryAfterMsFrom(
  headers: Record<string, string> | Headers | undefined,
  body?: unknown,
  now = Date.now(),
): number | undefined {
  const get = (name: string): string | undefined =>
    headers === undefined
      ? undefined
      : headers instanceof Headers
        ? (headers.get(name) ?? undefined)
        : headers[name];
  const ms = get('retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const after = get('retry-after');
  if (after !== undefined) {
    const trimmed = after.trim();
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
    const date = Date.parse(trimmed);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return retryInfoDelayMs(body);
}

/** Reads `error.details[].retryDelay` of a `type.googleapis.com/google.rpc.RetryInfo` detail. */
export function retryInfoDelayMs(body: unknown): number | undefined {
  const error = isPlainObject(body) ? body.error : undefined;
  const details = isPlainObject(error) ? error.details : undefined;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isPlainObject(detail)) continue;
    if (detail['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo') continue;
    const delay = detail.retryDelay;
    if (typeof delay === 'string') {
      const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
      if (match?.[1] !== undefined) return Math.ceil(Number(match[1]) * 1000);
    } else if (isPlainObject(delay)) {
      const seconds = Number(delay.seconds ?? 0);
      const nanos = Number(delay.nanos ?? 0);
      if (Number.isFinite(seconds) && Number.isFinite(nanos)) return Math.ceil(seconds * 1000 + nanos / 1e6);
    }
  }
  return undefined;
}

/**
 * The wait before retry number `attempt` (1-based): the server's request when it gave one (and it
 * is not beyond `maxRetryAfterMs`), else exponential backoff with full jitter in [50%, 100%].
 * Returns undefined when the error should not be retried.
 */
export function retryDelayMs(error: unknown, attempt: number, options: RetryConfig = {}): number | undefined {
  const maxRetries =
    options.maxAttempts !== undefined
      ? Math.max(0, options.maxAttempts - 1)
      : (options.maxRetries ?? DEFAULTS.maxRetries);
  if (attempt > maxRetries) return undefined;
  if (!isApiCallError(error) || !error.isRetryable) return undefined;
  if (error.retryAfterMs !== undefined) {
    const cap = options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs;
    return error.retryAfterMs <= cap ? error.retryAfterMs : undefined;
  }
  const initial = retryMs(options.initialDelay, options.initialDelayMs, DEFAULTS.initialDelayMs);
  const max = retryMs(options.maxDelay, options.maxDelayMs, DEFAULTS.maxDelayMs);
  const factor = options.backoffFactor ?? DEFAULTS.backoffFactor;
  const base = Math.min(max, initial * factor ** (attempt - 1));
  const random = (options.random ?? Math.random)();
  return Math.round(base * (0.5 + 0.5 * random));
}

/** Runs `fn`, retrying retryable {@link ApiCallError}s per {@link retryDelayMs}. Aborts promptly. */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryConfig & { signal?: AbortSignal } = {},
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(options.signal);
    try {
      return await fn(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw cancelled(options.signal);
      const delay = retryDelayMs(error, attempt + 1, options);
      if (delay === undefined) throw error;
      options.onRetry?.({ attempt: attempt + 1, delayMs: delay, error });
      await sleep(delay, options.signal);
    }
  }
}

/** Resolves after `ms`, or rejects with a CancelledError when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, signal).catch(() => {
    throw cancelled(signal as AbortSignal);
  });
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelled(signal);
}

/** The error thrown when a request is aborted through its signal. */
export function cancelled(signal: AbortSignal): CancelledError {
  return new CancelledError('The request was aborted', { cause: signal.reason });
}
