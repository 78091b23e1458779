import { FunctionTool } from '@adk/core';
import { z } from 'zod';
import { calculate } from './calculate.js';

export const calculator = new FunctionTool({
  name: 'calculate',
  description:
    'Evaluates an arithmetic expression (+, -, *, /, %, ^ and parentheses) and returns the result.',
  parameters: z.object({
    expression: z.string().describe('The arithmetic expression, e.g. "(12 + 3) * 7"'),
  }),
  execute: async ({ expression }) => {
    try {
      return { expression, result: calculate(expression) };
    } catch (error) {
      return { expression, error: `Cannot evaluate: ${(error as Error).message}` };
    }
  },
});

const CITY_ZONES: Record<string, string> = {
  paris: 'Europe/Paris',
  london: 'Europe/London',
  berlin: 'Europe/Berlin',
  tokyo: 'Asia/Tokyo',
  'new york': 'America/New_York',
  'san francisco': 'America/Los_Angeles',
  sydney: 'Australia/Sydney',
};

export const currentTime = new FunctionTool({
  name: 'get_current_time',
  description: 'Returns the current date and time in a city or IANA time zone.',
  parameters: z.object({
    timezone: z
      .string()
      .default('UTC')
      .describe('A city name (e.g. "Tokyo") or an IANA time zone (e.g. "Asia/Tokyo"); default UTC'),
  }),
  execute: async ({ timezone }) => {
    const zone = CITY_ZONES[timezone.toLowerCase()] ?? timezone;
    try {
      const time = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        dateStyle: 'full',
        timeStyle: 'short',
      }).format(new Date());
      return { timezone: zone, time };
    } catch {
      return { error: `Unknown time zone or city: ${timezone}` };
    }
  },
});

const FORECASTS: Record<string, { sky: string; celsius: number }> = {
  paris: { sky: 'sunny', celsius: 24 },
  london: { sky: 'light rain', celsius: 17 },
  berlin: { sky: 'cloudy', celsius: 19 },
  tokyo: { sky: 'humid and cloudy', celsius: 29 },
  'new york': { sky: 'clear', celsius: 22 },
  sydney: { sky: 'windy', celsius: 15 },
};

/** A made-up forecast (no network), so the examples run offline and answer the same every time. */
export const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the weather forecast for a city (sample data for the examples).',
  parameters: z.object({ city: z.string().describe('City name, e.g. "Paris"') }),
  execute: async ({ city }, context) => {
    const forecast = FORECASTS[city.toLowerCase()];
    if (!forecast)
      return { city, error: `No forecast for ${city}; try Paris, London, Berlin, Tokyo, New York or Sydney` };
    // Tools write state through their context; the change lands in the tool-response event.
    context.state.set('user:last_city', city);
    return { city, forecast: `${forecast.sky}, ${forecast.celsius} °C` };
  },
});
