import { FunctionTool, type Llm, LlmAgent, type LlmRequest, type LlmResponse } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';

const FORECASTS: Record<string, string> = {
  paris: 'sunny, 24 °C',
  london: 'light rain, 17 °C',
  tokyo: 'humid and cloudy, 29 °C',
};

export const getWeather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the current weather for a city.',
  parameters: z.object({ city: z.string().describe('City name, e.g. "Paris"') }),
  execute: async ({ city }, context) => {
    const forecast = FORECASTS[city.toLowerCase()];
    context.state.set('user:last_city', city);
    return forecast ? { city, forecast } : { city, error: `No forecast for ${city}` };
  },
});

/**
 * An offline stand-in for a real model, so the example runs with no API key and no network: it
 * calls get_weather for the city named in the question, then answers from the tool's result.
 */
export function offlineModel(): Llm {
  return new ScriptedModel({
    model: 'offline-scripted',
    respond: (request: LlmRequest): LlmResponse | string => {
      const last = request.contents.at(-1);
      const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
      if (response) {
        const r = response.response as { city: string; forecast?: string; error?: string };
        return r.forecast ? `The weather in ${r.city} is ${r.forecast}.` : `Sorry: ${r.error}.`;
      }
      const text = last?.parts.map((p) => p.text ?? '').join(' ') ?? '';
      const city = /\b(?:in|for)\s+([A-Z][\p{L}-]+)/u.exec(text)?.[1];
      if (!city) return 'Ask me about the weather in a city, e.g. "What is the weather in Paris?"';
      return {
        content: {
          role: 'model',
          parts: [{ functionCall: { id: '', name: 'get_weather', args: { city } } }],
        },
      };
    },
  });
}

export function createAgent(model: string | Llm): LlmAgent {
  return new LlmAgent({
    name: 'weather_assistant',
    description: 'Answers questions about the weather.',
    model,
    instruction:
      'You help with the weather. Use get_weather for any city the user names. Last city asked: {user:last_city?}.',
    tools: [getWeather],
  });
}
