import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, inputRequired, reply } from '../agent/define-agent.js';
import { isA2aError } from '../protocol/errors.js';
import type { StreamResponse } from '../protocol/types.js';
import { createA2aServer } from '../server/a2a-server.js';
import { bearerAuth } from '../server/auth.js';
import { type ListeningServer, listen } from '../server/node-adapter.js';
import { tckFixtureAgent } from '../testing/tck-fixture-agent.js';
import { A2aClient } from './a2a-client.js';

// Our client against our own server: every operation over REST (HTTP+JSON), and bearer auth with
// the extended card.

const fixture = tckFixtureAgent({ resubscribeHoldMs: 300 });
const tokens: Record<string, string> = { 'token-alice': 'alice', 'token-bob': 'bob' };
const server = createA2aServer({
  executor: fixture.executor,
  card: fixture.card,
  pushNotifications: { allowPrivateNetworks: true },
  auth: bearerAuth({ verify: (token) => (tokens[token] ? { id: tokens[token] } : undefined) }),
  extendedCard: (caller) => ({ ...fixture.card, description: `Extended card for ${caller?.id}` }),
});
let listening: ListeningServer;
beforeAll(async () => {
  listening = await listen((r) => server.fetch(r));
});
afterAll(async () => {
  await server.close();
  await listening.close();
});

const rest = (token = 'token-alice') =>
  A2aClient.fromUrl(listening.url, {
    bindings: ['HTTP+JSON'],
    headers: { Authorization: `Bearer ${token}` },
  });
const msg = (prefix: string, extra: Record<string, unknown> = {}) => ({
  messageId: `${prefix}-${randomUUID()}`,
  role: 'ROLE_USER' as const,
  parts: [{ text: 'hi' }],
  ...extra,
});

describe('A2aClient over REST against our server', () => {
  it('negotiates 1.0 over HTTP+JSON', async () => {
    const client = await rest();
    expect(client.binding).toBe('HTTP+JSON');
    expect(client.version).toBe('1.0');
  });

  it('sends, gets, lists and cancels', async () => {
    const client = await rest();
    const done = await client.sendMessage(msg('tck-artifact-text'));
    if (!('task' in done)) throw new Error('expected a task');
    expect(done.task.artifacts?.[0]?.parts).toEqual([{ text: 'Generated text content' }]);
    expect((await client.getTask(done.task.id, 0)).history).toBeUndefined();
    const listed = await client.listTasks({ contextId: done.task.contextId, includeArtifacts: true });
    expect(listed.tasks.map((t) => t.id)).toEqual([done.task.id]);
    const paused = await client.sendMessage(msg('tck-input-required'));
    if (!('task' in paused)) throw new Error('expected a task');
    expect((await client.cancelTask(paused.task.id)).status.state).toBe('TASK_STATE_CANCELED');
    const direct = await client.sendMessage(msg('tck-message-response'));
    expect('message' in direct && direct.message.parts).toEqual([{ text: 'Direct message response' }]);
  });

  it('streams and subscribes', async () => {
    const client = await rest();
    const streamed: StreamResponse[] = [];
    for await (const item of client.sendStreamingMessage(msg('tck-stream-artifact-chunked')))
      streamed.push(item);
    expect(streamed.map((i) => Object.keys(i)[0])).toEqual([
      'task',
      'statusUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);

    const started = await client.sendMessage({
      message: msg('test-resubscribe-message-id'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in started)) throw new Error('expected a task');
    const subscribed: StreamResponse[] = [];
    for await (const item of client.subscribe(started.task.id)) subscribed.push(item);
    expect(Object.keys(subscribed[0] ?? {})).toEqual(['task']);
    const last = subscribed.at(-1);
    expect(last && 'statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('manages push configs', async () => {
    const client = await rest();
    const paused = await client.sendMessage(msg('tck-input-required'));
    if (!('task' in paused)) throw new Error('expected a task');
    const taskId = paused.task.id;
    const created = await client.createPushConfig({ taskId, url: 'https://hooks.example.com/a', token: 't' });
    expect(await client.getPushConfig(taskId, created.id)).toMatchObject({
      url: 'https://hooks.example.com/a',
    });
    expect((await client.listPushConfigs(taskId)).configs.map((c) => c.id)).toEqual([created.id]);
    await client.deletePushConfig(taskId, created.id);
    expect((await client.listPushConfigs(taskId)).configs).toEqual([]);
  });

  it('maps REST errors to typed A2aErrors', async () => {
    const client = await rest();
    const error = await client.getTask('missing').catch((e: unknown) => e);
    expect(isA2aError(error) && [error.type, error.httpStatus]).toEqual(['TASK_NOT_FOUND', 404]);
  });
});

describe('bearer auth and the extended card', () => {
  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'returns the extended card to an authenticated caller (%s)',
    async (binding) => {
      const client = await A2aClient.fromUrl(listening.url, {
        bindings: [binding],
        headers: { Authorization: 'Bearer token-bob' },
      });
      expect(client.card.capabilities.extendedAgentCard).toBe(true);
      const card = await client.getExtendedCard();
      expect(card.description).toBe('Extended card for bob');
    },
  );

  it('refuses a missing or wrong token with 401 and a challenge', async () => {
    const client = await A2aClient.fromUrl(listening.url, { headers: { Authorization: 'Bearer wrong' } });
    const error = await client.getExtendedCard().catch((e: unknown) => e);
    expect(isA2aError(error) && [error.type, error.httpStatus]).toEqual(['UNAUTHENTICATED', 401]);
    const raw = await fetch(`${listening.url}/extendedAgentCard`, { headers: { 'A2A-Version': '1.0' } });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
    await raw.body?.cancel();
  });

  it('keeps each caller’s tasks to themselves', async () => {
    const alice = await rest('token-alice');
    const bob = await rest('token-bob');
    const sent = await alice.sendMessage(msg('tck-input-required'));
    if (!('task' in sent)) throw new Error('expected a task');
    const error = await bob.getTask(sent.task.id).catch((e: unknown) => e);
    expect(isA2aError(error) && error.type).toBe('TASK_NOT_FOUND');
  });
});

describe('in-process agents', () => {
  it('serves a defineAgent over REST to our client', async () => {
    const agent = defineAgent({
      name: 'booking',
      description: 'books',
      handleMessage: (m, ctx) => (ctx.task ? reply(`booked ${m.parts[0]?.text}`) : inputRequired('where?')),
    });
    const served = await agent.serve();
    try {
      const client = await A2aClient.fromUrl(served.url, { bindings: ['HTTP+JSON'] });
      const first = await client.sendMessage('book');
      if (!('task' in first)) throw new Error('expected a task');
      const second = await client.sendMessage({
        ...msg('m'),
        parts: [{ text: 'Oslo' }],
        taskId: first.task.id,
      });
      expect('task' in second && second.task.artifacts?.[0]?.parts).toEqual([{ text: 'booked Oslo' }]);
    } finally {
      await served.close();
    }
  });
});
