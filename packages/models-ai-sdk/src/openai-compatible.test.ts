import {
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  ModelRegistry,
  Runner,
  userContent,
} from '@adk/core';
import {
  type ProviderHarness,
  type ProviderReply,
  providerConformance,
  type ReplayResponse,
  type ReplayServer,
  startReplayServer,
} from '@adk/core/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel, registerAiSdk } from './index.js';

// A real AI SDK provider package (@ai-sdk/openai-compatible) against a local server that replays
// Chat Completions frames: `data:` lines ending in `[DONE]`, as OpenAI-compatible servers send them.
const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model' };
const sse = (events: unknown[], end = true): ReplayResponse => ({
  headers: { 'content-type': 'text/event-stream' },
  chunks: [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), ...(end ? ['data: [DONE]\n\n'] : [])],
  ...(end ? {} : { hang: true }),
});
const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) => ({
  ...base,
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});
const words = (text: string) => text.match(/\S+\s*/g) ?? [text];

function wire(reply: ProviderReply, stream: boolean): ReplayResponse {
  if (reply.kind === 'error')
    return {
      status: reply.status,
      body: JSON.stringify({ error: { message: reply.message, type: 'invalid_request_error' } }),
    };
  if (reply.kind === 'hang') return sse([chunk({ role: 'assistant', content: reply.text })], false);
  const call = reply.kind === 'functionCall';
  const args = call ? JSON.stringify(reply.args) : '';
  const usage =
    reply.kind === 'text'
      ? {
          prompt_tokens: reply.inputTokens,
          completion_tokens: reply.outputTokens,
          total_tokens: reply.inputTokens + reply.outputTokens,
        }
      : undefined;
  if (!stream)
    return {
      body: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'local-model',
        choices: [
          {
            index: 0,
            message: call
              ? {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    { id: 'call_abc', type: 'function', function: { name: reply.name, arguments: args } },
                  ],
                }
              : { role: 'assistant', content: reply.text },
            finish_reason: call ? 'tool_calls' : 'stop',
          },
        ],
        ...(usage ? { usage } : {}),
      }),
    };
  if (call) {
    const half = Math.floor(args.length / 2);
    return sse([
      chunk({
        role: 'assistant',
        tool_calls: [
          {
            index: 0,
            id: 'call_abc',
            type: 'function',
            function: { name: reply.name, arguments: args.slice(0, half) },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
      chunk({}, 'tool_calls'),
    ]);
  }
  return sse([
    chunk({ role: 'assistant', content: '' }),
    ...words(reply.text).map((w) => chunk({ content: w })),
    chunk({}, 'stop'),
    { ...base, choices: [], usage },
  ]);
}

const local = (server: ReplayServer) =>
  createOpenAICompatible({
    name: 'local',
    baseURL: `${server.url}/v1`,
    apiKey: 'test-key',
    includeUsage: true,
  });

async function harness(): Promise<ProviderHarness> {
  const server = await startReplayServer();
  return {
    model: () => aiSdkModel(local(server).chatModel('local-model')),
    reply: (reply, { stream }) => server.enqueue(wire(reply, stream)),
    lastRequestBody: () => server.requests.at(-1)?.body,
    close: () => server.close(),
  };
}

describe('provider conformance: @adk/models-ai-sdk over @ai-sdk/openai-compatible', () => {
  for (const c of providerConformance(harness)) it(c.name, c.run);
});

describe('a whole agent through @ai-sdk/openai-compatible', () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(() => server.close());

  it('runs a tool, then a second turn that reasons, sending the reasoning back', async () => {
    const models = registerAiSdk(new ModelRegistry(), { prefix: 'local/', provider: local(server) });
    const weather = new FunctionTool({
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, forecast: 'sunny' }),
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model: 'local/qwen3',
      instruction: 'Be brief.',
      tools: [weather],
      generateConfig: { thinking: { effort: 'low' } },
    });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      models,
    });
    server.enqueue(
      sse([
        chunk({ role: 'assistant', reasoning_content: 'Need the weather tool.' }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }),
        chunk({}, 'tool_calls'),
        { ...base, choices: [], usage: { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 } },
      ]),
      sse([chunk({ role: 'assistant', content: 'Sunny in Paris.' }), chunk({}, 'stop')]),
      sse([
        chunk({ role: 'assistant', reasoning_content: 'Sunny means no umbrella.' }),
        chunk({ content: 'No umbrella needed.' }),
        chunk({}, 'stop'),
        {
          ...base,
          choices: [],
          usage: {
            prompt_tokens: 90,
            completion_tokens: 20,
            total_tokens: 110,
            completion_tokens_details: { reasoning_tokens: 8 },
          },
        },
      ]),
    );
    const first = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Weather in Paris?'),
        runConfig: { streaming: true },
      }),
    );
    const finals = first.filter((e) => !e.partial);
    expect(finals.map((e) => e.content?.parts.map((p) => Object.keys(p).join('+')))).toEqual([
      ['text'],
      ['text+thought', 'functionCall'],
      ['functionResponse'],
      ['text'],
    ]);
    const second = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Umbrella?'),
        runConfig: { streaming: true },
      }),
    );
    const answer = second.filter((e) => !e.partial).at(-1);
    expect(answer?.content?.parts).toEqual([
      { text: 'Sunny means no umbrella.', thought: true },
      { text: 'No umbrella needed.' },
    ]);
    expect(answer?.usageMetadata).toEqual({
      promptTokenCount: 90,
      candidatesTokenCount: 20,
      totalTokenCount: 110,
      cachedContentTokenCount: 0,
      thoughtsTokenCount: 8,
    });
    expect(server.requests.map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);
    expect(server.requests[2]?.body).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "Be brief.

      You are an agent. Your internal name is "assistant".",
            "role": "system",
          },
          {
            "content": "Weather in Paris?",
            "role": "user",
          },
          {
            "content": null,
            "reasoning_content": "Need the weather tool.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"city":"Paris"}",
                  "name": "get_weather",
                },
                "id": "call_w1",
                "type": "function",
              },
            ],
          },
          {
            "content": "{"city":"Paris","forecast":"sunny"}",
            "role": "tool",
            "tool_call_id": "call_w1",
          },
          {
            "content": "Sunny in Paris.",
            "role": "assistant",
          },
          {
            "content": "Umbrella?",
            "role": "user",
          },
        ],
        "model": "qwen3",
        "reasoning_effort": "low",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "tools": [
          {
            "function": {
              "description": "Weather for a city",
              "name": "get_weather",
              "parameters": {
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
            },
            "type": "function",
          },
        ],
      }
    `);
  });
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
