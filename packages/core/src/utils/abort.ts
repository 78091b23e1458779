import { CancelledError } from '../errors/errors.js';

/**
 * Throws a `CancelledError` (code `CANCELLED`, the signal's reason as its cause) when `signal` has
 * aborted: what a store calls before and between the steps of one call.
 */
export function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('The storage call was aborted', { cause: signal.reason });
}

/**
 * Resolves after `ms`, or rejects with the signal's reason as soon as it aborts (at once when it
 * already has). The abort listener never outlives the wait.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves after `ms`, or as soon as `signal` aborts: a wait that an abort cuts short, not fails. */
export function delayUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return delay(ms, signal).catch(() => undefined);
}
