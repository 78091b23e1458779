import { AdkError, type AdkErrorOptions } from '@adk/core';

/** A server frame that is not the vendor's wire format (not JSON, or the wrong shape). */
export class LiveProtocolError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('LIVE_PROTOCOL', message, options);
  }
}
