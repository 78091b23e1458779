import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, inputRequired, reply } from '../agent/define-agent.js';
import { isA2aError } from '../protocol/errors.js';
import type { StreamResponse } from '../protocol/types.js';
import { type ListeningServer, listen } from './node-adapter.js';
import { HttpPushNotificationSender, NOTIFICATION_TOKEN_HEADER } from './push-sender.js';
import { assertPublicUrl, isPrivateAddress } from './ssrf-guard.js';

const listeners: ListeningServer[] = [];
afterEach(async () => {
  while (listeners.length) await listeners.pop()?.close();
});

/** A webhook on 127.0.0.1 answering with the given statuses in turn (then 200). */
async function webhook(statuses: number[] = []) {
  const calls: { headers: Headers; body: string }[] = [];
  const listening = await listen(async (request) => {
    calls.push({ headers: request.headers, body: await request.text() });
    return new Response(null, { status: statuses[calls.length - 1] ?? 200 });
  });
  listeners.push(listening);
  return { url: `${listening.url}/hook`, calls };
}

const item: StreamResponse = {
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } },
};
const config = (url: string) => ({ id: 'p1', taskId: 't1', url });

describe('push delivery', () => {
  it('sends Authorization and the notification token with a StreamResponse body', async () => {
    const hook = await webhook();
    const sender = new HttpPushNotificationSender({ allowPrivateNetworks: true });
    await sender.send(
      { ...config(hook.url), token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'secret' } },
      item,
    );
    expect(hook.calls).toHaveLength(1);
    const call = hook.calls[0];
    expect(call?.headers.get('authorization')).toBe('Bearer secret');
    expect(call?.headers.get(NOTIFICATION_TOKEN_HEADER)).toBe('tok-1');
    expect(call?.headers.get('content-type')).toBe('application/a2a+json');
    expect(JSON.parse(call?.body ?? '')).toEqual(item);
  });

  it('sends 0.3 payloads to configs created over 0.3', async () => {
    const hook = await webhook();
    const sender = new HttpPushNotificationSender({ allowPrivateNetworks: true });
    await sender.send({ ...config(hook.url), protocolVersion: '0.3' }, item);
    expect(JSON.parse(hook.calls[0]?.body ?? '')).toMatchObject({ kind: 'status-update', taskId: 't1' });
  });

  it('retries 5xx, 408 and 429 with backoff, then succeeds', async () => {
    const hook = await webhook([500, 429]);
    const errors: unknown[] = [];
    const sender = new HttpPushNotificationSender({
      allowPrivateNetworks: true,
      backoffMs: 1,
      onDeliveryError: (e) => errors.push(e),
    });
    await sender.send(config(hook.url), item);
    expect(hook.calls).toHaveLength(3);
    expect(errors).toEqual([]);
  });

  it('gives up after the configured attempts and reports the failure', async () => {
    const hook = await webhook([503, 503, 503, 503]);
    const errors: unknown[] = [];
    const sender = new HttpPushNotificationSender({
      allowPrivateNetworks: true,
      attempts: 2,
      backoffMs: 1,
      onDeliveryError: (e) => errors.push(e),
    });
    await sender.send(config(hook.url), item);
    expect(hook.calls).toHaveLength(2);
    expect(String(errors[0])).toMatch(/503/);
  });

  it('does not retry other 4xx answers', async () => {
    const hook = await webhook([400]);
    const errors: unknown[] = [];
    const sender = new HttpPushNotificationSender({
      allowPrivateNetworks: true,
      backoffMs: 1,
      onDeliveryError: (e) => errors.push(e),
    });
    await sender.send(config(hook.url), item);
    expect(hook.calls).toHaveLength(1);
    expect(errors).toHaveLength(1);
  });

  it('refuses loopback webhooks at delivery unless allowed, without calling them', async () => {
    const hook = await webhook();
    const errors: unknown[] = [];
    const sender = new HttpPushNotificationSender({ backoffMs: 1, onDeliveryError: (e) => errors.push(e) });
    await sender.send(config(hook.url), item);
    expect(hook.calls).toHaveLength(0);
    expect(isA2aError(errors[0]) && errors[0].type).toBe('INVALID_PARAMS');
    const allowed = new HttpPushNotificationSender({ allowedHosts: ['127.0.0.1'] });
    await allowed.send(config(hook.url), item);
    expect(hook.calls).toHaveLength(1);
  });
});

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::ffff:127.0.0.1',
    'fd00::1',
    'fe80::1',
  ])('treats %s as private', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('treats %s as public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://api.localhost/hook',
    'http://[::1]/hook',
    'http://10.0.0.5/hook',
    'ftp://example.com/hook',
    'not a url',
  ])('refuses %s', async (url) => {
    const error = await assertPublicUrl(url).catch((e: unknown) => e);
    expect(isA2aError(error) && error.type).toBe('INVALID_PARAMS');
  });

  it('allows private addresses when told to', async () => {
    await expect(
      assertPublicUrl('http://127.0.0.1/x', { allowPrivateNetworks: true }),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      assertPublicUrl('http://localhost/x', { allowedHosts: ['LOCALHOST'] }),
    ).resolves.toBeInstanceOf(URL);
    await expect(assertPublicUrl('https://93.184.215.14/x')).resolves.toBeInstanceOf(URL);
  });
});

describe('push configs over the wire', () => {
  const agent = defineAgent({
    name: 'pushy',
    description: 'waits for input, then answers',
    handleMessage: (_m, ctx) => (ctx.task ? reply('done') : inputRequired('more?')),
  });
  const rpc = async (server: ReturnType<typeof agent.server>, method: string, params: unknown) =>
    (await server
      .fetch(
        new Request('http://agent.test/', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        }),
      )
      .then((r) => r.json())) as { result?: { id: string; [k: string]: unknown }; error?: { code: number } };

  it('refuses a loopback webhook at creation over JSON-RPC and REST', async () => {
    const server = agent.server({ pushNotifications: true });
    const sent = await server.handler.sendMessage({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    const taskId = 'task' in sent ? sent.task.id : '';
    const created = await rpc(server, 'CreateTaskPushNotificationConfig', {
      taskId,
      url: 'http://127.0.0.1:9/hook',
    });
    expect(created.error?.code).toBe(-32602);
    const viaRest = await server.fetch(
      new Request(`http://agent.test/tasks/${taskId}/pushNotificationConfigs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ taskId, url: 'http://localhost/hook' }),
      }),
    );
    expect(viaRest.status).toBe(400);
    await server.close();
  });

  it('creates, reads, lists and deletes configs over REST, and delivers to them', async () => {
    const hook = await webhook();
    const server = agent.server({ pushNotifications: { allowPrivateNetworks: true, backoffMs: 1 } });
    const sent = await server.handler.sendMessage({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    const taskId = 'task' in sent ? sent.task.id : '';
    const call = (method: string, path: string, body?: unknown) =>
      server.fetch(
        new Request(`http://agent.test${path}`, {
          method,
          headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }),
      );
    const created = (await (
      await call('POST', `/tasks/${taskId}/pushNotificationConfigs`, { taskId, url: hook.url, token: 't' })
    ).json()) as { id: string };
    const base = `/tasks/${taskId}/pushNotificationConfigs`;
    expect(((await (await call('GET', `${base}/${created.id}`)).json()) as { url: string }).url).toBe(
      hook.url,
    );
    expect(((await (await call('GET', base)).json()) as { configs: unknown[] }).configs).toHaveLength(1);

    await server.handler.sendMessage({
      message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'go' }], taskId },
    });
    await expect.poll(() => hook.calls.some((c) => c.body.includes('TASK_STATE_COMPLETED'))).toBe(true);
    expect(hook.calls.every((c) => c.headers.get(NOTIFICATION_TOKEN_HEADER) === 't')).toBe(true);

    expect((await call('DELETE', `${base}/${created.id}`)).status).toBe(200);
    expect((await call('GET', `${base}/${created.id}`)).status).toBe(404);
    await server.close();
  });
});
