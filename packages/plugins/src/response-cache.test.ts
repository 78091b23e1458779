import { FunctionTool, LlmAgent, type LlmResponse } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, texts } from './__fixtures__/harness.js';
import { ManualClock } from './clock.js';
import {
  type CacheEntry,
  type CacheStore,
  InMemoryCacheStore,
  ResponseCachePlugin,
} from './response-cache.js';

const answer = (text: string): LlmResponse => ({
  content: { role: 'model', parts: [{ text }] },
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2 },
});

describe('ResponseCachePlugin', () => {
  it('a hit answers from the cache and skips the model', async () => {
    let n = 0;
    const model = new ScriptedModel({ respond: () => answer(`answer ${++n}`) });
    const cache = new ResponseCachePlugin({ clock: new ManualClock() });
    const h = harness(new LlmAgent({ name: 'a', model, instruction: 'Be brief.' }), [cache]);

    expect(texts(await h.send('what is 2+2?', { sessionId: 's1' }))).toEqual(['answer 1']);
    const hit = await h.send('what is 2+2?', { sessionId: 's2' });
    expect(texts(hit)).toEqual(['answer 1']);
    expect(model.requests).toHaveLength(1);
    expect(cache.stats).toEqual({ hits: 1, misses: 1 });
    // No tokens were spent on the hit.
    expect(hit.at(-1)?.usageMetadata).toBeUndefined();
    expect(hit.at(-1)?.customMetadata?.response_cache).toMatchObject({ hit: true });

    // A different request (other question) misses.
    expect(texts(await h.send('what is 3+3?', { sessionId: 's3' }))).toEqual(['answer 2']);
  });

  it('entries expire after the TTL', async () => {
    const clock = new ManualClock();
    let n = 0;
    const model = new ScriptedModel({ respond: () => answer(`answer ${++n}`) });
    const h = harness(new LlmAgent({ name: 'a', model }), [new ResponseCachePlugin({ ttlMs: 1000, clock })]);
    await h.send('q', { sessionId: 's1' });
    clock.advance(999);
    expect(texts(await h.send('q', { sessionId: 's2' }))).toEqual(['answer 1']);
    clock.advance(1);
    expect(texts(await h.send('q', { sessionId: 's3' }))).toEqual(['answer 2']);
    expect(model.requests).toHaveLength(2);
  });

  it('replays tool-using turns with fresh call ids, so the tool still runs', async () => {
    let toolRuns = 0;
    const add = new FunctionTool({
      name: 'add',
      description: '',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        toolRuns++;
        return { sum: a + b };
      },
    });
    const model = new ScriptedModel({
      respond: (request) =>
        request.contents.at(-1)?.parts[0]?.functionResponse
          ? 'three'
          : functionCallResponse('add', { a: 1, b: 2 }),
    });
    const h = harness(new LlmAgent({ name: 'a', model, tools: [add] }), [new ResponseCachePlugin()]);
    const first = await h.send('add 1 and 2', { sessionId: 's1' });
    const second = await h.send('add 1 and 2', { sessionId: 's2' });
    expect(texts(second)).toEqual(['three']);
    // Both model turns of the second conversation came from the cache (call ids do not matter).
    expect(model.requests).toHaveLength(2);
    expect(toolRuns).toBe(2);
    const callId = (events: typeof first) =>
      events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionCall)?.functionCall?.id;
    expect(callId(second)).toBeTruthy();
    expect(callId(second)).not.toBe(callId(first));
  });

  it('uses a pluggable store and can keep users apart', async () => {
    const entries = new Map<string, CacheEntry>();
    const store: CacheStore = {
      get: async (key) => entries.get(key),
      set: async (key, entry) => {
        entries.set(key, entry);
      },
      delete: async (key) => {
        entries.delete(key);
      },
    };
    const model = new ScriptedModel({ respond: () => answer('hello') });
    const h = harness(new LlmAgent({ name: 'a', model }), [
      new ResponseCachePlugin({ store, scope: 'user' }),
    ]);
    await h.send('hi', { userId: 'ann', sessionId: 's1' });
    await h.send('hi', { userId: 'ann', sessionId: 's2' });
    await h.send('hi', { userId: 'bob', sessionId: 's3' });
    expect(model.requests).toHaveLength(2);
    expect(entries.size).toBe(2);
    expect([...entries.values()][0]?.response.content?.parts[0]?.text).toBe('hello');
  });

  it('a failing store degrades to calling the model', async () => {
    const failures: unknown[] = [];
    const store: CacheStore = {
      get: async () => {
        throw new Error('redis down');
      },
      set: async () => {
        throw new Error('redis down');
      },
      delete: async () => undefined,
    };
    const model = new ScriptedModel({ respond: () => answer('live') });
    const h = harness(new LlmAgent({ name: 'a', model }), [
      new ResponseCachePlugin({ store, onStoreError: (e) => failures.push(e) }),
    ]);
    expect(texts(await h.send('q'))).toEqual(['live']);
    expect(failures).toHaveLength(2);
  });

  it('does not store error responses', async () => {
    const model = new ScriptedModel({
      script: [{ errorCode: 'SAFETY', errorMessage: 'blocked' }, answer('fine')],
    });
    const h = harness(new LlmAgent({ name: 'a', model }), [new ResponseCachePlugin()]);
    await h.send('q', { sessionId: 's1' });
    expect(texts(await h.send('q', { sessionId: 's2' }))).toEqual(['fine']);
    expect(model.requests).toHaveLength(2);
  });
});

describe('InMemoryCacheStore', () => {
  it('evicts the least recently used entry', () => {
    const store = new InMemoryCacheStore({ maxEntries: 2 });
    const entry = (text: string): CacheEntry => ({ response: answer(text), expiresAt: 1 });
    store.set('a', entry('a'));
    store.set('b', entry('b'));
    store.get('a');
    store.set('c', entry('c'));
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBeDefined();
    expect(store.get('c')).toBeDefined();
    expect(store.size).toBe(2);
  });
});
