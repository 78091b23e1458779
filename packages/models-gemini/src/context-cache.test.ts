import { FunctionTool, InMemoryRunner, LlmAgent, userContent } from '@adk/core';
import { type ReplayServer, startReplayServer } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Gemini } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const answer = (text: string) =>
  JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 2000, cachedContentTokenCount: 1900, candidatesTokenCount: 3 },
  });

describe('Gemini explicit context caching', () => {
  it('stores the static instruction and tools once as cachedContents and references them from every request', async () => {
    const handbook = new FunctionTool({
      name: 'open_handbook',
      description: 'Opens a handbook page',
      parameters: z.object({ page: z.number() }),
      execute: ({ page }) => ({ page }),
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model: new Gemini('gemini-2.5-flash', {
        apiKey: 'k',
        baseURL: server.url,
        contextCache: { ttlSeconds: 600 },
        retry: false,
      }),
      staticInstruction: 'The ACME handbook, all 300 pages of it. (static)',
      instruction: 'Today the user is {name?}.',
      tools: [handbook],
    });
    const runner = new InMemoryRunner({ agent });
    server.enqueue(
      {
        body: JSON.stringify({
          name: 'cachedContents/abc123',
          expireTime: new Date(Date.now() + 600_000).toISOString(),
        }),
      },
      { body: answer('First.') },
      { body: answer('Second.') },
    );
    for (const text of ['one', 'two'])
      for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) })) {
      }

    const [create, first, second] = server.requests;
    expect(create?.path).toBe('/cachedContents');
    expect(create?.body).toMatchObject({
      model: 'models/gemini-2.5-flash',
      systemInstruction: { parts: [{ text: 'The ACME handbook, all 300 pages of it. (static)' }] },
      tools: [{ functionDeclarations: [expect.objectContaining({ name: 'open_handbook' })] }],
      ttl: '600s',
    });
    expect(server.requests.filter((r) => r.path === '/cachedContents')).toHaveLength(1);
    for (const request of [first, second]) {
      expect(request?.path).toBe('/models/gemini-2.5-flash:generateContent');
      const body = request?.body as Record<string, unknown>;
      expect(body.cachedContent).toBe('cachedContents/abc123');
      expect(body.systemInstruction).toBeUndefined();
      expect(body.tools).toBeUndefined();
      const contents = body.contents as { role: string; parts: { text?: string }[] }[];
      // The rest of the system instruction leads the conversation; the templated instruction is a
      // user turn before the message (as ADK sends it beside a static instruction).
      expect(contents[0]?.parts[0]?.text).toBe('You are an agent. Your internal name is "assistant".');
      expect(JSON.stringify(contents)).toContain('Today the user is .');
    }
  });
});
