// Live test against the real Gemini Live API. Opt-in: runs only when GEMINI_API_KEY/GOOGLE_API_KEY is set.
import type { LlmResponse } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { Gemini } from '../index.js';

const key = process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY;
const modelName = process.env.GEMINI_LIVE_E2E_MODEL ?? 'gemini-live-2.5-flash-preview';
if (!key)
  console.log(
    '[models-gemini live e2e] skipped: set GEMINI_API_KEY or GOOGLE_API_KEY to run Live API tests.',
  );

describe.skipIf(!key)('Gemini Live API live', () => {
  it('answers a text turn, calls a tool and sends a resumption handle', async () => {
    const model = new Gemini(modelName);
    const connection = await model.connect({
      model: modelName,
      systemInstruction: 'Answer in one short sentence.',
      contents: [],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      config: { live: { responseModalities: ['TEXT'], sessionResumption: {} } },
    });
    await connection.sendContent({
      role: 'user',
      parts: [{ text: 'What is the weather in Paris? Use the tool.' }],
    });
    const seen: LlmResponse[] = [];
    for await (const response of connection.receive()) {
      seen.push(response);
      const call = response.content?.parts[0]?.functionCall;
      if (call)
        await connection.sendContent({
          role: 'user',
          parts: [
            { functionResponse: { id: call.id, name: call.name, response: { forecast: 'sunny, 21 C' } } },
          ],
        });
      if (response.turnComplete) break;
    }
    await connection.close();
    expect(seen.some((r) => r.content?.parts[0]?.functionCall?.name === 'get_weather')).toBe(true);
    expect(seen.some((r) => r.liveSessionResumptionUpdate?.newHandle)).toBe(true);
  }, 60_000);
});
