// Live test against the real Gemini API. Opt-in: runs only when GEMINI_API_KEY or GOOGLE_API_KEY is set.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Gemini } from './index.js';

const key = process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY;
const modelName = process.env.GEMINI_E2E_MODEL ?? 'gemini-2.5-flash';
if (!key) console.log('[models-gemini e2e] skipped: set GEMINI_API_KEY or GOOGLE_API_KEY to run live tests.');

describe.skipIf(!key)('Gemini live', () => {
  const model = new Gemini(modelName);
  const contents = [{ role: 'user' as const, parts: [{ text: 'Reply with the single word: pong' }] }];

  it('answers, streamed and not', async () => {
    for (const stream of [false, true]) {
      let last: string | undefined;
      for await (const r of model.generate({ model: modelName, contents, config: {} }, { stream }))
        if (!r.partial) last = r.content?.parts.map((p) => p.text ?? '').join('');
      expect(last?.toLowerCase()).toContain('pong');
    }
  }, 60_000);

  it('calls a tool', async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: z.toJSONSchema(z.object({ city: z.string() })),
      },
    ];
    let call: unknown;
    for await (const r of model.generate({
      model: modelName,
      contents: [{ role: 'user', parts: [{ text: 'What is the weather in Paris? Use the tool.' }] }],
      tools,
      config: { toolChoice: 'required' },
    }))
      call = r.content?.parts.find((p) => p.functionCall)?.functionCall;
    expect(call).toMatchObject({ name: 'get_weather', args: { city: expect.stringMatching(/paris/i) } });
  }, 60_000);

  it('assembles Gemini 3 streamed function-call arguments into complete calls', async () => {
    const gemini3 = process.env.GEMINI_E2E_STREAM_ARGS_MODEL ?? 'gemini-3-flash-preview';
    const streaming = new Gemini(gemini3, { streamFunctionCallArguments: true });
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: z.toJSONSchema(z.object({ city: z.string() })),
      },
      { name: 'get_time', description: 'The current time' },
    ];
    const calls: { name: string; args: Record<string, unknown> }[] = [];
    for await (const r of streaming.generate(
      {
        model: gemini3,
        contents: [
          {
            role: 'user',
            parts: [{ text: 'Call get_weather for Paris, get_weather for Oslo and get_time, all at once.' }],
          },
        ],
        tools,
        config: { toolChoice: 'required' },
      },
      { stream: true },
    ))
      for (const p of r.content?.parts ?? []) if (p.functionCall) calls.push(p.functionCall);
    expect(calls.every((c) => c.name === 'get_weather' || c.name === 'get_time')).toBe(true);
    const cities = calls
      .filter((c) => c.name === 'get_weather')
      .map((c) => String(c.args.city).toLowerCase());
    expect(cities.sort()).toEqual(['oslo', 'paris']);
    expect(calls.filter((c) => c.name === 'get_time')).toHaveLength(1);
  }, 90_000);
});
