import { HttpAgent as HttpAgentV1 } from '@ag-ui/client';
import { EventSchemas as EventSchemasV1 } from '@ag-ui/core/schemas';
import { HttpAgent as HttpAgentV0 } from 'ag-ui-client-v0';
import { EventSchemas as EventSchemasV0 } from 'ag-ui-core-v0';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { agUiAgent, agUiRunner, serve } from './__fixtures__/ag-ui-app.js';
import { createAgUiHandler } from './index.js';

type Served = Awaited<ReturnType<typeof serve>>;

const clients = [
  { name: '@ag-ui/client 1.0.0', HttpAgent: HttpAgentV1, schemas: EventSchemasV1, v1: true },
  { name: '@ag-ui/client 0.0.59', HttpAgent: HttpAgentV0, schemas: EventSchemasV0, v1: false },
] as const;

function types(frames: Record<string, unknown>[]): string[] {
  return frames.map((f) => f.type as string);
}

describe.each(clients)('createAgUiHandler with $name', ({ HttpAgent, schemas, v1 }) => {
  let server: Served;
  const runner = agUiRunner();
  let thread = 0;

  beforeAll(async () => {
    server = await serve(createAgUiHandler({ runner }));
  });
  afterAll(async () => {
    await server.close();
  });

  /** The frames of the runs since `from`, each one valid for this client's version of @ag-ui/core. */
  async function framesSince(from: number): Promise<Record<string, unknown>[]> {
    await server.settle();
    const frames = server.log.frames.slice(from);
    for (const frame of frames) {
      const parsed = schemas.safeParse(frame);
      expect(parsed.success, `${JSON.stringify(frame)}: ${parsed.success ? '' : parsed.error.message}`).toBe(
        true,
      );
      expect(JSON.stringify(frame)).not.toContain('null');
    }
    return frames;
  }

  function newAgent(initialState?: Record<string, unknown>) {
    return new HttpAgent({
      url: server.url,
      threadId: `thread-${v1 ? 'v1' : 'v0'}-${thread++}`,
      ...(initialState ? { initialState } : {}),
    });
  }

  it('streams a text answer with reasoning, inside RUN_STARTED … RUN_FINISHED', async () => {
    const from = server.log.frames.length;
    const agent = newAgent();
    agent.addMessage({ id: 'u1', role: 'user', content: 'think about it' });
    await agent.runAgent();
    const frames = await framesSince(from);
    const t = types(frames);
    expect(t[0]).toBe('RUN_STARTED');
    expect(t[1]).toBe('STATE_SNAPSHOT');
    expect(t.at(-1)).toBe('RUN_FINISHED');
    expect(t).toContain('STEP_STARTED');
    expect(t).toContain('REASONING_MESSAGE_CONTENT');
    expect(t.filter((x) => x === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(1);
    if (v1) expect(frames[0]).toMatchObject({ protocolVersion: '1.0' });
    else expect(frames[0]).not.toHaveProperty('protocolVersion');
    expect(frames.find((f) => f.type === 'TEXT_MESSAGE_START')).toMatchObject({ name: 'helper' });
    const assistant = agent.messages.find((m) => m.role === 'assistant');
    expect(assistant).toMatchObject({ content: 'Forty-two.' });
  });

  it('shows a tool call under its assistant message, with its result', async () => {
    const from = server.log.frames.length;
    const agent = newAgent();
    agent.addMessage({ id: 'u1', role: 'user', content: 'weather in Oslo' });
    await agent.runAgent();
    const frames = await framesSince(from);
    const start = frames.find((f) => f.type === 'TOOL_CALL_START');
    expect(start).toMatchObject({ toolCallName: 'get_weather' });
    expect(typeof start?.parentMessageId).toBe('string');
    const result = frames.find((f) => f.type === 'TOOL_CALL_RESULT');
    expect(result).toMatchObject({ toolCallId: start?.toolCallId, role: 'tool' });
    expect(JSON.parse(result?.content as string)).toEqual({ city: 'Oslo', forecast: 'rainy' });
    expect(agent.messages.some((m) => m.role === 'tool')).toBe(true);
    expect(types(frames).at(-1)).toBe('RUN_FINISHED');
  });

  it('ends the run on a frontend tool with pendingToolCallIds; the tool message continues it', async () => {
    const from = server.log.frames.length;
    const agent = newAgent();
    const tools = [
      {
        name: 'change_background',
        description: 'Changes the page background',
        parameters: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      },
    ];
    agent.addMessage({ id: 'u1', role: 'user', content: 'paint blue' });
    await agent.runAgent({ tools });
    const frames = await framesSince(from);
    const call = frames.find((f) => f.type === 'TOOL_CALL_START');
    expect(call).toMatchObject({ toolCallName: 'change_background' });
    const finished = frames.at(-1);
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // pendingToolCallIds is a 1.0 field: a 0.x client reads the open call from the stream.
    if (v1) expect(finished).toMatchObject({ outcome: { pendingToolCallIds: [call?.toolCallId] } });
    else expect(finished?.outcome).not.toHaveProperty('pendingToolCallIds');

    const next = server.log.frames.length;
    agent.addMessage({
      id: 't1',
      role: 'tool',
      toolCallId: call?.toolCallId as string,
      content: '{"ok":true}',
    });
    await agent.runAgent({ tools });
    const after = await framesSince(next);
    const text = after
      .filter((f) => f.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.delta)
      .join('');
    expect(text).toBe('Result of change_background: {"ok":true}');
    expect(after.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('interrupts for an approval; resume answers it and the result is told for the original call', async () => {
    const from = server.log.frames.length;
    const agent = newAgent();
    agent.addMessage({ id: 'u1', role: 'user', content: 'delete report.pdf' });
    await agent.runAgent();
    const frames = await framesSince(from);
    const call = frames.find((f) => f.type === 'TOOL_CALL_START');
    const finished = frames.at(-1) as {
      outcome: { type: string; interrupts: { id: string; toolCallId: string }[] };
    };
    expect(finished.outcome.type).toBe('interrupt');
    const interrupt = finished.outcome.interrupts[0];
    expect(interrupt).toMatchObject({ reason: 'tool_approval', toolCallId: call?.toolCallId });

    const next = server.log.frames.length;
    await agent.runAgent({
      resume: [{ interruptId: interrupt?.id as string, status: 'resolved', payload: { confirmed: true } }],
    });
    const after = await framesSince(next);
    const result = after.find((f) => f.type === 'TOOL_CALL_RESULT');
    expect(result).toMatchObject({ toolCallId: call?.toolCallId });
    expect(JSON.parse(result?.content as string)).toEqual({ deleted: 'report.pdf' });
    expect(after.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('round-trips state: input state lands in the session, tool writes come back as patches', async () => {
    const from = server.log.frames.length;
    const agent = newAgent({ theme: 'dark' });
    agent.addMessage({ id: 'u1', role: 'user', content: 'remember apples' });
    await agent.runAgent();
    const frames = await framesSince(from);
    expect(frames[1]).toMatchObject({ type: 'STATE_SNAPSHOT', snapshot: { theme: 'dark' } });
    expect(frames.find((f) => f.type === 'STATE_DELTA')).toMatchObject({
      delta: [{ op: 'add', path: '/remembered', value: 'apples' }],
    });
    expect(agent.state).toMatchObject({ theme: 'dark', remembered: 'apples' });
    const session = await runner.sessionService.getSession({
      appName: 'helper',
      userId: 'user',
      sessionId: agent.threadId,
    });
    expect(session?.state).toMatchObject({ theme: 'dark', remembered: 'apples' });
  });

  it("ignores the client's writes to app:, temp:, user: and the framework's adk_ keys", async () => {
    const agent = newAgent({
      theme: 'light',
      'app:price': 0,
      'temp:scratch': 'x',
      'user:plan': 'gold',
      adk_budget: { tokens: 0 },
      'user:adk_budget': { tokens: 0 },
    });
    agent.addMessage({ id: 'u1', role: 'user', content: 'hello' });
    await agent.runAgent();
    const session = await runner.sessionService.getSession({
      appName: 'helper',
      userId: 'user',
      sessionId: agent.threadId,
    });
    expect(session?.state.theme).toBe('light');
    for (const key of ['app:price', 'temp:scratch', 'user:plan', 'adk_budget', 'user:adk_budget'])
      expect(session?.state[key], key).toBeUndefined();
  });

  it('opening a thread with no new message sends MESSAGES_SNAPSHOT of the session', async () => {
    const first = newAgent();
    first.addMessage({ id: 'u1', role: 'user', content: 'hello there' });
    await first.runAgent();
    const from = server.log.frames.length;
    const reopened = new HttpAgent({ url: server.url, threadId: first.threadId });
    await reopened.runAgent();
    const frames = await framesSince(from);
    expect(types(frames)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    expect(reopened.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(reopened.messages[1]).toMatchObject({ content: 'You said: hello there' });
  });
});

describe('createAgUiHandler edges', () => {
  let server: Served;
  const runner = agUiRunner(agUiAgent({ delayMs: 25 }));
  beforeAll(async () => {
    server = await serve(createAgUiHandler({ runner }));
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses malformed bodies with 400 and the reason', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(server.url, { method: 'POST', headers: { 'content-type': type }, body });
    const cases: [string, RegExp][] = [
      ['{oops', /request body/],
      ['{"runId":"r","messages":[]}', /threadId/],
      ['{"threadId":"t","runId":"r","messages":[{"id":"m","role":"robot"}]}', /role/],
      ['{"threadId":"t","runId":"r","messages":[],"state":[1]}', /state must be an object/],
      [
        '{"threadId":"t2","runId":"r","messages":[],"resume":[{"interruptId":"nope","status":"resolved"}]}',
        /No open interrupt/,
      ],
    ];
    for (const [body, reason] of cases) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(reason);
    }
    expect((await post('{}', 'text/plain')).status).toBe(415);
  });

  it('a disconnect cancels the run', async () => {
    const controller = new AbortController();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: 'gone',
        runId: 'r1',
        messages: [{ id: 'u', role: 'user', content: 'a story' }],
      }),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await vi.waitFor(async () => {
      const { runs } = await runner.listRuns({ sessionId: 'gone' });
      expect(runs[0]?.status).toBe('cancelled');
    });
  });

  it('a failing model ends the run with RUN_ERROR', async () => {
    const { LlmAgent, InMemorySessionService, Runner } = await import('@adk/core');
    const { ScriptedModel } = await import('@adk/core/testing');
    const broken = new Runner({
      appName: 'broken',
      sessionService: new InMemorySessionService(),
      agent: new LlmAgent({
        name: 'broken',
        model: new ScriptedModel({ script: [new Error('model down')] }),
      }),
    });
    const handler = createAgUiHandler({ runner: broken });
    const response = await handler(
      new Request('http://127.0.0.1/ag-ui', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          threadId: 't',
          runId: 'r',
          messages: [{ id: 'u', role: 'user', content: 'hi' }],
        }),
      }),
    );
    const text = await response.text();
    const frames = text
      .split('\n\n')
      .filter(Boolean)
      .map((b) => JSON.parse(b.slice(6)) as Record<string, unknown>);
    for (const frame of frames) expect(EventSchemasV1.safeParse(frame).success).toBe(true);
    expect(frames.at(-1)).toMatchObject({ type: 'RUN_ERROR' });
    expect(frames.at(-1)?.message).toMatch(/model down/);
    expect(text).not.toContain('[DONE]');
  });
});
