/**
 * `@adk/core/http` — the one HTTP layer that every model provider and the A2A client use.
 * Node's built-in fetch (undici) with keep-alive pooling; no vendor SDKs.
 *
 * Requests
 * - `postJsonStreamBatches(request)`: like `postJsonStream`, one array of events per network chunk.
 * - `postJson({ url, requestHeaders, body, schema?, signal?, fetch?, dispatcher?, timeouts?, retry?,
 *   apiName?, packageName?, packageVersion? })` → `{ status, headers, value }`. JSON in, JSON out,
 *   validated with a zod `schema` when given. Retries 408/409/429/5xx and network resets.
 * - `postStream(request)` → `{ status, headers, events: AsyncGenerator<SseEvent> }` for
 *   `text/event-stream` responses; retries only until the response starts.
 * - `postJsonStream(request & { schema? })` → events with `value` parsed (and validated) from
 *   each event's data, ending at `[DONE]`.
 * - `send(request, secrets, accept?)` — one attempt, non-2xx thrown as ApiCallError; the building block.
 * - `createDispatcher({ connectMs, keepAliveTimeoutMs, connections })` — a keep-alive pool (undici
 *   Agent) with a connect timeout, to pass as `dispatcher`.
 * - `HttpClientOptions` (fetch, dispatcher, timeouts {connectMs, headersMs, bodyMs}, retry, headers):
 *   what a provider accepts once and forwards on every call; `clientOptions(options)` picks them
 *   out of a provider's options object.
 *
 * Server-sent events
 * - `parseSseStream(ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>)` → `AsyncGenerator<SseEvent>`
 * - `parseJsonSseStream(bytes, { url, schema? })` — bytes → SSE → JSON in one loop (the hot path).
 *   (`{ event?, data, id?, retry? }`): split chunks, multi-line data, comments, CR/LF/CRLF, BOM.
 * - `SseParser` — the incremental parser behind it (`feed(text) → SseEvent[]`).
 * - `flattenBatches(batches)` — an async generator of arrays read as one of items, with one
 *   resumption of `batches` per array: a provider's `generate` over `postJsonStreamBatches`.
 * - `parseJsonEventStream(events, { url, schema? })` — JSON per event, stops at `[DONE]`; a malformed
 *   line becomes an ApiCallError (failure 'invalid-response').
 *
 * Errors
 * - `ApiCallError` (code 'API_CALL'): `url`, `failure` ('http' | 'network' | 'timeout' |
 *   'invalid-response'), `status`, `vendorMessage`, `responseHeaders`, `responseBody`,
 *   `isRetryable`, `retryAfterMs`. `RateLimitError` (code 'RATE_LIMIT') for 429.
 *   `isApiCallError(e)` identifies both across package copies. `extractErrorMessage(body)` reads the
 *   usual vendor error bodies. Request headers are never stored; credentials are redacted.
 * - Aborting through `signal` throws core's `CancelledError` (code 'CANCELLED').
 *
 * Retries
 * - `withRetry(fn, { maxAttempts, initialDelayMs, maxDelayMs, backoffFactor, maxRetryAfterMs,
 *   random, onRetry, signal })`, `retryDelayMs(error, attempt, options)`: exponential backoff with
 *   jitter; a server's `retry-after-ms`/`Retry-After`/Gemini `RetryInfo` wins. The options are the
 *   core's one `RetryConfig` (`RetryOptions` is its deprecated alias; `maxRetries` a deprecated field).
 * - `retryAfterMsFrom(headers, body)`, `retryInfoDelayMs(body)`, `sleep(ms, signal)`.
 *
 * Keys and identity
 * - `resolveApiKey({ apiKey, envVars, description })` — option, else env var, else ConfigError
 *   naming the variables. `loadSetting(value, envVars)` for non-secret settings (base URLs).
 * - `redactSecrets(text, secrets)`, `secretsOf(headers)`.
 * - `userAgent(packageName?, version?)`, `packageVersion(new URL('../package.json', import.meta.url))`.
 */

export type { RetryConfig } from '../workflow/retry-config.js';
export * from './api-call-error.js';
export * from './api-key.js';
export * from './batched-stream.js';
export * from './client.js';
export * from './retry.js';
export * from './sse.js';
export * from './user-agent.js';
