import { FunctionTool, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assistant, startServer, type TestServer } from './__fixtures__/apps.js';

// Rewind and fork over HTTP: one server (PGlite in a temp folder) for the file.

let releaseWait = () => {};
const waiter = new LlmAgent({
  name: 'waiter',
  model: new ScriptedModel({
    respond: (request) => {
      const last = request.contents.at(-1)?.parts[0];
      return last?.functionResponse ? 'done' : functionCallResponse('wait', {});
    },
  }),
  tools: [
    new FunctionTool({
      name: 'wait',
      description: 'waits until released or aborted',
      parameters: z.object({}),
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          releaseWait = () => resolve({ released: true });
          ctx.signal.addEventListener('abort', () => resolve({ aborted: true }));
        }),
    }),
  ],
});

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ apps: { assistant: assistant(), waiter } });
});
afterAll(async () => {
  releaseWait();
  await t?.close();
});

async function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
  return fetch(`${t.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': contentType },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function json<T = Record<string, unknown>>(method: string, path: string, body?: unknown, status = 200) {
  const response = await call(method, path, body);
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

interface WireEvent {
  id: string;
  invocationId: string;
  author: string;
  timestamp: number;
  content?: { parts: { text?: string }[] };
  actions: Record<string, unknown>;
}
interface WireSession {
  id: string;
  state: Record<string, unknown>;
  events: WireEvent[];
  forkedFrom?: { sessionId: string; eventId?: string };
}

const text = (s: string) => ({ role: 'user', parts: [{ text: s }] });

async function turn(app: string, sessionId: string, message: string): Promise<WireEvent[]> {
  return json<WireEvent[]>('POST', '/run', {
    appName: app,
    userId: 'u1',
    sessionId,
    newMessage: text(message),
  });
}

async function conversation(): Promise<{ id: string; turns: WireEvent[][] }> {
  const { id } = await json<{ id: string }>('POST', '/apps/assistant/users/u1/sessions', {
    state: { topic: 'cats' },
  });
  const turns = [await turn('assistant', id, 'hello'), await turn('assistant', id, 'hello again')];
  return { id, turns };
}

describe('POST …/rewind', () => {
  it('appends the rewind event (ADK JSON) and later reads leave the rewound turn out', async () => {
    const { id, turns } = await conversation();
    const second = turns[1]?.[0]?.invocationId as string;
    const base = `/apps/assistant/users/u1/sessions/${id}`;
    const event = await json<WireEvent>('POST', `${base}/rewind`, { rewind_before_invocation_id: second });
    expect(event.author).toBe('user');
    expect(event.actions.rewindBeforeInvocationId).toBe(second);
    expect(event.timestamp).toBeLessThan(Date.now() / 100); // seconds, as ADK sends them
    const session = await json<WireSession>('GET', base);
    expect(session.events.at(-1)?.id).toBe(event.id);
    expect(session.state.topic).toBe('cats');
    // The conversation goes on from the rewound point.
    const next = await turn('assistant', id, 'third');
    expect(next.some((e) => e.author === 'assistant')).toBe(true);
  });

  it('answers typed errors: unknown invocation 404, unknown session 404, malformed bodies 4xx', async () => {
    const { id } = await conversation();
    const base = `/apps/assistant/users/u1/sessions/${id}`;
    const unknown = await json<{ code: string }>(
      'POST',
      `${base}/rewind`,
      { rewindBeforeInvocationId: 'nope' },
      404,
    );
    expect(unknown.code).toBe('NOT_FOUND');
    await json(
      'POST',
      '/apps/assistant/users/u1/sessions/missing/rewind',
      { rewindBeforeInvocationId: 'x' },
      404,
    );
    for (const bad of [
      {},
      { rewindBeforeInvocationId: '' },
      { rewindBeforeInvocationId: 7 },
      { other: 1 },
      [],
      null,
    ]) {
      const error = await json<{ code: string }>('POST', `${base}/rewind`, bad, 422);
      expect(error.code).toBe('VALIDATION');
    }
    expect((await call('POST', `${base}/rewind`, '{"rewindBeforeInvocationId":')).status).toBe(400);
    expect((await call('POST', `${base}/rewind`, 'x', 'text/plain')).status).toBe(415);
  });

  it('is refused with 409 while a run is in flight, and cancels it with cancelRunning', async () => {
    const { id } = await json<{ id: string }>('POST', '/apps/waiter/users/u1/sessions', {});
    const first = await json<{ invocationId: string; runId: string }>(
      'POST',
      `/apps/waiter/users/u1/sessions/${id}/runs`,
      { newMessage: text('wait please') },
      202,
    );
    const base = `/apps/waiter/users/u1/sessions/${id}`;
    for (let i = 0; i < 200; i++) {
      const run = await json<{ status: string }>('GET', `${base}/runs/${first.runId}`);
      if (run.status === 'running') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const busy = await json<{ code: string }>(
      'POST',
      `${base}/rewind`,
      { rewindBeforeInvocationId: first.invocationId },
      409,
    );
    expect(busy.code).toBe('CONCURRENT_INVOCATION');
    await json('POST', `${base}/fork`, { beforeInvocationId: first.invocationId }, 409);
    const event = await json<WireEvent>('POST', `${base}/rewind`, {
      rewindBeforeInvocationId: first.invocationId,
      cancelRunning: true,
    });
    expect(event.actions.rewindBeforeInvocationId).toBe(first.invocationId);
    const run = await json<{ status: string }>('GET', `${base}/runs/${first.runId}`);
    expect(run.status).toBe('cancelled');
  });
});

describe('POST …/fork', () => {
  it('creates a session with the history up to the event and forkedFrom; the original is untouched', async () => {
    const { id, turns } = await conversation();
    const base = `/apps/assistant/users/u1/sessions/${id}`;
    const before = await json<WireSession>('GET', base);
    const lastOfFirst = turns[0]?.at(-1) as WireEvent;
    const fork = await json<WireSession>('POST', `${base}/fork`, {
      atEventId: lastOfFirst.id,
      newSessionId: `${id}-f`,
    });
    expect(fork.id).toBe(`${id}-f`);
    expect(fork.forkedFrom).toEqual({ sessionId: id, eventId: lastOfFirst.id });
    expect(fork.events.map((e) => e.id)).toEqual(before.events.slice(0, turns[0]?.length).map((e) => e.id));
    expect(fork.state.topic).toBe('cats');
    await turn('assistant', fork.id, 'on the fork');
    expect(await json<WireSession>('GET', base)).toEqual(before);
    const list = await json<WireSession[]>('GET', '/apps/assistant/users/u1/sessions');
    expect(list.find((s) => s.id === fork.id)?.forkedFrom).toEqual(fork.forkedFrom);
  });

  it('checks its body: one cut point, known ids, a free new id', async () => {
    const { id, turns } = await conversation();
    const base = `/apps/assistant/users/u1/sessions/${id}`;
    const eventId = turns[0]?.[0]?.id as string;
    for (const bad of [
      {},
      { atEventId: eventId, beforeInvocationId: 'x' },
      { atEventId: 3 },
      { atEventId: eventId, extra: true },
    ])
      expect((await json<{ code: string }>('POST', `${base}/fork`, bad, 422)).code).toBe('VALIDATION');
    await json('POST', `${base}/fork`, { atEventId: 'nope' }, 404);
    await json('POST', `${base}/fork`, { beforeInvocationId: 'nope' }, 404);
    await json('POST', `${base}/fork`, { atEventId: eventId, newSessionId: id }, 409);
  });
});
