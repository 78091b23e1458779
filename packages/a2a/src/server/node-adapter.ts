import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import {
  type EventTextSource,
  knownEventSource,
  knownResponseBody,
  rememberRequest,
} from './known-bodies.js';

export type FetchHandler = (request: Request) => Promise<Response>;

/** Bodies up to this size, with a Content-Length, are read whole: cheaper than a web stream. */
const SMALL_BODY_BYTES = 64 * 1024;

function readSmallBody(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= length) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function toRequest(req: IncomingMessage, signal: AbortSignal): Promise<Request> {
  const host = req.headers.host ?? 'localhost';
  const url = new URL(req.url ?? '/', `http://${host}`);
  // A plain record is cheaper for Request to take than a Headers object; repeated headers (arrays)
  // go through Headers.append as before.
  let headers: Headers | Record<string, string> = {};
  for (const key in req.headers) {
    const value = req.headers[key];
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      headers = toHeaders(req);
      break;
    }
    headers[key] = value;
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const length = Number(req.headers['content-length']);
  let body: RequestInit['body'] | undefined;
  let small: Buffer | undefined;
  if (hasBody) {
    if (Number.isInteger(length) && length >= 0 && length <= SMALL_BODY_BYTES) {
      small = await readSmallBody(req, length);
      body = small;
    } else body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
  }
  const request = new Request(url, {
    method: req.method ?? 'GET',
    headers,
    signal,
    ...(body === undefined ? {} : { body, duplex: 'half' }),
  } as RequestInit);
  rememberRequest(request, url, small);
  return request;
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  return headers;
}

const CONNECTION_CLOSED = new Error('The client closed the connection');

/** Adapts a Fetch-API handler to Node's `(req, res)` listener (http.createServer, Express, ...). */
export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const abort = new AbortController();
    // Only a connection closed before the response finished cancels the request (and a shared
    // reason avoids building a DOMException per request).
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(CONNECTION_CLOSED);
    });
    void (async () => {
      let response: Response;
      try {
        response = await handler(await toRequest(req, abort.signal));
      } catch {
        response = new Response('Internal error', { status: 500 });
      }
      const headers: Record<string, string | string[]> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      // A body this package built from text: one write with a Content-Length, no stream to pump.
      const text = knownResponseBody(response);
      if (text !== undefined) {
        headers['content-length'] = String(Buffer.byteLength(text));
        res.writeHead(response.status, headers);
        res.end(text);
        return;
      }
      res.writeHead(response.status, headers);
      // An event stream this package built: its events are written as text, with no web stream between.
      const events = knownEventSource(response);
      if (events !== undefined) {
        await writeEvents(events, res, abort.signal);
        return;
      }
      if (!response.body) {
        res.end();
        return;
      }
      // An event stream's headers go out at once, so the client sees the stream open even while no
      // event is ready; when the first event is already there (this turn of the event loop), they
      // share its write.
      let flush: NodeJS.Immediate | undefined = response.headers
        .get('content-type')
        ?.startsWith('text/event-stream')
        ? setImmediate(() => res.flushHeaders())
        : undefined;
      const reader = response.body.getReader();
      abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), {
        once: true,
      });
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (flush) {
            clearImmediate(flush);
            flush = undefined;
          }
          if (done) break;
          if (!res.write(value)) await new Promise<void>((r) => res.once('drain', () => r()));
        }
      } catch {
        // client went away or the stream failed; nothing more to send
      } finally {
        if (flush) clearImmediate(flush);
        res.end();
      }
    })();
  };
}

/** Writes an event stream's text to `res` as it comes (headers as in the generic path below). */
async function writeEvents(events: EventTextSource, res: ServerResponse, signal: AbortSignal): Promise<void> {
  let flush: NodeJS.Immediate | undefined = setImmediate(() => res.flushHeaders());
  signal.addEventListener('abort', () => void events.cancel().catch(() => undefined), { once: true });
  try {
    for (;;) {
      const text = await events.next();
      if (flush) {
        clearImmediate(flush);
        flush = undefined;
      }
      if (text === undefined) break;
      if (!res.write(text)) await new Promise<void>((r) => res.once('drain', () => r()));
    }
  } catch {
    // client went away or the stream failed; nothing more to send
  } finally {
    if (flush) clearImmediate(flush);
    res.end();
  }
}

export interface ListeningServer {
  server: Server;
  /** e.g. http://127.0.0.1:43123 */
  url: string;
  close(): Promise<void>;
}

/** Starts a Node HTTP server for a Fetch-API handler. Binds 127.0.0.1 unless told otherwise. */
export async function listen(
  handler: FetchHandler,
  options: { port?: number; host?: string } = {},
): Promise<ListeningServer> {
  const server = createServer(toNodeListener(handler));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
