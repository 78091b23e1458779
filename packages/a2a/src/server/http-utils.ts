import { A2aError } from '../protocol/errors.js';
import {
  type EventTextSource,
  knownRequestBody,
  rememberEventSource,
  rememberResponseBody,
} from './known-bodies.js';

export const A2A_VERSION_HEADER = 'A2A-Version';
export const A2A_JSON = 'application/a2a+json';

const utf8 = new TextDecoder();

/** Reads a request body as text, refusing bodies over `limit` bytes without buffering them. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) {
    throw new A2aError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
  }
  // Built by our Node adapter from bytes it had already read: decode them, skip the stream.
  const known = knownRequestBody(request);
  if (known !== undefined) {
    if (known.byteLength > limit)
      throw new A2aError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
    return utf8.decode(known);
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw new A2aError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  return utf8.decode(Buffer.concat(chunks));
}

/** JSON.parse that reports failure instead of throwing. */
export function safeParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  const response = new Response(text, {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
  rememberResponseBody(response, text);
  return response;
}

export interface SseEvent {
  event?: string;
  data: unknown;
}

/**
 * An SSE response over an async iterable. Events are written as they come; when the client goes
 * away the iterable is closed so the producer stops waiting.
 */
export function sseResponse(events: AsyncIterable<SseEvent>, headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  const source: EventTextSource = {
    async next() {
      const next = await iterator.next();
      if (next.done) return undefined;
      const { event, data } = next.value;
      return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
    },
    async cancel() {
      await iterator.return?.();
    },
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const text = await source.next();
          if (text === undefined) controller.close();
          else controller.enqueue(encoder.encode(text));
        } catch (error) {
          controller.error(error);
        }
      },
      cancel: () => source.cancel(),
    },
    // Pulled only when read: our Node adapter may read `source` directly instead (see known-bodies).
    { highWaterMark: 0 },
  );
  const response = new Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      ...headers,
    },
  });
  rememberEventSource(response, source);
  return response;
}

/** `Major.Minor` of a version string ("1.0.2" → "1.0"), or undefined when empty. */
export function requestedVersion(request: Request, url: URL): string | undefined {
  const raw = request.headers.get(A2A_VERSION_HEADER) ?? url.searchParams.get(A2A_VERSION_HEADER) ?? '';
  const trimmed = raw.trim();
  if (!trimmed) return undefined;
  const m = /^v?(\d+)\.(\d+)/.exec(trimmed);
  return m ? `${m[1]}.${m[2]}` : trimmed;
}
