import {
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  ModelRegistry,
  Runner,
  runAgentText,
  userContent,
} from '@adk/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Gemini } from './gemini.js';
import { registerGemini } from './register.js';

const saved = { g: process.env.GEMINI_API_KEY, o: process.env.GOOGLE_API_KEY };
beforeEach(() => {
  delete process.env.GEMINI_API_KEY;
  delete process.env.GOOGLE_API_KEY;
});
afterEach(() => {
  if (saved.g !== undefined) process.env.GEMINI_API_KEY = saved.g;
  if (saved.o !== undefined) process.env.GOOGLE_API_KEY = saved.o;
});

describe('registerGemini and configuration errors', () => {
  it('takes one options object; the positional form still works', () => {
    const registry = new ModelRegistry();
    expect(registerGemini({ registry, apiKey: 'k' })).toBe(registry);
    expect(registry.resolve('gemini-2.5-flash')).toBeInstanceOf(Gemini);
    const old = new ModelRegistry();
    expect(registerGemini(old, { apiKey: 'k' })).toBe(old);
    expect(old.has('gemini-2.5-flash')).toBe(true);
  });

  it('a run without a key throws MISSING_API_KEY naming the variables, before any request', async () => {
    const registry = registerGemini({ registry: new ModelRegistry(), baseURL: 'http://127.0.0.1:9' });
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model: 'gemini-2.5-flash' }),
      sessionService: new InMemorySessionService(),
      models: registry,
      autoCreateSession: true,
    });
    const error = await runner
      .run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') })
      .next()
      .catch((e: unknown) => e);
    expect(isAdkError(error, 'MISSING_API_KEY')).toBe(true);
    expect((error as Error).message).toContain('`GEMINI_API_KEY` or `GOOGLE_API_KEY`');
  });

  it('a Gemini name without registerGemini() names the package and the call', async () => {
    const error = await runAgentText(new LlmAgent({ name: 'a', model: 'gemini-2.5-flash' }), 'hi', {
      models: new ModelRegistry(),
    }).catch((e: unknown) => e);
    expect(isAdkError(error, 'PROVIDER_NOT_REGISTERED')).toBe(true);
    expect((error as Error).message).toMatch(/Install @adk\/models-gemini and call registerGemini\(\)/);
  });
});
