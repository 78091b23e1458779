import { LlmAgent } from '@adk/core';
import { model } from '../_shared/model.js';
import { calculator, currentTime, weather } from '../_shared/tools.js';

/** A tool-using assistant: arithmetic, the time in a city, and (sample) weather. */
export const rootAgent = new LlmAgent({
  name: 'assistant',
  description: 'Answers arithmetic, time and weather questions with tools.',
  model,
  instruction:
    'You are a concise assistant. Use calculate for any arithmetic, get_current_time for the time, and get_weather for the weather. The user last asked about: {user:last_city?}.',
  tools: [calculator, currentTime, weather],
});
