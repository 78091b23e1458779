import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_PRICES, priceTable } from '../index.js';

describe('priceTable', () => {
  it('prices a call from the defaults, counting cached input and reasoning tokens', () => {
    const prices = priceTable();
    // 1M fresh input at 0.30, 1M output + 1M reasoning at 2.50 each.
    expect(
      prices.cost('gemini-2.5-flash', { input: 1_000_000, output: 1_000_000, reasoning: 1_000_000 }),
    ).toBeCloseTo(5.3);
    // Half the input from the cache: 0.5M × 0.30 + 0.5M × 0.03.
    expect(prices.cost('gemini-2.5-flash', { input: 1_000_000, cachedInput: 500_000 })).toBeCloseTo(0.165);
    expect(prices.cost('claude-sonnet-4-5', { input: 12, output: 5 })).toBeCloseTo(111e-6);
  });

  it('matches versions and vendor prefixes to the longest entry, and takes overrides', () => {
    const prices = priceTable({ 'my-model': { input: 1, output: 2 }, 'gpt-5': { input: 9, output: 9 } });
    expect(prices.priceOf('gemini-2.5-flash-lite-001')).toEqual(
      DEFAULT_MODEL_PRICES['gemini-2.5-flash-lite'],
    );
    expect(prices.priceOf('gemini/gemini-2.5-flash-001')).toEqual(DEFAULT_MODEL_PRICES['gemini-2.5-flash']);
    expect(prices.priceOf('openai/gpt-5-mini')).toEqual(DEFAULT_MODEL_PRICES['gpt-5-mini']);
    expect(prices.priceOf('gpt-5')).toEqual({ input: 9, output: 9 });
    expect(prices.cost('my-model', { input: 1_000_000, output: 1_000_000 })).toBe(3);
    expect(prices.cost('unknown-model', { input: 10 })).toBeUndefined();
    expect(priceTable({}, { defaults: false }).priceOf('gpt-5')).toBeUndefined();
  });
});
