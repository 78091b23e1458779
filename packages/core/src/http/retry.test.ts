import { describe, expect, it } from 'vitest';
import { ApiCallError, RateLimitError } from './api-call-error.js';
import { retryAfterMsFrom, retryDelayMs, withRetry } from './retry.js';

const http = (status: number, retryAfterMs?: number) =>
  status === 429
    ? new RateLimitError('rate', {
        url: 'u',
        status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      })
    : new ApiCallError('x', { url: 'u', failure: 'http', status });

describe('retry', () => {
  it('classifies 408/409/429/5xx and network failures as retryable, others not', () => {
    expect([400, 401, 403, 404, 408, 409, 422, 429, 500, 503].map((s) => http(s).isRetryable)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      false,
      true,
      true,
      true,
    ]);
    expect(new ApiCallError('x', { url: 'u', failure: 'network' }).isRetryable).toBe(true);
    expect(new ApiCallError('x', { url: 'u', failure: 'invalid-response' }).isRetryable).toBe(false);
  });

  it('reads Retry-After seconds, HTTP dates, retry-after-ms and Gemini RetryInfo', () => {
    expect(retryAfterMsFrom({ 'retry-after': '3' })).toBe(3000);
    expect(retryAfterMsFrom({ 'retry-after-ms': '250' })).toBe(250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMsFrom({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }, undefined, now)).toBe(5000);
    const geminiBody = {
      error: {
        code: 429,
        message: 'Resource has been exhausted',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }],
      },
    };
    expect(retryAfterMsFrom({}, geminiBody)).toBe(1500);
  });

  it('backs off exponentially with jitter, and the server wait wins', () => {
    const mid = { random: () => 1 };
    expect(retryDelayMs(http(500), 1, mid)).toBe(500);
    expect(retryDelayMs(http(500), 2, mid)).toBe(1000);
    expect(retryDelayMs(http(500), 2, { random: () => 0 })).toBe(500);
    expect(retryDelayMs(http(500), 3, mid)).toBeUndefined();
    expect(retryDelayMs(http(429, 7000), 1, mid)).toBe(7000);
    expect(retryDelayMs(http(429, 120_000), 1, mid)).toBeUndefined();
    expect(retryDelayMs(http(400), 1, mid)).toBeUndefined();
  });

  it('retries until success and stops on a non-retryable error', async () => {
    let calls = 0;
    const value = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw http(503);
        return 'ok';
      },
      { initialDelayMs: 1 },
    );
    expect([value, calls]).toEqual(['ok', 3]);
    calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw http(400);
        },
        { initialDelayMs: 1 },
      ),
    ).rejects.toMatchObject({ status: 400 });
    expect(calls).toBe(1);
  });

  it('aborts while waiting to retry', async () => {
    const controller = new AbortController();
    const promise = withRetry(
      async () => {
        setTimeout(() => controller.abort(), 10);
        throw http(429, 10_000);
      },
      { signal: controller.signal },
    );
    await expect(promise).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
