import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ModelRetryConfig, RetryConfig, RunConfig } from '../index.js';
import { ApiCallError } from './api-call-error.js';
import { type RetryOptions, retryDelayMs } from './index.js';

const unavailable = () => new ApiCallError('down', { url: 'http://x', failure: 'http', status: 503 });

describe('one retry configuration', () => {
  it('the HTTP options and the model retry options are RetryConfig', () => {
    expectTypeOf<RetryOptions>().toEqualTypeOf<RetryConfig>();
    expectTypeOf<ModelRetryConfig>().toEqualTypeOf<RetryConfig>();
    expectTypeOf<NonNullable<RunConfig['modelRetry']>>().toEqualTypeOf<RetryConfig>();
  });

  it('HTTP reads maxAttempts and the seconds or ms delays; maxRetries still works', () => {
    const config: RetryConfig = { maxAttempts: 3, initialDelay: 2, maxDelayMs: 3000, random: () => 1 };
    expect(retryDelayMs(unavailable(), 1, config)).toBe(2000);
    expect(retryDelayMs(unavailable(), 2, config)).toBe(3000);
    expect(retryDelayMs(unavailable(), 3, config)).toBeUndefined();
    // The ms sibling wins over the seconds field.
    expect(retryDelayMs(unavailable(), 1, { initialDelay: 2, initialDelayMs: 100, random: () => 1 })).toBe(
      100,
    );
    // Deprecated: maxRetries (retries after the first attempt).
    expect(retryDelayMs(unavailable(), 1, { maxRetries: 1, random: () => 1 })).toBe(500);
    expect(retryDelayMs(unavailable(), 2, { maxRetries: 1, random: () => 1 })).toBeUndefined();
    expect(retryDelayMs(unavailable(), 1, { maxAttempts: 1 })).toBeUndefined();
  });
});
