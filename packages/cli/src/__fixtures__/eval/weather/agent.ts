// A weather agent on a scripted model, for `adk eval` tests: it calls get_weather for the city in
// the message, then answers with a fixed sentence.
import { FunctionTool, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';

const ANSWERS: Record<string, string> = {
  paris: 'It is sunny and 24 °C in Paris today.',
  london: 'London has light rain today.',
};

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the weather forecast for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city }),
});

export const rootAgent = new LlmAgent({
  name: 'weather',
  instruction: 'You answer weather questions.',
  tools: [weather],
  model: new ScriptedModel({
    respond: (request) => {
      const last = request.contents.at(-1);
      const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
      if (response) return ANSWERS[String(response.response.city).toLowerCase()] ?? 'No forecast.';
      const text = last?.parts.map((p) => p.text ?? '').join(' ') ?? '';
      const city = /paris/i.test(text) ? 'Paris' : /london/i.test(text) ? 'London' : undefined;
      return city ? functionCallResponse('get_weather', { city }) : 'Which city?';
    },
  }),
});
