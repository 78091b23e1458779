import { FunctionTool, InMemorySessionService, LlmAgent } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from './__fixtures__/apps.js';
import { EchoLiveModel, frameText, openLive } from './__fixtures__/live.js';
import { rawRequest } from './__fixtures__/raw-http.js';

// GET /run_live: the live WebSocket, its guards, close codes and frames.

const TOKEN = 'live-s3cret';
const model = new EchoLiveModel();
const weather = new FunctionTool({
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'sunny' }),
});
const liveAgent = () => new LlmAgent({ name: 'talker', model, instruction: 'Talk.', tools: [weather] });

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let open: TestServer;
let guarded: TestServer;
const sessions = new InMemorySessionService();

beforeAll(async () => {
  open = await startServer({
    apps: { talker: liveAgent() },
    sessionService: sessions,
    allowedOrigins: ['http://ui.example.com:3000'],
    a2a: false,
    logger: quiet,
  });
  guarded = await startServer({
    apps: { talker: liveAgent() },
    sessionService: sessions,
    token: TOKEN,
    a2a: false,
    logger: quiet,
  });
  for (const id of ['s1', 's2', 's3', 's4', 's5', 's6'])
    await sessions.createSession({ appName: 'talker', userId: 'u1', sessionId: id });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
});

const query = (sessionId: string, extra: Record<string, string | string[]> = {}) => ({
  app_name: 'talker',
  user_id: 'u1',
  session_id: sessionId,
  modalities: 'TEXT',
  ...extra,
});

describe('/run_live refusals', () => {
  it('closes with 1008 for a foreign Origin or Host, and accepts its own and allowed origins', async () => {
    const foreign = await openLive(open.url, query('s1'), {
      headers: { Origin: 'https://evil.example.net' },
    });
    expect(await foreign.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/Origin/) });

    const rebinding = await openLive(open.url, query('s1'), { headers: { Host: 'evil.com' } });
    expect((await rebinding.closed).code).toBe(1008);

    for (const origin of [open.url, 'http://ui.example.com:3000']) {
      const ok = await openLive(open.url, query('s1'), { headers: { Origin: origin } });
      ok.send({ content: { role: 'user', parts: [{ text: 'hi' }] } });
      const reply = await ok.waitFor((f) => f.turnComplete === true);
      expect(reply).toBeTruthy();
      ok.send({ close: true });
      expect((await ok.closed).code).toBe(1000);
    }
  });

  it('needs the token when the server has one: Authorization header or the adk.token sub-protocol', async () => {
    const none = await openLive(guarded.url, query('s2'));
    expect(await none.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/token/) });

    const wrong = await openLive(guarded.url, query('s2'), { headers: { Authorization: 'Bearer nope' } });
    expect((await wrong.closed).code).toBe(1008);

    const header = await openLive(guarded.url, query('s2'), {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    header.send({ content: { role: 'user', parts: [{ text: 'with header' }] } });
    expect(frameText(await header.waitFor((f) => !f.partial && frameText(f).includes('You said')))).toBe(
      'You said: with header',
    );
    header.socket.close();

    const browser = await openLive(guarded.url, query('s2'), {
      protocols: ['adk.live', `adk.token.${Buffer.from(TOKEN).toString('base64url')}`],
    });
    expect(browser.socket.protocol).toBe('adk.live');
    browser.send({ content: { role: 'user', parts: [{ text: 'from a browser' }] } });
    await browser.waitFor((f) => frameText(f) === 'You said: from a browser');
    browser.socket.close();
  });

  it('closes with 1008 for an unknown app or bad query parameters, 1002 for a missing session', async () => {
    const unknown = await openLive(open.url, { ...query('s1'), app_name: 'nope' });
    expect(await unknown.closed).toEqual({ code: 1008, reason: 'App not found: nope' });

    for (const bad of [
      { app_name: 'talker', user_id: 'u1' },
      { ...query('s1'), modalities: 'VIDEO' },
      { ...query('s1'), enable_session_resumption: 'maybe' },
    ]) {
      const socket = await openLive(open.url, bad);
      expect((await socket.closed).code, JSON.stringify(bad)).toBe(1008);
    }

    const missing = await openLive(open.url, query('no-such-session'));
    expect(await missing.closed).toEqual({ code: 1002, reason: 'Session not found' });
  });

  it('answers other upgrade paths with 404', async () => {
    const r = await rawRequest(`${open.url}/run_sse`, {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    expect(r.status).toBe(404);
  });
});

describe('/run_live frames', () => {
  it('runs a text round trip: partial and final events out in camelCase, the turn stored', async () => {
    const client = await openLive(open.url, query('s3'));
    client.send({ content: { role: 'user', parts: [{ text: 'hello there' }] } });
    const final = await client.waitFor((f) => !f.partial && frameText(f) === 'You said: hello there');
    expect(final).toMatchObject({
      author: 'talker',
      invocationId: expect.any(String),
      actions: { stateDelta: {} },
    });
    expect(typeof final.timestamp).toBe('number');
    expect(client.frames.some((f) => f.partial === true)).toBe(true);
    client.send({ close: true });
    expect((await client.closed).code).toBe(1000);

    const stored = await sessions.getSession({ appName: 'talker', userId: 'u1', sessionId: 's3' });
    const texts = stored?.events.map(
      (e) => `${e.author}: ${e.content?.parts.map((p) => p.text ?? '').join('')}`,
    );
    expect(texts).toContain('user: hello there');
    expect(texts).toContain('talker: You said: hello there');
    expect(stored?.events.some((e) => e.partial)).toBe(false);
  });

  it('runs a tool call during the conversation and forwards realtime audio and activity signals', async () => {
    const before = model.connections.length;
    const client = await openLive(
      open.url,
      query('s4', { modalities: ['TEXT'], explicit_vad_signal: 'true' }),
    );
    client.send({ content: { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] } });
    const call = await client.waitFor((f) => JSON.stringify(f.content ?? {}).includes('functionCall'));
    expect((call.content as { parts: { functionCall: unknown }[] }).parts[0]?.functionCall).toMatchObject({
      name: 'get_weather',
      args: { city: 'Paris' },
    });
    await client.waitFor((f) => JSON.stringify(f.content ?? {}).includes('functionResponse'));
    await client.waitFor((f) => frameText(f).startsWith('Result of get_weather'));

    // snake_case as adk-python sends it, and camelCase.
    client.send({ activity_start: {} });
    client.send({ blob: { mime_type: 'audio/pcm;rate=16000', data: Buffer.alloc(640).toString('base64') } });
    client.send({ activityEnd: {} });
    const heard = await client.waitFor((f) => !!f.inputTranscription);
    expect(heard.inputTranscription).toMatchObject({ text: '640 bytes of audio/pcm;rate=16000' });
    const connection = model.connections.at(-1);
    expect(model.connections.length).toBe(before + 1);
    expect(connection?.request.config.live).toMatchObject({
      responseModalities: ['TEXT'],
      inputAudioTranscription: true,
      realtimeInputConfig: { automaticActivityDetection: { disabled: true } },
    });
    expect(connection?.request.config.live?.outputAudioTranscription).toBeUndefined();
    expect(connection?.received.filter((r) => typeof r === 'string')).toEqual(['start', 'end']);
    client.socket.close();
    await client.closed;
  });

  it('turns adk-python query parameters into the live session settings', async () => {
    const client = await openLive(
      open.url,
      query('s1', {
        modalities: ['AUDIO', 'text'],
        proactive_audio: 'true',
        enable_affective_dialog: '1',
        enable_session_resumption: 'true',
        save_live_blob: 'false',
      }),
    );
    client.send({ content: { role: 'user', parts: [{ text: 'settings' }] } });
    await client.waitFor((f) => f.turnComplete === true);
    expect(model.connections.at(-1)?.request.config.live).toMatchObject({
      responseModalities: ['AUDIO', 'TEXT'],
      proactivity: { proactiveAudio: true },
      enableAffectiveDialog: true,
      sessionResumption: { transparent: true },
      inputAudioTranscription: true,
      outputAudioTranscription: true,
    });
    client.send({ close: true });
    await client.closed;
  });

  it('answers malformed frames with an error frame and keeps the session going', async () => {
    const client = await openLive(open.url, query('s5'));
    const bad: Array<string | Buffer> = [
      'not json',
      '[1,2]',
      '{}',
      JSON.stringify({ content: { role: 'user', parts: [{ text: 'a' }] }, close: true }),
      JSON.stringify({ blob: { mime_type: 'audio/pcm', data: '***' } }),
      JSON.stringify({ content: { role: 'robot', parts: 'x' } }),
      `${'{"a":'.repeat(150)}1${'}'.repeat(150)}`,
    ];
    for (const frame of bad) client.send(frame);
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    const errors = () => client.frames.filter((f) => typeof f.error === 'string');
    await client.waitFor(() => errors().length >= bad.length + 1);
    expect(errors().map((e) => e.code)).toEqual([
      'BAD_REQUEST',
      'BAD_REQUEST',
      'BAD_REQUEST',
      'BAD_REQUEST',
      'VALIDATION',
      'VALIDATION',
      'BAD_REQUEST',
      'BAD_REQUEST',
    ]);
    expect(errors()[2]?.error).toMatch(/one of content, blob, activity_start, activity_end or close/);
    client.send({ content: { role: 'user', parts: [{ text: 'still here' }] } });
    await client.waitFor((f) => frameText(f) === 'You said: still here');
    client.send({ close: true });
    expect((await client.closed).code).toBe(1000);
    // The server still answers.
    expect((await rawRequest(`${open.url}/health`)).status).toBe(200);
  });

  it('sends a failing model as an error event, then ends the session', async () => {
    const client = await openLive(open.url, query('s6'));
    client.send({ content: { role: 'user', parts: [{ text: 'explode' }] } });
    const failed = await client.waitFor((f) => !!f.errorMessage);
    expect(failed.errorMessage).toMatch(/exploded/);
    expect((await client.closed).code).toBe(1000);
  });

  it('closes with 1011 and the reason when the run fails outside the agent (a store down)', async () => {
    // The route's own session check passes; the runner's read of the session fails.
    class FlakySessions extends InMemorySessionService {
      reads = 0;
      override async getSession(params: Parameters<InMemorySessionService['getSession']>[0]) {
        if (++this.reads === 2) throw new Error('session store unreachable');
        return super.getSession(params);
      }
    }
    const flaky = new FlakySessions();
    await flaky.createSession({ appName: 'talker', userId: 'u1', sessionId: 'f1' });
    const logged: string[] = [];
    const own = await startServer({
      apps: { talker: liveAgent() },
      sessionService: flaky,
      a2a: false,
      logger: { info: () => undefined, warn: () => undefined, error: (line) => logged.push(line) },
    });
    try {
      const client = await openLive(own.url, { ...query('f1') });
      expect(await client.closed).toMatchObject({
        code: 1011,
        reason: expect.stringMatching(/session store unreachable/),
      });
      expect(logged.join('\n')).toMatch(/run_live talker\/f1 failed/);
    } finally {
      await own.close();
    }
  });

  it('drops a client that stops answering pings, and keeps one that answers', async () => {
    const before = model.connections.length;
    const own = await startServer({
      apps: { talker: liveAgent() },
      sessionService: sessions,
      a2a: false,
      logger: quiet,
      liveHeartbeatMs: 100,
    });
    try {
      const gone = await openLive(own.url, query('s2'), { autoPong: false });
      const alive = await openLive(own.url, query('s3'));
      for (const c of [gone, alive]) c.send({ content: { role: 'user', parts: [{ text: 'ping me' }] } });
      await alive.waitFor((f) => f.turnComplete === true);
      expect((await gone.closed).code).toBe(1006); // terminated: no close frame
      // Its run ended, and the model connection behind it was closed.
      await expect
        .poll(() => model.connections.slice(before).filter((c) => c.closed).length, { timeout: 2000 })
        .toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(alive.socket.readyState).toBe(alive.socket.OPEN);
      alive.send({ content: { role: 'user', parts: [{ text: 'still alive' }] } });
      await alive.waitFor((f) => frameText(f) === 'You said: still alive');
      alive.socket.close();
      await alive.closed;
    } finally {
      await own.close();
    }
  });

  it('closes live sockets with 1001 when the server shuts down', async () => {
    const own = await startServer({
      apps: { talker: liveAgent() },
      sessionService: sessions,
      a2a: false,
      logger: quiet,
    });
    const client = await openLive(own.url, query('s1'));
    client.send({ content: { role: 'user', parts: [{ text: 'hi' }] } });
    await client.waitFor((f) => f.turnComplete === true);
    const started = Date.now();
    await own.close();
    expect((await client.closed).code).toBe(1001);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
