import {
  type Event,
  InMemorySessionService,
  type NodeContext,
  RequestInput,
  Runner,
  START,
  userContent,
  Workflow,
} from '@adk/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { A2aClient } from '../client/a2a-client.js';
import type { StreamResponse } from '../protocol/types.js';
import { listen } from '../server/node-adapter.js';
import { ADK_NODE_INFO_KEY, ADK_OUTPUT_KEY, ADK_ROUTE_KEY } from './adk-agent-executor.js';
import { RemoteA2aAgent } from './remote-a2a-agent.js';
import { toA2a } from './to-a2a.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

function workflow() {
  const classify = (ctx: NodeContext, input: unknown) => {
    ctx.route = ['long', 2];
    return { text: String(input), score: 0.5, tags: ['a', null] };
  };
  const summarize = (_ctx: NodeContext, input: unknown) => `summary of ${(input as { text: string }).text}`;
  return new Workflow({
    name: 'pipeline',
    description: 'a graph',
    edges: [START, classify, { long: summarize }],
  });
}

async function serve() {
  const server = toA2a(workflow(), { sessionService: new InMemorySessionService() });
  const listening = await listen((r) => server.fetch(r));
  closers.push(async () => {
    await server.close();
    await listening.close();
  });
  return listening.url;
}

describe('workflow events over A2A', () => {
  it("a workflow's question makes the task input-required; the caller's data answers it", async () => {
    const ask = () =>
      new RequestInput({
        interruptId: 'size',
        message: 'Which size?',
        responseSchema: z.object({ size: z.string() }),
      });
    const order = (_ctx: NodeContext, answer: unknown) => `ordered ${(answer as { size: string }).size}`;
    const server = toA2a(new Workflow({ name: 'shop', edges: [START, ask, order] }), {
      sessionService: new InMemorySessionService(),
    });
    const first = await server.handler.sendMessage({
      message: { messageId: 'a', role: 'ROLE_USER', parts: [{ text: 'a shirt' }] },
    });
    const task = 'task' in first ? first.task : undefined;
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await server.handler.sendMessage({
      message: {
        messageId: 'b',
        role: 'ROLE_USER',
        taskId: task?.id as string,
        parts: [{ data: { size: 'M' } }],
      },
    });
    const done = 'task' in second ? second.task : undefined;
    expect(done?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done?.artifacts?.[0]?.parts).toEqual([{ text: 'ordered M' }]);
    await server.close();
  });

  it('status updates carry output, nodeInfo and route unchanged', async () => {
    const client = await A2aClient.fromUrl(await serve());
    const items: StreamResponse[] = [];
    for await (const item of client.sendStreamingMessage({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'tides' }] },
    }))
      items.push(item);
    const metas = items
      .map((i) => ('statusUpdate' in i ? i.statusUpdate.metadata : undefined))
      .filter((m) => m?.[ADK_NODE_INFO_KEY] !== undefined);
    expect(metas).toContainEqual(
      expect.objectContaining({
        [ADK_OUTPUT_KEY]: { text: 'tides', score: 0.5, tags: ['a', null] },
        [ADK_NODE_INFO_KEY]: { path: 'pipeline@1/classify@1', outputFor: ['pipeline@1/classify@1'] },
        [ADK_ROUTE_KEY]: ['long', 2],
      }),
    );
    expect(metas).toContainEqual(
      expect.objectContaining({
        [ADK_OUTPUT_KEY]: 'summary of tides',
        // The terminal node's event carries the workflow's output (ADK 2.x).
        [ADK_NODE_INFO_KEY]: {
          path: 'pipeline@1/summarize@1',
          outputFor: ['pipeline@1/summarize@1', 'pipeline@1'],
        },
      }),
    );
  });

  it('a RemoteA2aAgent keeps the remote fields under customMetadata.a2a.workflow', async () => {
    const agent = new RemoteA2aAgent({ name: 'remote', description: 'remote graph', url: await serve() });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('tides') }))
      events.push(e);
    const workflows = events
      .map((e) => (e.customMetadata?.a2a as { workflow?: unknown } | undefined)?.workflow)
      .filter(Boolean);
    expect(workflows).toContainEqual({
      output: { text: 'tides', score: 0.5, tags: ['a', null] },
      nodeInfo: { path: 'pipeline@1/classify@1', outputFor: ['pipeline@1/classify@1'] },
      route: ['long', 2],
    });
    expect(events.every((e) => e.nodeInfo === undefined)).toBe(true);
    // The workflow's output is the remote answer.
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('summary of tides');
  });
});
