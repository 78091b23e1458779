import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import {
  DefaultRequestHandler as DefaultRequestHandler03,
  InMemoryTaskStore as InMemoryTaskStore03,
} from 'a2a-sdk-v03/server';
import { A2AExpressApp } from 'a2a-sdk-v03/server/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { A2aClient } from './a2a-client.js';

// The official SDK's servers (1.3 with and without its 0.3 layer, and 0.3.x) with our client.

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
});

async function listenApp(app: express.Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const textPart = (value: string) => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

function sdk13Executor() {
  return {
    async execute(ctx: RequestContext, bus: { publish(e: unknown): void; finished(): void }) {
      const text = (ctx.userMessage.parts as { content?: { value?: unknown } }[])
        .map((p) => String(p.content?.value ?? ''))
        .join('');
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 2, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        } as never),
      );
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: {
            artifactId: 'a1',
            name: 'answer',
            description: '',
            parts: [textPart(`sdk: ${text}`)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        } as never),
      );
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 3, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        } as never),
      );
      bus.finished();
    },
    async cancelTask() {},
  };
}

async function startSdk13(legacy: boolean): Promise<string> {
  const app = express();
  const base = await listenApp(app);
  const card = {
    name: 'sdk13',
    description: 'official SDK 1.3 server',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${base}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      ...(legacy
        ? [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }]
        : []),
    ],
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card as never, new InMemoryTaskStore(), sdk13Executor() as never);
  const compat = legacy ? { legacyCompat: { enabled: true } } : {};
  app.use(
    '/.well-known/agent-card.json',
    agentCardHandler({ agentCardProvider: handler, ...compat } as never),
  );
  app.use(
    '/rpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...compat }),
  );
  app.use(
    '/rest',
    restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...compat }),
  );
  return base;
}

describe.each([false, true])('@a2a-js/sdk 1.3 server (0.3 compat: %s) with our client', (legacy) => {
  it.each(['JSONRPC', 'HTTP+JSON'] as const)('speaks 1.0 over %s: send, stream, get', async (binding) => {
    const base = await startSdk13(legacy);
    const client = await A2aClient.fromUrl(base, { bindings: [binding], retry: false });
    expect(client.version).toBe('1.0');
    const result = await client.sendMessage('hi');
    if (!('task' in result)) throw new Error('expected a task');
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task.artifacts?.[0]?.parts[0]?.text).toBe('sdk: hi');
    const got = await client.getTask(result.task.id);
    expect(got.id).toBe(result.task.id);
    const items = [];
    for await (const item of client.sendStreamingMessage('streamed')) items.push(item);
    expect('task' in (items[0] ?? {})).toBe(true);
    expect(items.some((i) => 'artifactUpdate' in i)).toBe(true);
    await expect(client.getTask('nope')).rejects.toMatchObject({ type: 'TASK_NOT_FOUND' });
  });

  if (legacy) {
    it('speaks 0.3 when pinned to it', async () => {
      const base = await startSdk13(true);
      const client = await A2aClient.fromUrl(base, { version: '0.3', retry: false });
      const result = await client.sendMessage('old');
      if (!('task' in result)) throw new Error('expected a task');
      expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(result.task.artifacts?.[0]?.parts[0]?.text).toBe('sdk: old');
    });
  }
});

describe('@a2a-js/sdk 0.3 server with our client', () => {
  it('detects the 0.3 peer and speaks 0.3', async () => {
    const app = express();
    const base = await listenApp(app);
    const card = {
      protocolVersion: '0.3.0',
      name: 'sdk03',
      description: 'official SDK 0.3 server',
      url: `${base}/`,
      preferredTransport: 'JSONRPC',
      version: '1.0.0',
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    const executor = {
      async execute(
        ctx: { taskId: string; contextId: string; userMessage: { parts: { text?: string }[] } },
        bus: { publish(e: unknown): void; finished(): void },
      ) {
        const text = ctx.userMessage.parts.map((p) => p.text ?? '').join('');
        bus.publish({
          kind: 'task',
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 'working' },
          history: [ctx.userMessage],
        });
        bus.publish({
          kind: 'artifact-update',
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: { artifactId: 'a', parts: [{ kind: 'text', text: `v03: ${text}` }] },
        });
        bus.publish({
          kind: 'status-update',
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 'completed' },
          final: true,
        });
        bus.finished();
      },
      async cancelTask() {},
    };
    const handler = new DefaultRequestHandler03(card as never, new InMemoryTaskStore03(), executor as never);
    new A2AExpressApp(handler).setupRoutes(app as never);
    const client = await A2aClient.fromUrl(base, { retry: false });
    expect(client.version).toBe('0.3');
    const result = await client.sendMessage('hello');
    if (!('task' in result)) throw new Error('expected a task');
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task.artifacts?.[0]?.parts[0]?.text).toBe('v03: hello');
    const kinds = [];
    for await (const item of client.sendStreamingMessage('s')) kinds.push(Object.keys(item)[0]);
    expect(kinds[0]).toBe('task');
    expect(kinds.at(-1)).toBe('statusUpdate');
  });
});
