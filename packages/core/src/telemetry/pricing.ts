/**
 * What model calls cost: a price table per model (USD per million tokens) with defaults for
 * current Gemini, Claude and OpenAI models, which callers override or extend. Cached input tokens
 * and reasoning tokens are priced apart: cached ones at the model's cached-input price, reasoning
 * ones as output.
 */

/** Prices of one model in USD per million tokens. */
export interface ModelTokenPrice {
  input: number;
  output: number;
  /** Input tokens read from a cache (default: the input price). */
  cachedInput?: number;
}

/** Token counts of one model call, as ADK's `usageMetadata` gives them. */
export interface TokenCounts {
  /** All input tokens, cached ones included (`promptTokenCount`). */
  input?: number;
  /** Output tokens, reasoning excluded (`candidatesTokenCount`). */
  output?: number;
  /** Input tokens served from a cache (`cachedContentTokenCount`). */
  cachedInput?: number;
  /** Reasoning ("thinking") tokens (`thoughtsTokenCount`), billed as output. */
  reasoning?: number;
}

/**
 * Default prices (USD per million tokens, standard tier, shortest context band) as the vendors'
 * price pages listed them when this table was written (2026). Prices change: pass your own with
 * `priceTable({ ... })`.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelTokenPrice>> = {
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.01 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
  'claude-opus-4-5': { input: 5, output: 25, cachedInput: 0.5 },
  'claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cachedInput: 0.08 },
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
};

/** Looks prices up by model name. */
export interface PriceTable {
  /**
   * The price of a model: an exact entry, else the longest entry the name starts with followed by
   * `-` (`gemini-2.5-flash-001` → `gemini-2.5-flash`); a `vendor/` prefix is ignored.
   */
  priceOf(model: string): ModelTokenPrice | undefined;
  /** USD cost of one call; undefined when the model has no price. */
  cost(model: string, tokens: TokenCounts): number | undefined;
}

/** A price table: the defaults (unless `defaults: false`) with `overrides` on top. */
export function priceTable(
  overrides: Record<string, ModelTokenPrice> = {},
  options: { defaults?: boolean } = {},
): PriceTable {
  const prices = new Map<string, ModelTokenPrice>();
  if (options.defaults !== false) for (const [k, v] of Object.entries(DEFAULT_MODEL_PRICES)) prices.set(k, v);
  for (const [k, v] of Object.entries(overrides)) prices.set(k.toLowerCase(), v);
  const cache = new Map<string, ModelTokenPrice | undefined>();
  const priceOf = (model: string): ModelTokenPrice | undefined => {
    const key = model.trim().toLowerCase();
    if (cache.has(key)) return cache.get(key);
    const bare = key.includes('/') ? key.slice(key.lastIndexOf('/') + 1) : key;
    let found = prices.get(key) ?? prices.get(bare);
    if (!found) {
      let best = '';
      for (const name of prices.keys())
        if (name.length > best.length && bare.startsWith(`${name}-`)) best = name;
      found = best ? prices.get(best) : undefined;
    }
    if (cache.size > 1000) cache.clear();
    cache.set(key, found);
    return found;
  };
  return {
    priceOf,
    cost(model, tokens) {
      const price = priceOf(model);
      if (!price) return undefined;
      const cached = Math.min(tokens.cachedInput ?? 0, tokens.input ?? 0);
      const freshInput = (tokens.input ?? 0) - cached;
      const output = (tokens.output ?? 0) + (tokens.reasoning ?? 0);
      return (
        (freshInput * price.input + cached * (price.cachedInput ?? price.input) + output * price.output) /
        1_000_000
      );
    },
  };
}
