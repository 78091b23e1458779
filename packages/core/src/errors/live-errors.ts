/**
 * Errors of live connections, apart from `errors.ts` so that an app without live sessions does not
 * load them (exported from the package root like every error).
 */
import { AdkError, type AdkErrorOptions } from './errors.js';

/** WebSocket close codes after which a live session is reconnected: abnormal closure, server error, service restart. */
export const RECOVERABLE_LIVE_CLOSE_CODES: readonly number[] = [1006, 1011, 1012];

/**
 * A live connection closed abnormally (thrown from `LlmConnection.receive()` or a send). `closeCode`
 * is the WebSocket close code; `recoverable` says whether the live flow reconnects (by default for
 * 1006, 1011 and 1012).
 */
export class LiveConnectionClosedError extends AdkError {
  readonly closeCode: number;
  readonly reason: string | undefined;
  readonly recoverable: boolean;

  constructor(closeCode: number, reason?: string, options: AdkErrorOptions & { recoverable?: boolean } = {}) {
    super(
      'LIVE_CONNECTION_CLOSED',
      `The live connection closed with code ${closeCode}${reason ? `: ${reason}` : ''}`,
      { ...options, details: { closeCode, ...(reason ? { reason } : {}), ...options.details } },
    );
    this.closeCode = closeCode;
    this.reason = reason;
    this.recoverable = options.recoverable ?? RECOVERABLE_LIVE_CLOSE_CODES.includes(closeCode);
  }
}
