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
import { registerOpenAI } from './index.js';

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

describe('OpenAI through the Runner', () => {
  it('runs a tool and sends tool_calls and role: tool messages on the next turn', async () => {
    const models = registerOpenAI(new ModelRegistry(), { apiKey: 'k', baseURL: `${server.url}/v1` });
    const tool = new FunctionTool({
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, forecast: 'sunny' }),
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model: 'openai/gpt-4o-mini',
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
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Thanks!') }));

    expect(server.requests).toHaveLength(3);
    const body = server.requests[2]?.body as {
      model: string;
      messages: { role: string; content: unknown }[];
    };
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages[0]?.content).toContain('Be brief.');
    expect(body.messages.slice(1)).toEqual([
      { role: 'user', content: "What's the weather in Paris?" },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_Paris1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_Paris1', content: '{"city":"Paris","forecast":"sunny"}' },
      { role: 'assistant', content: 'It is sunny in Paris.' },
      { role: 'user', content: 'Thanks!' },
    ]);
  });
});
