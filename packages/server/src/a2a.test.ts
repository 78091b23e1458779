import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';

// Every app is an A2A agent at /a2a/{app}: the official SDK's client talks to it, and what it says
// lands in the same sessions the HTTP API serves (tasks in the same PGlite database).

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t?.close();
});

const textOf = (parts: { content?: { $case: string; value: unknown } }[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const request = (text: string, contextId = '') =>
  ({
    tenant: '',
    message: {
      messageId: crypto.randomUUID(),
      contextId,
      taskId: '',
      role: 1,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  }) as never;

describe.each([
  ['JSONRPC', new JsonRpcTransportFactory()],
  ['HTTP+JSON', new RestTransportFactory()],
] as const)('@a2a-js/sdk client over %s', (binding, transport) => {
  const client = () =>
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [transport],
        preferredTransports: [binding],
      }),
    ).createFromUrl(`${t.url}/a2a/assistant/`);

  it('reads the card, runs the agent and shares the session with the HTTP API', async () => {
    const c = await client();
    const result = (await c.sendMessage(request('hello over a2a'))) as unknown as {
      id: string;
      contextId: string;
      status: { state: number };
      artifacts: { parts: never[] }[];
    };
    expect(result.status.state).toBe(3); // TASK_STATE_COMPLETED
    expect(textOf(result.artifacts[0]?.parts)).toBe('You said: hello over a2a');
    const fetched = (await c.getTask({ tenant: '', id: result.id, historyLength: 0 } as never)) as {
      id: string;
    };
    expect(fetched.id).toBe(result.id);

    const session = (await (
      await fetch(`${t.url}/apps/assistant/users/a2a/sessions/${result.contextId}`)
    ).json()) as {
      events: { author: string; content?: { parts: { text?: string }[] } }[];
    };
    expect(session.events.map((e) => e.content?.parts[0]?.text)).toEqual([
      'hello over a2a',
      'You said: hello over a2a',
    ]);
  });
});

describe('agent card', () => {
  it('is served per app at /a2a/{app}/.well-known/agent-card.json', async () => {
    const card = (await (await fetch(`${t.url}/a2a/pipeline/.well-known/agent-card.json`)).json()) as {
      name: string;
      skills: { id: string }[];
    };
    expect(card.name).toBe('pipeline');
    expect(card.skills.map((s) => s.id)).toEqual(['pipeline', 'writer', 'reviewer']);
    expect((await fetch(`${t.url}/a2a/ghost/.well-known/agent-card.json`)).status).toBe(404);
  });
});
