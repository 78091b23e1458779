import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryRunner, LlmAgent, type LlmResponse, userContent } from '@adk/core';
import { collect, type ReplayServer, startReplayServer } from '@adk/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Claude } from './index.js';

const answer = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Hello from the cloud.' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 3, output_tokens: 4 },
};
const request = { model: '', contents: [userContent('hi')], config: {} };
const text = (responses: LlmResponse[]) => responses.at(-1)?.content?.parts[0]?.text;

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

describe('Claude on Vertex AI', () => {
  it('posts the Messages body to rawPredict / streamRawPredict with a bearer token and the Vertex version', async () => {
    const model = new Claude('claude-sonnet-4-5', {
      vertex: {
        project: 'my-proj',
        region: 'us-east5',
        accessToken: async () => 'ya29.token',
        baseURL: server.url,
      },
      retry: false,
    });
    server.enqueue({ body: JSON.stringify(answer) });
    expect(text(await collect(model.generate(request)))).toBe('Hello from the cloud.');
    const sent = server.requests.at(-1);
    expect(sent?.path).toBe(
      '/projects/my-proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5:rawPredict',
    );
    expect(sent?.headers.authorization).toBe('Bearer ya29.token');
    expect(sent?.headers['x-api-key']).toBeUndefined();
    expect(sent?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 8192 });
    expect(((sent?.body ?? {}) as Record<string, unknown>).model).toBeUndefined();

    const events = (e: Record<string, unknown>) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
    server.enqueue({
      headers: { 'content-type': 'text/event-stream' },
      chunks: [
        events({ type: 'message_start', message: { ...answer, content: [], stop_reason: null } }),
        events({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        events({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Streamed.' } }),
        events({ type: 'content_block_stop', index: 0 }),
        events({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
        events({ type: 'message_stop' }),
      ],
    });
    expect(text(await collect(model.generate(request, { stream: true })))).toBe('Streamed.');
    expect(server.requests.at(-1)?.path).toMatch(/:streamRawPredict$/);
    expect(server.requests.at(-1)?.body).toMatchObject({ stream: true });
  });
});

/** One AWS event-stream message with string headers (CRCs left zero: the reader does not need them). */
function frame(headers: Record<string, string>, payload: string): Buffer {
  const encoded = Object.entries(headers).map(([name, value]) => {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const h = Buffer.alloc(1 + n.length + 3 + v.length);
    h.writeUInt8(n.length, 0);
    n.copy(h, 1);
    h.writeUInt8(7, 1 + n.length);
    h.writeUInt16BE(v.length, 2 + n.length);
    v.copy(h, 4 + n.length);
    return h;
  });
  const head = Buffer.concat(encoded);
  const body = Buffer.from(payload);
  const total = 12 + head.length + body.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(head.length, 4);
  head.copy(out, 12);
  body.copy(out, 12 + head.length);
  return out;
}
const chunk = (event: Record<string, unknown>) =>
  frame(
    { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') }),
  );

describe('Claude on Amazon Bedrock', () => {
  let bedrock: Server;
  let url = '';
  const seen: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  const saved = { ...process.env };
  beforeAll(async () => {
    bedrock = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      req.on('end', () => {
        seen.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(raw) });
        if (req.url?.endsWith('/invoke')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
        const frames = Buffer.concat([
          chunk({ type: 'message_start', message: { ...answer, content: [], stop_reason: null } }),
          chunk({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'From ' } }),
          chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Bedrock.' } }),
          chunk({ type: 'content_block_stop', index: 0 }),
          chunk({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
          chunk({ type: 'message_stop' }),
        ]);
        // Split inside frames, as the network does.
        for (let i = 0; i < frames.length; i += 37) res.write(frames.subarray(i, i + 37));
        res.end();
      });
    });
    await new Promise<void>((resolve) => bedrock.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(bedrock.address() as AddressInfo).port}`;
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      AWS_SESSION_TOKEN: 'session-token-example',
    });
  });
  afterEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    for (const key of ['AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'])
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    await new Promise((resolve) => bedrock.close(resolve));
  });

  it('signs with SigV4 from the environment, invokes the model and reads its event stream', async () => {
    const model = new Claude('anthropic.claude-sonnet-4-5-20250929-v1:0', {
      bedrock: { baseURL: url },
      betas: ['context-1m-2025-08-07'],
      retry: false,
    });
    expect(text(await collect(model.generate(request)))).toBe('Hello from the cloud.');
    const plain = seen[0];
    expect(plain?.path).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    expect(plain?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[^,]*host[^,]*x-amz-date[^,]*, Signature=[0-9a-f]{64}$/,
    );
    expect(plain?.headers['x-amz-security-token']).toBe('session-token-example');
    expect(plain?.headers['x-amz-content-sha256'] ?? plain?.headers['x-amz-date']).toBeDefined();
    expect(plain?.body).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['context-1m-2025-08-07'],
    });
    expect(plain?.body.model).toBeUndefined();
    expect(plain?.body.stream).toBeUndefined();

    const streamed = await collect(model.generate(request, { stream: true }));
    expect(seen[1]?.path).toMatch(/\/invoke-with-response-stream$/);
    expect(streamed.filter((r) => r.partial).map((r) => r.content?.parts[0]?.text)).toEqual([
      'From ',
      'Bedrock.',
    ]);
    expect(text(streamed)).toBe('From Bedrock.');
  });
});

describe('staticInstruction', () => {
  it('goes first in the system prompt, as its own block with a cache breakpoint', async () => {
    const model = new Claude('claude-sonnet-4-5', { apiKey: 'k', baseURL: `${server.url}/v1`, retry: false });
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      staticInstruction: 'You answer questions about the ACME handbook. (static)',
      instruction: 'The user is {name?}.',
    });
    server.enqueue({ body: JSON.stringify(answer) });
    const runner = new InMemoryRunner({ agent });
    for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') })) {
    }
    const body = (server.requests.at(-1)?.body ?? {}) as {
      system: { text: string; cache_control?: unknown }[];
      messages: { role: string; content: { text?: string }[] }[];
    };
    const system = body.system;
    expect(system[0]).toEqual({
      type: 'text',
      text: 'You answer questions about the ACME handbook. (static)',
      cache_control: { type: 'ephemeral' },
    });
    expect(system[1]?.text).toBe('You are an agent. Your internal name is "assistant".');
    expect(system[1]?.cache_control).toBeUndefined();
    // Beside a static instruction the templated one travels as a user turn (as ADK sends it).
    expect(JSON.stringify(body.messages[0])).toContain('The user is .');
  });
});
