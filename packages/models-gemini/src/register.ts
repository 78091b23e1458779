import { defaultModelRegistry, type ModelRegistry } from '@adk/core';
import { Gemini, type GeminiOptions } from './gemini.js';

/** Model names this provider serves: `gemini-…`, `gemma-…`, `models/gemini-…`, `learnlm-…`. */
export const GEMINI_MODEL_PATTERN = /^(models\/)?(gemini-|gemma-|learnlm-)/;

/**
 * Registers the Gemini provider so model names like 'gemini-2.5-flash' resolve to {@link Gemini}
 * models built with `options`. Returns the registry.
 */
export function registerGemini(
  registry: ModelRegistry = defaultModelRegistry,
  options: GeminiOptions = {},
): ModelRegistry {
  return registry.register({
    name: 'gemini',
    matches: (model) => GEMINI_MODEL_PATTERN.test(model),
    create: (model) => new Gemini(model, options),
  });
}
