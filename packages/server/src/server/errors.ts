import { AdkError, type AdkErrorOptions, isAdkError } from '@adk/core';

/** Error codes of the HTTP layer, besides core's (`VALIDATION`, `NOT_FOUND`, `ALREADY_EXISTS`, …). */
export type ServerErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'SHUTTING_DOWN'
  | 'NOT_READY'
  | 'APP_LOAD';

/** A request the server refuses, with the stable code that picks its HTTP status. */
export class ServerError extends AdkError {
  constructor(code: ServerErrorCode, message: string, options?: AdkErrorOptions) {
    super(code, message, options);
  }
}

/** An app module failed to load (the message names the file). Raised by app loaders. */
export class AppLoadError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('APP_LOAD', message, options);
  }
}

const STATUS: Record<string, number> = {
  BAD_REQUEST: 400,
  VALIDATION: 422,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  STALE_SESSION: 409,
  CONCURRENT_INVOCATION: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SHUTTING_DOWN: 503,
  NOT_READY: 503,
  CANCELLED: 503,
};

/**
 * The HTTP status of a thrown value: client mistakes are 4xx by their code; an app that does not
 * load is a 500 that says why (the developer needs the file name); anything else is a 500.
 */
export function statusOf(error: unknown): number {
  if (isAdkError(error)) return STATUS[error.code] ?? 500;
  return 500;
}
