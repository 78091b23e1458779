import { AdkError, type AdkErrorCode, isAdkError } from '../errors/errors.js';

/** Why an API call failed. */
export type ApiCallFailure =
  /** The server answered with a non-2xx status. */
  | 'http'
  /** The connection failed or dropped (reset, refused, closed mid-stream). */
  | 'network'
  /** A connect, headers or body timeout expired. */
  | 'timeout'
  /** The server answered 2xx but the body (or a stream line) was not what the API promises. */
  | 'invalid-response';

export interface ApiCallErrorOptions {
  url: string;
  failure: ApiCallFailure;
  status?: number;
  /** The vendor's own error message, when the body carried one. */
  vendorMessage?: string;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  /** Overrides the default classification (408/409/429/5xx and network/timeouts are retryable). */
  isRetryable?: boolean;
  /** How long the server asked us to wait (Retry-After, retry-after-ms, Gemini RetryInfo). */
  retryAfterMs?: number;
  cause?: unknown;
  code?: AdkErrorCode;
}

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status) || status >= 500;
}

/**
 * A failed call to a vendor API. Carries the status, the vendor's message, the response headers and
 * body (never the request headers, so API keys cannot leak through it) and whether retrying may
 * help. Identify it with {@link isApiCallError}, not `instanceof`.
 */
export class ApiCallError extends AdkError {
  readonly url: string;
  readonly failure: ApiCallFailure;
  readonly status: number | undefined;
  readonly vendorMessage: string | undefined;
  readonly responseHeaders: Record<string, string>;
  readonly responseBody: string | undefined;
  readonly isRetryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: ApiCallErrorOptions) {
    super(options.code ?? 'API_CALL', message, {
      cause: options.cause,
      details: {
        url: options.url,
        failure: options.failure,
        ...(options.status !== undefined ? { status: options.status } : {}),
      },
    });
    this.url = options.url;
    this.failure = options.failure;
    this.status = options.status;
    this.vendorMessage = options.vendorMessage;
    this.responseHeaders = options.responseHeaders ?? {};
    this.responseBody = options.responseBody;
    this.retryAfterMs = options.retryAfterMs;
    this.isRetryable =
      options.isRetryable ??
      (options.failure === 'network' ||
        options.failure === 'timeout' ||
        (options.failure === 'http' && options.status !== undefined && isRetryableStatus(options.status)));
  }
}

/** HTTP 429: the vendor's rate limit or quota. Code `RATE_LIMIT`; always retryable. */
export class RateLimitError extends ApiCallError {
  constructor(message: string, options: Omit<ApiCallErrorOptions, 'code' | 'failure'>) {
    super(message, { ...options, failure: 'http', code: 'RATE_LIMIT', isRetryable: true });
  }
}

/** True for {@link ApiCallError} and {@link RateLimitError}, across copies of @adk/core. */
export function isApiCallError(value: unknown): value is ApiCallError {
  return (
    (isAdkError(value, 'API_CALL') || isAdkError(value, 'RATE_LIMIT')) &&
    typeof (value as { isRetryable?: unknown }).isRetryable === 'boolean'
  );
}
