import type { ModelRegistry } from '@adk/core';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { AiSdkModel, type AiSdkModelOptions } from './ai-sdk-model.js';

/** Anything that makes language models by id: an AI SDK provider (`mistral`, `createOpenAICompatible(…)`). */
export interface AiSdkLanguageModelFactory {
  languageModel(modelId: string): LanguageModelV4;
}

export interface RegisterAiSdkOptions extends Omit<AiSdkModelOptions, 'name'> {
  /** Names starting with it resolve through `provider`, e.g. 'mistral/' for 'mistral/mistral-large-latest'. */
  prefix: string;
  provider: AiSdkLanguageModelFactory;
  /** The provider's name in the registry. Default: the prefix without a trailing slash. */
  name?: string;
}

/**
 * Registers an AI SDK provider under a name prefix: with `{ prefix: 'mistral/', provider: mistral }`,
 * the model 'mistral/mistral-large-latest' is `aiSdkModel(mistral.languageModel('mistral-large-latest'))`.
 * Returns the registry.
 */
export function registerAiSdk(registry: ModelRegistry, options: RegisterAiSdkOptions): ModelRegistry {
  const { prefix, provider, name, ...modelOptions } = options;
  return registry.register({
    name: name ?? prefix.replace(/\/+$/, ''),
    matches: (model) => model.startsWith(prefix) && model.length > prefix.length,
    create: (model) =>
      new AiSdkModel(provider.languageModel(model.slice(prefix.length)), { ...modelOptions, name: model }),
  });
}
