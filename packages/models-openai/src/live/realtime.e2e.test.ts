// Live test against the real OpenAI Realtime API. Opt-in: runs only when OPENAI_API_KEY is set.
import type { LlmResponse } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { OpenAIChat } from '../index.js';

const key = process.env.OPENAI_API_KEY;
const modelName = process.env.OPENAI_REALTIME_E2E_MODEL ?? 'gpt-realtime';
if (!key) console.log('[models-openai realtime e2e] skipped: set OPENAI_API_KEY to run live Realtime tests.');

describe.skipIf(!key)('OpenAI Realtime live', () => {
  it('answers a text turn and calls a tool', async () => {
    const model = new OpenAIChat(modelName);
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
      config: { live: { responseModalities: ['TEXT'] } },
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
    const text = seen
      .filter((r) => !r.partial && r.content?.parts[0]?.text)
      .map((r) => r.content?.parts[0]?.text);
    expect(text.join(' ').toLowerCase()).toMatch(/sunny|21/);
  }, 60_000);
});
