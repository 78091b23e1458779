// An agent like the examples' assistant (a weather tool), driven by a scripted model so evals are
// deterministic: it calls get_weather for the city named in the user's message, then answers with
// a fixed sentence per city.
import { type Content, FunctionTool, LlmAgent, type LlmRequest } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';

const FORECASTS: Record<string, string> = { paris: 'sunny, 24 °C', london: 'light rain, 17 °C' };

export const ANSWERS: Record<string, string> = {
  paris: 'It is sunny and 24 °C in Paris today.',
  london: 'London has light rain today.',
};

export const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the weather forecast for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: FORECASTS[city.toLowerCase()] ?? 'unknown' }),
});

function lastContent(request: LlmRequest): Content | undefined {
  return request.contents.at(-1);
}

/** The scripted behaviour: tool call first, then the canned answer for that city. */
export function weatherModel(): ScriptedModel {
  return new ScriptedModel({
    respond: (request) => {
      const last = lastContent(request);
      const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
      if (response) {
        const city = String(response.response.city).toLowerCase();
        return ANSWERS[city] ?? `I have no forecast for ${city}.`;
      }
      const text = last?.parts.map((p) => p.text ?? '').join(' ') ?? '';
      const city = /paris/i.test(text) ? 'Paris' : /london/i.test(text) ? 'London' : undefined;
      if (!city)
        return `Hello ${/name is (\w+)/i.exec(request.systemInstruction ?? '')?.[1] ?? 'there'}, which city?`;
      return functionCallResponse('get_weather', { city });
    },
  });
}

export function weatherAgent(): LlmAgent {
  return new LlmAgent({
    name: 'weather_agent',
    model: weatherModel(),
    instruction: 'You answer weather questions. The user name is {user_name?}.',
    tools: [weather],
  });
}
