import { CancelledError, ConfigError, isAdkError } from '../errors/errors.js';
import { isPlainObject, tryParseJson } from '../utils/json.js';
import type { SchemaLike } from '../utils/zod.js';
import type { RetryConfig } from '../workflow/retry-config.js';
import { ApiCallError, RateLimitError } from './api-call-error.js';
import { redactSecrets, secretsOf } from './api-key.js';
import { cancelled, retryAfterMsFrom, withRetry } from './retry.js';
import {
  type JsonSseEvent,
  parseJsonSseBatches,
  parseJsonSseStream,
  parseSseStream,
  type SseEvent,
} from './sse.js';
import { userAgent } from './user-agent.js';

/** The shape of Node's global `fetch` (undici). Inject a fake in tests. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface HttpTimeouts {
  /**
   * Time to establish a connection. Applies through the dispatcher: Node's default pool uses 10 s;
   * pass a dispatcher from {@link createDispatcher} for another value.
   */
  connectMs?: number;
  /** Time from sending the request until the response headers arrive (default 300 s). */
  headersMs?: number;
  /** Longest silence while reading the body, e.g. between two stream events (default 300 s). */
  bodyMs?: number;
}

/** Transport settings that a model or client takes once and uses for every call. */
export interface HttpClientOptions {
  /** Defaults to the global fetch (undici, with keep-alive connection pooling). */
  fetch?: FetchFunction;
  /** An undici Dispatcher (Agent, ProxyAgent, MockAgent), passed through to fetch as `dispatcher`. */
  dispatcher?: object;
  timeouts?: HttpTimeouts;
  /** Retry policy for 408/409/429/5xx and network failures; `false` disables retries. */
  retry?: RetryConfig | false;
  /** Extra headers sent with every request (e.g. for a proxy). */
  headers?: Record<string, string | undefined>;
}

/** The transport settings of `options` (a provider's options object), without undefined values. */
export function clientOptions(options: HttpClientOptions): HttpClientOptions {
  const { fetch, dispatcher, timeouts, retry, headers } = options;
  return {
    ...(fetch ? { fetch } : {}),
    ...(dispatcher ? { dispatcher } : {}),
    ...(timeouts ? { timeouts } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(headers ? { headers } : {}),
  };
}

export interface HttpRequest extends HttpClientOptions {
  url: string;
  method?: 'POST' | 'GET' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
  /** Request headers; undefined values are dropped. Credential headers are redacted from errors. */
  requestHeaders?: Record<string, string | undefined>;
  /** Serialised as JSON when not undefined; URLSearchParams are sent as a form (OAuth2 token requests). */
  body?: unknown;
  signal?: AbortSignal;
  /** e.g. '@adk/models-gemini'; with `packageVersion`, becomes part of the User-Agent. */
  packageName?: string;
  packageVersion?: string;
  /** Used in error messages, e.g. 'Gemini API'. */
  apiName?: string;
  /** Reads the vendor's message from an error body; the default understands `{error: {message}}`. */
  extractErrorMessage?: (body: unknown) => string | undefined;
}

export interface HttpResponse<T> {
  status: number;
  headers: Record<string, string>;
  value: T;
}

export interface HttpStreamResponse<T> {
  status: number;
  headers: Record<string, string>;
  /** The events; errors while reading (drops, timeouts, malformed lines) are thrown as ApiCallError. */
  events: AsyncGenerator<T>;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 300_000;
const DEFAULT_BODY_TIMEOUT_MS = 300_000;

const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Sends a JSON request and returns the parsed (and, with `schema`, validated) JSON response. */
export async function postJson<T = unknown>(
  request: HttpRequest & { schema?: SchemaLike<T> },
): Promise<HttpResponse<T>> {
  const secrets = secretsOf(request.requestHeaders ?? {});
  return withRetry(
    async () => {
      const response = await send(request, secrets);
      const headers = headersToRecord(response.headers);
      const text = await readText(response, request, secrets);
      const parsed = tryParseJson(text);
      if (parsed === undefined) {
        throw new ApiCallError(
          redactSecrets(`${apiName(request)} returned a body that is not JSON: ${preview(text)}`, secrets),
          {
            url: redactSecrets(request.url, secrets),
            failure: 'invalid-response',
            status: response.status,
            responseHeaders: headers,
            responseBody: redactSecrets(text, secrets),
          },
        );
      }
      let value = parsed as T;
      if (request.schema) {
        const result = request.schema.safeParse(parsed);
        if (!result.success) {
          throw new ApiCallError(
            `${apiName(request)} returned an unexpected response: ${result.error.issues
              .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
              .join('; ')}`,
            {
              url: redactSecrets(request.url, secrets),
              failure: 'invalid-response',
              status: response.status,
              responseHeaders: headers,
              responseBody: redactSecrets(text, secrets),
              cause: result.error,
            },
          );
        }
        value = result.data;
      }
      return { status: response.status, headers, value };
    },
    { ...(request.retry === false ? { maxRetries: 0 } : request.retry), ...signalOf(request) },
  );
}

/** Sends a request expecting `text/event-stream`; returns the body as bytes (with body timeouts). */
async function openStream(
  request: HttpRequest,
): Promise<{ status: number; headers: Record<string, string>; body: AsyncIterable<Uint8Array> }> {
  const secrets = secretsOf(request.requestHeaders ?? {});
  const response = await withRetry(() => send(request, secrets, 'text/event-stream'), {
    ...(request.retry === false ? { maxRetries: 0 } : request.retry),
    ...signalOf(request),
  });
  const headers = headersToRecord(response.headers);
  const body = response.body;
  if (!body) {
    throw new ApiCallError(`${apiName(request)} returned an empty stream`, {
      url: redactSecrets(request.url, secrets),
      failure: 'invalid-response',
      status: response.status,
      responseHeaders: headers,
    });
  }
  return { status: response.status, headers, body: readBody(body, request, secrets) };
}

/**
 * Sends a JSON request whose response is `text/event-stream` and returns its events. Retries apply
 * to obtaining the response (status and headers); once events flow, a failure is thrown as is.
 */
export async function postStream(request: HttpRequest): Promise<HttpStreamResponse<SseEvent>> {
  const { body, ...response } = await openStream(request);
  return { ...response, events: parseSseStream(body) };
}

/**
 * {@link postJsonStream} yielding the events of each network chunk as one array (fewer async steps
 * on long streams; see `parseJsonSseBatches`).
 */
export async function postJsonStreamBatches<T = unknown>(
  request: HttpRequest & { schema?: SchemaLike<T> },
): Promise<HttpStreamResponse<JsonSseEvent<T>[]>> {
  const { body, ...response } = await openStream(request);
  const url = redactSecrets(request.url, secretsOf(request.requestHeaders ?? {}));
  return {
    ...response,
    events: parseJsonSseBatches<T>(body, request.schema ? { url, schema: request.schema } : { url }),
  };
}

/** {@link postStream} with each event's data parsed as JSON (validated by `schema`), ending at `[DONE]`. */
export async function postJsonStream<T = unknown>(
  request: HttpRequest & { schema?: SchemaLike<T> },
): Promise<HttpStreamResponse<JsonSseEvent<T>>> {
  const { body, ...response } = await openStream(request);
  const url = redactSecrets(request.url, secretsOf(request.requestHeaders ?? {}));
  return {
    ...response,
    events: parseJsonSseStream<T>(body, request.schema ? { url, schema: request.schema } : { url }),
  };
}

/**
 * Sends one request (no retries) and returns the response when its status is 2xx; otherwise throws
 * an {@link ApiCallError} (a {@link RateLimitError} for 429) with the vendor's message.
 */
export async function send(request: HttpRequest, secrets: string[], accept?: string): Promise<Response> {
  const fetchFn =
    request.fetch ??
    (undici && request.dispatcher && ownDispatchers.has(request.dispatcher)
      ? undici.fetch
      : globalThis.fetch);
  const headers: Record<string, string> = {};
  const addHeaders = (from: Record<string, string | undefined> | undefined) => {
    for (const [name, value] of Object.entries(from ?? {}))
      if (value !== undefined) headers[name.toLowerCase()] = value;
  };
  const form = request.body instanceof URLSearchParams;
  addHeaders({
    'content-type':
      request.body === undefined
        ? undefined
        : form
          ? 'application/x-www-form-urlencoded'
          : 'application/json',
    accept: accept ?? 'application/json',
    'user-agent': userAgent(request.packageName, request.packageVersion),
  });
  addHeaders(request.headers);
  addHeaders(request.requestHeaders);

  const timeout = new AbortController();
  const headersMs = request.timeouts?.headersMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const timer = setTimeout(
    () =>
      timeout.abort(
        new ApiCallError(
          `${apiName(request)} did not answer within ${headersMs} ms`,
          timeoutOptions(request, secrets),
        ),
      ),
    headersMs,
  );
  const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
  // `dispatcher` is undici's extension of RequestInit; typed loosely so any undici copy fits.
  const init: Record<string, unknown> = { method: request.method ?? 'POST', headers, signal };
  if (request.body !== undefined) init.body = form ? String(request.body) : JSON.stringify(request.body);
  if (request.dispatcher) init.dispatcher = request.dispatcher;

  let response: Response;
  try {
    response = await fetchFn(request.url, init as RequestInit);
  } catch (error) {
    if (request.signal?.aborted) throw cancelled(request.signal);
    if (timeout.signal.aborted) throw timeout.signal.reason;
    throw networkError(error, request, secrets, 'sending the request');
  } finally {
    clearTimeout(timer);
  }
  if (response.ok) return response;
  throw await errorFromResponse(response, request, secrets);
}

async function errorFromResponse(response: Response, request: HttpRequest, secrets: string[]) {
  const headers = headersToRecord(response.headers);
  let text = '';
  try {
    text = await readText(response, request, secrets);
  } catch {
    // The status alone still makes a useful error.
  }
  const body = tryParseJson(text);
  const vendorMessage = (request.extractErrorMessage ?? extractErrorMessage)(body);
  const statusLine = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const summary = vendorMessage ?? (text ? preview(text) : 'no body');
  const message = redactSecrets(
    `${apiName(request)} request failed with status ${statusLine}: ${summary}`,
    secrets,
  );
  const retryAfterMs = retryAfterMsFrom(headers, body);
  const options = {
    url: redactSecrets(request.url, secrets),
    status: response.status,
    responseHeaders: headers,
    responseBody: redactSecrets(text, secrets),
    ...(vendorMessage !== undefined ? { vendorMessage: redactSecrets(vendorMessage, secrets) } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
  return response.status === 429
    ? new RateLimitError(message, options)
    : new ApiCallError(message, { ...options, failure: 'http' });
}

/**
 * The message of the usual error bodies: `{error: {message, status|type}}` (Gemini, OpenAI,
 * Anthropic), `[{error: …}]` (Gemini streaming), `{message}` and `{detail}`.
 */
export function extractErrorMessage(body: unknown): string | undefined {
  const root = Array.isArray(body) ? body[0] : body;
  if (!isPlainObject(root)) return typeof root === 'string' && root ? root : undefined;
  const error = root.error;
  if (isPlainObject(error) && typeof error.message === 'string') {
    const kind =
      typeof error.status === 'string'
        ? error.status
        : typeof error.type === 'string'
          ? error.type
          : undefined;
    return kind ? `${error.message} (${kind})` : error.message;
  }
  if (typeof error === 'string') return error;
  if (typeof root.message === 'string') return root.message;
  if (typeof root.detail === 'string') return root.detail;
  return undefined;
}

async function readText(response: Response, request: HttpRequest, secrets: string[]): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of readBody(response.body, request, secrets))
    text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Reads a body, enforcing the idle timeout and turning drops into typed errors. */
async function* readBody(
  body: ReadableStream<Uint8Array>,
  request: HttpRequest,
  secrets: string[],
): AsyncGenerator<Uint8Array> {
  const idleMs = request.timeouts?.bodyMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const reader = body.getReader();
  let finished = false;
  try {
    while (true) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new ApiCallError(
                `${apiName(request)} sent nothing for ${idleMs} ms while streaming the response`,
                timeoutOptions(request, secrets),
              ),
            ),
          idleMs,
        );
      });
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await Promise.race([reader.read(), idle]);
      } catch (error) {
        if (request.signal?.aborted) throw cancelled(request.signal);
        if (isAdkError(error)) throw error;
        throw networkError(error, request, secrets, 'reading the response');
      } finally {
        clearTimeout(timer);
      }
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function networkError(error: unknown, request: HttpRequest, secrets: string[], phase: string): Error {
  if (error instanceof CancelledError) return error;
  if (isAdkError(error)) return error;
  const code = errorCode(error);
  const detail = code ?? describe(error);
  const timedOut = code !== undefined && TIMEOUT_CODES.has(code);
  return new ApiCallError(
    redactSecrets(
      `${apiName(request)} connection failed while ${phase}${phase === 'reading the response' ? ' (the connection dropped mid-response)' : ''}: ${detail}`,
      secrets,
    ),
    {
      url: redactSecrets(request.url, secrets),
      failure: timedOut ? 'timeout' : 'network',
      isRetryable: timedOut || (code !== undefined && RETRYABLE_NETWORK_CODES.has(code)),
      cause: error,
    },
  );
}

/** The system error code of a fetch failure (undici nests it in `cause`). */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && isPlainObjectLike(current); depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isPlainObjectLike(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function timeoutOptions(request: HttpRequest, secrets: string[]) {
  return { url: redactSecrets(request.url, secrets), failure: 'timeout' as const };
}

function signalOf(request: HttpRequest): { signal?: AbortSignal } {
  return request.signal ? { signal: request.signal } : {};
}

function apiName(request: HttpRequest): string {
  return request.apiName ?? 'The API';
}

export function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function preview(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** The parts of the `undici` package this layer uses (an optional peer, loaded on first use). */
interface UndiciModule {
  Agent: new (options: Record<string, unknown>) => object;
  fetch: typeof globalThis.fetch;
}

let undici: UndiciModule | undefined;
/** Dispatchers made by {@link createDispatcher}: requests through them use the same undici's fetch. */
const ownDispatchers = new WeakSet<object>();

/**
 * An undici `Agent` (a keep-alive connection pool) with the given connect timeout and pool limits;
 * pass it as `dispatcher`. Needs the `undici` package (an optional peer of `@adk/core`); requests
 * given such a dispatcher go through undici's own `fetch`, so the pool and the client always come
 * from the same undici.
 */
export async function createDispatcher(
  options: { connectMs?: number; keepAliveTimeoutMs?: number; connections?: number } = {},
): Promise<object> {
  if (!undici) {
    try {
      undici = (await import('undici')) as unknown as UndiciModule;
    } catch (cause) {
      throw new ConfigError('createDispatcher needs the `undici` package: install it next to @adk/core', {
        cause,
      });
    }
  }
  const agent = new undici.Agent({
    connect: { timeout: options.connectMs ?? 10_000 },
    ...(options.keepAliveTimeoutMs !== undefined ? { keepAliveTimeout: options.keepAliveTimeoutMs } : {}),
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
    // Our layer enforces headers and body timeouts itself, for any fetch.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  ownDispatchers.add(agent);
  return agent;
}
