import { FunctionTool, LlmAgent } from '@adk/core';
import { z } from 'zod/v3';

interface Lookup {
  status: 'success' | 'error';
  report?: string;
  error_message?: string;
}

// The tool's name comes from the function, as in @google/adk.
async function lookup_weather({ city }: { city: string }): Promise<Lookup> {
  return city.toLowerCase() === 'lisbon'
    ? { status: 'success', report: 'Lisbon: clear sky, 22 °C.' }
    : { status: 'error', error_message: `No weather for ${city}.` };
}

async function lookup_time({ city }: { city: string }): Promise<Lookup> {
  if (city.toLowerCase() !== 'lisbon') return { status: 'error', error_message: `No time zone for ${city}.` };
  const time = new Date(Date.UTC(2025, 0, 1, 12)).toLocaleTimeString('en-GB', { timeZone: 'Europe/Lisbon' });
  return { status: 'success', report: `It is ${time} in Lisbon.` };
}

export const rootAgent = new LlmAgent({
  name: 'city_helper',
  model: 'gemini-2.5-flash',
  description: 'Weather and local time of a city',
  instruction: 'Answer questions about the weather and the time in a city with your tools.',
  generateContentConfig: { temperature: 0 },
  tools: [
    new FunctionTool({
      description: 'The weather report of a city.',
      parameters: z.object({ city: z.string().describe('City name') }),
      execute: lookup_weather,
    }),
    new FunctionTool({
      description: 'The local time of a city.',
      parameters: z.object({ city: z.string().describe('City name') }),
      execute: lookup_time,
    }),
  ],
});
