import { defaultModelRegistry, type ModelRegistry } from '@adk/core';
import { Claude, type ClaudeOptions } from './claude.js';

/** Model names this provider serves: `claude-…` and `anthropic/…`. */
export const CLAUDE_MODEL_PATTERN = /^(claude-|anthropic\/)/;

/**
 * Registers the Claude provider so names like 'claude-sonnet-4-5' resolve to {@link Claude} models
 * built with `options`. Returns the registry.
 */
export function registerClaude(
  registry: ModelRegistry = defaultModelRegistry,
  options: ClaudeOptions = {},
): ModelRegistry {
  return registry.register({
    name: 'claude',
    matches: (model) => CLAUDE_MODEL_PATTERN.test(model),
    create: (model) => new Claude(model, options),
  });
}
