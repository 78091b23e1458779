import { afterEach, describe, expect, it } from 'vitest';
import { isA2aError } from '../protocol/errors.js';
import type { StreamResponse } from '../protocol/types.js';
import { type ListeningServer, listen } from './node-adapter.js';
import { HttpPushNotificationSender } from './push-sender.js';
import { assertPublicUrl, isPrivateAddress, type ResolvedAddress } from './ssrf-guard.js';

const listeners: ListeningServer[] = [];
afterEach(async () => {
  while (listeners.length) await listeners.pop()?.close();
});

async function webhook(answer: (calls: number) => Response = () => new Response(null, { status: 200 })) {
  const calls: { host: string | null }[] = [];
  const listening = await listen(async (request) => {
    calls.push({ host: request.headers.get('host') });
    return answer(calls.length);
  });
  listeners.push(listening);
  return { url: `${listening.url}/hook`, port: new URL(listening.url).port, calls };
}

const item: StreamResponse = {
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } },
};
const config = (url: string) => ({ id: 'p1', taskId: 't1', url });
const refused = (error: unknown) => isA2aError(error) && error.type === 'INVALID_PARAMS';

describe('SSRF guard: address forms', () => {
  it.each([
    // IPv4-mapped, -translated and -compatible IPv6 forms of loopback and private addresses
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:0:a00:1',
    '::127.0.0.1',
    // NAT64 (well-known and local-use prefixes), 6to4, Teredo (client 127.0.0.1, obfuscated)
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::c0a8:101',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    // IPv4 spellings: decimal, octal, hex, short
    '2130706433',
    '0177.0.0.1',
    '0x7f.0.0.1',
    '127.1',
    // reserved, documentation, multicast, unique-local, site-local
    '192.0.2.1',
    '255.255.255.255',
    'ff02::1',
    'fc00::1',
    'fec0::1',
    'not an address',
  ])('treats %s as private', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2606:4700:4700::1111'])(
    'treats %s as public',
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );

  it.each([
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:7f00:1]/hook',
    'http://[64:ff9b::127.0.0.1]/hook',
    'http://[2002:7f00:1::]/hook',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'http://2130706433/hook',
    'http://0x7f000001/hook',
    'http://0177.0.0.1/hook',
    'http://127.1/hook',
    'http://[fe80::1]/hook',
  ])('refuses the webhook URL %s', async (url) => {
    expect(refused(await assertPublicUrl(url).catch((e: unknown) => e))).toBe(true);
  });
});

describe('SSRF guard: delivery', () => {
  it('connects only to the address it checked (pinned), for every delivery', async () => {
    const hook = await webhook();
    // `hook.test` exists only in this resolver: a delivery that reaches the webhook used it.
    const resolve = async (): Promise<ResolvedAddress[]> => [{ address: '127.0.0.1', family: 4 }];
    const sender = new HttpPushNotificationSender({ allowedHosts: ['hook.test'], resolve });
    await sender.send(config(`http://hook.test:${hook.port}/hook`), item);
    expect(hook.calls).toEqual([{ host: `hook.test:${hook.port}` }]);
  });

  it('checks DNS again on every delivery: a host that turns private later is refused', async () => {
    const hook = await webhook();
    const answers: ResolvedAddress[][] = [
      [{ address: '93.184.215.14', family: 4 }],
      [{ address: '127.0.0.1', family: 4 }],
    ];
    let lookups = 0;
    const resolve = async () => answers[Math.min(lookups++, answers.length - 1)] as ResolvedAddress[];
    const errors: unknown[] = [];
    const sender = new HttpPushNotificationSender({
      resolve,
      backoffMs: 1,
      onDeliveryError: (e) => errors.push(e),
    });
    const url = `http://rebind.test:${hook.port}/hook`;
    await sender.validateUrl(url); // accepted when the config is created
    await sender.send(config(url), item); // refused at delivery, without a connection
    expect(lookups).toBe(2);
    expect(hook.calls).toHaveLength(0);
    expect(refused(errors[0])).toBe(true);
  });

  it('refuses redirects instead of following them', async () => {
    const target = await webhook();
    const redirecting = await webhook(
      () => new Response(null, { status: 307, headers: { location: target.url } }),
    );
    const errors: unknown[] = [];
    const sender = new HttpPushNotificationSender({
      allowPrivateNetworks: true,
      backoffMs: 1,
      onDeliveryError: (e) => errors.push(e),
    });
    await sender.send(config(redirecting.url), item);
    expect(redirecting.calls).toHaveLength(1);
    expect(target.calls).toHaveLength(0);
    expect(String(errors[0])).toMatch(/redirect/);
  });
});
