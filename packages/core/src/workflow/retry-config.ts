/** An error class usable in `RetryConfig.exceptions` (matched by its name). */
export type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * The one retry configuration of the framework: a workflow node's `retryConfig`, an HTTP client's
 * `retry` (models, A2A), and a run's `modelRetry` (docs/decisions/0047-one-retry-config.md). ADK's
 * names and unit: delays in seconds; the `…Ms` siblings give them in milliseconds and win. Each use
 * has its own defaults (below) and reads only the fields that apply to it:
 * - workflow node: 5 attempts, 1 s, 60 s, ×2, jitter 1, every error;
 * - HTTP request: 3 attempts, 0.5 s, 20 s, ×2, jitter between 50 % and 100 % of the backoff (the
 *   `jitter` field is not read), retryable API errors only, `maxRetryAfterMs` 60 s;
 * - a run's model calls (429/503 after the HTTP layer): 3 attempts, 1 s, 60 s, ×2, no jitter,
 *   `maxTotalWaitMs` 120 s.
 */
export interface RetryConfig {
  /** Attempts in all, the first included (default 5; 0 or 1: no retry). */
  maxAttempts?: number;
  /** Delay before the first retry, in seconds (default 1). */
  initialDelay?: number;
  /** The same in milliseconds. */
  initialDelayMs?: number;
  /** Longest delay, in seconds (default 60). */
  maxDelay?: number;
  /** The same in milliseconds. */
  maxDelayMs?: number;
  /** Each delay is the previous one times this (default 2). */
  backoffFactor?: number;
  /** Random share added to each delay: 0 (none) to 1 (up to double; the default). */
  jitter?: number;
  /** Errors worth retrying, by class or class name (default: every error). Workflow nodes only. */
  exceptions?: Array<string | ErrorClass> | null;
  /** Waiting all retries of a run may spend, ms. A run's model calls only. */
  maxTotalWaitMs?: number;
  /** A server-requested wait longer than this is not honoured: the error is thrown. HTTP only. */
  maxRetryAfterMs?: number;
  /** Called before each retry (logging, metrics); never receives secrets. HTTP only. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /** The random source of the jitter (default `Math.random`); tests pin it. */
  random?: () => number;
  /** @deprecated Use `maxAttempts` (= `maxRetries + 1`). The HTTP client's former name. */
  maxRetries?: number;
}

/** Milliseconds from a seconds field and its `…Ms` sibling (which wins), else the default. */
export function retryMs(seconds: number | undefined, ms: number | undefined, fallbackMs: number): number {
  return ms ?? (seconds !== undefined ? seconds * 1000 : fallbackMs);
}

export interface PreparedRetry {
  maxAttempts: number;
  initialDelay: number;
  maxDelay: number;
  backoffFactor: number;
  jitter: number;
  exceptions: Set<string> | undefined;
}

export function prepareRetry(config: RetryConfig | undefined): PreparedRetry {
  if (!config) {
    return {
      maxAttempts: 1,
      initialDelay: 1,
      maxDelay: 60,
      backoffFactor: 2,
      jitter: 1,
      exceptions: undefined,
    };
  }
  return {
    maxAttempts: Math.max(1, config.maxAttempts ?? 5),
    initialDelay:
      config.initialDelayMs !== undefined ? config.initialDelayMs / 1000 : (config.initialDelay ?? 1),
    maxDelay: config.maxDelayMs !== undefined ? config.maxDelayMs / 1000 : (config.maxDelay ?? 60),
    backoffFactor: config.backoffFactor ?? 2,
    jitter: config.jitter ?? 1,
    exceptions: config.exceptions
      ? new Set(config.exceptions.map((e) => (typeof e === 'string' ? e : e.name)))
      : undefined,
  };
}

/** Whether the error's class (or a parent class) is one the config retries. */
export function isRetryable(retry: PreparedRetry, error: unknown): boolean {
  if (!retry.exceptions) return true;
  if (typeof error !== 'object' || error === null) return false;
  for (
    let proto = Object.getPrototypeOf(error);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const name = (proto.constructor as { name?: string } | undefined)?.name;
    if (name && retry.exceptions.has(name)) return true;
  }
  const own = (error as { name?: unknown }).name;
  return typeof own === 'string' && retry.exceptions.has(own);
}

/** Milliseconds to wait before attempt `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(
  retry: PreparedRetry,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(retry.initialDelay * retry.backoffFactor ** (attempt - 1), retry.maxDelay);
  const withJitter = base * (1 + retry.jitter * random());
  return Math.min(withJitter, retry.maxDelay) * 1000;
}
