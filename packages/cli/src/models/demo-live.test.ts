import type { FunctionDeclaration, LlmConnection, LlmRequest, LlmResponse } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { DEMO_NOTICE, DemoModel } from '../index.js';

const weatherTool: FunctionDeclaration = {
  name: 'get_weather',
  description: 'Returns the weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function request(modalities: string[], extra: Partial<LlmRequest['config']['live']> = {}): LlmRequest {
  return {
    model: 'adk-demo',
    contents: [],
    tools: [weatherTool],
    config: { live: { responseModalities: modalities, ...extra } },
  };
}

const model = () => new DemoModel({ tokenDelayMs: 1, realtimeAudio: false });

/** Reads responses until `until` matches one (included). */
async function readUntil(
  iterator: AsyncIterator<LlmResponse>,
  until: (r: LlmResponse) => boolean,
): Promise<LlmResponse[]> {
  const seen: LlmResponse[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) return seen;
    seen.push(next.value);
    if (until(next.value)) return seen;
  }
}

/** 16 kHz 16-bit PCM: `toneMs` of a 440 Hz tone, then `silenceMs` of silence, base64. */
function pcm16k(toneMs: number, silenceMs: number): string {
  const tone = Math.round(toneMs * 16);
  const out = Buffer.alloc((tone + Math.round(silenceMs * 16)) * 2);
  for (let i = 0; i < tone; i++)
    out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)), i * 2);
  return out.toString('base64');
}

async function sendAudio(connection: LlmConnection, toneMs: number, silenceMs: number): Promise<void> {
  // In 100 ms chunks, as a microphone would send them.
  const data = Buffer.from(pcm16k(toneMs, silenceMs), 'base64');
  for (let at = 0; at < data.length; at += 3200)
    await connection.sendRealtime({
      mimeType: 'audio/pcm;rate=16000',
      data: data.subarray(at, at + 3200).toString('base64'),
    });
}

describe('DemoModel.connect (live)', () => {
  it('answers text turns with streamed text, calls a matching tool, and summarizes its result', async () => {
    const connection = await model().connect(request(['TEXT']));
    const responses = connection.receive()[Symbol.asyncIterator]();
    await connection.sendHistory([]);

    await connection.sendContent({ role: 'user', parts: [{ text: 'Good morning' }] });
    const first = await readUntil(responses, (r) => r.turnComplete === true);
    expect(first.filter((r) => r.partial).length).toBeGreaterThan(3);
    const full = first.find((r) => !r.partial && r.content?.parts[0]?.text);
    expect(full?.content?.parts[0]?.text).toContain(DEMO_NOTICE);
    expect(full?.content?.parts[0]?.text).toContain('You said: "Good morning"');

    await connection.sendContent({ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] });
    const second = await readUntil(responses, (r) => r.turnComplete === true);
    const call = second.find((r) => r.content?.parts[0]?.functionCall)?.content?.parts[0]?.functionCall;
    expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    expect(call?.id).toBeTruthy();

    await connection.sendContent({
      role: 'user',
      parts: [{ functionResponse: { id: call?.id ?? '', name: 'get_weather', response: { sky: 'sunny' } } }],
    });
    const third = await readUntil(responses, (r) => r.turnComplete === true);
    const summary = third.find((r) => !r.partial && r.content?.parts[0]?.text)?.content?.parts[0]?.text;
    expect(summary).toContain('`get_weather`: sky: sunny');

    await connection.close();
    expect((await responses.next()).done).toBe(true);
    await expect(connection.sendContent({ role: 'user', parts: [{ text: 'hi' }] })).rejects.toThrow(/closed/);
  });

  it('hears speech, transcribes it, calls the tool and speaks the answer as 24 kHz PCM with a transcription', async () => {
    const connection = await model().connect(request(['AUDIO']));
    const responses = connection.receive()[Symbol.asyncIterator]();
    await sendAudio(connection, 1200, 600);

    const heard = await readUntil(responses, (r) => r.turnComplete === true);
    const input = heard.find((r) => r.inputTranscription?.finished)?.inputTranscription?.text;
    expect(input).toBe('What is the weather in Paris? (1.2 s of audio)');
    expect(heard.some((r) => r.partial && r.inputTranscription?.text)).toBe(true);
    const call = heard.find((r) => r.content?.parts[0]?.functionCall)?.content?.parts[0]?.functionCall;
    expect(call?.name).toBe('get_weather');

    await connection.sendContent({
      role: 'user',
      parts: [{ functionResponse: { id: call?.id ?? '', name: 'get_weather', response: { sky: 'rainy' } } }],
    });
    const spoken = await readUntil(responses, (r) => r.turnComplete === true);
    const audio = spoken.flatMap(
      (r) => r.content?.parts.flatMap((p) => (p.inlineData ? [p.inlineData] : [])) ?? [],
    );
    expect(audio.length).toBeGreaterThan(3);
    expect(audio.every((a) => a.mimeType === 'audio/pcm;rate=24000')).toBe(true);
    const bytes = audio.reduce((n, a) => n + Buffer.from(a.data, 'base64').length, 0);
    expect(bytes % 2).toBe(0);
    expect(bytes / 2 / 24_000).toBeGreaterThan(1); // over a second of speech
    const transcript = spoken.find((r) => r.outputTranscription?.finished)?.outputTranscription?.text;
    expect(transcript).toContain('`get_weather`: sky: rainy');
    const chunks = spoken
      .filter((r) => r.partial && r.outputTranscription)
      .map((r) => r.outputTranscription?.text)
      .join('');
    expect(chunks).toBe(transcript);
    // No text parts in audio mode: the words travel as transcription.
    expect(spoken.some((r) => r.content?.parts.some((p) => p.text !== undefined))).toBe(false);
    await connection.close();
  });

  it('stops speaking when the user barges in, and ignores silence', async () => {
    const connection = await new DemoModel({ tokenDelayMs: 1, realtimeAudio: true }).connect(
      request(['AUDIO'], { sessionResumption: {} }),
    );
    const responses = connection.receive()[Symbol.asyncIterator]();
    await sendAudio(connection, 0, 2000); // silence only: nothing is heard
    await connection.sendContent({ role: 'user', parts: [{ text: 'Tell me something' }] });
    const started = await readUntil(responses, (r) => !!r.content?.parts[0]?.inlineData);
    expect(started.some((r) => r.inputTranscription)).toBe(false);
    await sendAudio(connection, 300, 0); // speech starts: the answer stops
    const after = await readUntil(responses, (r) => r.interrupted === true);
    expect(after.at(-1)?.interrupted).toBe(true);
    // What was said before the interruption is told as a finished transcription, first.
    const cut = after.find((r) => r.outputTranscription?.finished)?.outputTranscription?.text;
    expect(cut).toBeTruthy();
    expect(cut?.length).toBeLessThan(40);
    await sendAudio(connection, 0, 600);
    const next = await readUntil(responses, (r) => r.turnComplete === true);
    expect(next.find((r) => r.inputTranscription?.finished)?.inputTranscription?.text).toContain(
      '0.3 s of audio',
    );
    await connection.close();
  });

  it('uses activity signals when automatic activity detection is off', async () => {
    const connection = await model().connect(
      request(['TEXT'], { realtimeInputConfig: { automaticActivityDetection: { disabled: true } } }),
    );
    const responses = connection.receive()[Symbol.asyncIterator]();
    await connection.sendActivityStart();
    await sendAudio(connection, 0, 500); // silent, yet inside the marked activity
    await connection.sendActivityEnd();
    const turn = await readUntil(responses, (r) => r.turnComplete === true);
    expect(turn.find((r) => r.inputTranscription?.finished)?.inputTranscription?.text).toContain(
      '0.5 s of audio',
    );
    await connection.close();
  });

  it('closes when its signal aborts', async () => {
    const controller = new AbortController();
    const connection = await model().connect(request(['TEXT']), { signal: controller.signal });
    const responses = connection.receive()[Symbol.asyncIterator]();
    const pending = responses.next();
    controller.abort();
    expect((await pending).done).toBe(true);
  });
});
