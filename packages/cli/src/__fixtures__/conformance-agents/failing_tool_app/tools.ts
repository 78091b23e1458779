import { FunctionTool } from '@adk/core';
import { z } from 'zod';

/** A tool whose every call fails: its error response is what the model gets back. */
export const get_weather = new FunctionTool({
  name: 'get_weather',
  description: 'The weather forecast for a city.',
  parameters: z.object({ city: z.string() }),
  execute: () => {
    throw new Error('the weather service is down');
  },
});
