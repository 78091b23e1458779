import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactory03 } from 'a2a-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, inputRequired, reply } from '../agent/define-agent.js';
import type { A2aServer } from './a2a-server.js';
import type { ListeningServer } from './node-adapter.js';

// Our server, the official SDK as the client: 1.3.x over JSON-RPC and REST, 0.3.x without a version header.

const agent = defineAgent({
  name: 'echo',
  description: 'Echoes text; asks for a name first when told "book"',
  skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['test'] }],
  handleMessage(message, ctx) {
    const text = message.parts.map((p) => p.text ?? '').join('');
    if (text === 'book' && !ctx.task) return inputRequired('Which name?');
    return reply(`echo: ${text}`);
  },
});

let served: ListeningServer & { a2a: A2aServer };
beforeAll(async () => {
  served = await agent.serve();
});
afterAll(async () => {
  await served.close();
});

const textOf = (parts: { content?: { $case: string; value: unknown } }[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

function userMessage(text: string, extra: Record<string, unknown> = {}) {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: 1,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

const request = (text: string, extra: Record<string, unknown> = {}) =>
  ({ tenant: '', message: userMessage(text, extra), configuration: undefined, metadata: undefined }) as never;

describe.each([
  ['JSONRPC', new JsonRpcTransportFactory()],
  ['HTTP+JSON', new RestTransportFactory()],
] as const)('@a2a-js/sdk 1.3 client over %s', (binding, transport) => {
  const factory = () =>
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [transport],
        preferredTransports: [binding],
      }),
    );

  it('sends a message and gets a completed task with the artifact', async () => {
    const client = await factory().createFromUrl(served.url);
    expect(client.protocolVersion).toBe('1.0');
    const result = (await client.sendMessage(request('hello'))) as unknown as {
      id: string;
      status: { state: number };
      artifacts: { parts: never[] }[];
    };
    expect(result.status.state).toBe(3); // TASK_STATE_COMPLETED
    expect(textOf(result.artifacts[0]?.parts)).toBe('echo: hello');
    const fetched = (await client.getTask({ tenant: '', id: result.id, historyLength: 1 } as never)) as {
      history: unknown[];
    };
    expect(fetched.history).toHaveLength(1);
  });

  it('streams task, artifact and completed status', async () => {
    const client = await factory().createFromUrl(served.url);
    const kinds: string[] = [];
    for await (const event of client.sendMessageStream(request('stream me'))) {
      kinds.push((event as { $case?: string }).$case ?? Object.keys(event as object)[0] ?? '?');
    }
    expect(kinds.length).toBeGreaterThanOrEqual(3);
  });

  it('continues an input-required task and lists tasks', async () => {
    const client = await factory().createFromUrl(served.url);
    const first = (await client.sendMessage(request('book'))) as {
      id: string;
      contextId: string;
      status: { state: number };
    };
    expect(first.status.state).toBe(6); // INPUT_REQUIRED
    const second = (await client.sendMessage(request('Ada', { taskId: first.id }))) as {
      id: string;
      status: { state: number };
    };
    expect(second.id).toBe(first.id);
    expect(second.status.state).toBe(3);
    const list = (await client.listTasks({ tenant: '', contextId: first.contextId, status: 0 } as never)) as {
      tasks: { id: string }[];
    };
    expect(list.tasks.map((t) => t.id)).toContain(first.id);
  });

  it('maps TaskNotFound from our server to the SDK error', async () => {
    const client = await factory().createFromUrl(served.url);
    await expect(client.getTask({ tenant: '', id: 'missing' } as never)).rejects.toThrow(/not found/i);
  });

  it('cancels an input-required task', async () => {
    const client = await factory().createFromUrl(served.url);
    const first = (await client.sendMessage(request('book'))) as { id: string };
    const canceled = (await client.cancelTask({ tenant: '', id: first.id } as never)) as {
      status: { state: number };
    };
    expect(canceled.status.state).toBe(5); // CANCELED
  });
});

describe('@a2a-js/sdk 0.3 client (no A2A-Version header)', () => {
  it('sends, streams and gets over JSON-RPC with 0.3 shapes', async () => {
    const client = await new ClientFactory03().createFromUrl(served.url);
    const msg = {
      kind: 'message' as const,
      messageId: crypto.randomUUID(),
      role: 'user' as const,
      parts: [{ kind: 'text' as const, text: 'old' }],
    };
    const result = await client.sendMessage({ message: msg });
    expect(result.kind).toBe('task');
    if (result.kind !== 'task') return;
    expect(result.status.state).toBe('completed');
    expect(result.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'echo: old' });
    const got = await client.getTask({ id: result.id });
    expect(got.status.state).toBe('completed');
    const kinds: string[] = [];
    for await (const ev of client.sendMessageStream({ message: { ...msg, messageId: crypto.randomUUID() } }))
      kinds.push(ev.kind);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifact-update');
    expect(kinds.at(-1)).toBe('status-update');
  });

  it('continues an input-required task with 0.3 shapes', async () => {
    const client = await new ClientFactory03().createFromUrl(served.url);
    const first = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'book' }],
      },
    });
    if (first.kind !== 'task') throw new Error('expected task');
    expect(first.status.state).toBe('input-required');
    const second = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        taskId: first.id,
        parts: [{ kind: 'text', text: 'Ada' }],
      },
    });
    if (second.kind !== 'task') throw new Error('expected task');
    expect(second.status.state).toBe('completed');
    expect(second.history?.length).toBe(3);
  });
});
