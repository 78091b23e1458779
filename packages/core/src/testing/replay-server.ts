// Test helper for provider packages: a local HTTP server on 127.0.0.1 that replays queued wire
// bodies (JSON or SSE, whole, chunked, dropped or hanging) and records every request it receives.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tryParseJson } from '../utils/json.js';

export interface ReplayResponse {
  status?: number;
  headers?: Record<string, string>;
  /** The whole body, sent at once. */
  body?: string;
  /** Sent one by one with a short pause, to exercise chunk splitting. */
  chunks?: string[];
  /** Destroy the socket after the chunks instead of ending the response. */
  drop?: boolean;
  /** Send headers and the chunks, then never end. */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface ReplayServer {
  url: string;
  requests: RecordedRequest[];
  enqueue(...responses: ReplayResponse[]): void;
  close(): Promise<void>;
}

export async function startReplayServer(): Promise<ReplayServer> {
  const queue: ReplayResponse[] = [];
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    req.on('end', async () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: raw ? (tryParseJson(raw) ?? raw) : undefined,
      });
      const next = queue.shift() ?? { status: 599, body: '{"error":{"message":"replay queue is empty"}}' };
      res.writeHead(next.status ?? 200, next.headers ?? { 'content-type': 'application/json' });
      if (next.body !== undefined) {
        res.end(next.body);
        return;
      }
      for (const chunk of next.chunks ?? []) {
        res.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (next.drop) res.socket?.destroy();
      else if (!next.hang) res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => queue.push(...responses),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Readers of fixture files in a folder (pass `new URL('./', import.meta.url)` from it). */
export function fixtureReader(folder: URL) {
  /** A fixture file's text. */
  const fixture = (name: string): string => readFileSync(new URL(`./${name}`, folder), 'utf8');
  return {
    fixture,
    /** A JSON response from a fixture file. */
    jsonFixture: (name: string, status = 200, headers: Record<string, string> = {}): ReplayResponse => ({
      status,
      headers: { 'content-type': 'application/json', ...headers },
      body: fixture(name),
    }),
    /** An SSE response from a fixture file, split into small chunks (also inside lines and CRLFs). */
    sseFixture: (name: string, chunkSize = 17): ReplayResponse => {
      const text = fixture(name);
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += chunkSize) chunks.push(text.slice(i, i + chunkSize));
      return { headers: { 'content-type': 'text/event-stream' }, chunks };
    },
  };
}

/** Every item of an async iterable. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** The rejection of a promise that must reject. */
export async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
