import { FunctionTool, GOOGLE_SEARCH, LlmAgent, ParallelAgent } from '@adk/core';

// Arguments described by a raw JSON Schema (passed through unvalidated).
const cityTemperature = new FunctionTool({
  name: 'city_temperature',
  description: 'The temperature of a city in Celsius.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => `${String(city)}: 19 °C`,
});

export const rootAgent = new ParallelAgent({
  name: 'fan_out',
  description: 'Searches and reads the temperature at the same time.',
  subAgents: [
    new LlmAgent({
      name: 'web',
      model: 'gemini-2.5-flash',
      instruction: 'Search the web and summarise in one sentence.',
      tools: [GOOGLE_SEARCH],
    }),
    new LlmAgent({
      name: 'thermo',
      model: 'gemini-2.5-flash',
      instruction: 'Give the temperature of the city in the request.',
      tools: [cityTemperature],
    }),
  ],
});
