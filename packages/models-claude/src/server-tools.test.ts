import {
  codeExecution,
  FunctionTool,
  googleSearch,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  ModelRegistry,
  Runner,
  type ToolUnion,
  userContent,
  webFetch,
  webSearch,
} from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  caught,
  collect,
  jsonFixture,
  type ReplayServer,
  sseFixture,
  startReplayServer,
} from './__fixtures__/replay-server.js';
import { Claude, registerClaude } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, forecast: 'sunny' }),
});

function runnerWith(tools: ToolUnion[]) {
  const models = registerClaude(new ModelRegistry(), {
    apiKey: 'k',
    baseURL: `${server.url}/v1`,
    retry: false,
  });
  const agent = new LlmAgent({ name: 'assistant', model: 'claude-sonnet-4-5', tools });
  return new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    models,
  });
}

describe('Claude server tools', () => {
  it('declares web_search, web_fetch and code_execution next to function tools, keeps their blocks on the event and sends them back', async () => {
    const runner = runnerWith([webSearch({ max_uses: 3 }), webFetch(), codeExecution(), weather]);
    server.enqueue(jsonFixture('server-tools.json'), jsonFixture('text.json'));
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Weather in Paris, and 2^10?') }),
    );
    const body = server.requests.at(-1)?.body as Record<string, unknown> | undefined;
    expect(body?.tools).toMatchInlineSnapshot(`
      [
        {
          "description": "Weather for a city",
          "input_schema": {
            "properties": {
              "city": {
                "type": "string",
              },
            },
            "required": [
              "city",
            ],
            "type": "object",
          },
          "name": "get_weather",
        },
        {
          "max_uses": 3,
          "name": "web_search",
          "type": "web_search_20250305",
        },
        {
          "name": "web_fetch",
          "type": "web_fetch_20250910",
        },
        {
          "name": "code_execution",
          "type": "code_execution_20250825",
        },
      ]
    `);
    const answer = events.at(-1);
    expect(answer?.content?.parts.map((p) => Object.keys(p)[0])).toEqual([
      'text',
      'serverToolUse',
      'serverToolResult',
      'serverToolUse',
      'serverToolResult',
      'text',
    ]);
    expect(answer?.content?.parts[1]?.serverToolUse).toEqual({
      id: 'srvtoolu_01',
      name: 'web_search',
      input: { query: 'weather Paris today' },
    });
    expect(answer?.content?.parts[4]?.serverToolResult).toMatchObject({
      toolUseId: 'srvtoolu_02',
      type: 'bash_code_execution_tool_result',
      content: { stdout: '1024\n', return_code: 0 },
    });

    // The next turn sends the server tool blocks back in the assistant message, verbatim.
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Thanks') }));
    const next = server.requests.at(-1)?.body as { messages: { role: string; content: unknown[] }[] };
    expect(next.messages[1]).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "text": "I'll look that up and compute it.",
            "type": "text",
          },
          {
            "id": "srvtoolu_01",
            "input": {
              "query": "weather Paris today",
            },
            "name": "web_search",
            "type": "server_tool_use",
          },
          {
            "content": [
              {
                "encrypted_content": "EqgfCioIARgBIiQ3YTAw",
                "page_age": "1 day ago",
                "title": "Paris weather",
                "type": "web_search_result",
                "url": "https://weather.example/paris",
              },
            ],
            "tool_use_id": "srvtoolu_01",
            "type": "web_search_tool_result",
          },
          {
            "id": "srvtoolu_02",
            "input": {
              "command": "python3 -c 'print(2**10)'",
            },
            "name": "bash_code_execution",
            "type": "server_tool_use",
          },
          {
            "content": {
              "content": [],
              "return_code": 0,
              "stderr": "",
              "stdout": "1024
      ",
              "type": "bash_code_execution_result",
            },
            "tool_use_id": "srvtoolu_02",
            "type": "bash_code_execution_tool_result",
          },
          {
            "text": "It is sunny in Paris, and 2^10 is 1024.",
            "type": "text",
          },
        ],
        "role": "assistant",
      }
    `);
  });

  it('assembles a streamed server_tool_use and keeps the web_fetch result', async () => {
    const model = new Claude('claude-sonnet-4-5', { apiKey: 'k', baseURL: `${server.url}/v1`, retry: false });
    server.enqueue(sseFixture('stream-server-tools.sse'));
    const responses = await collect(
      model.generate(
        {
          model: 'claude-sonnet-4-5',
          contents: [{ role: 'user', parts: [{ text: 'Read example.com/a' }] }],
          builtInTools: [{ type: 'webFetch', config: { version: '20250910', max_uses: 1 } }],
          config: {},
        },
        { stream: true },
      ),
    );
    const body = server.requests.at(-1)?.body as Record<string, unknown> | undefined;
    expect(body?.tools).toEqual([{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 1 }]);
    const parts = responses.at(-1)?.content?.parts ?? [];
    expect(parts[0]?.serverToolUse).toEqual({
      id: 'srvtoolu_03',
      name: 'web_fetch',
      input: { url: 'https://example.com/a' },
    });
    expect(parts[1]?.serverToolResult?.type).toBe('web_fetch_tool_result');
    expect(parts[2]?.text).toBe('The page says: Example page.');
  });

  it('rejects a built-in tool Claude does not have, with a typed error', async () => {
    const runner = runnerWith([googleSearch()]);
    const before = server.requests.length;
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's2', newMessage: userContent('search') }),
    );
    expect(server.requests.length).toBe(before);
    expect(events.at(-1)?.errorCode).toBe('UNSUPPORTED_BUILT_IN_TOOL');
    expect(events.at(-1)?.errorMessage).toContain('Claude has no built-in tool "googleSearch"');
    const model = new Claude('claude-sonnet-4-5', { apiKey: 'k', baseURL: `${server.url}/v1` });
    const error = await caught(
      collect(
        model.generate({ model: 'x', contents: [], builtInTools: [{ type: 'urlContext' }], config: {} }),
      ),
    );
    expect(isAdkError(error, 'UNSUPPORTED_BUILT_IN_TOOL')).toBe(true);
  });
});
