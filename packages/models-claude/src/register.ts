import { defaultModelRegistry, type ModelRegistry } from '@adk/core';
import { Claude, type ClaudeOptions } from './claude.js';

/** Model names this provider serves: `claude-…` and `anthropic/…`. */
export const CLAUDE_MODEL_PATTERN = /^(claude-|anthropic\/)/;

/** `registerClaude` options: the provider's options, and the registry to register in (default: the process-wide one). */
export type RegisterClaudeOptions = ClaudeOptions & { registry?: ModelRegistry };

/**
 * Registers the Claude provider so names like 'claude-sonnet-4-5' resolve to {@link Claude} models
 * built with `options`. Returns the registry.
 */
export function registerClaude(options?: RegisterClaudeOptions): ModelRegistry;
/** @deprecated Pass one options object: `registerClaude({ registry, ...options })`. */
export function registerClaude(registry: ModelRegistry, options?: ClaudeOptions): ModelRegistry;
export function registerClaude(
  first: RegisterClaudeOptions | ModelRegistry = {},
  second: ClaudeOptions = {},
): ModelRegistry {
  const { registry = defaultModelRegistry, ...options }: RegisterClaudeOptions = isRegistry(first)
    ? { ...second, registry: first }
    : first;
  return registry.register({
    name: 'claude',
    matches: (model) => CLAUDE_MODEL_PATTERN.test(model),
    create: (model) => new Claude(model, options),
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
