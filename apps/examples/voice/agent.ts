import { pickModel } from '@adk/cli';
import { LlmAgent } from '@adk/core';
import { currentTime, weather } from '../_shared/tools.js';

/**
 * The model of a live (voice) session. Offline it is the demo model, which "hears" each utterance
 * as a fixed weather question and answers with a tone per word plus a transcription. With a
 * provider key, set ADK_LIVE_MODEL to a model that speaks live (e.g. a Gemini Live model).
 */
const model = pickModel({
  env: { ...process.env, ...(process.env.ADK_LIVE_MODEL ? { ADK_MODEL: process.env.ADK_LIVE_MODEL } : {}) },
});

/** A voice assistant: talk to it from the dev UI's microphone button; it looks up weather and time. */
export const rootAgent = new LlmAgent({
  name: 'voice',
  description: 'A voice assistant that answers weather and time questions with tools.',
  model,
  instruction:
    'You are a friendly voice assistant. Your answers are spoken: keep them to one or two short sentences. Use get_weather for the weather and get_current_time for the time.',
  tools: [weather, currentTime],
});
