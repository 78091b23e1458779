import { FunctionTool, LlmAgent, type LlmRequest } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deferred, errors, harness, responsesIn, texts } from './__fixtures__/harness.js';
import { ReflectAndRetryToolPlugin } from './reflect-and-retry.js';

/** A tool that fails its first `failures` calls, then succeeds. */
function flakyTool(failures: number) {
  let calls = 0;
  const tool = new FunctionTool({
    name: 'lookup',
    description: 'looks a city up',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => {
      calls++;
      if (calls <= failures) throw new Error(`unknown city "${city}"`);
      return { population: 1_000_000 };
    },
  });
  return { tool, calls: () => calls };
}

const lastResponse = (request: LlmRequest | undefined) => responsesIn(request?.contents.at(-1))[0];

describe('ReflectAndRetryToolPlugin', () => {
  it('gives the model structured guidance on a failure, and the retry succeeds on the second try', async () => {
    const { tool, calls } = flakyTool(1);
    const model = new ScriptedModel([
      functionCallResponse('lookup', { city: 'Pari' }),
      functionCallResponse('lookup', { city: 'Paris' }),
      'Paris has a million people.',
    ]);
    const plugin = new ReflectAndRetryToolPlugin({ maxRetries: 2 });
    const h = harness(new LlmAgent({ name: 'a', model, tools: [tool] }), [plugin]);
    const events = await h.send('how many people live in Paris?');

    expect(lastResponse(model.requests[1])).toEqual({
      error: 'unknown city "Pari"',
      reflection_guidance: expect.stringContaining('reflect on the cause'),
      retry_count: 1,
      max_retries: 2,
    });
    expect(lastResponse(model.requests[2])).toEqual({ population: 1_000_000 });
    expect(texts(events).at(-1)).toBe('Paris has a million people.');
    expect(calls()).toBe(2);
    // The invocation's counters are gone once it has finished.
    expect(plugin.failureCount('lookup', events[0]?.invocationId)).toBe(0);
  });

  it('gives up after the limit with a final response telling the model to stop', async () => {
    const { tool, calls } = flakyTool(Number.POSITIVE_INFINITY);
    const model = new ScriptedModel([
      functionCallResponse('lookup', { city: 'X' }),
      functionCallResponse('lookup', { city: 'Y' }),
      functionCallResponse('lookup', { city: 'Z' }),
      'Sorry, I could not find it.',
    ]);
    const h = harness(new LlmAgent({ name: 'a', model, tools: [tool] }), [
      new ReflectAndRetryToolPlugin({ maxRetries: 2 }),
    ]);
    const events = await h.send('look up X');

    expect([1, 2, 3].map((i) => lastResponse(model.requests[i])?.retry_count)).toEqual([1, 2, 3]);
    expect(lastResponse(model.requests[2])?.retries_exhausted).toBeUndefined();
    expect(lastResponse(model.requests[3])).toEqual({
      error: 'unknown city "Z"',
      reflection_guidance: expect.stringContaining('Do not call it again'),
      retry_count: 3,
      max_retries: 2,
      retries_exhausted: true,
    });
    expect(calls()).toBe(3);
    expect(texts(events).at(-1)).toBe('Sorry, I could not find it.');
  });

  it('after the limit can leave the plain error response to core, or end the run', async () => {
    const model = new ScriptedModel([
      functionCallResponse('lookup', { city: 'X' }),
      functionCallResponse('lookup', { city: 'Y' }),
      'done',
    ]);
    await harness(new LlmAgent({ name: 'a', model, tools: [flakyTool(9).tool] }), [
      new ReflectAndRetryToolPlugin({ maxRetries: 1, whenExhausted: 'default' }),
    ]).send('go');
    expect(lastResponse(model.requests[2])).toEqual({ error: 'Tool "lookup" failed: unknown city "Y"' });

    const failing = new ScriptedModel([
      functionCallResponse('lookup', { city: 'X' }),
      functionCallResponse('lookup', { city: 'Y' }),
    ]);
    const events = await harness(new LlmAgent({ name: 'a', model: failing, tools: [flakyTool(9).tool] }), [
      new ReflectAndRetryToolPlugin({ maxRetries: 1, whenExhausted: 'fail' }),
    ]).send('go');
    expect(errors(events)).toEqual([
      {
        code: 'PLUGIN',
        message: expect.stringContaining('Tool "lookup" failed 2 times in a row (max 1 retries)'),
      },
    ]);
  });

  it('a success resets the count; errors in results can count as failures', async () => {
    let n = 0;
    const tool = new FunctionTool({
      name: 'lookup',
      description: '',
      parameters: z.object({}),
      execute: () => (++n % 2 === 1 ? { status: 'error', message: `bad ${n}` } : { status: 'ok' }),
    });
    const model = new ScriptedModel([
      functionCallResponse('lookup'),
      functionCallResponse('lookup'),
      functionCallResponse('lookup'),
      'done',
    ]);
    await harness(new LlmAgent({ name: 'a', model, tools: [tool] }), [
      new ReflectAndRetryToolPlugin({
        maxRetries: 1,
        errorInResult: (result) => (result.status === 'error' ? String(result.message) : undefined),
      }),
    ]).send('go');
    expect(lastResponse(model.requests[1])).toMatchObject({ error: 'bad 1', retry_count: 1 });
    expect(lastResponse(model.requests[2])).toEqual({ status: 'ok' });
    // Counting starts again after the success: retry 1, not 2.
    expect(lastResponse(model.requests[3])).toMatchObject({ error: 'bad 3', retry_count: 1 });
  });

  it('counts per invocation by default: concurrent runs keep separate counts; global scope shares one', async () => {
    async function concurrentFirstFailures(scope: 'invocation' | 'global') {
      const bothRunning = deferred();
      let entered = 0;
      const tool = new FunctionTool({
        name: 'lookup',
        description: '',
        parameters: z.object({}),
        execute: async () => {
          if (++entered === 2) bothRunning.resolve();
          await bothRunning.promise;
          throw new Error('service unavailable');
        },
      });
      const model = new ScriptedModel({
        respond: (request) => (request.contents.length === 1 ? functionCallResponse('lookup') : 'gave up'),
      });
      const h = harness(new LlmAgent({ name: 'a', model, tools: [tool] }), [
        new ReflectAndRetryToolPlugin({ maxRetries: 3, scope }),
      ]);
      await Promise.all([h.send('one', { sessionId: 's1' }), h.send('two', { sessionId: 's2' })]);
      return model.requests
        .filter((r) => r.contents.length > 1)
        .map((r) => lastResponse(r)?.retry_count)
        .sort();
    }
    expect(await concurrentFirstFailures('invocation')).toEqual([1, 1]);
    expect(await concurrentFirstFailures('global')).toEqual([1, 2]);
  });
});
