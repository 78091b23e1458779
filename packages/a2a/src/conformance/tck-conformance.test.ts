/**
 * Conformance with the A2A 1.0 TCK (a2aproject/a2a-tck, branch 1.0-dev): one test per TCK
 * requirement id, driven over JSON-RPC and REST against the TCK fixture agent, which follows the
 * TCK's scripted messageId prefixes. The real TCK can be pointed at `serveTckFixture()`.
 */
import { randomUUID } from 'node:crypto';
import { tryParseJson } from '@adk/core';
import { parseSseStream } from '@adk/core/http';
import { afterAll, describe, expect, it } from 'vitest';
import { type A2aServerOptions, createA2aServer } from '../server/a2a-server.js';
import { apiKeyAuth } from '../server/auth.js';
import { type ListeningServer, listen } from '../server/node-adapter.js';
import { tckFixtureAgent } from '../testing/tck-fixture-agent.js';

const BASE = 'http://agent.test';
const fixture = tckFixtureAgent({ resubscribeHoldMs: 400 });
type Server = ReturnType<typeof createA2aServer>;
const servers: Server[] = [];
const listeners: ListeningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const l of listeners) await l.close();
});

function makeServer(options: Partial<Omit<A2aServerOptions, 'executor' | 'card'>> = {}): Server {
  const server = createA2aServer({
    executor: fixture.executor,
    card: fixture.card,
    url: BASE,
    pushNotifications: { allowPrivateNetworks: true, backoffMs: 5 },
    ...options,
  });
  servers.push(server);
  return server;
}
const server = makeServer();

const tck = (name: string) => `tck-${name}-${randomUUID()}`;
// biome-ignore lint/suspicious/noExplicitAny: the suite inspects raw wire JSON
type Json = any;

interface Call {
  server?: Server;
  headers?: Record<string, string>;
}

async function rpc(method: string, params: unknown, call: Call = {}): Promise<Json> {
  const response = await (call.server ?? server).fetch(
    new Request(`${BASE}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...call.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    }),
  );
  return tryParseJson(await response.text());
}

async function rpcStream(
  method: string,
  params: unknown,
  call: Call = {},
): Promise<{ type: string; items: Json[] }> {
  const response = await (call.server ?? server).fetch(
    new Request(`${BASE}/`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'A2A-Version': '1.0',
        Accept: 'text/event-stream',
        ...call.headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }),
  );
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) return { type, items: [tryParseJson(await response.text())] };
  const items: Json[] = [];
  for await (const event of parseSseStream(response.body as ReadableStream<Uint8Array>)) {
    if (event.data) items.push(tryParseJson(event.data));
  }
  return { type, items };
}

async function rest(method: string, path: string, body?: unknown, call: Call = {}) {
  const response = await (call.server ?? server).fetch(
    new Request(`${BASE}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...call.headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (tryParseJson(text) as Json) : undefined,
  };
}

const message = (messageId: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hello' }], ...extra },
});
const send = async (messageId: string, extra: Record<string, unknown> = {}, call: Call = {}, config?: Json) =>
  rpc('SendMessage', { ...message(messageId, extra), ...(config ? { configuration: config } : {}) }, call);
const errorReason = (body: Json) =>
  (body.error?.data as Json[] | undefined)?.find((d) => String(d['@type']).endsWith('ErrorInfo'))?.reason;

describe('TCK core operations', () => {
  it('CORE-SEND-001: SendMessage returns Task or Message', async () => {
    const task = await send(tck('complete-task'));
    expect(task.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.result.task.status.message.parts).toEqual([{ text: 'Hello from TCK' }]);
    const direct = await send(tck('message-response'));
    expect(direct.result.message.role).toBe('ROLE_AGENT');
    expect(direct.result.message.parts).toEqual([{ text: 'Direct message response' }]);
  });

  it('CORE-SEND-002: SendMessage rejects messages to terminal tasks', async () => {
    const done = await send(tck('complete-task'));
    const again = await send(tck('complete-task'), { taskId: done.result.task.id });
    expect(again.error.code).toBe(-32004);
    expect(errorReason(again)).toBe('UNSUPPORTED_OPERATION');
  });

  it('CORE-SEND-003: SendMessage returns ContentTypeNotSupportedError for unsupported media', async () => {
    const body = await rpc('SendMessage', {
      message: {
        messageId: tck('send-003'),
        role: 'ROLE_USER',
        parts: [{ raw: 'AAAA', mediaType: 'application/x-unsupported-tck-type' }],
      },
    });
    expect(body.error.code).toBe(-32005);
  });

  it('CORE-STREAM-001: SendStreamingMessage establishes streaming connection', async () => {
    const { type, items } = await rpcStream('SendStreamingMessage', message(tck('stream-001')));
    expect(type).toMatch(/^text\/event-stream/);
    const results = items.map((i) => i.result);
    expect(Object.keys(results[0])).toEqual(['task']);
    expect(results.find((r) => r.artifactUpdate)?.artifactUpdate.artifact.parts).toEqual([
      { text: 'Stream hello from TCK' },
    ]);
    expect(results.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('CORE-STREAM-002: Message-only stream contains exactly one Message then closes', async () => {
    const { items } = await rpcStream('SendStreamingMessage', message(tck('stream-002')));
    expect(items).toHaveLength(1);
    expect(items[0].result.message.parts).toEqual([{ text: 'Direct message response' }]);
  });

  it('CORE-STREAM-003: Task lifecycle stream begins with Task and closes at terminal state', async () => {
    const { items } = await rpcStream('SendStreamingMessage', message(tck('stream-003')));
    expect(items[0].result.task.id).toBeTruthy();
    const states = items.flatMap((i) => (i.result.statusUpdate ? [i.result.statusUpdate.status.state] : []));
    expect(states).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });

  it('CORE-GET-001: GetTask returns current task state', async () => {
    const sent = await send(tck('input-required'));
    const got = await rpc('GetTask', { id: sent.result.task.id });
    expect(got.result.id).toBe(sent.result.task.id);
    expect(got.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('CORE-GET-002: GetTask returns TaskNotFoundError for invalid task ID', async () => {
    const got = await rpc('GetTask', { id: `missing-${randomUUID()}` });
    expect(got.error.code).toBe(-32001);
    expect(errorReason(got)).toBe('TASK_NOT_FOUND');
  });

  describe('ListTasks', () => {
    const contextId = `list-${randomUUID()}`;
    const seed = async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await send(tck('artifact-text'), { contextId })).result.task.id);
        await new Promise((r) => setTimeout(r, 5));
      }
      return ids;
    };
    let seeded: Promise<string[]> | undefined;
    const ids = () => {
      seeded ??= seed();
      return seeded;
    };

    it('CORE-LIST-001: ListTasks returns only authorized tasks', async () => {
      const guarded = makeServer({ auth: apiKeyAuth({ keys: { 'key-a': 'alice', 'key-b': 'bob' } }) });
      const alice = { server: guarded, headers: { 'X-API-Key': 'key-a' } };
      const bob = { server: guarded, headers: { 'X-API-Key': 'key-b' } };
      const mine = await send(tck('complete-task'), {}, alice);
      const bobs = await rpc('ListTasks', {}, bob);
      expect(bobs.result.tasks.map((t: Json) => t.id)).not.toContain(mine.result.task.id);
      const alices = await rpc('ListTasks', {}, alice);
      expect(alices.result.tasks.map((t: Json) => t.id)).toContain(mine.result.task.id);
    });

    it('CORE-LIST-002: ListTasks uses cursor-based pagination', async () => {
      const all = await ids();
      const first = await rpc('ListTasks', { contextId, pageSize: 2 });
      expect(first.result.tasks).toHaveLength(2);
      expect(first.result.totalSize).toBe(3);
      expect(first.result.nextPageToken).not.toBe('');
      const second = await rpc('ListTasks', {
        contextId,
        pageSize: 2,
        pageToken: first.result.nextPageToken,
      });
      const seen = [...first.result.tasks, ...second.result.tasks].map((t: Json) => t.id);
      expect(seen.sort()).toEqual([...all].sort());
    });

    it('CORE-LIST-003: ListTasks sorts by status timestamp descending', async () => {
      await ids();
      const { result } = await rpc('ListTasks', { contextId });
      const times = result.tasks.map((t: Json) => Date.parse(t.status.timestamp));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });

    it('CORE-LIST-004: ListTasks nextPageToken empty string on final page', async () => {
      await ids();
      const { result } = await rpc('ListTasks', { contextId, pageSize: 10 });
      expect(result.nextPageToken).toBe('');
    });

    it('CORE-LIST-005: ListTasks omits artifacts when includeArtifacts is false', async () => {
      await ids();
      const without = await rpc('ListTasks', { contextId });
      expect(without.result.tasks.every((t: Json) => t.artifacts === undefined)).toBe(true);
      const withArtifacts = await rpc('ListTasks', { contextId, includeArtifacts: true });
      expect(withArtifacts.result.tasks[0].artifacts[0].parts).toEqual([{ text: 'Generated text content' }]);
    });
  });

  it('CORE-CANCEL-001: CancelTask returns updated task with cancellation status', async () => {
    const sent = await send(tck('input-required'));
    const canceled = await rpc('CancelTask', { id: sent.result.task.id });
    expect(canceled.result.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('CORE-CANCEL-002: CancelTask returns TaskNotCancelableError for terminal tasks', async () => {
    const sent = await send(tck('complete-task'));
    const canceled = await rpc('CancelTask', { id: sent.result.task.id });
    expect(canceled.error.code).toBe(-32002);
  });

  it('CORE-CANCEL-003: CancelTask returns TaskNotFoundError for invalid task ID', async () => {
    expect((await rpc('CancelTask', { id: `missing-${randomUUID()}` })).error.code).toBe(-32001);
  });

  it('CORE-EXECUTION-MODE-001: Blocking mode waits for terminal or interrupted state', async () => {
    const slow = await send(`test-resubscribe-message-id-${randomUUID()}`);
    expect(slow.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const paused = await send(tck('input-required'));
    expect(paused.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('CORE-EXECUTION-MODE-002: Non-blocking mode returns immediately', async () => {
    const started = Date.now();
    const sent = await send(
      `test-resubscribe-message-id-${randomUUID()}`,
      {},
      {},
      { returnImmediately: true },
    );
    expect(Date.now() - started).toBeLessThan(400);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(sent.result.task.status.state);
    await rpc('CancelTask', { id: sent.result.task.id });
  });

  it('CORE-ERR-001: Server returns appropriate errors with actionable information', async () => {
    const bad = await rpc('GetTask', { id: 'missing-task' });
    expect(bad.error.message).toMatch(/missing-task/);
    const info = bad.error.data.find((d: Json) => String(d['@type']).endsWith('ErrorInfo'));
    expect(info).toMatchObject({
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
      metadata: { taskId: 'missing-task' },
    });
  });

  it('CORE-ERR-002: Server validates all input parameters before processing', async () => {
    const bad = await rpc('SendMessage', {
      message: { messageId: tck('err-002'), role: 'ROLE_USER', parts: [] },
    });
    expect(bad.error.code).toBe(-32602);
    const badHistory = await rpc('GetTask', { id: 'x', historyLength: -1 });
    expect(badHistory.error.code).toBe(-32602);
  });

  it('CORE-CAP-001: Push notification operations return error when not supported', async () => {
    const noPush = makeServer({ pushNotifications: false });
    const sent = await send(tck('input-required'), {}, { server: noPush });
    const created = await rpc(
      'CreateTaskPushNotificationConfig',
      { taskId: sent.result.task.id, url: 'https://hooks.example.com/x' },
      { server: noPush },
    );
    expect(created.error.code).toBe(-32003);
  });

  it('CORE-CAP-002: Streaming operations return error when not supported', async () => {
    const noStream = makeServer({ streaming: false });
    const { items } = await rpcStream('SendStreamingMessage', message(tck('stream-001')), {
      server: noStream,
    });
    expect(items[0].error.code).toBe(-32004);
  });

  it('CORE-CAP-003: Extended agent card operations return error when not supported', async () => {
    const body = await rpc('GetExtendedAgentCard', {});
    expect(body.error.code).toBe(-32004);
  });

  it('CORE-CAP-004: Required extension missing returns ExtensionSupportRequiredError', async () => {
    const uri = 'https://example.com/ext/required/v1';
    const strict = createA2aServer({
      executor: fixture.executor,
      card: { ...fixture.card, capabilities: { extensions: [{ uri, required: true }] } },
      url: BASE,
    });
    servers.push(strict);
    const missing = await send(tck('complete-task'), {}, { server: strict });
    expect(missing.error.code).toBe(-32008);
    const declared = await send(
      tck('complete-task'),
      {},
      { server: strict, headers: { 'A2A-Extensions': uri } },
    );
    expect(declared.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('TCK multi-turn and history', () => {
  it('CORE-MULTI-001: Agent may generate contextId when not provided', async () => {
    expect((await send(tck('complete-task'))).result.task.contextId).toBeTruthy();
  });

  it('CORE-MULTI-001a: Generated contextId must be included in response', async () => {
    const direct = await send(tck('message-response'));
    expect(direct.result.message.contextId).toBeTruthy();
  });

  it('CORE-MULTI-002: Agent may accept client-provided contextId', async () => {
    const contextId = `ctx-${randomUUID()}`;
    expect((await send(tck('complete-task'), { contextId })).result.task.contextId).toBe(contextId);
  });

  it('CORE-MULTI-003: Agent generates unique taskId for new tasks', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const a = await send(tck('complete-task'), { contextId });
    const b = await send(tck('complete-task'), { contextId });
    expect(a.result.task.id).not.toBe(b.result.task.id);
  });

  it('CORE-MULTI-004: Agent returns TaskNotFoundError for invalid taskId in message', async () => {
    expect((await send(tck('multi-004'), { taskId: `missing-${randomUUID()}` })).error.code).toBe(-32001);
  });

  it('CORE-MULTI-005: Agent infers contextId from task when only taskId provided', async () => {
    const first = await send(tck('input-required'));
    const next = await send(tck('complete-task'), { taskId: first.result.task.id });
    expect(next.result.task.contextId).toBe(first.result.task.contextId);
  });

  it('CORE-MULTI-006: Agent rejects mismatching contextId and taskId', async () => {
    const first = await send(tck('input-required'));
    const next = await send(tck('complete-task'), { taskId: first.result.task.id, contextId: 'other' });
    expect(next.error.code).toBe(-32602);
  });

  it('CORE-HIST-001: historyLength=0 omits history from response', async () => {
    const sent = await send(tck('complete-task'));
    expect(
      (await rpc('GetTask', { id: sent.result.task.id, historyLength: 0 })).result.history,
    ).toBeUndefined();
  });

  it('CORE-HIST-002: History length does not exceed requested historyLength', async () => {
    const sent = await send(tck('complete-task'));
    const got = await rpc('GetTask', { id: sent.result.task.id, historyLength: 1 });
    expect(got.result.history.length).toBeLessThanOrEqual(1);
  });

  it('CORE-HIST-003: historyLength=0 on SendMessage omits history from response', async () => {
    const sent = await send(tck('complete-task'), {}, {}, { historyLength: 0 });
    expect(sent.result.task.history).toBeUndefined();
  });

  it('CORE-HIST-004/005/006: History persists the exchanged messages in chronological order', async () => {
    const firstId = tck('input-required');
    const first = await send(firstId);
    const secondId = tck('complete-task');
    await send(secondId, { taskId: first.result.task.id });
    const { result } = await rpc('GetTask', { id: first.result.task.id });
    const history = result.history.map((m: Json) => [m.role, m.parts[0].text]);
    expect(history).toEqual([
      ['ROLE_USER', 'hello'],
      ['ROLE_AGENT', 'More input, please'],
      ['ROLE_USER', 'hello'],
      ['ROLE_AGENT', 'Hello from TCK'],
    ]);
    expect(result.history[0].messageId).toBe(firstId);
    expect(result.history[2].messageId).toBe(secondId);
  });
});

describe('TCK streaming', () => {
  it('STREAM-ORDER-001: Events delivered in generation order', async () => {
    const { items } = await rpcStream('SendStreamingMessage', message(tck('stream-artifact-chunked')));
    const kinds = items.map((i) => {
      const r = i.result;
      if (r.task) return 'task';
      if (r.statusUpdate) return r.statusUpdate.status.state;
      return `artifact:${r.artifactUpdate.artifact.parts[0].text}${r.artifactUpdate.append ? '+append' : ''}`;
    });
    expect(kinds).toEqual([
      'task',
      'TASK_STATE_WORKING',
      'artifact:chunk-1 ',
      'artifact:chunk-2+append',
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('STREAM-ORDER-002/003/004, STREAM-SUB-001/002: every subscriber gets the same events; closing one leaves the others', async () => {
    const sent = await send(
      `test-resubscribe-message-id-${randomUUID()}`,
      {},
      {},
      { returnImmediately: true },
    );
    const id = sent.result.task.id;
    // One subscriber that leaves at once, two that stay to the end.
    const leaving = await server.handler.subscribe(id);
    for await (const _ of leaving) break;
    const [a, b] = await Promise.all([
      rpcStream('SubscribeToTask', { id }),
      rpcStream('SubscribeToTask', { id }),
    ]);
    const shape = (items: Json[]) =>
      items.map((i) => (i.result.task ? 'task' : (i.result.statusUpdate?.status.state ?? 'artifact')));
    expect(shape(a.items)[0]).toBe('task');
    expect(shape(a.items).at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(shape(b.items)).toEqual(shape(a.items));
  });

  it('STREAM-SUB-003: SubscribeToTask rejects terminal tasks', async () => {
    const sent = await send(tck('complete-task'));
    const { items } = await rpcStream('SubscribeToTask', { id: sent.result.task.id });
    expect(items[0].error.code).toBe(-32004);
  });

  it('STREAM-SUB-004: SubscribeToTask returns TaskNotFoundError for invalid task', async () => {
    const { items } = await rpcStream('SubscribeToTask', { id: `missing-${randomUUID()}` });
    expect(items[0].error.code).toBe(-32001);
  });
});

describe('TCK push notifications', () => {
  async function receiver() {
    const received: { headers: Headers; body: Json }[] = [];
    const listening = await listen(async (request) => {
      received.push({ headers: request.headers, body: tryParseJson(await request.text()) });
      return new Response(null, { status: 204 });
    });
    listeners.push(listening);
    return { url: `${listening.url}/hook`, received };
  }

  it('PUSH-CREATE-001/GET-001/LIST-001/DEL-001/DEL-002: config operations over JSON-RPC', async () => {
    const task = (await send(tck('input-required'))).result.task;
    const created = await rpc('CreateTaskPushNotificationConfig', {
      taskId: task.id,
      url: 'https://hooks.example.com/a2a',
      token: 'tok',
    });
    expect(created.result).toMatchObject({
      taskId: task.id,
      url: 'https://hooks.example.com/a2a',
      token: 'tok',
    });
    const id = created.result.id;
    expect((await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id })).result.id).toBe(id);
    const listed = await rpc('ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.result.configs.map((c: Json) => c.id)).toEqual([id]);
    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id })).error).toBeUndefined();
    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id })).error).toBeUndefined();
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).result.configs).toEqual([]);
  });

  it('PUSH-GET-002: GetPushNotificationConfig fails for nonexistent config', async () => {
    const task = (await send(tck('input-required'))).result.task;
    const got = await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'nope' });
    expect(got.error.code).toBe(-32001);
  });

  it('PUSH-DELIVER-001/002/003: webhooks get StreamResponse payloads with the configured credentials', async () => {
    const hook = await receiver();
    const first = await send(tck('input-required'));
    const taskId = first.result.task.id;
    await rpc('CreateTaskPushNotificationConfig', {
      taskId,
      url: hook.url,
      token: 'notify-token',
      authentication: { scheme: 'Bearer', credentials: 'hook-secret' },
    });
    await send(tck('complete-task'), { taskId });
    await expect
      .poll(() => hook.received.some((r) => r.body.statusUpdate?.status.state === 'TASK_STATE_COMPLETED'))
      .toBe(true);
    for (const r of hook.received) {
      expect(r.headers.get('authorization')).toBe('Bearer hook-secret');
      expect(r.headers.get('x-a2a-notification-token')).toBe('notify-token');
      expect(Object.keys(r.body)).toHaveLength(1);
      expect(['task', 'statusUpdate', 'artifactUpdate', 'message']).toContain(Object.keys(r.body)[0]);
    }
  });

  it('PUSH-CREATE-002: Push config persists until deletion (set in SendMessage configuration)', async () => {
    const hook = await receiver();
    const sent = await send(tck('input-required'), {}, {}, { taskPushNotificationConfig: { url: hook.url } });
    const listed = await rpc('ListTaskPushNotificationConfigs', { taskId: sent.result.task.id });
    expect(listed.result.configs.map((c: Json) => c.url)).toEqual([hook.url]);
  });
});

describe('TCK data model, card, versioning and bindings', () => {
  it('DM-TASK-001/DM-STATUS-001/DM-SERIAL-001/002/003: task shape, enums and timestamps', async () => {
    const task = (await send(tck('artifact-data'))).result.task;
    expect(typeof task.id).toBe('string');
    expect(typeof task.contextId).toBe('string');
    expect(task.status.state).toMatch(/^TASK_STATE_[A-Z_]+$/);
    expect(task.status.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(task.artifacts[0]).toMatchObject({
      artifactId: expect.any(String),
      parts: [{ data: { key: 'value', count: 42 } }],
    });
    expect(task.history[0].role).toBe('ROLE_USER');
  });

  it('DM-PART-001: Part uses oneof semantics', async () => {
    const task = (await send(tck('artifact-file'))).result.task;
    const part = task.artifacts[0].parts[0];
    expect(part).toEqual({
      raw: Buffer.from('tck').toString('base64'),
      mediaType: 'text/plain',
      filename: 'output.txt',
    });
    const both = await rpc('SendMessage', {
      message: { messageId: tck('part'), role: 'ROLE_USER', parts: [{ text: 'a', url: 'https://x.test' }] },
    });
    expect(both.error.code).toBe(-32602);
  });

  it('DM-SERIAL-005: Implementations should ignore unrecognized fields', async () => {
    const sent = await rpc('SendMessage', {
      ...message(tck('complete-task'), { futureField: { nested: true } }),
      anotherFutureField: 1,
    });
    expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('CARD-DISC-001/CARD-STRUCT-001/CARD-PROTO-001/002/CARD-CACHE-001/002: the card is served with caching headers', async () => {
    const { status, headers, body } = await rest('GET', '/.well-known/agent-card.json');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(headers.get('etag')).toBeTruthy();
    expect(body).toMatchObject({
      name: 'ADK TCK fixture',
      version: '1.0.0',
      capabilities: { streaming: true },
    });
    for (const i of body.supportedInterfaces) {
      expect(i.url).toBe(BASE);
      expect(['JSONRPC', 'HTTP+JSON']).toContain(i.protocolBinding);
    }
  });

  it('CARD-EXT-001/002: the extended card needs authentication; unconfigured it is a specific error', async () => {
    const guarded = makeServer({
      auth: apiKeyAuth({ keys: { k: 'alice' } }),
      extendedCard: (caller) => ({ name: 'ADK TCK fixture', description: `for ${caller?.id}` }),
    });
    const anonymous = await rpc('GetExtendedAgentCard', {}, { server: guarded });
    expect(anonymous.error.code).toBe(-31401);
    const card = await rpc('GetExtendedAgentCard', {}, { server: guarded, headers: { 'X-API-Key': 'k' } });
    expect(card.result.description).toBe('for alice');
  });

  it('VER-SERVER-002: Agent returns VersionNotSupportedError for unsupported version', async () => {
    const body = await rpc('GetTask', { id: 'x' }, { headers: { 'A2A-Version': '9.9' } });
    expect(body.error.code).toBe(-32009);
  });

  it('VER-SERVER-001/003: requested version semantics; an empty header means 0.3', async () => {
    const response = await server.fetch(
      new Request(`${BASE}/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: tck('complete-task'),
              role: 'user',
              parts: [{ kind: 'text', text: 'hi' }],
            },
          },
        }),
      }),
    );
    const body = tryParseJson(await response.text()) as Json;
    expect(body.result.kind).toBe('task');
    expect(body.result.status.state).toBe('completed');
  });

  it('JSONRPC-ERR-001/002/003: JSON-RPC errors carry A2A codes and ErrorInfo', async () => {
    const body = await rpc('CancelTask', { id: 'missing' });
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.code).toBeGreaterThanOrEqual(-32099);
    expect(body.error.code).toBeLessThanOrEqual(-32001);
    expect(errorReason(body)).toBe('TASK_NOT_FOUND');
  });

  it('HTTP_JSON-ERR-001/002, HTTP_JSON-STATUS-001: REST errors use AIP-193 with ErrorInfo and HTTP status', async () => {
    const { status, body } = await rest('GET', '/tasks/missing');
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(body.error.details[0]).toMatchObject({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' });
    const conflict = await rest(
      'POST',
      `/tasks/${(await send(tck('complete-task'))).result.task.id}:cancel`,
      {},
    );
    expect(conflict.status).toBe(400);
    expect(conflict.body.error.details[0].reason).toBe('TASK_NOT_CANCELABLE');
  });

  it('HTTP_JSON-URL-001/002, HTTP_JSON-QP-001: resource URLs, verbs and camelCase query parameters', async () => {
    const sent = await rest('POST', '/message:send', message(tck('complete-task')));
    expect(sent.status).toBe(200);
    const id = sent.body.task.id;
    const got = await rest('GET', `/tasks/${id}?historyLength=0`);
    expect(got.body.id).toBe(id);
    expect(got.body.history).toBeUndefined();
    const listed = await rest('GET', `/tasks?contextId=${sent.body.task.contextId}&pageSize=1`);
    expect(listed.body.tasks.map((t: Json) => t.id)).toEqual([id]);
  });
});

describe('TCK auth', () => {
  const guarded = makeServer({ auth: apiKeyAuth({ keys: { 'key-a': 'alice', 'key-b': 'bob' } }) });
  const alice = { server: guarded, headers: { 'X-API-Key': 'key-a' } };
  const bob = { server: guarded, headers: { 'X-API-Key': 'key-b' } };

  it('AUTH-SERVER-002/AUTH-SCOPE-001: every request is authenticated', async () => {
    const anonymous = await rpc('ListTasks', {}, { server: guarded });
    expect(anonymous.error.code).toBe(-31401);
    const rest401 = await rest('GET', '/tasks', undefined, { server: guarded });
    expect(rest401.status).toBe(401);
    expect(rest401.headers.get('www-authenticate')).toMatch(/ApiKey/);
  });

  it('AUTH-SCOPE-002/003: another caller’s task does not exist for you', async () => {
    const task = (await send(tck('input-required'), {}, alice)).result.task;
    expect((await rpc('GetTask', { id: task.id }, bob)).error.code).toBe(-32001);
    expect((await rpc('CancelTask', { id: task.id }, bob)).error.code).toBe(-32001);
    expect((await send(tck('complete-task'), { taskId: task.id }, bob)).error.code).toBe(-32001);
  });

  it('AUTH-INTASK-001/002/003/006: auth-required is a task state with an explaining message, and accepts messages', async () => {
    const task = (await send(tck('auth-required'), {}, alice)).result.task;
    expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(task.status.message.parts[0].text).toBe('Please sign in');
    const next = await send(tck('complete-task'), { taskId: task.id }, alice);
    expect(next.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
