import { FunctionTool, InMemorySessionService, LlmAgent } from '@adk/core';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DemoModel } from '../index.js';

// The demo model behind @adk/server's /run_live, as `npm start` serves it: a voice round trip
// without a key. Node's own WebSocket client, like a browser's.

type Frame = Record<string, unknown> & {
  content?: { parts?: Array<Record<string, Record<string, unknown> | string | undefined>> };
};

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the weather forecast for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: 'sunny, 24 °C' }),
});

const sessions = new InMemorySessionService();
let listening: ListeningAdkServer;

beforeAll(async () => {
  const voice = new LlmAgent({
    name: 'voice',
    model: new DemoModel({ tokenDelayMs: 1, realtimeAudio: false }),
    instruction: 'Answer briefly.',
    tools: [weather],
  });
  const server = await createAdkServer({
    apps: { voice },
    sessionService: sessions,
    a2a: false,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  listening = await listenAdkServer(server, { port: 0 });
});
afterAll(async () => {
  await listening?.close();
});

async function connect(sessionId: string, modality: 'TEXT' | 'AUDIO') {
  await sessions.createSession({ appName: 'voice', userId: 'u', sessionId });
  const url = `${listening.url.replace('http', 'ws')}/run_live?app_name=voice&user_id=u&session_id=${sessionId}&modalities=${modality}`;
  const socket = new WebSocket(url);
  const frames: Frame[] = [];
  let notify = () => {};
  socket.addEventListener('message', (e) => {
    frames.push(JSON.parse(String(e.data)) as Frame);
    notify();
  });
  const closed = new Promise<number>((resolve) => socket.addEventListener('close', (e) => resolve(e.code)));
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  const waitFor = async (match: (f: Frame) => boolean): Promise<Frame> => {
    for (let seen = 0; ; ) {
      for (; seen < frames.length; seen++) if (match(frames[seen] as Frame)) return frames[seen] as Frame;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out; frames: ${JSON.stringify(frames)}`)),
          5000,
        );
        notify = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  return { socket, frames, closed, waitFor, send: (frame: unknown) => socket.send(JSON.stringify(frame)) };
}

const text = (f: Frame) =>
  (f.content?.parts ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
const has = (f: Frame, kind: string) => (f.content?.parts ?? []).some((p) => p[kind] !== undefined);

describe('the demo model over /run_live', () => {
  it('runs a live text round trip and a tool call', async () => {
    const live = await connect('text-1', 'TEXT');
    live.send({ content: { role: 'user', parts: [{ text: 'Good morning' }] } });
    const answer = await live.waitFor((f) => !f.partial && text(f).includes('You said: "Good morning"'));
    expect(answer.author).toBe('voice');
    expect(live.frames.some((f) => f.partial === true && text(f).length > 0)).toBe(true);

    live.send({ content: { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] } });
    const call = await live.waitFor((f) => has(f, 'functionCall'));
    expect(call.content?.parts?.[0]?.functionCall).toMatchObject({
      name: 'get_weather',
      args: { city: 'Paris' },
    });
    const result = await live.waitFor((f) => has(f, 'functionResponse'));
    expect(result.content?.parts?.[0]?.functionResponse).toMatchObject({
      response: { forecast: 'sunny, 24 °C' },
    });
    await live.waitFor(
      (f) => !f.partial && text(f).includes('`get_weather`: city: Paris, forecast: sunny, 24 °C'),
    );

    live.send({ close: true });
    expect(await live.closed).toBe(1000);
    const stored = await sessions.getSession({ appName: 'voice', userId: 'u', sessionId: 'text-1' });
    const lines = stored?.events.map((e) => e.author) ?? [];
    expect(lines.filter((a) => a === 'user').length).toBeGreaterThanOrEqual(2);
    expect(stored?.events.some((e) => e.content?.parts.some((p) => p.functionResponse))).toBe(true);
  });

  it('runs a voice round trip: audio in, transcriptions, a tool call and 24 kHz audio out', async () => {
    const live = await connect('voice-1', 'AUDIO');
    // 1.5 s of a 300 Hz tone then 0.7 s of silence, 16 kHz 16-bit PCM in 100 ms frames.
    const samples = 16_000 * 2.2;
    const pcm = Buffer.alloc(samples * 2);
    for (let i = 0; i < 16_000 * 1.5; i++)
      pcm.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / 16_000)), i * 2);
    for (let at = 0; at < pcm.length; at += 3200)
      live.send({
        blob: { mime_type: 'audio/pcm;rate=16000', data: pcm.subarray(at, at + 3200).toString('base64') },
      });

    const heard = await live.waitFor(
      (f) => (f.inputTranscription as { finished?: boolean } | undefined)?.finished === true,
    );
    expect(heard).toMatchObject({
      author: 'user',
      inputTranscription: { text: 'What is the weather in Paris? (1.5 s of audio)' },
    });
    await live.waitFor((f) => has(f, 'functionCall'));
    await live.waitFor((f) => has(f, 'functionResponse'));
    const spoken = await live.waitFor(
      (f) => (f.outputTranscription as { finished?: boolean } | undefined)?.finished === true,
    );
    expect((spoken.outputTranscription as { text: string }).text).toContain('sunny, 24 °C');
    const audio = live.frames.flatMap((f) =>
      (f.content?.parts ?? []).flatMap((p) =>
        p.inlineData && typeof p.inlineData === 'object' ? [p.inlineData] : [],
      ),
    );
    expect(audio.length).toBeGreaterThan(5);
    expect(audio.every((a) => a.mimeType === 'audio/pcm;rate=24000')).toBe(true);
    expect(live.frames.some((f) => f.partial && f.outputTranscription)).toBe(true);
    live.socket.close();
    await live.closed;

    // Audio is streamed, not stored; the transcriptions are (the user's as the user's words).
    const stored = await sessions.getSession({ appName: 'voice', userId: 'u', sessionId: 'voice-1' });
    expect(stored?.events.some((e) => e.content?.parts.some((p) => p.inlineData))).toBe(false);
    expect(
      stored?.events.some(
        (e) => e.author === 'user' && e.content?.parts[0]?.text?.startsWith('What is the weather'),
      ),
    ).toBe(true);
  });
});
