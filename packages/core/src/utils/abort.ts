import { CancelledError } from '../errors/errors.js';

/**
 * Throws a `CancelledError` (code `CANCELLED`, the signal's reason as its cause) when `signal` has
 * aborted: what a store calls before and between the steps of one call.
 */
export function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('The storage call was aborted', { cause: signal.reason });
}
