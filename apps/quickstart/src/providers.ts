import { ModelRegistry } from '@adk/core';
import { registerClaude } from '@adk/models-claude';
import { registerGemini } from '@adk/models-gemini';
import { registerOpenAI } from '@adk/models-openai';

export interface LiveModel {
  /** A model name, resolved through `registry`. */
  model: string;
  registry: ModelRegistry;
  envVar: string;
}

/**
 * A real provider when its key is set (first match wins); the model can be overridden with
 * ADK_QUICKSTART_MODEL. Providers are registered explicitly, never by importing them.
 */
export function pickProviderModel(env: NodeJS.ProcessEnv = process.env): LiveModel | undefined {
  const registry = new ModelRegistry();
  registerGemini(registry);
  registerClaude(registry);
  registerOpenAI(registry);
  const choices: [string, string][] = [
    ['GEMINI_API_KEY', 'gemini-2.5-flash'],
    ['GOOGLE_API_KEY', 'gemini-2.5-flash'],
    ['ANTHROPIC_API_KEY', 'claude-sonnet-4-5'],
    ['OPENAI_API_KEY', 'gpt-4.1-mini'],
  ];
  for (const [envVar, model] of choices) {
    if (env[envVar]) return { model: env.ADK_QUICKSTART_MODEL || model, registry, envVar };
  }
  return undefined;
}
