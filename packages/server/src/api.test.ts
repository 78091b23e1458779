import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startServer, type TestServer } from './__fixtures__/apps.js';

// ADK's api_server routes through real HTTP, one server (PGlite in a temp folder) for the file.

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t?.close();
});

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${t.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

async function json<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  status = 200,
): Promise<T> {
  const response = await call(method, path, body);
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

const userText = (text: string) => ({ role: 'user', parts: [{ text }] });

type WirePart = { text?: string; functionCall?: { id: string; name: string; args: Record<string, unknown> } };
const partsOf = (event: Record<string, unknown> | undefined): WirePart[] =>
  (event?.content as { parts: WirePart[] } | undefined)?.parts ?? [];
const sessions = '/apps/assistant/users/u1/sessions';

async function newSession(state?: Record<string, unknown>): Promise<string> {
  const session = await json<{ id: string }>('POST', sessions, state ? { state } : undefined);
  return session.id;
}

/** POST /run_sse for the assistant app as user u1, with `newMessage` as text or a whole Content. */
function runSse(
  sessionId: string,
  message: string | Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return call('POST', '/run_sse', {
    appName: 'assistant',
    userId: 'u1',
    sessionId,
    newMessage: typeof message === 'string' ? userText(message) : message,
    ...extra,
  });
}

describe('apps, health, version', () => {
  it('lists apps, plain and detailed (relative_path tolerated)', async () => {
    expect(await json('GET', '/list-apps?relative_path=./')).toEqual(['assistant', 'pipeline']);
    const detailed = await json<{ apps: Record<string, unknown>[] }>('GET', '/list-apps?detailed=true');
    expect(detailed.apps[0]).toEqual({
      name: 'assistant',
      rootAgentName: 'assistant',
      description: 'A helpful assistant with tools',
      language: 'typescript',
      isComputerUse: false,
      // Ours: the protocols the app is served over (ADK's clients ignore the extra field).
      protocols: {
        adk: '/run_sse',
        a2a: '/a2a/assistant',
        'ai-sdk': '/apps/assistant/chat',
        'ag-ui': '/apps/assistant/ag-ui',
      },
    });
    const info = await json<{ agents: Record<string, unknown> }>('GET', '/apps/pipeline/app-info');
    expect(Object.keys(info.agents)).toEqual(['pipeline', 'writer', 'reviewer']);
  });

  it('answers /health, /ready and /version', async () => {
    expect(await json('GET', '/health')).toEqual({ status: 'ok' });
    expect(await json('GET', '/ready')).toEqual({ status: 'ready' });
    const version = await json('GET', '/version');
    expect(version).toMatchObject({ version: '0.1.0', language: 'typescript' });
    expect(typeof version.language_version).toBe('string');
  });

  it('answers 404 JSON for unknown routes and apps', async () => {
    expect(await json('GET', '/nope', undefined, 404)).toMatchObject({ code: 'NOT_FOUND' });
    const missing = await json('GET', '/apps/ghost/users/u1/sessions', undefined, 404);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', detail: 'App not found: ghost' });
  });
});

describe('sessions', () => {
  it('creates without an id, with initial state, and reads it back in ADK shape', async () => {
    const created = await json('POST', sessions, { state: { color: 'blue', 'user:lang': 'en' } });
    expect(created).toMatchObject({ appName: 'assistant', userId: 'u1', events: [] });
    expect(created.state).toMatchObject({ color: 'blue', 'user:lang': 'en' });
    expect(typeof created.lastUpdateTime).toBe('number');
    // ADK sends float seconds, not milliseconds.
    expect(created.lastUpdateTime as number).toBeLessThan(Date.now() / 1000 + 5);
    expect(created.lastUpdateTime as number).toBeGreaterThan(Date.now() / 1000 - 60);
    const fetched = await json('GET', `${sessions}/${created.id}`);
    expect(fetched).toMatchObject({ id: created.id, state: created.state });
  });

  it('creates with the id in the body (snake_case too) and in the path; duplicates are 409', async () => {
    expect(await json('POST', sessions, { session_id: 'body-id' })).toMatchObject({ id: 'body-id' });
    expect(await json('POST', `${sessions}/path-id`, { k: 1 })).toMatchObject({
      id: 'path-id',
      state: { k: 1 },
    });
    expect(await json('POST', `${sessions}/path-id`, undefined, 409)).toMatchObject({
      code: 'ALREADY_EXISTS',
    });
  });

  it('creates with events (ADK shape, seconds) that count toward state', async () => {
    const created = await json<{
      id: string;
      events: { author: string; timestamp: number }[];
      state: object;
    }>('POST', sessions, {
      sessionId: 'with-events',
      events: [
        {
          author: 'user',
          invocationId: 'i1',
          timestamp: 1700000000.5,
          content: userText('hi'),
          actions: { stateDelta: { seen: true } },
        },
      ],
    });
    expect(created.events).toHaveLength(1);
    expect(created.events[0]?.author).toBe('user');
    expect(created.state).toMatchObject({ seen: true });
  });

  it('lists, patches state and deletes', async () => {
    const id = await newSession();
    await json('POST', `${sessions}/___eval___session___1`);
    const list = await json<{ id: string; events: unknown[] }[]>('GET', sessions);
    expect(list.find((s) => s.id === id)?.events).toEqual([]);
    expect(list.some((s) => s.id.startsWith('___eval___'))).toBe(false);
    const patched = await json<{
      state: object;
      events: { author: string; invocationId: string; actions: object }[];
    }>('PATCH', `${sessions}/${id}`, { stateDelta: { mood: 'happy' } });
    expect(patched.state).toMatchObject({ mood: 'happy' });
    expect(patched.events.at(-1)?.invocationId).toMatch(/^p-/);
    expect(patched.events.at(-1)?.actions).toMatchObject({ stateDelta: { mood: 'happy' } });
    expect(await json('DELETE', `${sessions}/${id}`)).toBeNull();
    await json('GET', `${sessions}/${id}`, undefined, 404);
    await json('PATCH', `${sessions}/${id}`, { stateDelta: { a: 1 } }, 404);
  });

  it('adds a session to memory', async () => {
    const id = await newSession();
    expect(await json('PATCH', '/apps/assistant/users/u1/memory', { session_id: id })).toBeNull();
    await json('PATCH', '/apps/assistant/users/u1/memory', { sessionId: 'missing' }, 404);
  });
});

describe('/run and /run_sse', () => {
  it('/run returns the array of events in ADK shape', async () => {
    const id = await newSession();
    const events = await json<Record<string, unknown>[]>('POST', '/run', {
      appName: 'assistant',
      userId: 'u1',
      sessionId: id,
      newMessage: userText('hello'),
    });
    expect(events.map((e) => e.author)).toEqual(['user', 'assistant']);
    const reply = events[1] as Record<string, unknown>;
    expect(reply).toMatchObject({
      content: { role: 'model', parts: [{ text: 'You said: hello' }] },
      actions: {
        stateDelta: {},
        artifactDelta: {},
        requestedAuthConfigs: {},
        requestedToolConfirmations: {},
      },
    });
    expect(typeof reply.id).toBe('string');
    expect(typeof reply.invocationId).toBe('string');
    expect(reply.timestamp as number).toBeLessThan(Date.now() / 1000 + 5);
    // No nulls on the wire (ADK dumps with exclude_none).
    expect(JSON.stringify(events)).not.toContain('null');
  });

  it('accepts ADK docs-style snake_case bodies with snake_case parts', async () => {
    const id = await newSession();
    const events = await json<Record<string, unknown>[]>('POST', '/run', {
      app_name: 'assistant',
      user_id: 'u1',
      session_id: id,
      new_message: { parts: [{ text: 'snake' }] },
      state_delta: { from: 'docs' },
    });
    expect(events.at(-1)).toMatchObject({ content: { parts: [{ text: 'You said: snake' }] } });
    expect((await json<{ state: object }>('GET', `${sessions}/${id}`)).state).toMatchObject({ from: 'docs' });
  });

  it('/run_sse frames one `data:` line per event and ends cleanly', async () => {
    const id = await newSession();
    const response = await runSse(id, 'weather in Paris');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { raw, events } = await readSse(response);
    expect(raw.startsWith('data: {')).toBe(true);
    expect(events.map((e) => e.author)).toEqual(['user', 'assistant', 'assistant', 'assistant']);
    const call0 = partsOf(events[1])[0];
    expect(call0?.functionCall).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    const answer = partsOf(events[3])[0]?.text;
    expect(answer).toBe('Result of get_weather: {"city":"Paris","forecast":"sunny"}');
  });

  it("/run_sse events and the session JSON carry the model response's fields under ADK's names", async () => {
    const id = await newSession();
    const { events } = await readSse(await runSse(id, 'metadata please'));
    const expected = {
      modelVersion: 'gemini-2.5-flash-001',
      avgLogprobs: -0.125,
      logprobsResult: { chosenCandidates: [{ token: 'with', logProbability: -0.125 }] },
      cacheMetadata: { cacheName: 'cachedContents/1' },
      citationMetadata: { citations: [{ startIndex: 0, endIndex: 4 }] },
    };
    expect(events.at(-1)).toMatchObject(expected);
    const session = await json<{ events: Record<string, unknown>[] }>('GET', `${sessions}/${id}`);
    expect(session.events.at(-1)).toMatchObject(expected);
  });

  it('/run_sse streams partial token chunks when streaming is true', async () => {
    const id = await newSession();
    const response = await runSse(id, 'stream me', { streaming: true });
    const { events } = await readSse(response);
    const partials = events.filter((e) => e.partial === true);
    expect(partials.length).toBeGreaterThan(2);
    const joined = partials.map((e) => (e.content as { parts: { text: string }[] }).parts[0]?.text).join('');
    expect(joined).toBe('You said: stream me');
    const final = events.at(-1) as Record<string, unknown>;
    expect(final.partial).not.toBe(true);
    expect((final.content as { parts: { text: string }[] }).parts[0]?.text).toBe('You said: stream me');
    // Partial chunks are not stored.
    const session = await json<{ events: { partial?: boolean }[] }>('GET', `${sessions}/${id}`);
    expect(session.events.some((e) => e.partial)).toBe(false);
  });

  it('a failing model ends /run_sse with an error event, not a dropped connection', async () => {
    const id = await newSession();
    const { events } = await readSse(await runSse(id, 'explode'));
    expect(events.at(-1)).toMatchObject({ errorMessage: expect.stringContaining('the model exploded') });
  });

  it('pauses on a tool confirmation and resumes it over HTTP', async () => {
    const id = await newSession();
    const first = await readSse(await runSse(id, 'delete notes.txt'));
    const request = first.events.find((e) =>
      (e.content as { parts: { functionCall?: { name: string } }[] } | undefined)?.parts.some(
        (p) => p.functionCall?.name === 'adk_request_confirmation',
      ),
    ) as {
      content: { parts: { functionCall: { id: string; args: Record<string, unknown> } }[] };
      longRunningToolIds: string[];
    };
    expect(request).toBeDefined();
    const confirmationCall = request.content.parts[0]?.functionCall;
    expect(request.longRunningToolIds).toEqual([confirmationCall?.id]);
    expect(confirmationCall?.args.originalFunctionCall).toMatchObject({
      name: 'delete_file',
      args: { path: 'notes.txt' },
    });
    // The user approves: a functionResponse for adk_request_confirmation, as ADK's web UI sends it.
    const second = await readSse(
      await call('POST', '/run_sse', {
        appName: 'assistant',
        userId: 'u1',
        sessionId: id,
        newMessage: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: confirmationCall?.id,
                name: 'adk_request_confirmation',
                response: { confirmed: true },
              },
            },
          ],
        },
      }),
    );
    const texts = second.events.map(
      (e) => (e.content as { parts: { text?: string }[] } | undefined)?.parts[0]?.text,
    );
    expect(texts.at(-1)).toBe('Result of delete_file: {"deleted":"notes.txt"}');
  });

  it('rejects runs on unknown sessions and apps, and without appName', async () => {
    const body = { appName: 'assistant', userId: 'u1', sessionId: 'nope', newMessage: userText('x') };
    expect(await json('POST', '/run', body, 404)).toMatchObject({ detail: 'Session not found: nope' });
    expect(await json('POST', '/run_sse', body, 404)).toMatchObject({ code: 'NOT_FOUND' });
    expect(await json('POST', '/run', { ...body, appName: 'ghost' }, 404)).toMatchObject({
      detail: 'App not found: ghost',
    });
    expect(await json('POST', '/run', { ...body, appName: undefined }, 400)).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(
      await json('POST', '/run', { ...body, newMessage: { role: 'robot', parts: 'x' } }, 422),
    ).toMatchObject({
      code: 'VALIDATION',
    });
  });
});

describe('artifacts', () => {
  it('lists, loads latest and by version, lists versions, deletes', async () => {
    const id = await newSession();
    const { events } = await readSse(await runSse(id, 'save todo'));
    // The tool-response event carries artifactDelta; like ADK it is sent as content, then actions.
    const withDelta = events.filter(
      (e) => Object.keys((e.actions as { artifactDelta: object }).artifactDelta).length > 0,
    );
    expect(withDelta).toHaveLength(1);
    expect(withDelta[0]?.content).toBeUndefined();
    await runSse(id, 'save todo').then((r) => r.text());
    const base = `${sessions}/${id}/artifacts`;
    expect(await json('GET', base)).toEqual(['todo']);
    expect(await json('GET', `${base}/todo/versions`)).toEqual([0, 1]);
    expect(await json('GET', `${base}/todo`)).toEqual({ text: 'note todo' });
    expect(await json('GET', `${base}/todo?version=0`)).toEqual({ text: 'note todo' });
    expect(await json('GET', `${base}/todo/versions/1`)).toEqual({ text: 'note todo' });
    expect(await json('GET', `${base}/todo/versions/latest`)).toEqual({ text: 'note todo' });
    await json('GET', `${base}/todo/versions/7`, undefined, 404);
    await json('GET', `${base}/todo?version=abc`, undefined, 422);
    const saved = await json('POST', base, {
      filename: 'upload.txt',
      artifact: { inline_data: { mime_type: 'text/plain', data: 'aGk=' } },
    });
    expect(saved).toMatchObject({ version: 0, mimeType: 'text/plain' });
    expect(await json('GET', `${base}/upload.txt`)).toEqual({
      inlineData: { mimeType: 'text/plain', data: 'aGk=' },
    });
    expect(await json('DELETE', `${base}/todo?version=0`)).toBeNull();
    expect(await json('GET', `${base}/todo/versions`)).toEqual([1]);
    expect(await json('DELETE', `${base}/todo`)).toBeNull();
    await json('GET', `${base}/todo`, undefined, 404);
    await json('GET', `${base}/..`, undefined, 404);
  });
});

describe('traces and graphs', () => {
  it('serves the spans of a session and of an event', async () => {
    const id = await newSession();
    const events = await json<{ id: string; author: string }[]>('POST', '/run', {
      appName: 'assistant',
      userId: 'u1',
      sessionId: id,
      newMessage: userText('weather in Rome'),
    });
    const spans = await json<
      {
        name: string;
        span_id: string;
        parent_span_id: string | null;
        start_time: number;
        attributes: object;
      }[]
    >('GET', `/debug/trace/session/${id}`);
    const names = spans.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'invocation',
        'invoke_agent assistant',
        'call_llm',
        'execute_tool get_weather',
      ]),
    );
    const root = spans.find((s) => s.name === 'invocation');
    expect(root?.parent_span_id).toBeNull();
    expect(spans.find((s) => s.name === 'call_llm')?.attributes).toMatchObject({
      'gen_ai.conversation.id': id,
    });
    expect(await json('GET', `/dev/apps/assistant/debug/trace/session/${id}`)).toEqual(spans);

    const modelEvent = events[1] as { id: string };
    const trace = await json('GET', `/debug/trace/${modelEvent.id}`);
    expect(trace).toMatchObject({ 'gen_ai.operation.name': 'chat' });
    expect(typeof trace.trace_id).toBe('string');
    const toolEvent = events[2] as { id: string };
    expect(await json('GET', `/debug/trace/${toolEvent.id}`)).toMatchObject({
      'gen_ai.tool.name': 'get_weather',
    });
    await json('GET', '/debug/trace/unknown-event', undefined, 404);
    expect(await json('GET', '/debug/trace/session/unknown')).toEqual([]);

    const graph = await json<{ dotSrc: string }>('GET', `${sessions}/${id}/events/${modelEvent.id}/graph`);
    expect(graph.dotSrc).toContain('digraph');
    expect(graph.dotSrc).toMatch(/"assistant" -> "get_weather" \[[^\]]*penwidth=2/);
    expect(await json('GET', `${sessions}/${id}/events/missing/graph`)).toEqual({});
  });

  it('records the model request and raw response on the model call of an event', async () => {
    const id = await newSession();
    const photo = Buffer.alloc(3000, 7).toString('base64');
    const events = await json<{ id: string; author: string; content?: { parts: { text?: string }[] } }[]>(
      'POST',
      '/run',
      {
        appName: 'assistant',
        userId: 'u1',
        sessionId: id,
        newMessage: {
          role: 'user',
          parts: [{ text: 'weather in Oslo' }, { inlineData: { mimeType: 'image/png', data: photo } }],
        },
      },
    );
    const callEvent = events[1] as { id: string };
    const answerEvent = events.at(-1) as { id: string; content?: { parts: { text?: string }[] } };
    for (const event of [callEvent, answerEvent]) {
      const trace = await json<Record<string, unknown>>('GET', `/debug/trace/${event.id}`);
      expect(trace['gcp.vertex.agent.event_id']).toBe(event.id);
      const request = JSON.parse(trace['gcp.vertex.agent.llm_request'] as string) as {
        systemInstruction?: string;
        contents: { role: string; parts: { text?: string; inlineData?: { data: string } }[] }[];
        tools?: { name: string }[];
      };
      expect(request.systemInstruction).toContain('Help the user.');
      expect(request.contents[0]?.parts[0]?.text).toBe('weather in Oslo');
      // Inline bytes are not kept, only their size.
      expect(request.contents[0]?.parts[1]?.inlineData?.data).toBe('<3000 bytes not recorded>');
      expect(trace['gcp.vertex.agent.llm_request']).not.toContain(photo.slice(0, 40));
      expect(request.tools?.map((t) => t.name)).toContain('get_weather');
      expect(typeof trace['gcp.vertex.agent.llm_response']).toBe('string');
    }
    const first = await json<Record<string, string>>('GET', `/debug/trace/${callEvent.id}`);
    expect(JSON.parse(first['gcp.vertex.agent.llm_response'] as string)).toMatchObject({
      content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
    });
    const last = await json<Record<string, string>>('GET', `/debug/trace/${answerEvent.id}`);
    const secondRequest = JSON.parse(last['gcp.vertex.agent.llm_request'] as string) as {
      contents: { parts: { functionResponse?: { name: string } }[] }[];
    };
    expect(secondRequest.contents.at(-1)?.parts[0]?.functionResponse?.name).toBe('get_weather');
    expect(JSON.parse(last['gcp.vertex.agent.llm_response'] as string)).toMatchObject({
      content: { parts: [{ text: answerEvent.content?.parts[0]?.text }] },
    });
    // The session's spans carry them too (the Trace pane).
    const spans = await json<{ name: string; attributes: Record<string, unknown> }[]>(
      'GET',
      `/debug/trace/session/${id}`,
    );
    expect(
      spans.filter((s) => s.name === 'call_llm').every((s) => 'gcp.vertex.agent.llm_request' in s.attributes),
    ).toBe(true);
  });

  it('records the request and the error of a model call that failed', async () => {
    const id = await newSession();
    const events = await json<{ id: string; errorCode?: string; errorMessage?: string }[]>('POST', '/run', {
      appName: 'assistant',
      userId: 'u1',
      sessionId: id,
      newMessage: userText('explode now'),
    });
    const failed = events.at(-1);
    expect(failed?.errorMessage).toContain('the model exploded');
    const spans = await json<{ name: string; attributes: Record<string, string> }[]>(
      'GET',
      `/debug/trace/session/${id}`,
    );
    const call = spans.find((s) => s.name === 'call_llm');
    const request = JSON.parse(call?.attributes['gcp.vertex.agent.llm_request'] ?? '{}') as {
      contents?: { parts: { text?: string }[] }[];
    };
    expect(request.contents?.at(-1)?.parts[0]?.text).toBe('explode now');
    expect(JSON.parse(call?.attributes['gcp.vertex.agent.llm_response'] ?? '{}')).toEqual({
      error: { message: 'the model exploded' },
    });
  });

  it('builds the agent graph as JSON and DOT', async () => {
    const info = await json<{
      name: string;
      root_agent: { sub_agents: { name: string }[] };
      graph: { nodes: { id: string }[]; edges: object[] };
      dotSrc: string;
    }>('GET', '/dev/apps/pipeline/build_graph');
    expect(info.name).toBe('pipeline');
    expect(info.root_agent.sub_agents.map((a) => a.name)).toEqual(['writer', 'reviewer']);
    expect(info.graph.nodes.map((n) => n.id)).toEqual(['pipeline', 'writer', 'reviewer']);
    expect(info.graph.edges).toEqual([
      { from: 'pipeline', to: 'writer', kind: 'sub_agent' },
      { from: 'pipeline', to: 'reviewer', kind: 'sub_agent' },
    ]);
    const image = await json<Record<string, { dotSrc: string }>>(
      'GET',
      '/dev/apps/assistant/build_graph_image?dark_mode=true',
    );
    expect(image['']?.dotSrc).toContain('"assistant" -> "delete_file"');
  });

  it('answers the web UI start-up calls: eval sets and results (empty), builder, telemetry', async () => {
    expect(await json('GET', '/dev/apps/assistant/eval_sets')).toEqual([]);
    expect(await json('GET', '/dev/apps/assistant/eval_results')).toEqual([]);
    expect(await json('GET', '/dev/apps/assistant/eval-sets')).toEqual({ evalSetIds: [] });
    const builder = await call('GET', '/dev/apps/assistant/builder');
    expect(builder.status).toBe(200);
    expect(await builder.text()).toBe('');
    expect(await json('GET', '/config/telemetry')).toEqual({ telemetry: false });
    await json('GET', '/dev/apps/ghost/eval_sets', undefined, 404);
  });
});

describe("ADK's web UI start-up", () => {
  it('answers every call the UI makes when it loads and chats once', async () => {
    // The sequence ADK's own web UI (the Angular bundle of @google/adk-devtools) sends.
    expect(await json('GET', '/list-apps?relative_path=./')).toContain('assistant');
    await json('GET', '/version');
    await json('GET', '/dev/apps/assistant/build_graph');
    await json('GET', '/dev/apps/assistant/build_graph_image?dark_mode=');
    expect(await json('GET', '/dev/apps/assistant/eval_sets')).toEqual([]);
    expect(await json('GET', '/dev/apps/assistant/eval_results')).toEqual([]);
    expect((await call('GET', '/dev/apps/assistant/builder')).status).toBe(200);
    const session = await json<{ id: string }>('POST', '/apps/assistant/users/user/sessions', {});
    await json('GET', `/apps/assistant/users/user/sessions/${session.id}`);
    const { events } = await readSse(
      await call('POST', '/run_sse', {
        appName: 'assistant',
        userId: 'user',
        sessionId: session.id,
        newMessage: { role: 'user', parts: [{ text: 'hi from the UI' }] },
        streaming: false,
        stateDelta: null,
      }),
    );
    expect(partsOf(events.at(-1))[0]?.text).toBe('You said: hi from the UI');
    const spans = await json<{ name: string }[]>(
      'GET',
      `/dev/apps/assistant/debug/trace/session/${session.id}`,
    );
    expect(spans.length).toBeGreaterThan(0);
  });
});
