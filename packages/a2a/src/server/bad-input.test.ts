import { describe, expect, it } from 'vitest';
import { defineAgent, reply } from '../agent/define-agent.js';
import { apiKeyAuth } from './auth.js';

// Requirement ids follow the TCK (tests/mandatory/jsonrpc/test_json_rpc_compliance.py, §9.5, §3.6.2).

const agent = defineAgent({
  name: 'fixture',
  description: 'TCK fixture',
  handleMessage: (m) => reply(`ok ${m.messageId}`),
});
const server = agent.server({ maxBodyBytes: 4096, url: 'http://agent.test' });
const rpc = (body: string, headers: Record<string, string> = {}) =>
  server.fetch(
    new Request('http://agent.test/', {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', ...headers },
    }),
  );
const send = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'test-message-id-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
});

describe('JSON-RPC bad input (server keeps serving)', () => {
  it.each([
    ['JSON-RPC §4.2 malformed JSON → -32700', '{"jsonrpc": "2.0", "method": "SendMessage"', -32700],
    ['§4.1 wrong jsonrpc → -32600', '{"jsonrpc":"aaa","method":"SendMessage","params":{}}', -32600],
    ['§4.1 missing method → -32600', '{"jsonrpc":"2.0","params":{}}', -32600],
    [
      '§4.1 object id → -32600',
      '{"jsonrpc":"2.0","method":"SendMessage","params":{},"id":{"bad":"type"}}',
      -32600,
    ],
    [
      '§4.3 unknown method → -32601',
      '{"jsonrpc":"2.0","method":"SendMessageXXX","id":"3","params":{}}',
      -32601,
    ],
    [
      '§4.3 invalid params → -32602',
      '{"jsonrpc":"2.0","method":"SendMessage","id":"4","params":{"":"x"}}',
      -32602,
    ],
    [
      '§9.5 wrong part type → -32602',
      '{"jsonrpc":"2.0","method":"SendMessage","id":5,"params":{"message":{"parts":"invalid"}}}',
      -32602,
    ],
    [
      '§3.1.3 unknown task → -32001',
      '{"jsonrpc":"2.0","method":"GetTask","id":6,"params":{"id":"nope"}}',
      -32001,
    ],
  ])('%s', async (_name, body, code) => {
    const response = await rpc(body);
    expect(response.status).toBe(200);
    const json = (await response.json()) as { error: { code: number } };
    expect(json.error.code).toBe(code);
    const ok = (await (await rpc(send)).json()) as { result: { task: { status: { state: string } } } };
    expect(ok.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('§3.6.2 unsupported A2A-Version → -32009 with typed details', async () => {
    const json = (await (await rpc(send, { 'A2A-Version': '0.5' })).json()) as {
      error: { code: number; data: { reason: string }[] };
    };
    expect(json.error.code).toBe(-32009);
    expect(json.error.data[0]?.reason).toBe('VERSION_NOT_SUPPORTED');
  });

  it('a 0.3 method under A2A-Version: 1.0 is not found', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} });
    const json = (await (await rpc(body, { 'A2A-Version': '1.0' })).json()) as { error: { code: number } };
    expect(json.error.code).toBe(-32601);
  });

  it('huge bodies are refused with 413 and the server keeps serving', async () => {
    const response = await rpc(JSON.stringify({ pad: 'x'.repeat(10_000) }));
    expect(response.status).toBe(413);
    expect((await rpc(send)).status).toBe(200);
  });

  it('REST errors are google.rpc.Status with ErrorInfo', async () => {
    const response = await server.fetch(
      new Request('http://agent.test/tasks/missing', { headers: { 'A2A-Version': '1.0' } }),
    );
    expect(response.status).toBe(404);
    const body = (await response.json()) as {
      error: { status: string; details: { reason: string; domain: string }[] };
    };
    expect(body.error.status).toBe('NOT_FOUND');
    expect(body.error.details[0]).toMatchObject({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' });
  });

  it('agent card: shaped per version, ETag and 304', async () => {
    const v1 = await server.fetch(
      new Request('http://agent.test/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } }),
    );
    const card = (await v1.json()) as { supportedInterfaces: unknown[]; url?: string };
    expect(card.supportedInterfaces.length).toBeGreaterThan(0);
    expect(card.url).toBeUndefined();
    const legacy = (await (
      await server.fetch(new Request('http://agent.test/.well-known/agent.json'))
    ).json()) as { protocolVersion: string };
    expect(legacy.protocolVersion).toBe('0.3.0');
    const etag = v1.headers.get('etag') ?? '';
    const again = await server.fetch(
      new Request('http://agent.test/.well-known/agent-card.json', {
        headers: { 'A2A-Version': '1.0', 'If-None-Match': etag },
      }),
    );
    expect(again.status).toBe(304);
  });
});

describe('authentication and per-caller isolation', () => {
  const secured = agent.server({
    url: 'http://agent.test',
    auth: apiKeyAuth({ keys: { k1: 'alice', k2: 'bob' } }),
  });
  const call = (key: string | undefined, body: string) =>
    secured.fetch(
      new Request('http://agent.test/', {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) },
      }),
    );

  it('refuses missing keys with 401 and hides other callers tasks', async () => {
    expect((await call(undefined, send)).status).toBe(401);
    const mine = (await (await call('k1', send)).json()) as { result: { task: { id: string } } };
    const id = mine.result.task.id;
    const get = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id } });
    expect(((await (await call('k1', get)).json()) as { result: { id: string } }).result.id).toBe(id);
    expect(((await (await call('k2', get)).json()) as { error: { code: number } }).error.code).toBe(-32001);
  });
});
