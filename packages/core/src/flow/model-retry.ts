import type { InvocationContext } from '../agents/invocation-context.js';
import { CancelledError } from '../errors/errors.js';
import { createEvent, type Event } from '../events/event.js';
import { isApiCallError } from '../http/api-call-error.js';
import { type RetryConfig, retryMs } from '../workflow/retry-config.js';

/**
 * How a run retries a model call the vendor refused for now (429 / 503), on top of the HTTP
 * layer's retries. Not used when an on-model-error plugin or callback is registered: that handler
 * (e.g. a fallback plugin) decides.
 * @deprecated Use {@link RetryConfig} (`RunConfig.modelRetry` takes it; this is an alias of it).
 */
export type ModelRetryConfig = RetryConfig;

/** The `customMetadata` key of the event a run records for each such retry. */
export const MODEL_RETRY_METADATA_KEY = 'adk_model_retry';

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BUDGET_MS = 120_000;

/**
 * How long to wait before attempt `attempt + 1` of a model call that failed with `error`, or
 * undefined when it is not retried: only a 429 or 503 (as the HTTP layer's last answer, or in the
 * middle of a stream), after the vendor's Retry-After or an exponential backoff from 1 s, while
 * the run's budget lasts.
 */
export function modelRetryDelay(ctx: InvocationContext, error: unknown, attempt: number): number | undefined {
  if (!isApiCallError(error) || (error.status !== 429 && error.status !== 503)) return undefined;
  const config = ctx.runConfig.modelRetry ?? {};
  if (attempt >= (config.maxAttempts ?? DEFAULT_ATTEMPTS)) return undefined;
  const initial = retryMs(config.initialDelay, config.initialDelayMs, 1000);
  const max = retryMs(config.maxDelay, config.maxDelayMs, 60_000);
  const delay = error.retryAfterMs ?? Math.min(max, initial * (config.backoffFactor ?? 2) ** (attempt - 1));
  const spent = ctx.shared.modelRetryWaitMs ?? 0;
  if (spent + delay > (config.maxTotalWaitMs ?? DEFAULT_BUDGET_MS)) return undefined;
  ctx.shared.modelRetryWaitMs = spent + delay;
  return delay;
}

/** The event a run records for a retry: no content, the reason and wait in `customMetadata`. */
export function modelRetryEvent(
  ctx: InvocationContext,
  error: unknown,
  attempt: number,
  delayMs: number,
): Event {
  const status = isApiCallError(error) ? error.status : undefined;
  return createEvent({
    invocationId: ctx.invocationId,
    author: ctx.agent.name,
    ...(ctx.branch ? { branch: ctx.branch } : {}),
    customMetadata: {
      [MODEL_RETRY_METADATA_KEY]: {
        attempt,
        delayMs,
        ...(status !== undefined ? { status } : {}),
        message: error instanceof Error ? error.message : String(error),
      },
    },
  });
}

/** Waits `ms`, or throws CancelledError as soon as the run is aborted. */
export function waitForRetry(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancelledError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
