import { type GetSessionParams, InMemorySessionService, LlmAgent, type Session } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, readSse, startServer, type TestServer } from './__fixtures__/apps.js';
import { type AdkServerLogger, AppLoadError } from './index.js';

// Extension points (ui, routes, app loaders, logger) and graceful shutdown.

const lines: string[] = [];
const logger: AdkServerLogger = {
  info: (line) => lines.push(`info ${line}`),
  warn: (line) => lines.push(`warn ${line}`),
  error: (line) => lines.push(`error ${line}`),
};

let t: TestServer;
beforeAll(async () => {
  t = await startServer({
    sessionService: new InMemorySessionService(),
    logger,
    logRequests: true,
    apps: {
      list: async () => ['assistant', 'broken'],
      load: async (name) => {
        if (name === 'broken')
          throw new AppLoadError('Could not load apps/broken/agent.ts: Unexpected token');
        return assistant();
      },
    },
    ui: {
      basePath: '/dev-ui',
      fetch: async (request) => {
        const path = new URL(request.url).pathname;
        if (path === '/dev-ui/' || path === '/dev-ui/index.html')
          return new Response('<html>ui</html>', { headers: { 'Content-Type': 'text/html' } });
        return undefined;
      },
    },
    routes: [(app) => app.get('/dev/apps/:app/eval_sets', (c) => c.json(['from-extension']))],
  });
});
afterAll(async () => {
  await t?.close();
});

describe('extension points', () => {
  it('serves the UI under its base path and redirects / to it', async () => {
    const root = await fetch(`${t.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dev-ui/');
    const page = await fetch(`${t.url}/dev-ui/`);
    expect(await page.text()).toBe('<html>ui</html>');
    expect((await fetch(`${t.url}/dev-ui/missing.js`)).status).toBe(404);
  });

  it('keeps the query when it adds the slash to the base path', async () => {
    const bare = await fetch(`${t.url}/dev-ui?app=assistant&session=s1`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/dev-ui/?app=assistant&session=s1');
    const plain = await fetch(`${t.url}/dev-ui`, { redirect: 'manual' });
    expect(plain.headers.get('location')).toBe('/dev-ui/');
  });

  it('lets extra routes replace the placeholders', async () => {
    expect(await (await fetch(`${t.url}/dev/apps/assistant/eval_sets`)).json()).toEqual(['from-extension']);
  });

  it('names the file of an app that does not load, and keeps serving the others', async () => {
    expect(await (await fetch(`${t.url}/list-apps`)).json()).toEqual(['assistant', 'broken']);
    const detailed = (await (await fetch(`${t.url}/list-apps?detailed=true`)).json()) as {
      apps: { name: string }[];
    };
    expect(detailed.apps.map((a) => a.name)).toEqual(['assistant']);
    await fetch(`${t.url}/apps/broken/users/u/sessions/s`, { method: 'POST' });
    const run = await fetch(`${t.url}/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'broken',
        userId: 'u',
        sessionId: 's',
        newMessage: { role: 'user', parts: [{ text: 'hi' }] },
      }),
    });
    expect(run.status).toBe(500);
    expect(await run.json()).toMatchObject({
      code: 'APP_LOAD',
      detail: expect.stringContaining('apps/broken/agent.ts'),
    });
  });

  it('logs requests and run steps through the logger', async () => {
    await fetch(`${t.url}/apps/assistant/users/u/sessions/logged`, { method: 'POST' });
    await fetch(`${t.url}/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'assistant',
        userId: 'u',
        sessionId: 'logged',
        newMessage: { role: 'user', parts: [{ text: 'hi' }] },
      }),
    });
    expect(lines.some((l) => /^info POST \/run 200 /.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('info [adk] beforeRun') && l.includes('session=logged'))).toBe(
      true,
    );
  });
});

function slowApp(delayMs: number) {
  return new LlmAgent({
    name: 'slow',
    model: new ScriptedModel({ delayMs, respond: () => 'finally done' }),
  });
}

async function startRun(url: string, sessionId: string): Promise<Response> {
  await fetch(`${url}/apps/slow/users/u/sessions/${sessionId}`, { method: 'POST' });
  return fetch(`${url}/run_sse`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      appName: 'slow',
      userId: 'u',
      sessionId,
      newMessage: { role: 'user', parts: [{ text: 'go' }] },
    }),
  });
}

describe('graceful shutdown', () => {
  it('lets a run in progress finish within the grace period, then stops', async () => {
    const s = await startServer({
      sessionService: new InMemorySessionService(),
      apps: { slow: slowApp(300) },
      shutdownGraceMs: 5000,
    });
    const response = await startRun(s.url, 'a');
    const closed = s.close();
    const { events } = await readSse(response);
    const last = events.at(-1) as { content?: { parts: { text?: string }[] } } | undefined;
    expect(last?.content?.parts[0]?.text).toBe('finally done');
    await closed;
    await expect(fetch(`${s.url}/health`)).rejects.toThrow();
  });

  it('aborts runs still going after the grace period, with an error event', async () => {
    const s = await startServer({
      sessionService: new InMemorySessionService(),
      apps: { slow: slowApp(10_000) },
      shutdownGraceMs: 100,
    });
    const response = await startRun(s.url, 'b');
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const closed = s.close();
    const { events } = await readSse(response);
    expect(events.at(-1)).toMatchObject({ errorCode: 'CANCELLED', interrupted: true });
    await closed;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('failures and disconnects', () => {
  it('a failure that escapes the runner ends /run_sse with an `error` event', async () => {
    // The store fails when the runner loads the session (before the runner's own error handling).
    class FlakyStore extends InMemorySessionService {
      override async getSession(params: GetSessionParams): Promise<Session | undefined> {
        if (params.sessionId === 'flaky') throw new Error('database went away');
        return super.getSession(params);
      }
    }
    const store = new FlakyStore();
    const s = await startServer({ sessionService: store, apps: { assistant: assistant() }, logger });
    try {
      await store.createSession({ appName: 'assistant', userId: 'u', sessionId: 'flaky' });
      const response = await fetch(`${s.url}/run_sse`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          appName: 'assistant',
          userId: 'u',
          sessionId: 'flaky',
          newMessage: { role: 'user', parts: [{ text: 'hi' }] },
        }),
      });
      expect(response.status).toBe(200);
      const { events } = await readSse(response);
      expect(events.at(-1)).toEqual({ error: 'Error: database went away' });
      expect(lines.some((l) => l.startsWith('error run_sse failed: Error: database went away'))).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('a client that aborts a streaming run mid-stream cancels it without a write after close', async () => {
    const logged: string[] = [];
    const quiet: AdkServerLogger = {
      info: (line) => logged.push(line),
      warn: (line) => logged.push(line),
      error: (line) => logged.push(line),
    };
    const sessions = new InMemorySessionService();
    const streamer = new LlmAgent({
      name: 'streamer',
      model: new ScriptedModel({ delayMs: 30, chunkSize: 2, respond: () => 'a long answer '.repeat(40) }),
    });
    const s = await startServer({ sessionService: sessions, apps: { streamer }, logger: quiet });
    try {
      await fetch(`${s.url}/apps/streamer/users/u/sessions/mid`, { method: 'POST' });
      const controller = new AbortController();
      const response = await fetch(`${s.url}/run_sse`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          appName: 'streamer',
          userId: 'u',
          sessionId: 'mid',
          streaming: true,
          newMessage: { role: 'user', parts: [{ text: 'go' }] },
        }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let received = '';
      while ((received.match(/\n\n/g) ?? []).length < 3) {
        const { value, done } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
      }
      expect(received).toContain('"partial":true');
      controller.abort();
      await reader.read().catch(() => undefined);
      const deadline = Date.now() + 3000;
      let last: Session | undefined;
      while (Date.now() < deadline) {
        last = await sessions.getSession({ appName: 'streamer', userId: 'u', sessionId: 'mid' });
        if (last?.events.at(-1)?.errorCode) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(last?.events.at(-1)).toMatchObject({ errorCode: 'CANCELLED' });
      // Let the stream's pending step settle, then nothing may have been written after the close.
      await new Promise((r) => setTimeout(r, 200));
      expect(logged.filter((l) => /run_sse failed|already closed/i.test(l))).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('a client that goes away cancels its run', async () => {
    const sessions = new InMemorySessionService();
    const s = await startServer({ sessionService: sessions, apps: { slow: slowApp(10_000) } });
    try {
      for (const [route, id] of [
        ['/run', 'gone-run'],
        ['/run_sse', 'gone-sse'],
      ] as const) {
        await fetch(`${s.url}/apps/slow/users/u/sessions/${id}`, { method: 'POST' });
        const controller = new AbortController();
        const pending = fetch(`${s.url}${route}`, {
          method: 'POST',
          signal: controller.signal,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            appName: 'slow',
            userId: 'u',
            sessionId: id,
            newMessage: { role: 'user', parts: [{ text: 'go' }] },
          }),
        }).then((r) => r.text());
        await new Promise((r) => setTimeout(r, 150));
        controller.abort();
        await pending.catch(() => undefined);
        const deadline = Date.now() + 3000;
        let last: Session | undefined;
        while (Date.now() < deadline) {
          last = await sessions.getSession({ appName: 'slow', userId: 'u', sessionId: id });
          if (last?.events.at(-1)?.errorCode) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(last?.events.at(-1), route).toMatchObject({ errorCode: 'CANCELLED' });
      }
    } finally {
      await s.close();
    }
  });
});
