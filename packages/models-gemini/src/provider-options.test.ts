import {
  type GenerateConfig,
  InMemorySessionService,
  LlmAgent,
  ModelRegistry,
  Runner,
  userContent,
} from '@adk/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { collect, jsonFixture, type ReplayServer, startReplayServer } from './__fixtures__/replay-server.js';
import { type GeminiProviderOptions, registerGemini } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

/** Options for three vendors on one agent, as an agent that may switch model carries them. */
const generateConfig: GenerateConfig = {
  providerOptions: {
    gemini: { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] },
    anthropic: { metadata: { user_id: 'user-1' }, service_tier: 'standard_only' },
    openai: { user: 'user-1', service_tier: 'flex' },
  },
};

async function bodyOf(config: GenerateConfig): Promise<Record<string, unknown>> {
  const models = registerGemini(new ModelRegistry(), {
    apiKey: 'k',
    baseURL: `${server.url}/v1beta`,
    retry: false,
  });
  const agent = new LlmAgent({ name: 'assistant', model: 'gemini-2.5-flash', generateConfig: config });
  const runner = new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    models,
  });
  server.enqueue(jsonFixture('text.json'));
  await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Hi') }));
  return server.requests.at(-1)?.body as Record<string, unknown>;
}

describe('namespaced providerOptions', () => {
  it('sends Gemini only the gemini namespace of an agent with options for three vendors', async () => {
    const body = await bodyOf(generateConfig);
    expect(body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Hi",
              },
            ],
            "role": "user",
          },
        ],
        "safetySettings": [
          {
            "category": "HARM_CATEGORY_HARASSMENT",
            "threshold": "BLOCK_NONE",
          },
        ],
        "systemInstruction": {
          "parts": [
            {
              "text": "You are an agent. Your internal name is "assistant".",
            },
          ],
        },
      }
    `);
  });

  it('still sends un-namespaced fields, with a deprecation warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const body = await bodyOf({
        providerOptions: { top_k_legacy: 3, gemini: { cachedContent: 'cachedContents/c1' } },
      });
      expect(body).toMatchObject({ top_k_legacy: 3, cachedContent: 'cachedContents/c1' });
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('un-namespaced fields (top_k_legacy)'));
    } finally {
      warn.mockRestore();
    }
  });

  it('types the gemini namespace', () => {
    const options: GeminiProviderOptions = { cachedContent: 'cachedContents/c1' };
    const config: GenerateConfig = { providerOptions: { gemini: options } };
    // @ts-expect-error safetySettings is a list of settings
    const wrong: GenerateConfig = { providerOptions: { gemini: { safetySettings: 'none' } } };
    expect([config, wrong]).toHaveLength(2);
  });
});
