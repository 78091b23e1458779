import { defaultModelRegistry, type ModelRegistry } from '@adk/core';
import { Gemini, type GeminiOptions } from './gemini.js';
import { GeminiInteractions, type GeminiInteractionsOptions } from './gemini-interactions.js';

/** Model names this provider serves: `gemini-…`, `gemma-…`, `models/gemini-…`, `learnlm-…`. */
export const GEMINI_MODEL_PATTERN = /^(models\/)?(gemini-|gemma-|learnlm-)/;

/** `registerGemini` options: the provider's options, and the registry to register in (default: the process-wide one). */
export type RegisterGeminiOptions = GeminiOptions & {
  interactions?: GeminiInteractionsOptions;
  registry?: ModelRegistry;
};

/**
 * Registers the Gemini provider so model names like 'gemini-2.5-flash' resolve to {@link Gemini}
 * models built with `options`, and 'interactions/gemini-…' to {@link GeminiInteractions} (the
 * Interactions API, with `options.interactions` over the shared key and transport). Returns the registry.
 */
export function registerGemini(options?: RegisterGeminiOptions): ModelRegistry;
/** @deprecated Pass one options object: `registerGemini({ registry, ...options })`. */
export function registerGemini(
  registry: ModelRegistry,
  options?: GeminiOptions & { interactions?: GeminiInteractionsOptions },
): ModelRegistry;
export function registerGemini(
  first: RegisterGeminiOptions | ModelRegistry = {},
  second: GeminiOptions & { interactions?: GeminiInteractionsOptions } = {},
): ModelRegistry {
  const { registry = defaultModelRegistry, ...options }: RegisterGeminiOptions = isRegistry(first)
    ? { ...second, registry: first }
    : first;
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

/** A registry (the old positional form) rather than options: it has `register` and `resolve`. */
function isRegistry(value: unknown): value is ModelRegistry {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ModelRegistry).register === 'function' &&
    typeof (value as ModelRegistry).resolve === 'function'
  );
}
