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
import { registerClaude } from './index.js';

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

describe('Claude through the Runner', () => {
  it('runs a tool and sends tool_use/tool_result pairs on the next turn', async () => {
    const models = registerClaude(new ModelRegistry(), { apiKey: 'k', baseURL: `${server.url}/v1` });
    const tool = new FunctionTool({
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, forecast: 'sunny' }),
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model: 'claude-sonnet-4-5',
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
    server.enqueue(jsonFixture('tool-use.json'), jsonFixture('answer.json'), jsonFixture('text.json'));

    const first = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent("What's the weather in Paris?") }),
    );
    expect(first.at(-1)?.content?.parts[0]?.text).toBe('It is sunny in Paris.');
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Thanks!') }));

    expect(server.requests).toHaveLength(3);
    const body = server.requests[2]?.body as Record<string, unknown>;
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: "What's the weather in Paris?" }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: "I'll check the weather in Paris." },
          {
            type: 'tool_use',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            input: { city: 'Paris' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01A09q90qw90lq917835lq9',
            content: '{"city":"Paris","forecast":"sunny"}',
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It is sunny in Paris.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
    ]);
    expect(body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 8192 });
    expect(body.system).toContain('Be brief.');
  });
});
