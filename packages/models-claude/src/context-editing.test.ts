import { FunctionTool, InMemorySessionService, LlmAgent, Runner, userContent } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  collect,
  jsonFixture,
  type ReplayServer,
  sseFixture,
  startReplayServer,
} from './__fixtures__/replay-server.js';
import { Claude, claudeContextEditing, claudeContextEdits } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

function runnerWith(agent: LlmAgent): Runner {
  return new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
  });
}

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: 'sunny' }),
});

describe('claudeContextEditing', () => {
  it('asks Claude to clear tool uses and thinking on every request and records what it cleared', async () => {
    const model = new Claude('claude-sonnet-4-5', {
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      retry: false,
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      tools: [weather],
      contextCompression: [
        claudeContextEditing({
          clearThinking: { keepTurns: 1 },
          clearToolUses: { trigger: 30000, keep: 3, clearToolInputs: true },
        }),
      ],
    });
    const runner = runnerWith(agent);
    const before = server.requests.length;
    server.enqueue(sseFixture('stream-tool-use.sse'), sseFixture('stream-context-editing.sse'));
    const events = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent("What's the weather in Paris?"),
        runConfig: { streaming: true },
      }),
    );
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2);
    const bodies = requests.map((r) => r.body as { context_management?: unknown; messages: unknown[] });
    for (const request of requests) {
      expect(request.headers['anthropic-beta']).toBe('context-management-2025-06-27');
      expect((request.body as { context_management?: unknown }).context_management).toEqual(
        bodies[0]?.context_management,
      );
    }
    // The history goes whole: Claude does the clearing on its side.
    expect(bodies[1]?.messages).toHaveLength(3);
    expect(bodies[0]?.context_management).toMatchInlineSnapshot(`
      {
        "edits": [
          {
            "keep": {
              "type": "thinking_turns",
              "value": 1,
            },
            "type": "clear_thinking_20251015",
          },
          {
            "clear_tool_inputs": true,
            "keep": {
              "type": "tool_uses",
              "value": 3,
            },
            "trigger": {
              "type": "input_tokens",
              "value": 30000,
            },
            "type": "clear_tool_uses_20250919",
          },
        ],
      }
    `);
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('It is sunny in Paris.');

    const session = await runner.sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    const records = claudeContextEdits(session?.events ?? []);
    expect(records).toEqual([
      {
        eventId: events.at(-1)?.id,
        invocationId: events.at(-1)?.invocationId,
        edits: [
          { type: 'clear_thinking_20251015', cleared_thinking_turns: 1, cleared_input_tokens: 1500 },
          { type: 'clear_tool_uses_20250919', cleared_tool_uses: 3, cleared_input_tokens: 12000 },
        ],
      },
    ]);
  });

  it("keeps the request's own context_management over the compressor's", async () => {
    const model = new Claude('claude-sonnet-4-5', { apiKey: 'k', baseURL: `${server.url}/v1`, retry: false });
    const own = { edits: [{ type: 'clear_tool_uses_20250919' }] };
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      generateConfig: { providerOptions: { anthropic: { context_management: own } } },
      contextCompression: [claudeContextEditing({ clearThinking: true })],
    });
    const runner = runnerWith(agent);
    const before = server.requests.length;
    server.enqueue(jsonFixture('text.json'));
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Hi') }));
    const body = server.requests[before]?.body as { context_management?: unknown } | undefined;
    expect(body?.context_management).toEqual(own);
  });

  it('reads nothing from events without a well-formed record', () => {
    expect(
      claudeContextEdits([
        { customMetadata: { contextManagement: 'nonsense' } },
        { customMetadata: { contextManagement: { applied_edits: [42, { cleared_tool_uses: 1 }] } } },
        {},
      ] as never),
    ).toEqual([]);
  });
});
