import { LlmAgent, ModelRegistry } from '@adk/core';
import { ApiCallError } from '@adk/core/http';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { errors, harness, texts } from './__fixtures__/harness.js';
import { ManualClock } from './clock.js';
import { MODEL_FALLBACK_EXHAUSTED, ModelFallbackPlugin } from './model-fallback.js';

const unavailable = () =>
  new ApiCallError('Service unavailable', { url: 'https://example.test', failure: 'http', status: 503 });
const badRequest = () =>
  new ApiCallError('Bad request', { url: 'https://example.test', failure: 'http', status: 400 });

const noJitter = { initialMs: 100, multiplier: 2, maxMs: 1000, jitter: false };

describe('ModelFallbackPlugin', () => {
  it('retries the model with backoff and succeeds on the second try', async () => {
    const clock = new ManualClock();
    const primary = new ScriptedModel({
      model: 'primary',
      script: [unavailable(), unavailable(), 'recovered'],
    });
    const backup = new ScriptedModel({ model: 'backup', script: [] });
    const h = harness(new LlmAgent({ name: 'a', model: primary }), [
      new ModelFallbackPlugin({ fallbacks: [backup], maxRetries: 3, backoff: noJitter, clock }),
    ]);
    const events = await h.send('hi');
    expect(texts(events)).toEqual(['recovered']);
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(0);
    // One core call, then two retries after 100 and 200 ms.
    expect(clock.sleeps).toEqual([100, 200]);
    expect(events.at(-1)?.customMetadata).toEqual({ model_fallback: { model: 'primary', attempt: 3 } });
  });

  it('takes the core RetryConfig: maxAttempts per model, delays in seconds or ms, no jitter', async () => {
    const clock = new ManualClock();
    const primary = new ScriptedModel({
      model: 'primary',
      script: [unavailable(), unavailable(), 'recovered'],
    });
    const backup = new ScriptedModel({ model: 'backup', script: [] });
    const h = harness(new LlmAgent({ name: 'a', model: primary }), [
      new ModelFallbackPlugin({
        fallbacks: [backup],
        retry: { maxAttempts: 4, initialDelay: 0.1, backoffFactor: 3, jitter: 0 },
        clock,
      }),
    ]);
    const events = await h.send('hi');
    expect(texts(events)).toEqual(['recovered']);
    expect(primary.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([100, 300]);
  });

  it('waits at least as long as the server asked (Retry-After)', async () => {
    const clock = new ManualClock();
    const slowDown = new ApiCallError('Too many requests', {
      url: 'https://example.test',
      failure: 'http',
      status: 429,
      retryAfterMs: 5000,
    });
    const primary = new ScriptedModel({ model: 'primary', script: [slowDown, 'ok'] });
    const h = harness(new LlmAgent({ name: 'a', model: primary }), [
      new ModelFallbackPlugin({ fallbacks: [], backoff: noJitter, clock }),
    ]);
    expect(texts(await h.send('hi'))).toEqual(['ok']);
    expect(clock.sleeps).toEqual([5000]);
  });

  it('moves to the next model of the list, resolving names through the runner registry', async () => {
    const primary = new ScriptedModel({ model: 'primary', respond: () => badRequest() });
    const second = new ScriptedModel({ model: 'second-model', respond: () => unavailable() });
    const third = new ScriptedModel({ model: 'third-model', respond: () => 'from third' });
    const models = new ModelRegistry().register({
      name: 'test',
      matches: (name) => name === 'third-model',
      create: () => third,
    });
    const fallbacks: string[] = [];
    const clock = new ManualClock();
    const h = harness(
      new LlmAgent({ name: 'a', model: primary, instruction: 'Be brief.' }),
      [
        new ModelFallbackPlugin({
          fallbacks: [second, 'third-model'],
          maxRetries: 1,
          backoff: noJitter,
          clock,
          onFallback: ({ from, to }) => fallbacks.push(`${from} -> ${to}`),
        }),
      ],
      { models },
    );
    const events = await h.send('hi');
    expect(texts(events)).toEqual(['from third']);
    // 400 is not retryable: no retry on primary. 503 is: one retry on second-model.
    expect(primary.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([100]);
    expect(fallbacks).toEqual(['primary -> second-model', 'second-model -> third-model']);
    // The fallback gets the same request under its own model name.
    expect(third.requests[0]?.model).toBe('third-model');
    expect(third.requests[0]?.systemInstruction).toContain('Be brief.');
    expect(third.requests[0]?.contents).toEqual(primary.requests[0]?.contents);
    expect(events.at(-1)?.customMetadata?.model_fallback).toEqual({ model: 'third-model', attempt: 4 });
  });

  it('ends with a clear error event when every model fails', async () => {
    const primary = new ScriptedModel({ model: 'primary', respond: () => badRequest() });
    const backup = new ScriptedModel({ model: 'backup', respond: () => badRequest() });
    const h = harness(new LlmAgent({ name: 'a', model: primary }), [
      new ModelFallbackPlugin({ fallbacks: [backup], clock: new ManualClock() }),
    ]);
    const events = await h.send('hi');
    expect(errors(events)).toEqual([
      {
        code: MODEL_FALLBACK_EXHAUSTED,
        message:
          'Every model failed or is unavailable (primary: API_CALL: Bad request; backup: API_CALL: Bad request)',
      },
    ]);
  });

  it('opens a per-model circuit after repeated failures, skips the model, then half-opens and closes', async () => {
    const clock = new ManualClock(1_000_000);
    let primaryDown = true;
    const primary = new ScriptedModel({
      model: 'primary',
      respond: () => (primaryDown ? unavailable() : 'primary is back'),
    });
    const backup = new ScriptedModel({ model: 'backup', respond: () => 'from backup' });
    const transitions: string[] = [];
    const plugin = new ModelFallbackPlugin({
      fallbacks: [backup],
      maxRetries: 0,
      circuitBreaker: { failureThreshold: 2, resetTimeoutMs: 60_000 },
      clock,
      onCircuitStateChange: ({ model, from, to }) => transitions.push(`${model}: ${from} -> ${to}`),
    });
    const h = harness(new LlmAgent({ name: 'a', model: primary }), [plugin]);

    expect(texts(await h.send('1'))).toEqual(['from backup']);
    expect(plugin.circuitState('primary')).toBe('closed');
    expect(texts(await h.send('2'))).toEqual(['from backup']);
    expect(plugin.circuitState('primary')).toBe('open');
    expect(primary.requests).toHaveLength(2);

    // Open: the primary is not called at all.
    expect(texts(await h.send('3'))).toEqual(['from backup']);
    expect(primary.requests).toHaveLength(2);

    // After the reset timeout: half-open, one trial call; it fails and the circuit opens again.
    clock.advance(60_000);
    expect(plugin.circuitState('primary')).toBe('half-open');
    expect(texts(await h.send('4'))).toEqual(['from backup']);
    expect(primary.requests).toHaveLength(3);
    expect(plugin.circuitState('primary')).toBe('open');

    // Next trial succeeds: closed again, and the primary answers.
    clock.advance(60_000);
    primaryDown = false;
    expect(texts(await h.send('5'))).toEqual(['primary is back']);
    expect(plugin.circuitState('primary')).toBe('closed');
    expect(texts(await h.send('6'))).toEqual(['primary is back']);
    expect(primary.requests).toHaveLength(5);
    expect(transitions).toEqual([
      'primary: closed -> open',
      'primary: open -> half-open',
      'primary: half-open -> open',
      'primary: open -> half-open',
      'primary: half-open -> closed',
    ]);
    expect(plugin.circuitState('backup')).toBe('closed');
  });

  it('skips a fallback whose own circuit is open', async () => {
    const clock = new ManualClock();
    const primary = new ScriptedModel({ model: 'primary', respond: () => badRequest() });
    const flaky = new ScriptedModel({ model: 'flaky', respond: () => badRequest() });
    const last = new ScriptedModel({ model: 'last', respond: () => 'from last' });
    const plugin = new ModelFallbackPlugin({
      fallbacks: [flaky, last],
      circuitBreaker: { failureThreshold: 1, resetTimeoutMs: 1000 },
      clock,
    });
    const h = harness(new LlmAgent({ name: 'a', model: primary }), [plugin]);
    expect(texts(await h.send('1'))).toEqual(['from last']);
    expect(plugin.circuitState('flaky')).toBe('open');
    expect(texts(await h.send('2'))).toEqual(['from last']);
    // Both the primary and flaky were open for the second run: neither was called again.
    expect(primary.requests).toHaveLength(1);
    expect(flaky.requests).toHaveLength(1);
    expect(last.requests).toHaveLength(2);
  });

  it('runs the after-model plugins and agent callbacks on the fallback response', async () => {
    const seen: string[] = [];
    const primary = new ScriptedModel({ model: 'primary', respond: () => badRequest() });
    const backup = new ScriptedModel({ model: 'backup', respond: () => 'from backup' });
    const h = harness(
      new LlmAgent({
        name: 'a',
        model: primary,
        afterModelCallback: ({ response }) => {
          seen.push(`agent ${response.modelVersion}`);
        },
      }),
      [
        new ModelFallbackPlugin({ fallbacks: [backup], clock: new ManualClock() }),
        {
          name: 'observer',
          afterModel: ({ request, response }) => {
            seen.push(`plugin ${request.model} ${response.modelVersion} ${response.content?.parts[0]?.text}`);
          },
        },
      ],
    );
    await h.send('hi');
    // The hooks see the agent's request and, in modelVersion, the model that answered.
    expect(seen).toEqual(['plugin primary backup from backup', 'agent backup']);
  });
});
