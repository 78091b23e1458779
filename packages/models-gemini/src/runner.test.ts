import {
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  ModelRegistry,
  Runner,
  userContent,
} from '@adk/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collect, jsonFixture, type ReplayServer, startReplayServer } from './__fixtures__/replay-server.js';
import { registerGemini } from './index.js';

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

describe('Gemini through the Runner', () => {
  it('runs a tool and sends the full tool history, with signatures, on the next turn', async () => {
    const models = registerGemini(new ModelRegistry(), { apiKey: 'k', baseURL: `${server.url}/v1beta` });
    const tool = new FunctionTool({
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, forecast: 'sunny' }),
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model: 'gemini-2.5-flash',
      instruction: 'Be brief.',
      tools: [tool],
    });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      models,
    });
    server.enqueue(jsonFixture('tool-call.json'), jsonFixture('answer.json'), jsonFixture('text.json'));

    const first = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent("What's the weather in Paris?") }),
    );
    expect(first.at(-1)?.content?.parts[0]?.text).toBe('It is sunny in Paris.');
    const second = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Thanks!') }),
    );
    expect(second.at(-1)?.content?.parts[0]?.text).toBe('Hello! How can I help you today?');

    expect(server.requests).toHaveLength(3);
    const body = server.requests[2]?.body as Record<string, unknown>;
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: "What's the weather in Paris?" }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'CiQB0e2Kb1sig-call-1',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { city: 'Paris', forecast: 'sunny' } } },
        ],
      },
      { role: 'model', parts: [{ text: 'It is sunny in Paris.' }] },
      { role: 'user', parts: [{ text: 'Thanks!' }] },
    ]);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
      },
    ]);
    expect(JSON.stringify(body.systemInstruction)).toContain('Be brief.');
  });
});
