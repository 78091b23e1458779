import { FunctionTool } from '@adk/core';
import { z } from 'zod';

export const get_weather = new FunctionTool({
  name: 'get_weather',
  description: 'The weather forecast for a city.',
  parameters: z.object({ city: z.string().describe('The city') }),
  execute: ({ city }) => ({ city, forecast: 'sunny', celsius: 21 }),
});

/** The agent's answer: on a model without responseSchemaWithTools it comes through set_model_response. */
export const WeatherReport = z.object({
  city: z.string(),
  forecast: z.string(),
  celsius: z.number(),
});
