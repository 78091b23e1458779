import { FunctionTool, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assistant, startServer, type TestServer } from './__fixtures__/apps.js';

// Runs as jobs over HTTP: one server (PGlite in a temp folder) for the file.

/** An agent whose `wait` tool holds the run until it is aborted or released. */
function waiter() {
  const state = { started: 0, aborted: 0, release: () => {} };
  const agent = new LlmAgent({
    name: 'waiter',
    model: new ScriptedModel({
      respond: (request) => {
        const last = request.contents.at(-1)?.parts[0];
        if (last?.functionResponse) return `waited: ${JSON.stringify(last.functionResponse.response)}`;
        return functionCallResponse('wait', {});
      },
    }),
    tools: [
      new FunctionTool({
        name: 'wait',
        description: 'waits',
        parameters: z.object({}),
        execute: (_args, ctx) =>
          new Promise((resolve) => {
            state.started++;
            state.release = () => resolve({ released: true });
            ctx.signal.addEventListener('abort', () => {
              state.aborted++;
              resolve({ aborted: true });
            });
          }),
      }),
    ],
  });
  return { agent, state };
}

const w = waiter();
let t: TestServer;
beforeAll(async () => {
  t = await startServer({ apps: { assistant: assistant(), waiter: w.agent } });
});
afterAll(async () => {
  await t?.close();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${t.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function json<T = Record<string, unknown>>(method: string, path: string, body?: unknown, status = 200) {
  const response = await call(method, path, body);
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

async function newSession(app: string): Promise<string> {
  return (await json<{ id: string }>('POST', `/apps/${app}/users/u1/sessions`)).id;
}

interface Frame {
  id?: string;
  event?: string;
  data: Record<string, unknown>;
}

/** Reads a run's SSE tail to its end into frames (id, event name, data). */
async function tail(path: string, headers: Record<string, string> = {}): Promise<Frame[]> {
  const response = await call('GET', path, undefined, headers);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const raw = await response.text();
  return raw
    .split('\n\n')
    .filter((f) => f !== '')
    .map((frame) => {
      const out: Frame = { data: {} };
      for (const line of frame.split('\n')) {
        if (line.startsWith('id: ')) out.id = line.slice(4);
        else if (line.startsWith('event: ')) out.event = line.slice(7);
        else if (line.startsWith('data: ')) out.data = JSON.parse(line.slice(6)) as Record<string, unknown>;
      }
      return out;
    });
}

const text = (t: string) => ({ role: 'user', parts: [{ text: t }] });

describe('runs routes', () => {
  it('starts a background run (202), tails its events to the end, and reads its record', async () => {
    const session = await newSession('assistant');
    const base = `/apps/assistant/users/u1/sessions/${session}/runs`;
    const started = await json<{ runId: string; status: string; background: boolean }>(
      'POST',
      base,
      { new_message: text('weather in Paris') },
      202,
    );
    expect(started.status).toBe('queued');
    expect(started.background).toBe(true);
    const frames = await tail(`${base}/${started.runId}/events`);
    const end = frames.at(-1);
    expect(end?.event).toBe('end');
    expect(end?.data.status).toBe('succeeded');
    const events = frames.slice(0, -1);
    expect(events.every((f) => f.id === f.data.id)).toBe(true);
    expect(events.map((f) => f.data.author)).toEqual(['user', 'assistant', 'assistant', 'assistant']);
    const record = await json<{ status: string; invocationId: string; durationMs: number }>(
      'GET',
      `${base}/${started.runId}`,
    );
    expect(record.status).toBe('succeeded');
    expect(record.invocationId).toBe(events[0]?.data.invocationId);
    const stored = await json<{ events: { id: string }[] }>(
      'GET',
      `/apps/assistant/users/u1/sessions/${session}`,
    );
    expect(stored.events.map((e) => e.id)).toEqual(events.map((f) => f.id));

    // Resuming after any event gives exactly the rest: by header and by query.
    const second = events[1]?.id as string;
    const resumed = await tail(`${base}/${started.runId}/events`, { 'Last-Event-ID': second });
    expect(resumed.slice(0, -1).map((f) => f.id)).toEqual(events.slice(2).map((f) => f.id));
    const byQuery = await tail(`${base}/${started.runId}/events?after=${encodeURIComponent(second)}`);
    expect(byQuery.slice(0, -1).map((f) => f.id)).toEqual(events.slice(2).map((f) => f.id));

    const list = await json<{ runs: { runId: string }[] }>('GET', base);
    expect(list.runs.map((r) => r.runId)).toEqual([started.runId]);
  });

  it('cancels a running run; the tool is aborted and the run ends cancelled with a final event', async () => {
    const session = await newSession('waiter');
    const base = `/apps/waiter/users/u1/sessions/${session}/runs`;
    const before = w.state.aborted;
    const started = await json<{ runId: string }>('POST', base, { newMessage: text('go') }, 202);
    for (let i = 0; i < 200 && w.state.started === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await json<{ status: string }>('GET', `${base}/${started.runId}`)).status).toBe('running');
    const cancelled = await json<{ status: string; error: { code: string } }>(
      'POST',
      `${base}/${started.runId}/cancel`,
    );
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error.code).toBe('CANCELLED');
    expect(w.state.aborted).toBe(before + 1);
    const frames = await tail(`${base}/${started.runId}/events`);
    expect(frames.at(-2)?.data.errorCode).toBe('CANCELLED');
    expect(frames.at(-1)?.data.status).toBe('cancelled');
  });

  it('reject answers 409 while the session has a run; interrupt cancels it and runs the new one', async () => {
    const session = await newSession('waiter');
    const base = `/apps/waiter/users/u1/sessions/${session}/runs`;
    const startedBefore = w.state.started;
    const first = await json<{ runId: string }>('POST', base, { newMessage: text('one') }, 202);
    for (let i = 0; i < 200 && w.state.started === startedBefore; i++)
      await new Promise((r) => setTimeout(r, 10));
    const refused = await json<{ code: string }>(
      'POST',
      base,
      { newMessage: text('two'), multitaskStrategy: 'reject' },
      409,
    );
    expect(refused.code).toBe('CONCURRENT_INVOCATION');
    const refusedSse = await call('POST', '/run_sse', {
      appName: 'waiter',
      userId: 'u1',
      sessionId: session,
      newMessage: text('three'),
      multitask_strategy: 'reject',
    });
    expect(refusedSse.status).toBe(409);
    await refusedSse.text();
    const second = await json<{ runId: string }>(
      'POST',
      base,
      { newMessage: text('four'), multitaskStrategy: 'interrupt' },
      202,
    );
    expect((await json<{ status: string }>('GET', `${base}/${first.runId}`)).status).toBe('cancelled');
    for (let i = 0; i < 200 && w.state.started < startedBefore + 2; i++)
      await new Promise((r) => setTimeout(r, 10));
    w.state.release();
    const frames = await tail(`${base}/${second.runId}/events`);
    expect(frames.at(-1)?.data.status).toBe('succeeded');
  });

  it('refuses bad input with typed errors', async () => {
    const session = await newSession('assistant');
    const base = `/apps/assistant/users/u1/sessions/${session}/runs`;
    expect((await call('POST', base, { newMessage: 'not a content' })).status).toBe(422);
    expect((await call('POST', base, { newMessage: text('x'), multitaskStrategy: 'sometimes' })).status).toBe(
      422,
    );
    expect((await call('POST', base, { newMessage: text('x'), sessionId: 'other' })).status).toBe(400);
    const raw = await fetch(`${t.url}${base}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"newMessage": ',
    });
    expect(raw.status).toBe(400);
    expect(
      (await call('POST', '/apps/assistant/users/u1/sessions/missing/runs', { newMessage: text('x') }))
        .status,
    ).toBe(404);
    expect(
      (await call('POST', `/apps/nope/users/u1/sessions/${session}/runs`, { newMessage: text('x') })).status,
    ).toBe(404);
    expect((await call('GET', `${base}/missing-run`)).status).toBe(404);
    expect((await call('POST', `${base}/missing-run/cancel`)).status).toBe(404);
    expect((await call('GET', `${base}?status=bogus`)).status).toBe(400);
    expect((await call('GET', `${base}?pageSize=0`)).status).toBe(400);
    const started = await json<{ runId: string }>('POST', base, { newMessage: text('hello') }, 202);
    await tail(`${base}/${started.runId}/events`);
    expect((await call('GET', `${base}/${started.runId}/events?after=not-an-event`)).status).toBe(422);
    // A run of another session is not found through this one.
    const other = await newSession('assistant');
    expect(
      (await call('GET', `/apps/assistant/users/u1/sessions/${other}/runs/${started.runId}`)).status,
    ).toBe(404);
  });
});
