// Preloaded (`node --import`) by getting-started.test.ts for the real-provider step: a scripted
// model registered under the real name (gemini-2.5-flash), so the page's script runs without a key.
// The script's own registerGemini() call is then ignored, so the scripted model stays in place.
import { defaultModelRegistry } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';

const model = new ScriptedModel({
  model: 'gemini-2.5-flash',
  script: [functionCallResponse('price_of', { item: 'coffee' }), 'Coffee costs 4 euros.'],
  chunkSize: 3,
  // A pause between chunks, so that the test sees them arrive as separate writes.
  delayMs: 30,
});
defaultModelRegistry.register({
  name: 'gemini',
  matches: (name) => name === 'gemini-2.5-flash',
  create: () => model,
});
const register = defaultModelRegistry.register.bind(defaultModelRegistry);
defaultModelRegistry.register = (provider) =>
  provider.name === 'gemini' ? defaultModelRegistry : register(provider);
