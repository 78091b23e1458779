import { AdkError, type AdkErrorOptions } from '@adk/core';

/** Close codes after which a live session can be reconnected: abnormal closure, server error, restart. */
const RECOVERABLE_CLOSE_CODES: readonly number[] = [1006, 1011, 1012];

/**
 * The live connection closed abnormally; `closeCode` is the WebSocket close code and `recoverable`
 * says whether reconnecting makes sense (1006, 1011, 1012). Identified across packages by its
 * stable code `LIVE_CONNECTION_CLOSED`.
 */
export class LiveConnectionClosedError extends AdkError {
  readonly closeCode: number;
  readonly reason: string | undefined;
  readonly recoverable: boolean;

  constructor(closeCode: number, reason?: string, options: AdkErrorOptions = {}) {
    super(
      'LIVE_CONNECTION_CLOSED',
      `The live connection closed with code ${closeCode}${reason ? `: ${reason}` : ''}`,
      { ...options, details: { closeCode, ...(reason ? { reason } : {}), ...options.details } },
    );
    this.closeCode = closeCode;
    this.reason = reason;
    this.recoverable = RECOVERABLE_CLOSE_CODES.includes(closeCode);
  }
}

/** A server frame that is not the vendor's wire format (not JSON, or the wrong shape). */
export class LiveProtocolError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('LIVE_PROTOCOL', message, options);
  }
}
