import { InMemorySessionService } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startServer, type TestServer } from './__fixtures__/apps.js';

// Every app also speaks the AI SDK's chat protocol and AG-UI, behind the same guards as the API.

const TOKEN = 'front-token';
let t: TestServer;
beforeAll(async () => {
  t = await startServer({ sessionService: new InMemorySessionService(), token: TOKEN });
});
afterAll(async () => {
  await t?.close();
});

const auth = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };

function chatBody(id: string, text: string): string {
  return JSON.stringify({
    id,
    trigger: 'submit-message',
    messages: [{ id: `m-${id}`, role: 'user', parts: [{ type: 'text', text }] }],
  });
}

describe('front-end protocol routes of @adk/server', () => {
  it('/list-apps stays a list of names; its detailed form tells each app’s protocols', async () => {
    const names = await (await fetch(`${t.url}/list-apps`, { headers: auth })).json();
    expect(names).toEqual(['assistant', 'pipeline']);
    const detailed = (await (await fetch(`${t.url}/list-apps?detailed=true`, { headers: auth })).json()) as {
      apps: { name: string; protocols: Record<string, string> }[];
    };
    expect(detailed.apps[0]).toMatchObject({
      name: 'assistant',
      protocols: {
        adk: '/run_sse',
        'ai-sdk': '/apps/assistant/chat',
        'ag-ui': '/apps/assistant/ag-ui',
      },
    });
    const info = (await (await fetch(`${t.url}/apps/pipeline/app-info`, { headers: auth })).json()) as {
      protocols: Record<string, string>;
    };
    expect(info.protocols['ai-sdk']).toBe('/apps/pipeline/chat');
  });

  it('chat streams a UI message stream and calls tools', async () => {
    const response = await fetch(`${t.url}/apps/assistant/chat`, {
      method: 'POST',
      headers: auth,
      body: chatBody('chat-1', 'weather in Rome'),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const raw = await response.text();
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    const chunks = raw
      .split('\n\n')
      .filter((f) => f.startsWith('data: {'))
      .map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);
    expect(chunks[0]).toMatchObject({ type: 'start' });
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { city: 'Rome', forecast: 'sunny' },
    });
    expect(chunks.findLast((c) => c.type === 'finish')).toMatchObject({ finishReason: 'stop' });
    const messages = (await (
      await fetch(`${t.url}/apps/assistant/chat/chat-1/messages`, { headers: auth })
    ).json()) as { role: string }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('a chat with no active run answers the resume with 204', async () => {
    const response = await fetch(`${t.url}/apps/assistant/chat/nothing-here/stream`, { headers: auth });
    expect(response.status).toBe(204);
  });

  it('AG-UI runs end with RUN_FINISHED', async () => {
    const response = await fetch(`${t.url}/apps/assistant/ag-ui`, {
      method: 'POST',
      headers: { ...auth, Accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: 'agui-1',
        runId: 'run-1',
        protocolVersion: '1.0',
        messages: [{ id: 'u1', role: 'user', content: 'hello' }],
      }),
    });
    expect(response.status).toBe(200);
    const { events, raw } = await readSse(response);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: 'agui-1', protocolVersion: '1.0' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(raw).not.toContain('[DONE]');
  });

  it('guards both routes like every other: token, Origin, body', async () => {
    const noToken = await fetch(`${t.url}/apps/assistant/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: chatBody('g', 'hi'),
    });
    expect(noToken.status).toBe(401);
    const crossSite = await fetch(`${t.url}/apps/assistant/ag-ui`, {
      method: 'POST',
      headers: { ...auth, Origin: 'https://evil.example' },
      body: '{}',
    });
    expect(crossSite.status).toBe(403);
    const badChat = await fetch(`${t.url}/apps/assistant/chat`, {
      method: 'POST',
      headers: auth,
      body: '{"id":1}',
    });
    expect(badChat.status).toBe(400);
    expect(((await badChat.json()) as { error: string }).error).toMatch(/Invalid chat request/);
    const badAgUi = await fetch(`${t.url}/apps/assistant/ag-ui`, {
      method: 'POST',
      headers: auth,
      body: '[]',
    });
    expect(badAgUi.status).toBe(400);
    expect(((await badAgUi.json()) as { error: string }).error).toMatch(/Invalid RunAgentInput/);
    const unknownApp = await fetch(`${t.url}/apps/nope/chat`, {
      method: 'POST',
      headers: auth,
      body: chatBody('x', 'hi'),
    });
    expect(unknownApp.status).toBe(404);
  });

  it('a shutdown lets a chat run and an AG-UI run finish, then closes', { timeout: 30_000 }, async () => {
    // A grace far beyond the test's timeout: close() resolves only because each response's end is told.
    const own = await startServer({ sessionService: new InMemorySessionService(), shutdownGraceMs: 600_000 });
    try {
      const headers = { 'Content-Type': 'application/json' };
      const chat = await fetch(`${own.url}/apps/assistant/chat`, {
        method: 'POST',
        headers,
        body: chatBody('drain-chat', 'slow one'),
      });
      const agUi = await fetch(`${own.url}/apps/assistant/ag-ui`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          threadId: 'drain-ag-ui',
          runId: 'r1',
          state: {},
          messages: [{ id: 'u1', role: 'user', content: 'slow two' }],
          tools: [],
          context: [],
          forwardedProps: {},
        }),
      });
      expect([chat.status, agUi.status]).toEqual([200, 200]);
      let closed = false;
      const closing = own.server.close().then(() => {
        closed = true;
      });
      const ready = await fetch(`${own.url}/ready`);
      expect(ready.status).toBe(503);
      const [chatText, agUiText] = await Promise.all([chat.text(), agUi.text()]);
      const deltas = (text: string, type: string, key: string) =>
        text
          .split('\n\n')
          .filter((f) => f.startsWith('data: {'))
          .map((f) => JSON.parse(f.slice(6)) as Record<string, string>)
          .filter((c) => c.type === type)
          .map((c) => c[key])
          .join('');
      expect(deltas(chatText, 'text-delta', 'delta')).toBe('You said: slow one');
      expect(chatText.endsWith('data: [DONE]\n\n')).toBe(true);
      expect(deltas(agUiText, 'TEXT_MESSAGE_CONTENT', 'delta')).toBe('You said: slow two');
      expect(agUiText).toContain('RUN_FINISHED');
      await closing;
      expect(closed).toBe(true);
    } finally {
      await own.close();
    }
  });
});
