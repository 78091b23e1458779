import { DemoModel, describeModelChoice, PROVIDER_KEYS, pickModel } from '@adk/cli';
import { type Llm, LlmAgent } from '@adk/core';
import { currentTime, weather } from '../_shared/tools.js';

/** A model that speaks live, per provider (Claude has no live API). ADK_LIVE_MODEL overrides. */
const LIVE_MODELS: Record<string, string> = {
  gemini: 'gemini-live-2.5-flash-preview',
  openai: 'gpt-realtime',
};

/**
 * The model of the live (voice) session. Offline it is the demo model, which "hears" each
 * utterance as a fixed weather question and answers with a tone per word plus a transcription.
 */
function liveModel(): Llm {
  const choice = describeModelChoice();
  const provider = PROVIDER_KEYS.find((k) => k.envVar === choice.envVar)?.provider;
  const name = process.env.ADK_LIVE_MODEL || (provider ? LIVE_MODELS[provider] : undefined);
  if (provider && !name) return new DemoModel(); // a key, but for a provider without live sessions
  return pickModel({ env: { ...process.env, ...(name ? { ADK_MODEL: name } : {}) } });
}

/** A voice assistant: talk to it from the dev UI's microphone button; it looks up weather and time. */
export const rootAgent = new LlmAgent({
  name: 'voice',
  description: 'A voice assistant that answers weather and time questions with tools.',
  model: liveModel(),
  instruction:
    'You are a friendly voice assistant. Your answers are spoken: keep them to one or two short sentences. Use get_weather for the weather and get_current_time for the time.',
  tools: [weather, currentTime],
});
