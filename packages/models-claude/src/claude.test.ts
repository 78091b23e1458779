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
import { Claude, defaultMaxTokens, registerClaude } from './index.js';

let server: ReplayServer;
let model: Claude;

beforeEach(async () => {
  server = await startReplayServer();
  model = new Claude('claude-sonnet-4-5', {
    apiKey: 'sk-ant-test-key',
    baseURL: `${server.url}/v1`,
    retry: { initialDelayMs: 5 },
  });
});
afterEach(() => server.close());

const hello: LlmRequest = {
  model: 'claude-sonnet-4-5',
  contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
  config: {},
};

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.toJSONSchema(z.object({ city: z.string() })),
};

describe('Claude request', () => {
  it('sends headers, system, merged roles, paired tool history, images, tools and config', async () => {
    server.enqueue(jsonFixture('text.json'));
    await collect(
      model.generate({
        model: 'ignored',
        systemInstruction: 'You are terse.',
        contents: [
          { role: 'user', parts: [{ text: 'Weather?' }] },
          { role: 'user', parts: [{ inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } }] },
          {
            role: 'model',
            parts: [
              { text: 'hmm', thought: true, thoughtSignature: 'sig-think' },
              { text: 'unsigned thought', thought: true },
              { text: 'Checking.' },
              { functionCall: { id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } } },
              { functionCall: { id: 'toolu_2', name: 'get_weather', args: { city: 'Rome' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'toolu_1', name: 'get_weather', response: { forecast: 'sunny' } } },
            ],
          },
          { role: 'user', parts: [{ text: 'And tomorrow?' }] },
        ],
        tools: [weatherTool, { name: 'get_time', parameters: z.toJSONSchema(z.object({})) }],
        config: {
          temperature: 1,
          topP: 0.9,
          topK: 5,
          stopSequences: ['END'],
          toolChoice: 'required',
          thinking: { budgetTokens: 2048 },
        },
      }),
    );
    const [req] = server.requests;
    expect(req?.path).toBe('/v1/messages');
    expect(req?.headers['x-api-key']).toBe('sk-ant-test-key');
    expect(req?.headers['anthropic-version']).toBe('2023-06-01');
    expect(req?.headers['user-agent']).toMatch(/@adk\/models-claude\/\d+\.\d+\.\d+/);
    expect(req?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 8192,
      system: 'You are terse.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig-think' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"forecast":"sunny"}' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: 'No result: the call was not completed.',
              is_error: true,
            },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          input_schema: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
        { name: 'get_time', input_schema: { type: 'object', properties: {}, additionalProperties: false } },
      ],
      tool_choice: { type: 'any' },
      // With thinking on, Claude refuses top_k and a top_p below 0.95 (and Sonnet 4.5 takes one sampler).
      temperature: 1,
      stop_sequences: ['END'],
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
  });

  it('marks prompt-cache breakpoints, and forces a JSON tool for a response schema', async () => {
    const cached = new Claude('claude-3-haiku-20240307', {
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      cache: { ttl: '1h' },
      betas: ['extended-cache-ttl-2025-04-11'],
    });
    server.enqueue(jsonFixture('tool-use.json'));
    await collect(
      cached.generate({
        ...hello,
        systemInstruction: 'Long stable prompt',
        config: { responseSchema: z.toJSONSchema(z.object({ n: z.number() })) },
      }),
    );
    const [req] = server.requests;
    expect(req?.headers['anthropic-beta']).toBe('extended-cache-ttl-2025-04-11');
    expect(req?.body).toEqual({
      model: 'claude-3-haiku-20240307',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Long stable prompt', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
      tools: [
        {
          name: 'json_response',
          description: 'Respond with a JSON object of this shape.',
          input_schema: {
            type: 'object',
            properties: { n: { type: 'number' } },
            required: ['n'],
            additionalProperties: false,
          },
          cache_control: { type: 'ephemeral', ttl: '1h' },
        },
      ],
      tool_choice: { type: 'tool', name: 'json_response' },
    });
  });

  it('picks a max_tokens default per model and thinking budget', () => {
    expect(defaultMaxTokens('claude-3-opus-20240229')).toBe(4096);
    expect(defaultMaxTokens('claude-3-5-haiku-latest')).toBe(8192);
    expect(defaultMaxTokens('claude-opus-4-1', 10_000)).toBe(14_096);
  });
});

describe('Claude response', () => {
  it('returns text, finish reason and usage with cache tokens', async () => {
    server.enqueue(jsonFixture('text.json'));
    expect(await collect(model.generate(hello))).toEqual([
      {
        content: { role: 'model', parts: [{ text: 'Hi! My name is Claude.' }] },
        turnComplete: true,
        finishReason: 'STOP',
        usageMetadata: {
          promptTokenCount: 3195,
          candidatesTokenCount: 503,
          totalTokenCount: 3698,
          cachedContentTokenCount: 1000,
        },
        modelVersion: 'claude-sonnet-4-5-20250929',
        customMetadata: { messageId: 'msg_013Zva2CMHLNnXjNJJKqJ2EF', stopReason: 'end_turn' },
      },
    ]);
  });

  it('streams text deltas then one aggregated response', async () => {
    server.enqueue(sseFixture('stream-text.sse'));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(server.requests[0]?.body).toMatchObject({ stream: true });
    expect(responses.filter((r) => r.partial).map((r) => r.content?.parts[0]?.text)).toEqual(['Hello', '!']);
    expect(responses.at(-1)).toMatchObject({
      content: { role: 'model', parts: [{ text: 'Hello!' }] },
      finishReason: 'STOP',
      usageMetadata: { promptTokenCount: 25, candidatesTokenCount: 15, totalTokenCount: 40 },
    });
  });

  it('returns one tool call and parallel tool calls with their ids', async () => {
    server.enqueue(jsonFixture('tool-use.json'), jsonFixture('parallel-tool-use.json'));
    const [one] = await collect(model.generate(hello));
    expect(one?.content?.parts).toEqual([
      { text: "I'll check the weather in Paris." },
      { functionCall: { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', args: { city: 'Paris' } } },
    ]);
    expect(one?.finishReason).toBe('STOP');
    const [parallel] = await collect(model.generate(hello));
    expect(parallel?.content?.parts.map((p) => p.functionCall)).toEqual([
      { id: 'toolu_01', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'toolu_02', name: 'get_weather', args: { city: 'London' } },
      { id: 'toolu_03', name: 'get_time', args: {} },
    ]);
  });

  it('assembles input_json_delta across chunks; no args gives {}; invalid JSON becomes invalidArgs', async () => {
    server.enqueue(sseFixture('stream-tool-use.sse', 23));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(responses.at(-1)?.content?.parts).toEqual([
      { text: 'Checking.' },
      {
        functionCall: {
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'get_weather',
          args: { city: 'San Francisco' },
        },
      },
      { functionCall: { id: 'toolu_02', name: 'get_time', args: {} } },
      { functionCall: { id: 'toolu_03', name: 'get_weather', args: {}, invalidArgs: '{"city": "Par' } },
    ]);
  });

  it('keeps thinking with its signature and redacted thinking, and sends both back', async () => {
    server.enqueue(jsonFixture('thinking.json'), jsonFixture('text.json'));
    const [first] = await collect(model.generate(hello));
    expect(first?.content?.parts).toEqual([
      {
        text: 'The user asks for 27 * 453. 27 * 453 = 12231.',
        thought: true,
        thoughtSignature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      },
      {
        text: '',
        thought: true,
        thoughtSignature:
          'anthropic-redacted:EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
      },
      { text: '27 * 453 = 12,231' },
    ]);
    await collect(
      model.generate({
        ...hello,
        contents: [...hello.contents, first?.content ?? { role: 'model', parts: [] }],
      }),
    );
    expect((server.requests[1]?.body as { messages: unknown[] } | undefined)?.messages[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'The user asks for 27 * 453. 27 * 453 = 12231.',
          signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
        },
        {
          type: 'redacted_thinking',
          data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
        },
        { type: 'text', text: '27 * 453 = 12,231' },
      ],
    });
  });

  it('streams thinking deltas and assembles the signature', async () => {
    server.enqueue(sseFixture('stream-thinking.sse'));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(responses.filter((r) => r.partial).map((r) => r.content?.parts[0])).toEqual([
      { text: 'Let me solve this step by step:\n\n1. First break down 27 * 453', thought: true },
      { text: '\n2. 453 = 400 + 50 + 3', thought: true },
      { text: '27 * 453 = 12,231' },
    ]);
    const final = responses.at(-1);
    expect(final?.content?.parts[0]).toEqual({
      text: 'Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3',
      thought: true,
      thoughtSignature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
    });
    expect(final?.usageMetadata).toEqual({
      promptTokenCount: 50,
      candidatesTokenCount: 120,
      totalTokenCount: 170,
      cachedContentTokenCount: 10,
    });
  });

  it.each([
    ['end_turn', 'STOP'],
    ['stop_sequence', 'STOP'],
    ['tool_use', 'STOP'],
    ['pause_turn', 'STOP'],
    ['max_tokens', 'MAX_TOKENS'],
    ['model_context_window_exceeded', 'MAX_TOKENS'],
    ['refusal', 'REFUSAL'],
    ['something_new', 'OTHER'],
  ])('maps stop_reason %s to %s', async (stopReason, finishReason) => {
    const message = JSON.parse(fixture('text.json'));
    server.enqueue({ body: JSON.stringify({ ...message, stop_reason: stopReason }) });
    const [response] = await collect(model.generate(hello));
    expect(response?.finishReason).toBe(finishReason);
    expect(response?.customMetadata?.stopReason).toBe(stopReason);
  });

  it('reports a refusal as a clear error response', async () => {
    server.enqueue(jsonFixture('refusal.json'));
    const [response] = await collect(model.generate(hello));
    expect(response).toMatchObject({
      finishReason: 'REFUSAL',
      errorCode: 'REFUSAL',
      errorMessage: 'Claude declined to answer (stop_reason: refusal).',
    });
  });
});

describe('Claude errors', () => {
  it('turns 400 into a readable ApiCallError, not retried', async () => {
    server.enqueue(jsonFixture('error-400.json', 400));
    const error = await caught(collect(model.generate(hello)));
    expect(isApiCallError(error)).toBe(true);
    expect((error as Error).message).toBe(
      'Anthropic API request failed with status 400 Bad Request: messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row (invalid_request_error)',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('turns 401 into an error without the key', async () => {
    server.enqueue(jsonFixture('error-401.json', 401));
    const error = await caught(collect(model.generate(hello)));
    expect(error).toMatchObject({
      status: 401,
      isRetryable: false,
      vendorMessage: 'invalid x-api-key (authentication_error)',
    });
    expect(`${JSON.stringify(error)} ${(error as Error).stack}`).not.toContain('sk-ant-test-key');
  });

  it('retries 429 after Retry-After, then 500 and 529, then succeeds', async () => {
    server.enqueue(
      jsonFixture('error-429.json', 429, { 'retry-after': '1' }),
      jsonFixture('error-500.json', 500),
      jsonFixture('text.json'),
    );
    const started = Date.now();
    const [response] = await collect(model.generate(hello));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(response?.finishReason).toBe('STOP');
    expect(server.requests).toHaveLength(3);
    server.enqueue(jsonFixture('error-529.json', 529), jsonFixture('text.json'));
    expect((await collect(model.generate(hello)))[0]?.finishReason).toBe('STOP');
  });

  it('turns a mid-stream error event into a typed, retryable error', async () => {
    server.enqueue(sseFixture('stream-error.sse'));
    const error = await caught(collect(model.generate(hello, { stream: true })));
    expect(error).toMatchObject({ code: 'API_CALL', isRetryable: true, vendorMessage: 'Overloaded' });
  });

  it('turns a malformed stream line into a typed error', async () => {
    server.enqueue(sseFixture('malformed.sse'));
    const error = await caught(collect(model.generate(hello, { stream: true })));
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'invalid-response' });
  });

  it('rejects a malformed variant of every event of a plain stream with a typed error', async () => {
    // These events are checked by hand before the schema; each broken variant must still fail.
    const start = {
      type: 'message_start',
      message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 3 } },
    };
    const block = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
    const delta = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } };
    const stop = { type: 'content_block_stop', index: 0 };
    const messageDelta = {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 1 },
    };
    const end = { type: 'message_stop' };
    const stream = (events: unknown[]) => ({
      headers: { 'content-type': 'text/event-stream' },
      chunks: events.map((event) => `data: ${JSON.stringify(event)}\n\n`),
    });
    server.enqueue(stream([start, block, delta, stop, messageDelta, end]));
    const ok = await collect(model.generate(hello, { stream: true }));
    expect(ok.at(-1)?.content?.parts).toEqual([{ text: 'Hi' }]);
    const broken = [
      [{ ...start, message: { ...start.message, id: 7 } }, block, delta],
      [{ ...start, message: { ...start.message, usage: null } }, block, delta],
      [{ ...start, message: { ...start.message, usage: { input_tokens: '3' } } }, block, delta],
      [start, { ...block, content_block: { type: 'text' } }, delta],
      [start, { ...block, content_block: { type: 'text', text: '', citations: {} } }, delta],
      [start, { ...block, content_block: { type: 'thinking', thinking: '', signature: 5 } }, delta],
      [start, { ...block, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f' } }, delta],
      [start, { ...block, index: '0' }, delta],
      [start, block, { ...delta, delta: { type: 'text_delta', text: 3 } }],
      [start, block, { ...delta, delta: { type: 'input_json_delta', text: '{}' } }],
      [start, block, delta, { ...stop, index: null }],
      [start, block, delta, stop, { ...messageDelta, delta: { stop_reason: 1 } }],
      [start, block, delta, stop, { ...messageDelta, usage: { output_tokens: [] } }],
      [start, block, delta, stop, { type: 'message_delta' }],
      [start, block, delta, stop, messageDelta, [end]],
    ];
    for (const events of broken) {
      server.enqueue(stream([...events, end]));
      const error = await caught(collect(model.generate(hello, { stream: true })));
      expect(error, JSON.stringify(events)).toMatchObject({ code: 'API_CALL', failure: 'invalid-response' });
    }
  });

  it('turns a disconnect mid-stream into a typed error', async () => {
    server.enqueue({ ...sseFixture('truncated.sse'), drop: true });
    const error = await caught(collect(model.generate(hello, { stream: true })));
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'network' });
    server.enqueue(sseFixture('truncated.sse'));
    const ended = await caught(collect(model.generate(hello, { stream: true })));
    expect((ended as Error).message).toBe('Anthropic API stream ended before message_stop');
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

describe('registerClaude', () => {
  it('resolves claude-* names once registered', () => {
    const registry = new ModelRegistry();
    expect(registry.has('claude-sonnet-4-5')).toBe(false);
    registerClaude(registry, { apiKey: 'k' });
    expect(registry.resolve('claude-sonnet-4-5')).toBeInstanceOf(Claude);
    expect(registry.resolve('anthropic/claude-opus-4-1').model).toBe('claude-opus-4-1');
  });
});
