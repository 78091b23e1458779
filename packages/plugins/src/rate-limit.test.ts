import { LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { deferred, errors, harness, texts } from './__fixtures__/harness.js';
import { ManualClock } from './clock.js';
import { RATE_LIMITED, RateLimitPlugin } from './rate-limit.js';

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

describe('RateLimitPlugin', () => {
  it('refuses calls over the limit under concurrent invocations, with a clear error', async () => {
    const clock = new ManualClock(0);
    const release = deferred();
    const model = new ScriptedModel({
      respond: async () => {
        await release.promise;
        return 'answer';
      },
    });
    const h = harness(new LlmAgent({ name: 'a', model }), [
      new RateLimitPlugin({ limit: 2, windowMs: 60_000, clock }),
    ]);
    const runs = [1, 2, 3, 4].map((i) => h.send(`q${i}`, { sessionId: `s${i}` }));
    const other = h.send('q', { userId: 'someone-else', sessionId: 'x' });
    // Let every run reach the model (or the limiter) before any model call finishes.
    await new Promise((resolve) => setTimeout(resolve, 20));
    release.resolve();
    const results = await Promise.all(runs);

    const answered = results.filter((events) => texts(events).includes('answer'));
    const refused = results.flatMap((events) => errors(events));
    expect(answered).toHaveLength(2);
    expect(refused).toEqual([
      {
        code: RATE_LIMITED,
        message: 'Rate limit reached: at most 2 model call(s) per minute for user "u". Try again in 60 s.',
      },
      {
        code: RATE_LIMITED,
        message: 'Rate limit reached: at most 2 model call(s) per minute for user "u". Try again in 60 s.',
      },
    ]);
    // Another user has their own budget.
    expect(texts(await other)).toEqual(['answer']);
    expect(model.requests).toHaveLength(3);

    // The window slides: once the earliest calls are a minute old, calls go through again.
    clock.advance(60_000);
    expect(texts(await h.send('later', { sessionId: 's9' }))).toEqual(['answer']);
  });

  it('counts per app when asked', async () => {
    const model = new ScriptedModel({ respond: () => 'ok' });
    const h = harness(new LlmAgent({ name: 'a', model }), [
      new RateLimitPlugin({ limit: 1, windowMs: 1000, per: 'app', clock: new ManualClock() }),
    ]);
    expect(texts(await h.send('1', { userId: 'a' }))).toEqual(['ok']);
    expect(errors(await h.send('2', { userId: 'b' }))[0]?.message).toBe(
      'Rate limit reached: at most 1 model call(s) per second for app "app". Try again in 1 s.',
    );
  });

  it('waits for a free slot in wait mode under concurrent invocations, and refuses past maxWaitMs', async () => {
    const clock = new ManualClock(0, { autoAdvance: false });
    const at: number[] = [];
    const model = new ScriptedModel({
      respond: () => {
        at.push(clock.now());
        return 'ok';
      },
    });
    const h = harness(new LlmAgent({ name: 'a', model }), [
      new RateLimitPlugin({ limit: 2, windowMs: 1000, mode: 'wait', clock }),
    ]);
    const runs = Promise.all([1, 2, 3].map((i) => h.send(`q${i}`, { sessionId: `s${i}` })));
    await until(() => clock.waiting === 1);
    // Two calls at once; the third waits for the window to slide.
    expect(at).toEqual([0, 0]);
    clock.advance(999);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(at).toEqual([0, 0]);
    clock.advance(1);
    const results = await runs;
    expect(results.map(texts)).toEqual([['ok'], ['ok'], ['ok']]);
    expect(at).toEqual([0, 0, 1000]);
    expect(clock.sleeps).toEqual([1000]);

    const impatient = harness(new LlmAgent({ name: 'a', model }), [
      new RateLimitPlugin({
        limit: 1,
        windowMs: 10_000,
        mode: 'wait',
        maxWaitMs: 5000,
        clock: new ManualClock(),
      }),
    ]);
    await impatient.send('first');
    const refused = errors(await impatient.send('second'));
    expect(refused[0]?.code).toBe(RATE_LIMITED);
    expect(refused[0]?.message).toMatch(/per 10 seconds for user "u"\. Try again in 10 s\./);
  });

  it('a wait ends when the run is cancelled', async () => {
    const model = new ScriptedModel({ respond: () => 'ok' });
    const plugin = new RateLimitPlugin({ limit: 1, windowMs: 60_000, mode: 'wait' });
    const h = harness(new LlmAgent({ name: 'a', model }), [plugin]);
    await h.send('first');
    const controller = new AbortController();
    const events: string[] = [];
    const run = (async () => {
      for await (const e of h.runner.run({
        userId: 'u',
        sessionId: 's2',
        newMessage: { role: 'user', parts: [{ text: 'second' }] },
        signal: controller.signal,
      })) {
        if (e.errorCode) events.push(e.errorCode);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await run;
    expect(events).toEqual(['CANCELLED']);
    expect(model.requests).toHaveLength(1);
  });

  it('rejects an unusable configuration', () => {
    expect(() => new RateLimitPlugin({ limit: 0, windowMs: 1000 })).toThrow(/limit ≥ 1/);
  });
});
