import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isApiCallError } from './api-call-error.js';
import { resolveApiKey } from './api-key.js';
import { createDispatcher, postJson, postJsonStream, postStream } from './client.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void;

let server: Server | undefined;
const remotePorts: number[] = [];

async function serve(handler: Handler): Promise<string> {
  let n = 0;
  server = createServer((req, res) => {
    remotePorts.push(req.socket.remotePort ?? 0);
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => handler(req, res, body, n++));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  remotePorts.length = 0;
  const current = server;
  server = undefined;
  if (!current) return;
  current.closeAllConnections();
  await new Promise((resolve) => current.close(resolve));
});

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('postJson', () => {
  it('sends JSON with a User-Agent and validates the response', async () => {
    let seen: { headers: IncomingMessage['headers']; body: string } | undefined;
    const url = await serve((req, res, body) => {
      seen = { headers: req.headers, body };
      res.setHeader('content-type', 'application/json');
      res.end('{"answer":42}');
    });
    const result = await postJson({
      url: `${url}/v1`,
      requestHeaders: { 'x-api-key': 'secret-key', 'x-skip': undefined },
      body: { q: 'a' },
      schema: z.object({ answer: z.number() }),
      packageName: '@adk/test',
      packageVersion: '1.2.3',
    });
    expect(result.value).toEqual({ answer: 42 });
    expect(JSON.parse(seen?.body ?? '')).toEqual({ q: 'a' });
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['x-api-key']).toBe('secret-key');
    expect(seen?.headers['x-skip']).toBeUndefined();
    expect(seen?.headers['user-agent']).toMatch(/^adk-ts\/\d+\.\d+\.\d+ @adk\/test\/1\.2\.3 node\/v\d+/);
  });

  it('reuses one keep-alive connection across requests', async () => {
    const url = await serve((_req, res) => res.end('{}'));
    for (let i = 0; i < 5; i++) {
      await postJson({ url, body: {} });
      // Let undici put the socket back into the pool.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(remotePorts).toHaveLength(5);
    expect(new Set(remotePorts).size).toBe(1);
  });

  it('turns a vendor error body into a readable error without leaking the key', async () => {
    const url = await serve((_req, res) => {
      res.statusCode = 401;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ error: { message: 'Incorrect API key provided: secret-key-123', type: 'auth' } }),
      );
    });
    const error = await caught(
      postJson({
        url,
        apiName: 'Test API',
        requestHeaders: { authorization: 'Bearer secret-key-123' },
        body: {},
      }),
    );
    expect(isApiCallError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'API_CALL',
      status: 401,
      isRetryable: false,
      vendorMessage: 'Incorrect API key provided: [REDACTED] (auth)',
      message:
        'Test API request failed with status 401 Unauthorized: Incorrect API key provided: [REDACTED] (auth)',
    });
    expect(JSON.stringify(error)).not.toContain('secret-key-123');
    expect((error as { responseBody: string }).responseBody).not.toContain('secret-key-123');
  });

  it('retries 429 honouring Retry-After, then 500, then succeeds', async () => {
    const times: number[] = [];
    const url = await serve((_req, res, _body, n) => {
      times.push(Date.now());
      if (n === 0) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        res.end('{"error":{"message":"slow down"}}');
      } else if (n === 1) {
        res.writeHead(500);
        res.end('boom');
      } else res.end('{"ok":true}');
    });
    const result = await postJson({ url, body: {}, retry: { initialDelayMs: 10 } });
    expect(result.value).toEqual({ ok: true });
    expect(times).toHaveLength(3);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('gives up with RateLimitError after maxRetries', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      res.writeHead(429, { 'retry-after-ms': '5' });
      res.end('{"error":{"message":"quota"}}');
    });
    const error = await caught(postJson({ url, body: {}, retry: { maxRetries: 1 } }));
    expect(error).toMatchObject({ code: 'RATE_LIMIT', status: 429, retryAfterMs: 5, isRetryable: true });
    expect(calls).toBe(2);
  });

  it('enforces the headers timeout', async () => {
    const url = await serve(() => undefined);
    const error = await caught(postJson({ url, body: {}, retry: false, timeouts: { headersMs: 100 } }));
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'timeout', isRetryable: true });
  });

  it('reports a connection refused as a retryable network error', async () => {
    const url = await serve(() => undefined);
    const current = server;
    server = undefined;
    await new Promise((resolve) => current?.close(resolve));
    const error = await caught(postJson({ url, body: {}, retry: false }));
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'network', isRetryable: true });
  });

  it('aborts with CancelledError', async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await caught(postJson({ url, body: {}, signal: controller.signal }));
    expect(error).toMatchObject({ code: 'CANCELLED' });
  });

  it('passes the dispatcher through to an injected fetch', async () => {
    const dispatcher = { marker: true };
    let init: (RequestInit & { dispatcher?: unknown }) | undefined;
    await postJson({
      url: 'http://example.invalid/',
      body: { a: 1 },
      dispatcher,
      fetch: async (_input, i) => {
        init = i;
        return new Response('{}', { status: 200 });
      },
    });
    expect(init?.dispatcher).toBe(dispatcher);
  });

  it('works with a pooled dispatcher from createDispatcher', async () => {
    const url = await serve((_req, res) => res.end('{"x":1}'));
    const dispatcher = await createDispatcher({ connectMs: 2000 });
    expect((await postJson({ url, body: {}, dispatcher })).value).toEqual({ x: 1 });
    await (dispatcher as { close(): Promise<void> }).close();
  });
});

describe('postStream', () => {
  it('streams events as they arrive and stops at [DONE]', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"i":1}\n\n');
      setTimeout(() => {
        res.write('data: {"i":2}\n\ndata: [DONE]\n\n');
        res.end();
      }, 20);
    });
    const { events } = await postJsonStream({ url, body: {}, schema: z.object({ i: z.number() }) });
    const values: number[] = [];
    for await (const e of events) values.push(e.value.i);
    expect(values).toEqual([1, 2]);
  });

  it('turns a connection dropped mid-stream into a typed error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"i":1}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { events } = await postStream({ url, body: {} });
    const seen: string[] = [];
    const error = await caught(
      (async () => {
        for await (const e of events) seen.push(e.data);
      })(),
    );
    expect(seen).toEqual(['{"i":1}']);
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'network' });
  });

  it('enforces the body idle timeout', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const { events } = await postStream({ url, body: {}, timeouts: { bodyMs: 100 } });
    const error = await caught(
      (async () => {
        for await (const _ of events) {
          // drain
        }
      })(),
    );
    expect(error).toMatchObject({ failure: 'timeout' });
  });

  it('aborts mid-stream with CancelledError', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const controller = new AbortController();
    const { events } = await postStream({ url, body: {}, signal: controller.signal });
    const error = await caught(
      (async () => {
        for await (const _ of events) controller.abort();
      })(),
    );
    expect(error).toMatchObject({ code: 'CANCELLED' });
  });
});

describe('resolveApiKey', () => {
  it('prefers the option, then the env vars in order, and names them when missing', () => {
    const env = { GOOGLE_API_KEY: 'g', GEMINI_API_KEY: '' };
    expect(resolveApiKey({ apiKey: 'o', envVars: ['GEMINI_API_KEY'], description: 'x', env })).toBe('o');
    expect(resolveApiKey({ envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], description: 'x', env })).toBe('g');
    expect(() => resolveApiKey({ envVars: ['NOPE_KEY'], description: 'Nope API', env })).toThrow(
      'Nope API key is missing. Pass it as the `apiKey` option or set `NOPE_KEY`.',
    );
  });
});
