import { ModelNotFoundError } from '../errors/errors.js';
import type { Llm } from './llm.js';

export interface ModelProvider {
  /** e.g. 'gemini', 'claude', 'openai' */
  name: string;
  /** Whether this provider serves a model name (e.g. /^gemini-/). */
  matches(model: string): boolean;
  create(model: string): Llm;
}

/**
 * Resolves model names to models. Providers register explicitly (`registerGemini(registry)` and the
 * like); nothing registers on import. Later registrations win over earlier ones.
 */
export class ModelRegistry {
  private readonly providers: ModelProvider[] = [];
  private readonly cache = new Map<string, Llm>();

  register(provider: ModelProvider): this {
    const existing = this.providers.findIndex((p) => p.name === provider.name);
    if (existing >= 0) this.providers.splice(existing, 1);
    this.providers.unshift(provider);
    this.cache.clear();
    return this;
  }

  unregister(name: string): void {
    const i = this.providers.findIndex((p) => p.name === name);
    if (i >= 0) this.providers.splice(i, 1);
    this.cache.clear();
  }

  has(model: string): boolean {
    return this.providers.some((p) => p.matches(model));
  }

  providerNames(): string[] {
    return this.providers.map((p) => p.name);
  }

  resolve(model: string): Llm {
    const cached = this.cache.get(model);
    if (cached) return cached;
    const provider = this.providers.find((p) => p.matches(model));
    if (!provider) {
      const known = this.providers.map((p) => p.name).join(', ') || 'none';
      throw new ModelNotFoundError(
        `No model provider is registered for "${model}" (registered: ${known}). Register one, e.g. registerGemini(), or pass a model object.`,
        { details: { model } },
      );
    }
    const llm = provider.create(model);
    this.cache.set(model, llm);
    return llm;
  }
}

/** The process-wide registry used when a Runner is not given one. */
export const defaultModelRegistry = /* @__PURE__ */ new ModelRegistry();

export function resolveModel(model: string | Llm, registry: ModelRegistry = defaultModelRegistry): Llm {
  return typeof model === 'string' ? registry.resolve(model) : model;
}
