/**
 * What this package already holds about a Request or Response it built itself: the request's
 * parsed URL and body bytes, a response's body text or event source. Our Node adapter and our
 * handler use them to skip web-stream round trips and repeated parses. The Request / Response
 * still carries the same body as a stream for any other consumer; a body shortcut is only taken
 * while that stream is untouched (`bodyUsed` false), so a wrapper that read, cloned or replaced it
 * is served through the stream as before.
 */
interface RequestFacts {
  /** The adapter's parse of the URL it built the request from (equal to `request.url`); never mutated. */
  url: URL;
  /** The body bytes, when the adapter read them whole. */
  body: Uint8Array | undefined;
}

const requests = new WeakMap<Request, RequestFacts>();
const responseBodies = new WeakMap<Response, string>();

export function rememberRequest(request: Request, url: URL, body: Uint8Array | undefined): void {
  requests.set(request, { url, body });
}

/** `request.url` parsed: the adapter's own parse when it built the request, else a new one. */
export function requestUrlOf(request: Request): URL {
  return requests.get(request)?.url ?? new URL(request.url);
}

/** The bytes `request` was built from by our adapter, if its body stream was never read. */
export function knownRequestBody(request: Request): Uint8Array | undefined {
  const body = requests.get(request)?.body;
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
