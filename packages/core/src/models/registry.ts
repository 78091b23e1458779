import { ModelNotFoundError, ProviderNotRegisteredError } from '../errors/errors.js';
import type { Llm } from './llm.js';

export interface ModelProvider {
  /** e.g. 'gemini', 'claude', 'openai' */
  name: string;
  /** Whether this provider serves a model name (e.g. /^gemini-/). */
  matches(model: string): boolean;
  create(model: string): Llm;
}

/**
 * Where a provider is consulted: `override` ones before all others (a replay harness), `fallback`
 * ones only for names no other provider matches (a tool's offline demo model), `default` in between.
 */
export type ModelProviderTier = 'override' | 'default' | 'fallback';

export interface RegisterModelProviderOptions {
  /** Default `default`. Within a tier, later registrations win over earlier ones. */
  tier?: ModelProviderTier;
}

const TIER_RANK: Record<ModelProviderTier, number> = { override: 0, default: 1, fallback: 2 };

/**
 * Resolves model names to models. Providers register explicitly (`registerGemini(registry)` and the
 * like); nothing registers on import. Later registrations win over earlier ones of the same tier;
 * a name registered again replaces the earlier provider of that name.
 */
export class ModelRegistry {
  private readonly providers: ModelProvider[] = [];
  private readonly ranks = new Map<ModelProvider, number>();
  private readonly cache = new Map<string, Llm>();

  register(provider: ModelProvider, options: RegisterModelProviderOptions = {}): this {
    const existing = this.providers.findIndex((p) => p.name === provider.name);
    if (existing >= 0) this.ranks.delete(this.providers.splice(existing, 1)[0] as ModelProvider);
    const rank = TIER_RANK[options.tier ?? 'default'];
    const at = this.providers.findIndex((p) => (this.ranks.get(p) ?? 1) >= rank);
    this.providers.splice(at < 0 ? this.providers.length : at, 0, provider);
    this.ranks.set(provider, rank);
    this.cache.clear();
    return this;
  }

  unregister(name: string): void {
    const i = this.providers.findIndex((p) => p.name === name);
    if (i >= 0) this.ranks.delete(this.providers.splice(i, 1)[0] as ModelProvider);
    this.cache.clear();
  }

  has(model: string): boolean {
    return this.providers.some((p) => p.matches(model));
  }

  providerNames(): string[] {
    return this.providers.map((p) => p.name);
  }

  /**
   * The model for a name, from the first provider (in tier order) that matches it. `except` skips
   * the providers of those names (a wrapper resolving what it stands in front of); such a lookup is
   * not cached.
   */
  resolve(model: string, options: { except?: readonly string[] } = {}): Llm {
    const except = options.except;
    if (except && except.length > 0) {
      const provider = this.providers.find((p) => !except.includes(p.name) && p.matches(model));
      if (!provider) throw this.notFound(model);
      return provider.create(model);
    }
    const cached = this.cache.get(model);
    if (cached) return cached;
    const provider = this.providers.find((p) => p.matches(model));
    if (!provider) throw this.notFound(model);
    const llm = provider.create(model);
    this.cache.set(model, llm);
    return llm;
  }

  private notFound(model: string): ModelNotFoundError {
    const hint = KNOWN_PROVIDERS.find((p) => p.pattern.test(model));
    if (hint)
      return new ProviderNotRegisteredError(model, hint.packageName, hint.registerFunction, hint.envVars);
    const known = this.providers.map((p) => p.name).join(', ') || 'none';
    return new ModelNotFoundError(
      `No model provider serves "${model}" (registered: ${known}). Register one (registerGemini() from @adk/models-gemini, registerClaude() from @adk/models-claude, registerOpenAI() from @adk/models-openai, or registry.register({ name, matches, create })), or pass a model object as \`model\`.`,
      { details: { model, registered: this.providers.map((p) => p.name) } },
    );
  }
}

/**
 * The model names each provider package serves, so a missing registration names the fix (the
 * package to install, the function to call, the key to set). Kept in step with the packages'
 * `*_MODEL_PATTERN`s.
 */
const KNOWN_PROVIDERS: readonly {
  pattern: RegExp;
  packageName: string;
  registerFunction: string;
  envVars: readonly string[];
}[] = [
  {
    pattern: /^(models\/)?(gemini-|gemma-|learnlm-)/,
    packageName: '@adk/models-gemini',
    registerFunction: 'registerGemini',
    envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  },
  {
    pattern: /^(claude-|anthropic\/)/,
    packageName: '@adk/models-claude',
    registerFunction: 'registerClaude',
    envVars: ['ANTHROPIC_API_KEY'],
  },
  {
    pattern: /^(gpt-|chatgpt-|o\d|openai\/)/,
    packageName: '@adk/models-openai',
    registerFunction: 'registerOpenAI',
    envVars: ['OPENAI_API_KEY'],
  },
  {
    pattern: /^ollama\//,
    packageName: '@adk/models-openai',
    registerFunction: 'registerOpenAI',
    envVars: [],
  },
];

/** The process-wide registry used when a Runner is not given one. */
export const defaultModelRegistry = /* @__PURE__ */ new ModelRegistry();

export function resolveModel(model: string | Llm, registry: ModelRegistry = defaultModelRegistry): Llm {
  return typeof model === 'string' ? registry.resolve(model) : model;
}
