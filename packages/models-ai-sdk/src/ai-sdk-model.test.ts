import { isAdkError, type LlmRequest } from '@adk/core';
import { APICallError, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockEmbeddingModelV4, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkEmbedder, aiSdkModel } from './index.js';

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const usage = {
  inputTokens: { total: 120, noCache: 20, cacheRead: 80, cacheWrite: 20 },
  outputTokens: { total: 45, text: 15, reasoning: 30 },
};

const streamed: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'msg_1', modelId: 'claude-sonnet-4-5-20250929' },
  { type: 'reasoning-start', id: 'r0' },
  { type: 'reasoning-delta', id: 'r0', delta: 'The user wants two cities. ' },
  { type: 'reasoning-delta', id: 'r0', delta: 'I will look both up.' },
  { type: 'reasoning-end', id: 'r0', providerMetadata: { anthropic: { signature: 'EqQBsig' } } },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Checking ' },
  { type: 'text-delta', id: 't1', delta: 'both.' },
  { type: 'text-end', id: 't1' },
  { type: 'tool-input-start', id: 'call_1', toolName: 'get_weather' },
  { type: 'tool-input-delta', id: 'call_1', delta: '{"city":' },
  { type: 'tool-input-delta', id: 'call_1', delta: '"Paris"}' },
  { type: 'tool-input-end', id: 'call_1' },
  { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: '{"city":"Paris"}' },
  // A stream `tool-call.input` that is not JSON: kept as invalidArgs, never replaced by {}.
  { type: 'tool-call', toolCallId: 'call_2', toolName: 'get_weather', input: '{"city": Rome' },
  { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
];

const request: LlmRequest = {
  model: 'anthropic/claude',
  systemInstruction: 'Be brief.',
  contents: [{ role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] }],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  config: {
    temperature: 0.3,
    thinking: { effort: 'high' },
    providerOptions: { anthropic: { sendReasoning: true }, gemini: { cachedContent: 'c' } },
  },
};

describe('aiSdkModel', () => {
  it('streams text and reasoning, assembles tool calls, maps usage and the finish reason', async () => {
    const mock = new MockLanguageModelV4({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doStream: { stream: convertArrayToReadableStream(streamed) },
    });
    const model = aiSdkModel(mock);
    expect(model.model).toBe('anthropic.messages/claude-sonnet-4-5');
    const out = await collect(model.generate(request, { stream: true }));
    expect(out.filter((r) => r.partial).map((r) => r.content?.parts[0])).toEqual([
      { text: 'The user wants two cities. ', thought: true },
      { text: 'I will look both up.', thought: true },
      { text: 'Checking ' },
      { text: 'both.' },
    ]);
    expect(out.at(-1)).toMatchInlineSnapshot(`
      {
        "content": {
          "parts": [
            {
              "text": "The user wants two cities. I will look both up.",
              "thought": true,
              "thoughtSignature": "ai-sdk:{"anthropic":{"signature":"EqQBsig"}}",
            },
            {
              "text": "Checking both.",
            },
            {
              "functionCall": {
                "args": {
                  "city": "Paris",
                },
                "id": "call_1",
                "name": "get_weather",
              },
            },
            {
              "functionCall": {
                "args": {},
                "id": "call_2",
                "invalidArgs": "{"city": Rome",
                "name": "get_weather",
              },
            },
          ],
          "role": "model",
        },
        "customMetadata": {
          "finishReason": "tool_use",
          "responseId": "msg_1",
        },
        "finishReason": "STOP",
        "modelVersion": "claude-sonnet-4-5-20250929",
        "turnComplete": true,
        "usageMetadata": {
          "cachedContentTokenCount": 80,
          "candidatesTokenCount": 45,
          "promptTokenCount": 120,
          "thoughtsTokenCount": 30,
          "totalTokenCount": 165,
        },
      }
    `);
    expect(mock.doStreamCalls[0]).toMatchInlineSnapshot(`
      {
        "prompt": [
          {
            "content": "Be brief.",
            "role": "system",
          },
          {
            "content": [
              {
                "text": "Weather in Paris and Rome?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "providerOptions": {
          "anthropic": {
            "sendReasoning": true,
          },
          "gemini": {
            "cachedContent": "c",
          },
        },
        "reasoning": "high",
        "temperature": 0.3,
        "tools": [
          {
            "description": "Weather for a city",
            "inputSchema": {
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
            "type": "function",
          },
        ],
      }
    `);
  });

  it('sends provider metadata back as provider options on the next request', async () => {
    const first = new MockLanguageModelV4({ doStream: { stream: convertArrayToReadableStream(streamed) } });
    const [answer] = (await collect(aiSdkModel(first).generate(request, { stream: true }))).slice(-1);
    const next = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: 'text', text: 'Sunny in Paris.' }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage,
        warnings: [],
      },
    });
    await collect(
      aiSdkModel(next).generate({
        ...request,
        contents: [
          ...request.contents,
          answer?.content ?? { role: 'model', parts: [] },
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'call_1', name: 'get_weather', response: { forecast: 'sunny' } } },
              {
                functionResponse: {
                  id: 'call_2',
                  name: 'get_weather',
                  response: { error: 'invalid arguments' },
                },
              },
            ],
          },
        ],
      }),
    );
    expect(next.doGenerateCalls[0]?.prompt.slice(2)).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "providerOptions": {
                "anthropic": {
                  "signature": "EqQBsig",
                },
              },
              "text": "The user wants two cities. I will look both up.",
              "type": "reasoning",
            },
            {
              "text": "Checking both.",
              "type": "text",
            },
            {
              "input": {
                "city": "Paris",
              },
              "toolCallId": "call_1",
              "toolName": "get_weather",
              "type": "tool-call",
            },
            {
              "input": {},
              "toolCallId": "call_2",
              "toolName": "get_weather",
              "type": "tool-call",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "output": {
                "type": "json",
                "value": {
                  "forecast": "sunny",
                },
              },
              "toolCallId": "call_1",
              "toolName": "get_weather",
              "type": "tool-result",
            },
            {
              "output": {
                "type": "json",
                "value": {
                  "error": "invalid arguments",
                },
              },
              "toolCallId": "call_2",
              "toolName": "get_weather",
              "type": "tool-result",
            },
          ],
          "role": "tool",
        },
      ]
    `);
  });

  it('maps finish reasons and usage of a plain call', async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: 'text', text: 'Cut off' }],
        finishReason: { unified: 'length', raw: 'max_tokens' },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 5, text: 5, reasoning: undefined },
        },
        warnings: [],
      },
    });
    const [response] = await collect(aiSdkModel(mock, { name: 'mock' }).generate(request));
    expect(response).toMatchObject({
      finishReason: 'MAX_TOKENS',
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      content: { parts: [{ text: 'Cut off' }] },
    });
  });

  it('turns AI SDK API call errors into our typed errors', async () => {
    const failing = (statusCode: number) =>
      new MockLanguageModelV4({
        doStream: async () => {
          throw new APICallError({
            message: 'Too many requests',
            url: 'https://api.example.com/v1/chat',
            requestBodyValues: {},
            statusCode,
            responseBody: '{"error":{"message":"slow down"}}',
            isRetryable: statusCode >= 429,
          });
        },
      });
    await expect(collect(aiSdkModel(failing(429)).generate(request, { stream: true }))).rejects.toMatchObject(
      {
        code: 'RATE_LIMIT',
        status: 429,
        vendorMessage: 'slow down',
      },
    );
    const error = await collect(aiSdkModel(failing(400)).generate(request, { stream: true })).catch((e) => e);
    expect(isAdkError(error, 'API_CALL')).toBe(true);
    expect(error).toMatchObject({ status: 400, isRetryable: false });
  });

  it('ends with an error response when the stream carries an error part', async () => {
    const mock = new MockLanguageModelV4({
      doStream: {
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Hal' },
          { type: 'error', error: new Error('overloaded') },
        ]),
      },
    });
    const out = await collect(aiSdkModel(mock).generate(request, { stream: true }));
    expect(out.at(-1)).toMatchObject({
      errorCode: 'MODEL_ERROR',
      errorMessage: "The model's stream failed: overloaded",
    });
  });
});

describe('aiSdkModel streams', () => {
  it("cancels the provider's stream when the consumer stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-start', id: 't' });
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hel' });
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'lo' });
      },
      cancel() {
        cancelled = true;
      },
    });
    const mock = new MockLanguageModelV4({ doStream: { stream } });
    for await (const response of aiSdkModel(mock).generate(request, { stream: true })) {
      expect(response.partial).toBe(true);
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe('aiSdkEmbedder', () => {
  it('embeds in batches of the model limit, in order', async () => {
    const mock = new MockEmbeddingModelV4({
      maxEmbeddingsPerCall: 2,
      doEmbed: async ({ values }) => ({ embeddings: values.map((v) => [v.length, 1, 0]), warnings: [] }),
    });
    const embedder = aiSdkEmbedder(mock, { dimensions: 3 });
    expect(await embedder.embed(['a', 'bb', 'ccc', 'dddd', 'eeeee'])).toEqual([
      [1, 1, 0],
      [2, 1, 0],
      [3, 1, 0],
      [4, 1, 0],
      [5, 1, 0],
    ]);
    expect(mock.doEmbedCalls.map((c) => c.values)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(embedder.dimensions).toBe(3);
  });
});
