import { FunctionTool, LlmAgent, type LlmResponse } from '@adk/core';
import { ApiCallError } from '@adk/core/http';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness } from './__fixtures__/harness.js';
import { ManualClock } from './clock.js';
import { ModelFallbackPlugin } from './model-fallback.js';
import { ResponseCachePlugin } from './response-cache.js';
import { UsageAccountingPlugin, type UsageReport } from './usage-accounting.js';

const usage = (prompt: number, output: number, cached = 0, thoughts = 0) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: output,
  cachedContentTokenCount: cached,
  thoughtsTokenCount: thoughts,
  totalTokenCount: prompt + output + thoughts,
});

const prices = {
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.075 },
  'claude-': { input: 3, output: 15 },
};

const lookup = new FunctionTool({
  name: 'lookup',
  description: '',
  parameters: z.object({}),
  execute: () => ({ ok: true }),
});

describe('UsageAccountingPlugin', () => {
  it('totals tokens and cost per invocation, session and user, in state and through a callback', async () => {
    const model = new ScriptedModel({
      model: 'gemini-2.5-flash',
      script: [
        { ...functionCallResponse('lookup'), usageMetadata: usage(1000, 50, 400, 100) },
        { content: { role: 'model', parts: [{ text: 'done' }] }, usageMetadata: usage(1200, 20) },
        { content: { role: 'model', parts: [{ text: 'again' }] }, usageMetadata: usage(2000, 10, 2000) },
        { content: { role: 'model', parts: [{ text: 'other' }] }, usageMetadata: usage(100, 10) },
      ],
    });
    const reports: UsageReport[] = [];
    const plugin = new UsageAccountingPlugin({ prices, onUsage: (r) => void reports.push(r) });
    const h = harness(new LlmAgent({ name: 'a', model, tools: [lookup] }), [plugin]);

    const first = await h.send('one');
    // (600·0.3 + 400·0.075 + 50·2.5 + 100·2.5) / 1e6 and (1200·0.3 + 20·2.5) / 1e6
    const firstCost = (600 * 0.3 + 400 * 0.075 + 50 * 2.5 + 100 * 2.5) / 1e6;
    const secondCost = (1200 * 0.3 + 20 * 2.5) / 1e6;
    let state = (await h.session())?.state ?? {};
    expect(state['usage:invocation']).toEqual({
      invocationId: first[0]?.invocationId,
      calls: 2,
      inputTokens: 2200,
      outputTokens: 70,
      cachedTokens: 400,
      thinkingTokens: 100,
      totalTokens: 2370,
      cost: expect.closeTo(firstCost + secondCost, 12),
    });
    expect(state['usage:session']).toEqual(state['user:usage']);

    await h.send('two');
    const thirdCost = (2000 * 0.075 + 10 * 2.5) / 1e6;
    state = (await h.session())?.state ?? {};
    expect(state['usage:invocation']).toMatchObject({ calls: 1, inputTokens: 2000, cachedTokens: 2000 });
    expect(state['usage:session']).toMatchObject({
      calls: 3,
      inputTokens: 4200,
      outputTokens: 80,
      cachedTokens: 2400,
      thinkingTokens: 100,
      totalTokens: 4380,
      cost: expect.closeTo(firstCost + secondCost + thirdCost, 12),
    });

    // Another session of the same user: its own session totals, the user's keep growing.
    await h.send('three', { sessionId: 'other' });
    const otherState = (await h.session({ sessionId: 'other' }))?.state ?? {};
    expect(otherState['usage:session']).toMatchObject({ calls: 1, inputTokens: 100 });
    expect(otherState['user:usage']).toMatchObject({ calls: 4, inputTokens: 4300, outputTokens: 90 });

    expect(reports).toHaveLength(4);
    expect(reports[0]).toMatchObject({
      appName: 'app',
      userId: 'u',
      sessionId: 's',
      agent: 'a',
      model: 'gemini-2.5-flash',
      priced: true,
      usage: { calls: 1, inputTokens: 1000, outputTokens: 50, cachedTokens: 400, thinkingTokens: 100 },
    });
    expect(reports[3]?.user).toEqual(otherState['user:usage']);
    expect(plugin.userTotals('app', 'u')).toEqual(otherState['user:usage']);
  });

  it('counts concurrent sessions of one user without losing any', async () => {
    const model = new ScriptedModel({
      model: 'claude-sonnet-4',
      delayMs: 5,
      respond: () => ({ content: { role: 'model', parts: [{ text: 'ok' }] }, usageMetadata: usage(100, 10) }),
    });
    const plugin = new UsageAccountingPlugin({ prices });
    const h = harness(new LlmAgent({ name: 'a', model }), [plugin]);
    await Promise.all([1, 2, 3, 4, 5].map((i) => h.send('hi', { sessionId: `s${i}` })));
    expect(plugin.userTotals('app', 'u')).toMatchObject({
      calls: 5,
      inputTokens: 500,
      outputTokens: 50,
      // prefix price 'claude-': (100·3 + 10·15) / 1e6 per call
      cost: expect.closeTo((5 * (100 * 3 + 10 * 15)) / 1e6, 12),
    });
    // The user's stored totals (as a new session sees them) count every call.
    const fresh = await h.sessionService.createSession({ appName: 'app', userId: 'u' });
    expect(fresh.state['user:usage']).toMatchObject({ calls: 5, inputTokens: 500 });
  });

  it('counts fallback responses at the fallback model price, and not cache hits', async () => {
    const failing = new ScriptedModel({
      model: 'claude-opus',
      respond: () => new ApiCallError('down', { url: 'x', failure: 'http', status: 400 }),
    });
    const backup: LlmResponse = {
      content: { role: 'model', parts: [{ text: 'from flash' }] },
      usageMetadata: usage(1000, 100),
    };
    const flash = new ScriptedModel({ model: 'gemini-2.5-flash', respond: () => backup });
    const reports: UsageReport[] = [];
    const h = harness(new LlmAgent({ name: 'a', model: failing }), [
      new ResponseCachePlugin(),
      new ModelFallbackPlugin({ fallbacks: [flash], clock: new ManualClock() }),
      new UsageAccountingPlugin({ prices, onUsage: (r) => void reports.push(r) }),
    ]);
    await h.send('q', { sessionId: 's1' });
    await h.send('q', { sessionId: 's2' });
    expect(flash.requests).toHaveLength(1);
    expect(reports.map((r) => [r.model, r.usage.cost])).toEqual([
      ['gemini-2.5-flash', (1000 * 0.3 + 100 * 2.5) / 1e6],
    ]);
  });

  it('an unpriced model costs 0 and says so; state writes can be turned off', async () => {
    const model = new ScriptedModel({
      model: 'local-llama',
      respond: () => ({ content: { role: 'model', parts: [{ text: 'ok' }] }, usageMetadata: usage(5, 5) }),
    });
    const reports: UsageReport[] = [];
    const h = harness(new LlmAgent({ name: 'a', model }), [
      new UsageAccountingPlugin({ prices, stateKeys: false, onUsage: (r) => void reports.push(r) }),
    ]);
    await h.send('hi');
    expect(reports[0]).toMatchObject({ priced: false, usage: { cost: 0, totalTokens: 10 } });
    expect((await h.session())?.state).toEqual({});
  });
});
