import { InMemoryRunner, LlmAgent } from '@adk/core';
import {
  type UIMessageChunk as AiChunk,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  type UIMessage,
} from 'ai';
import { describe, expect, it, vi } from 'vitest';
import {
  type ChunkLog,
  chatAgent,
  chatRunner,
  chunkLog,
  handlerFetch,
  recordChunks,
  TestChat,
  transportFor,
} from './__fixtures__/chat-app.js';
import { createChatHandler, toUIMessages } from './index.js';

const API = 'http://127.0.0.1/apps/chat/chat';

async function settle(log: ChunkLog): Promise<Record<string, unknown>[]> {
  await Promise.all(log.pending);
  expect(log.invalid).toEqual([]);
  return log.chunks;
}

function types(chunks: Record<string, unknown>[]): string[] {
  return chunks.map((c) => c.type as string);
}

/** The protocol's ordering rules, checked over one response's chunks. */
function assertOrder(chunks: Record<string, unknown>[]): void {
  expect(chunks[0]?.type).toBe('start');
  expect(chunks.at(-1)?.type).toBe('finish');
  const open = new Set<string>();
  const tools = new Set<string>();
  let step = false;
  for (const chunk of chunks) {
    const t = chunk.type as string;
    if (t === 'start-step') {
      expect(step).toBe(false);
      step = true;
    } else if (t === 'finish-step') {
      expect(step).toBe(true);
      expect(open.size).toBe(0);
      step = false;
    } else if (t.endsWith('-start') && (t.startsWith('text') || t.startsWith('reasoning'))) {
      open.add(chunk.id as string);
    } else if (t.endsWith('-delta') && (t.startsWith('text') || t.startsWith('reasoning'))) {
      expect(open.has(chunk.id as string)).toBe(true);
    } else if (t.endsWith('-end') && (t.startsWith('text') || t.startsWith('reasoning'))) {
      expect(open.delete(chunk.id as string)).toBe(true);
    } else if (t === 'tool-input-available') {
      tools.add(chunk.toolCallId as string);
    } else if (t.startsWith('tool-')) {
      expect(tools.has(chunk.toolCallId as string)).toBe(true);
    }
  }
  expect(open.size).toBe(0);
}

function post(body: unknown, init: RequestInit = {}): Request {
  return new Request(API, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

function userMessage(text: string, id = `u-${text}`): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

describe('createChatHandler with the AI SDK client', () => {
  it('streams text and reasoning that readUIMessageStream reads into one message', async () => {
    const handler = createChatHandler({ runner: chatRunner() });
    const response = await handler(
      post({ id: 's-think', messages: [userMessage('think hard')], trigger: 'submit-message' }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const log = chunkLog();
    const [a, b] = (response.body as ReadableStream<Uint8Array>).tee();
    const recorded = recordChunks(a, log);
    const { parseJsonEventStream, uiMessageChunkSchema } = await import('ai');
    const chunks = parseJsonEventStream({ stream: b, schema: uiMessageChunkSchema }).pipeThrough(
      new TransformStream<{ success: boolean; value?: unknown }, AiChunk>({
        transform(parsed, controller) {
          if (parsed.success) controller.enqueue(parsed.value as AiChunk);
        },
      }),
    );
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: chunks })) last = message;
    await recorded;
    const all = await settle(log);
    assertOrder(all);
    expect(types(all)).toContain('reasoning-delta');
    expect(types(all).filter((t) => t === 'text-delta').length).toBeGreaterThan(1);
    const parts = last?.parts ?? [];
    expect(parts.find((p) => p.type === 'reasoning')).toMatchObject({ text: 'Let me think.' });
    expect(parts.find((p) => p.type === 'text')).toMatchObject({ text: 'The answer is 42.' });
    expect(last?.metadata).toMatchObject({ author: 'assistant' });
  });

  it('runs a tool inside the step of its call and reports it in the same message', async () => {
    const handler = createChatHandler({ runner: chatRunner() });
    const log = chunkLog();
    const chat = new TestChat({ id: 's-weather', transport: transportFor(handler, log) });
    await chat.sendMessage({ text: 'weather in Paris' });
    const chunks = await settle(log);
    assertOrder(chunks);
    expect(types(chunks).filter((t) => t === 'start-step')).toHaveLength(2);
    expect(chat.status).toBe('ready');
    expect(chat.messages).toHaveLength(2);
    const assistant = chat.messages[1] as UIMessage;
    const tool = assistant.parts.find((p) => p.type === 'tool-get_weather');
    expect(tool).toMatchObject({
      state: 'output-available',
      input: { city: 'Paris' },
      output: { city: 'Paris', forecast: 'sunny' },
    });
    const text = assistant.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);
    expect(text.join('')).toContain('Result of get_weather');
  });

  it('asks for approval, and the approval continues the same assistant message', async () => {
    const runner = chatRunner();
    const handler = createChatHandler({ runner });
    const log = chunkLog();
    const chat = new TestChat({
      id: 's-approve',
      transport: transportFor(handler, log),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'delete notes.txt' });
    const first = chat.messages[1] as UIMessage;
    const asked = first.parts.find((p) => p.type === 'tool-delete_file') as {
      state: string;
      approval?: { id: string };
      toolCallId: string;
    };
    expect(asked.state).toBe('approval-requested');
    expect(types(await settle(log))).toContain('tool-approval-request');

    await chat.addToolApprovalResponse({ id: asked.approval?.id as string, approved: true });
    await vi.waitFor(() => expect(chat.status).toBe('ready'));
    await settle(log);
    expect(chat.messages).toHaveLength(2);
    const after = chat.messages[1] as UIMessage;
    expect(after.id).toBe(first.id);
    expect(after.parts.find((p) => p.type === 'tool-delete_file')).toMatchObject({
      state: 'output-available',
      output: { deleted: 'notes.txt' },
    });
    const text = after.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);
    expect(text.join('')).toContain('Result of delete_file');

    // The session read back is the same conversation: two messages, the tool done.
    const session = await runner.sessionService.getSession({
      appName: 'chat',
      userId: 'user',
      sessionId: 's-approve',
    });
    const messages = toUIMessages(session as NonNullable<typeof session>);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]?.id).toBe(first.id);
    expect(messages[1]?.parts.find((p) => p.type === 'tool-delete_file')).toMatchObject({
      state: 'output-available',
    });
  });

  it('a denied approval ends the call as denied', async () => {
    const handler = createChatHandler({ runner: chatRunner() });
    const log = chunkLog();
    const chat = new TestChat({
      id: 's-deny',
      transport: transportFor(handler, log),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'delete secrets.txt' });
    const asked = (chat.messages[1] as UIMessage).parts.find((p) => p.type === 'tool-delete_file') as {
      approval?: { id: string };
    };
    await chat.addToolApprovalResponse({ id: asked.approval?.id as string, approved: false, reason: 'no' });
    await vi.waitFor(() => expect(chat.status).toBe('ready'));
    await settle(log);
    expect(chat.messages).toHaveLength(2);
    expect((chat.messages[1] as UIMessage).parts.find((p) => p.type === 'tool-delete_file')).toMatchObject({
      state: 'output-denied',
    });
  });

  it('a client-side tool waits for addToolOutput, whose output continues the message', async () => {
    const handler = createChatHandler({ runner: chatRunner() });
    const log = chunkLog();
    const chat = new TestChat({
      id: 's-client',
      transport: transportFor(handler, log),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    });
    await chat.sendMessage({ text: 'pick a color' });
    const part = (chat.messages[1] as UIMessage).parts.find((p) => p.type === 'tool-pick_color') as {
      state: string;
      toolCallId: string;
    };
    expect(part.state).toBe('input-available');
    const firstChunks = await settle(log);
    expect(firstChunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });

    await chat.addToolOutput({ tool: 'pick_color', toolCallId: part.toolCallId, output: 'blue' } as never);
    await vi.waitFor(() => expect(chat.status).toBe('ready'));
    await vi.waitFor(() =>
      expect(
        (chat.messages[1] as UIMessage).parts
          .filter((p) => p.type === 'text')
          .map((p) => (p as { text: string }).text)
          .join(''),
      ).toContain('Result of pick_color: {"result":"blue"}'),
    );
    await settle(log);
    expect(chat.messages).toHaveLength(2);
  });

  it('resumes: 204 with no active run, else the answer replayed from start and followed live', async () => {
    const runner = chatRunner(chatAgent({ delayMs: 15 }));
    const handler = createChatHandler({ runner });
    const resume = () => handler(new Request(`${API}/s-resume/stream`));
    expect((await resume()).status).toBe(204);

    // A background run: the first reader goes away mid-answer, the run goes on.
    const first = await handler(
      post({ id: 's-resume', messages: [userMessage('tell a story')], background: true }),
    );
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();

    const again = await resume();
    expect(again.status).toBe(200);
    const log = chunkLog();
    await recordChunks(again.body as ReadableStream<Uint8Array>, log);
    const chunks = await settle(log);
    assertOrder(chunks);
    const text = chunks
      .filter((c) => c.type === 'text-delta')
      .map((c) => c.delta)
      .join('');
    expect(text).toMatch(/^Once upon a time .*The end\.$/);
    // Once it has finished, nothing is active.
    await vi.waitFor(async () => expect((await resume()).status).toBe(204));
  });

  it('resumes with the AI SDK client after a reload (initial messages from the session)', async () => {
    const runner = chatRunner(chatAgent({ delayMs: 15 }));
    const handler = createChatHandler({ runner });
    const firstLog = chunkLog();
    const firstChat = new TestChat({
      id: 's-reload',
      transport: transportFor(handler, firstLog, { background: true }),
    });
    void firstChat.sendMessage({ text: 'a story please' });
    await vi.waitFor(() => expect(firstLog.chunks.some((c) => c.type === 'text-delta')).toBe(true));
    await firstChat.stop();

    const initial = (await (await handler(new Request(`${API}/s-reload/messages`))).json()) as UIMessage[];
    expect(initial[0]).toMatchObject({ role: 'user' });
    const log = chunkLog();
    const chat = new TestChat({
      id: 's-reload',
      transport: transportFor(handler, log),
      initialMessages: initial,
    });
    await chat.resumeStream();
    await vi.waitFor(() => expect(chat.status).toBe('ready'));
    await settle(log);
    expect(chat.messages).toHaveLength(2);
    const text = (chat.messages[1] as UIMessage).parts
      .filter((p) => p.type === 'text')
      .map((p) => (p as { text: string }).text)
      .join('');
    expect(text).toMatch(/^Once upon a time .*The end\.$/);
  });

  it('a disconnect cancels a foreground run', async () => {
    const runner = chatRunner(chatAgent({ delayMs: 20 }));
    const handler = createChatHandler({ runner });
    const response = await handler(post({ id: 's-cancel', messages: [userMessage('story time')] }));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await vi.waitFor(async () => {
      const { runs } = await runner.listRuns({ sessionId: 's-cancel' });
      expect(runs[0]?.status).toBe('cancelled');
    });
  });

  it('a failing model becomes an error chunk, and the stream still ends with finish', async () => {
    const { LlmAgent, InMemorySessionService, Runner } = await import('@adk/core');
    const { ScriptedModel } = await import('@adk/core/testing');
    const runner = new Runner({
      appName: 'chat',
      sessionService: new InMemorySessionService(),
      agent: new LlmAgent({
        name: 'broken',
        model: new ScriptedModel({ script: [new Error('model down')] }),
      }),
    });
    const handler = createChatHandler({ runner });
    const log = chunkLog();
    const response = await handlerFetch(handler, log)(API, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 's-err', messages: [userMessage('hi')] }),
    });
    await response.text();
    const chunks = await settle(log);
    expect(chunks.find((c) => c.type === 'error')?.errorText).toMatch(/model down/);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it("ignores the client's userId unless told to trust it", async () => {
    const runner = chatRunner();
    const body = { id: 's-who', userId: 'mallory', messages: [userMessage('hi')], trigger: 'submit-message' };
    await (await createChatHandler({ runner })(post(body))).text();
    const key = { appName: runner.appName, sessionId: 's-who' };
    expect(await runner.sessionService.getSession({ ...key, userId: 'user' })).toBeDefined();
    expect(await runner.sessionService.getSession({ ...key, userId: 'mallory' })).toBeUndefined();
    await (
      await createChatHandler({ runner, trustClientUserId: true })(post({ ...body, id: 's-who2' }))
    ).text();
    expect(
      await runner.sessionService.getSession({ ...key, sessionId: 's-who2', userId: 'mallory' }),
    ).toBeDefined();
  });

  it("answers an app's configuration error with a JSON 500, never a throw", async () => {
    const runner = new InMemoryRunner({
      appName: 'chat',
      agent: new LlmAgent({ name: 'assistant', model: 'no-such-provider-model' }),
    });
    const response = await createChatHandler({ runner })(
      post({ id: 's-config', messages: [userMessage('hi')], trigger: 'submit-message' }),
    );
    expect(response.status).toBe(500);
    const body = (await response.json()) as { code: string; error: string };
    expect(body.code).toMatch(/MODEL_NOT_FOUND|PROVIDER_NOT_REGISTERED|CONFIG/);
    expect(body.error).toContain('no-such-provider-model');
  });

  it('refuses malformed bodies with 400 and the reason', async () => {
    const handler = createChatHandler({ runner: chatRunner() });
    const cases: [unknown, RegExp][] = [
      ['{not json', /not valid JSON|Invalid request body/],
      [{ messages: [userMessage('x')] }, /id/],
      [{ id: 's', messages: [] }, /at least one message/],
      [{ id: 's', messages: [{ id: 'm', role: 'robot', parts: [] }] }, /role/],
      [
        { id: 's', messages: [{ id: 'm', role: 'user', parts: [{ type: 'reasoning', text: 'x' }] }] },
        /no text or file/,
      ],
      [
        { id: 's', messages: [{ id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'x' }] }] },
        /answers no open question/,
      ],
    ];
    for (const [body, reason] of cases) {
      const response = await handler(post(body as never));
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(reason);
    }
    const wrongType = await handler(post('{}', { headers: { 'content-type': 'text/plain' } }));
    expect(wrongType.status).toBe(415);
  });
});
