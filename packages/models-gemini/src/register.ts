import { defaultModelRegistry, type ModelRegistry } from '@adk/core';
import { Gemini, type GeminiOptions } from './gemini.js';
import { GeminiInteractions, type GeminiInteractionsOptions } from './gemini-interactions.js';

/** Model names this provider serves: `gemini-…`, `gemma-…`, `models/gemini-…`, `learnlm-…`. */
export const GEMINI_MODEL_PATTERN = /^(models\/)?(gemini-|gemma-|learnlm-)/;

/**
 * Registers the Gemini provider so model names like 'gemini-2.5-flash' resolve to {@link Gemini}
 * models built with `options`, and 'interactions/gemini-…' to {@link GeminiInteractions} (the
 * Interactions API, with `options.interactions` over the shared key and transport). Returns the registry.
 */
export function registerGemini(
  registry: ModelRegistry = defaultModelRegistry,
  options: GeminiOptions & { interactions?: GeminiInteractionsOptions } = {},
): ModelRegistry {
  const { interactions, ...gemini } = options;
  return registry.register({
    name: 'gemini',
    matches: (model) => GEMINI_MODEL_PATTERN.test(model) || /^interactions\/(gemini-|gemma-)/.test(model),
    create: (model) =>
      model.startsWith('interactions/')
        ? new GeminiInteractions(model, {
            ...(gemini.apiKey ? { apiKey: gemini.apiKey } : {}),
            ...(gemini.baseURL ? { baseURL: gemini.baseURL } : {}),
            ...(gemini.retry !== undefined ? { retry: gemini.retry } : {}),
            ...(gemini.fetch ? { fetch: gemini.fetch } : {}),
            ...(gemini.timeouts ? { timeouts: gemini.timeouts } : {}),
            ...interactions,
          })
        : new Gemini(model, gemini),
  });
}
