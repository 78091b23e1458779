import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactory03 } from 'a2a-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tckFixtureAgent } from '../testing/tck-fixture-agent.js';
import { createA2aServer } from './a2a-server.js';
import { type ListeningServer, listen } from './node-adapter.js';

// Re-attaching to a running task through the official SDK: SubscribeToTask (1.3 client, JSON-RPC
// and REST) and tasks/resubscribe (0.3 client).

const fixture = tckFixtureAgent({ resubscribeHoldMs: 300 });
const server = createA2aServer({ executor: fixture.executor, card: fixture.card });
let listening: ListeningServer;
beforeAll(async () => {
  listening = await listen((r) => server.fetch(r));
});
afterAll(async () => {
  await server.close();
  await listening.close();
});

/** Starts a task that works for a while (the TCK's resubscribe prefix) and returns its id. */
async function startSlowTask(): Promise<string> {
  const result = await server.handler.sendMessage({
    message: {
      messageId: `test-resubscribe-message-id-${crypto.randomUUID()}`,
      role: 'ROLE_USER',
      parts: [{ text: 'x' }],
    },
    configuration: { returnImmediately: true },
  });
  if (!('task' in result)) throw new Error('expected a task');
  return result.task.id;
}

describe.each([
  ['JSONRPC', new JsonRpcTransportFactory()],
  ['HTTP+JSON', new RestTransportFactory()],
] as const)('@a2a-js/sdk 1.3 subscribe over %s', (binding, transport) => {
  it('gets the task first, then updates until completion', async () => {
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [transport],
        preferredTransports: [binding],
      }),
    ).createFromUrl(listening.url);
    const id = await startSlowTask();
    const events: { payload?: { $case?: string; value?: { status?: { state?: number } } } }[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id } as never))
      events.push(event as never);
    expect(events[0]?.payload?.$case).toBe('task');
    expect(events.at(-1)?.payload?.$case).toBe('statusUpdate');
    expect(events.at(-1)?.payload?.value?.status?.state).toBe(3); // COMPLETED
  });
});

describe('@a2a-js/sdk 0.3 resubscribe', () => {
  it('gets the task first, then a final completed status', async () => {
    const client = await new ClientFactory03().createFromUrl(listening.url);
    const id = await startSlowTask();
    const events: { kind: string; status?: { state: string }; final?: boolean }[] = [];
    for await (const event of client.resubscribeTask({ id })) events.push(event as never);
    expect(events[0]?.kind).toBe('task');
    expect(events.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed' },
    });
  });
});
