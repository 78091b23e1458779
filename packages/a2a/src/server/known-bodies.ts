/**
 * Bodies this package already holds as bytes or text, keyed by the Request or Response that carries
 * them, so that our own Node adapter and our own handler can skip a web-stream round trip. The
 * Request / Response still carries the same body as a stream for any other consumer; the shortcut
 * is only taken while that stream is untouched (`bodyUsed` false), so a wrapper that read, cloned
 * or replaced it is served through the stream as before.
 */
const requestBodies = new WeakMap<Request, Uint8Array>();
const requestUrls = new WeakMap<Request, URL>();

/** Our adapter's parse of the URL it built `request` from (equal to `request.url`); never mutated. */
export function rememberRequestUrl(request: Request, url: URL): void {
  requestUrls.set(request, url);
}

/** `request.url` parsed: the adapter's own parse when it built the request, else a new one. */
export function requestUrlOf(request: Request): URL {
  return requestUrls.get(request) ?? new URL(request.url);
}
const responseBodies = new WeakMap<Response, string>();

export function rememberRequestBody(request: Request, body: Uint8Array): void {
  requestBodies.set(request, body);
}

/** The bytes `request` was built from by our adapter, if its body stream was never read. */
export function knownRequestBody(request: Request): Uint8Array | undefined {
  const body = requestBodies.get(request);
  return body !== undefined && !request.bodyUsed ? body : undefined;
}

export function rememberResponseBody(response: Response, body: string): void {
  responseBodies.set(response, body);
}

/** The text `response` was built from by this package, if its body stream was never read. */
export function knownResponseBody(response: Response): string | undefined {
  const body = responseBodies.get(response);
  return body !== undefined && !response.bodyUsed ? body : undefined;
}

/** The events of an SSE response as text, one `event:`/`data:` block per call; undefined at the end. */
export interface EventTextSource {
  next(): Promise<string | undefined>;
  cancel(): Promise<void>;
}

const eventSources = new WeakMap<Response, EventTextSource>();

export function rememberEventSource(response: Response, source: EventTextSource): void {
  eventSources.set(response, source);
}

/** The event source `response` streams, if its body stream was never read. */
export function knownEventSource(response: Response): EventTextSource | undefined {
  const source = eventSources.get(response);
  return source !== undefined && !response.bodyUsed ? source : undefined;
}
