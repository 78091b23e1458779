import { isAdkError, type LlmRequest, ModelRegistry } from '@adk/core';
import { isApiCallError } from '@adk/core/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  caught,
  collect,
  fixture,
  jsonFixture,
  type ReplayServer,
  sseFixture,
  startReplayServer,
} from './__fixtures__/replay-server.js';
import { OpenAIChat, registerOpenAI } from './index.js';

let server: ReplayServer;
let model: OpenAIChat;

beforeEach(async () => {
  server = await startReplayServer();
  model = new OpenAIChat('gpt-4o-mini', {
    apiKey: 'sk-test-openai-key',
    baseURL: `${server.url}/v1`,
    retry: { initialDelayMs: 5 },
    headers: { 'x-proxy-team': 'adk' },
  });
});
afterEach(() => server.close());

const hello: LlmRequest = {
  model: 'gpt-4o-mini',
  contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
  config: {},
};
const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.toJSONSchema(z.object({ city: z.string(), unit: z.enum(['c', 'f']).optional() })),
};

describe('OpenAI request', () => {
  it('sends system, user media, assistant tool calls, tool messages, tools and config', async () => {
    server.enqueue(jsonFixture('text.json'));
    await collect(
      model.generate({
        model: 'x',
        systemInstruction: 'You are terse.',
        contents: [
          {
            role: 'user',
            parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBOR' } }],
          },
          {
            role: 'model',
            parts: [
              { text: 'hidden', thought: true },
              { text: 'Checking.' },
              { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } },
              { functionCall: { id: 'call_2', name: 'get_weather', args: {}, invalidArgs: '{"ci' } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'call_1', name: 'get_weather', response: { forecast: 'sunny' } } },
              { functionResponse: { id: 'call_2', name: 'get_weather', response: { error: 'bad args' } } },
            ],
          },
          { role: 'user', parts: [{ text: 'Thanks' }] },
        ],
        tools: [weatherTool],
        config: {
          temperature: 0.1,
          topP: 0.5,
          maxOutputTokens: 100,
          stopSequences: ['END'],
          seed: 7,
          toolChoice: { name: 'get_weather' },
          thinking: { effort: 'low' },
        },
      }),
    );
    const [req] = server.requests;
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe('Bearer sk-test-openai-key');
    expect(req?.headers['x-proxy-team']).toBe('adk');
    expect(req?.headers['user-agent']).toMatch(/@adk\/models-openai\/\d+\.\d+\.\d+/);
    expect(req?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"forecast":"sunny"}' },
        { role: 'tool', tool_call_id: 'call_2', content: '{"error":"bad args"}' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
              required: ['city'],
              additionalProperties: false,
            },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      temperature: 0.1,
      top_p: 0.5,
      max_tokens: 100,
      stop: ['END'],
      seed: 7,
      reasoning_effort: 'low',
    });
  });

  it('uses strict mode when asked, and JSON schema response format', async () => {
    const strict = new OpenAIChat('gpt-4o', {
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      strictTools: true,
      strictJsonSchema: true,
    });
    server.enqueue(jsonFixture('text.json'));
    await collect(
      strict.generate({
        ...hello,
        tools: [weatherTool],
        config: { responseSchema: z.toJSONSchema(z.object({ n: z.number(), note: z.string().optional() })) },
      }),
    );
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
            },
            required: ['city', 'unit'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
    ]);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        strict: true,
        schema: {
          type: 'object',
          properties: { n: { type: 'number' }, note: { type: ['string', 'null'] } },
          required: ['n', 'note'],
          additionalProperties: false,
        },
      },
    });
  });

  it('answers a tool call that has no result and turns an orphan tool result into text', async () => {
    server.enqueue(jsonFixture('text.json'));
    await collect(
      model.generate({
        ...hello,
        contents: [
          { role: 'user', parts: [{ functionResponse: { id: 'gone', name: 'f', response: { ok: true } } }] },
          { role: 'model', parts: [{ functionCall: { id: 'call_9', name: 'f', args: {} } }] },
          { role: 'user', parts: [{ text: 'never mind' }] },
        ],
      }),
    );
    expect((server.requests[0]?.body as { messages: unknown[] } | undefined)?.messages).toEqual([
      { role: 'user', content: 'Result of an earlier tool call: {"ok":true}' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_9', content: '{"error":"No result: the call was not completed."}' },
      { role: 'user', content: 'never mind' },
    ]);
  });

  it('routes provider/model names: openai/, ollama/ and custom endpoints such as a LiteLLM proxy', async () => {
    const registry = registerOpenAI(new ModelRegistry(), {
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      endpoints: { litellm: { baseURL: `${server.url}/litellm`, apiKey: 'proxy-key' } },
    });
    expect(registry.has('gpt-4o')).toBe(true);
    expect(registry.has('o3-mini')).toBe(true);
    expect(registry.has('claude-sonnet-4-5')).toBe(false);
    expect(registry.resolve('openai/gpt-4.1').model).toBe('gpt-4.1');
    expect(registry.resolve('ollama/llama3.2')).toMatchObject({
      model: 'llama3.2',
      baseURL: 'http://localhost:11434/v1',
    });
    server.enqueue(jsonFixture('text.json'));
    await collect(registry.resolve('litellm/anthropic/claude-3-5-sonnet').generate(hello));
    expect(server.requests[0]?.path).toBe('/litellm/chat/completions');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer proxy-key');
    expect((server.requests[0]?.body as { model: string } | undefined)?.model).toBe(
      'anthropic/claude-3-5-sonnet',
    );
  });

  it('sends no Authorization to a keyless local server', async () => {
    const local = new OpenAIChat('llama3.2', { apiKey: null, baseURL: `${server.url}/v1` });
    server.enqueue(jsonFixture('text.json'));
    await collect(local.generate(hello));
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });
});

describe('OpenAI response', () => {
  it('returns text, finish reason and usage with cached and reasoning tokens', async () => {
    server.enqueue(jsonFixture('text.json'));
    expect(await collect(model.generate(hello))).toEqual([
      {
        content: { role: 'model', parts: [{ text: 'Hello! How can I assist you today?' }] },
        turnComplete: true,
        finishReason: 'STOP',
        usageMetadata: {
          promptTokenCount: 19,
          candidatesTokenCount: 10,
          totalTokenCount: 29,
          cachedContentTokenCount: 6,
          thoughtsTokenCount: 4,
        },
        modelVersion: 'gpt-4.1-2025-04-14',
        customMetadata: { completionId: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', finishReason: 'stop' },
      },
    ]);
  });

  it('streams text, asks for usage, and aggregates', async () => {
    server.enqueue(sseFixture('stream-text.sse'));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(responses.filter((r) => r.partial).map((r) => r.content?.parts[0]?.text)).toEqual([
      'Hello',
      ' there',
    ]);
    expect(responses.at(-1)).toMatchObject({
      content: { role: 'model', parts: [{ text: 'Hello there' }] },
      finishReason: 'STOP',
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, totalTokenCount: 11 },
    });
  });

  it('returns parallel tool calls; empty args give {}; invalid JSON becomes invalidArgs', async () => {
    server.enqueue(jsonFixture('tool-calls.json'));
    const [response] = await collect(model.generate(hello));
    expect(response?.content?.parts).toEqual([
      { functionCall: { id: 'call_abc123', name: 'get_weather', args: { city: 'Boston' } } },
      { functionCall: { id: 'call_def456', name: 'get_time', args: {} } },
      { functionCall: { id: 'call_ghi789', name: 'get_weather', args: {}, invalidArgs: '{"city": "Bos' } },
    ]);
    expect(response?.finishReason).toBe('STOP');
  });

  it('assembles tool_calls deltas across chunks', async () => {
    server.enqueue(sseFixture('stream-tool-calls.sse', 11));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(responses.at(-1)?.content?.parts).toEqual([
      { functionCall: { id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', args: { city: 'Paris' } } },
      { functionCall: { id: 'call_2', name: 'get_time', args: {} } },
    ]);
  });

  it('streams reasoning_content as thought chunks (DeepSeek/vLLM style) and does not send it back', async () => {
    server.enqueue(sseFixture('stream-reasoning.sse'), jsonFixture('text.json'));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(responses.filter((r) => r.partial).map((r) => r.content?.parts[0])).toEqual([
      { text: 'First, 9.11 vs 9.8', thought: true },
      { text: '9.8 is larger.' },
    ]);
    const final = responses.at(-1);
    expect(final?.usageMetadata?.thoughtsTokenCount).toBe(40);
    await collect(
      model.generate({
        ...hello,
        contents: [...hello.contents, final?.content ?? { role: 'model', parts: [] }],
      }),
    );
    expect((server.requests[1]?.body as { messages: unknown[] } | undefined)?.messages[1]).toEqual({
      role: 'assistant',
      content: '9.8 is larger.',
    });
  });

  it.each([
    ['stop', 'STOP', undefined],
    ['tool_calls', 'STOP', undefined],
    ['function_call', 'STOP', undefined],
    ['length', 'MAX_TOKENS', undefined],
    ['content_filter', 'SAFETY', 'SAFETY'],
    ['something_new', 'OTHER', undefined],
  ])('maps finish_reason %s to %s', async (reason, finishReason, errorCode) => {
    const completion = JSON.parse(fixture('text.json'));
    completion.choices[0].finish_reason = reason;
    server.enqueue({ body: JSON.stringify(completion) });
    const [response] = await collect(model.generate(hello));
    expect(response?.finishReason).toBe(finishReason);
    expect(response?.errorCode).toBe(errorCode);
  });

  it('reports a refusal as a clear error response', async () => {
    server.enqueue(jsonFixture('refusal.json'));
    const [response] = await collect(model.generate(hello));
    expect(response).toMatchObject({
      finishReason: 'REFUSAL',
      errorCode: 'REFUSAL',
      errorMessage: "The model refused: I'm sorry, I cannot assist with that request.",
    });
  });
});

describe('OpenAI errors', () => {
  it('turns 400 into a readable error', async () => {
    server.enqueue(jsonFixture('error-400.json', 400));
    const error = await caught(collect(model.generate(hello)));
    expect(isApiCallError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      isRetryable: false,
      vendorMessage: "Invalid value for 'temperature': must be between 0 and 2. (invalid_request_error)",
    });
  });

  it('turns 401 into an error with the echoed key redacted', async () => {
    server.enqueue(jsonFixture('error-401.json', 401));
    const error = await caught(collect(model.generate(hello)));
    expect(error).toMatchObject({ status: 401, isRetryable: false });
    expect((error as Error).message).toContain('Incorrect API key provided: [REDACTED].');
    expect(
      `${JSON.stringify(error)} ${(error as Error).stack} ${(error as { responseBody: string }).responseBody}`,
    ).not.toContain('sk-test-openai-key');
  });

  it('retries 429 honouring retry-after-ms and 500, then succeeds', async () => {
    server.enqueue(
      jsonFixture('error-429.json', 429, { 'retry-after-ms': '300' }),
      jsonFixture('error-500.json', 500),
      jsonFixture('text.json'),
    );
    const started = Date.now();
    const [response] = await collect(model.generate(hello));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(response?.finishReason).toBe('STOP');
    expect(server.requests).toHaveLength(3);
  });

  it('turns a malformed stream line into a typed error', async () => {
    server.enqueue(sseFixture('malformed.sse'));
    const error = await caught(collect(model.generate(hello, { stream: true })));
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'invalid-response' });
  });

  it('turns a disconnect mid-stream into a typed error', async () => {
    server.enqueue({ ...sseFixture('truncated.sse'), drop: true });
    const error = await caught(collect(model.generate(hello, { stream: true })));
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'network' });
  });

  it('aborts with CancelledError', async () => {
    server.enqueue({ ...sseFixture('truncated.sse'), hang: true });
    const controller = new AbortController();
    const error = await caught(
      (async () => {
        for await (const r of model.generate(hello, { stream: true, signal: controller.signal }))
          if (r.partial) controller.abort();
      })(),
    );
    expect(isAdkError(error, 'CANCELLED')).toBe(true);
  });
});
