import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2aServer } from './a2a-server.js';
import type { AgentUpdate } from './agent-executor.js';
import { type ListeningServer, listen } from './node-adapter.js';

// The adapter's shortcuts (JSON replies written whole, request bytes handed over, event streams
// written as text) must not be observable, except as one Content-Length framed write per reply.

let release: () => void = () => undefined;
const server = createA2aServer({
  card: { name: 'adapter', description: 'node adapter fixture' },
  executor: {
    async *execute(context): AsyncIterable<AgentUpdate> {
      const text = context.message.parts[0]?.text ?? '';
      if (text === 'slow') await new Promise<void>((r) => (release = r));
      yield { kind: 'artifact', artifact: { artifactId: 'a', parts: [{ text: `echo: ${text}` }] } };
    },
  },
});

const servers: ListeningServer[] = [];
let direct = '';
let rewrapped = '';
let readFirst = '';

beforeAll(async () => {
  const start = async (handler: (request: Request) => Promise<Response>) => {
    const s = await listen(handler);
    servers.push(s);
    return s.url;
  };
  direct = await start((request) => server.fetch(request));
  // A wrapper that rebuilds the request and re-wraps the response, as middleware may.
  rewrapped = await start(async (request) => {
    const response = await server.fetch(new Request(request));
    return new Response(response.body, response);
  });
  // A wrapper that reads the response body before passing a copy on.
  readFirst = await start(async (request) => {
    const response = await server.fetch(request);
    const text = await response.text();
    return new Response(text, response);
  });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await server.close();
});

function rpc(method: string, text: string, id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Milliseconds from sending to the response headers. */
  headersAfterMs: number;
}

function post(url: string, body: string, accept = 'application/json'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept, 'a2a-version': '1.0' } },
      (res) => {
        const headersAfterMs = performance.now() - started;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, headersAfterMs }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const dataOf = (sse: string) =>
  sse
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as { result: Record<string, unknown> });

describe('toNodeListener / listen', () => {
  it('sends a JSON reply with its Content-Length, the same behind wrappers', async () => {
    const bodies: unknown[] = [];
    for (const url of [direct, rewrapped, readFirst]) {
      const reply = await post(url, rpc('SendMessage', 'héllo'));
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json');
      if (url === direct) expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.body)));
      const json = JSON.parse(reply.body) as {
        result: { task: { status: { state: string }; artifacts: unknown } };
      };
      expect(json.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      bodies.push(json.result.task.artifacts);
    }
    expect(bodies).toEqual([
      [{ artifactId: 'a', parts: [{ text: 'echo: héllo' }] }],
      [{ artifactId: 'a', parts: [{ text: 'echo: héllo' }] }],
      [{ artifactId: 'a', parts: [{ text: 'echo: héllo' }] }],
    ]);
  });

  it('answers a malformed body the same way directly and behind a wrapper', async () => {
    const direct1 = await post(direct, '{"jsonrpc": "2.0",');
    const wrapped = await post(rewrapped, '{"jsonrpc": "2.0",');
    expect(JSON.parse(direct1.body)).toEqual(JSON.parse(wrapped.body));
    expect((JSON.parse(direct1.body) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('streams the same events directly and behind wrappers', async () => {
    const kinds: string[][] = [];
    for (const url of [direct, rewrapped, readFirst]) {
      const reply = await post(url, rpc('SendStreamingMessage', 'x', 2), 'text/event-stream');
      expect(reply.headers['content-type']).toBe('text/event-stream');
      kinds.push(dataOf(reply.body).map((e) => Object.keys(e.result)[0] ?? ''));
    }
    const expected = ['task', 'artifactUpdate', 'statusUpdate'];
    expect(kinds).toEqual([expected, expected, expected]);
  });

  it('sends an event stream’s headers before its first event is ready', async () => {
    const pending = post(direct, rpc('SendStreamingMessage', 'slow', 3), 'text/event-stream');
    // The task event comes at once; hold the agent so the stream stays open.
    const reply = await Promise.race([
      pending.then(() => 'ended' as const),
      new Promise<'open'>((r) => setTimeout(() => r('open'), 100)),
    ]);
    expect(reply).toBe('open');
    release();
    const done = await pending;
    expect(done.headersAfterMs).toBeLessThan(100);
    expect(dataOf(done.body).at(-1)?.result).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });
});
