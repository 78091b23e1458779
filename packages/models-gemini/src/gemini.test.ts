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
import { Gemini, registerGemini } from './index.js';

let server: ReplayServer;
let model: Gemini;

beforeEach(async () => {
  server = await startReplayServer();
  model = new Gemini('gemini-2.5-flash', {
    apiKey: 'test-gemini-key',
    baseURL: `${server.url}/v1beta`,
    retry: { initialDelayMs: 5 },
  });
});
afterEach(() => server.close());

const hello: LlmRequest = {
  model: 'gemini-2.5-flash',
  contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
  config: {},
};

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.toJSONSchema(z.object({ city: z.string(), unit: z.enum(['c', 'f']).optional() })),
};

describe('Gemini request', () => {
  it('sends system instruction, roles, tool history with signatures, media, tools and config', async () => {
    server.enqueue(jsonFixture('text.json'));
    await collect(
      model.generate({
        model: 'gemini-2.5-flash',
        systemInstruction: 'You are terse.',
        contents: [
          {
            role: 'user',
            parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
          },
          {
            role: 'model',
            parts: [
              { text: 'thinking…', thought: true },
              {
                functionCall: { id: 'adk-1', name: 'get_weather', args: { city: 'Paris' } },
                thoughtSignature: 'sig-1',
              },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'adk-1', name: 'get_weather', response: { forecast: 'sunny' } } },
            ],
          },
          { role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/doc.pdf' } }] },
        ],
        tools: [
          weatherTool,
          { name: 'get_time', description: 'Now', parameters: z.toJSONSchema(z.object({})) },
        ],
        config: {
          temperature: 0.2,
          topP: 0.9,
          topK: 40,
          maxOutputTokens: 256,
          stopSequences: ['END'],
          toolChoice: 'required',
          thinking: { includeThoughts: true, budgetTokens: 1024 },
          providerOptions: { gemini: { generationConfig: { candidateCount: 1 } } },
        },
      }),
    );
    const [req] = server.requests;
    expect(req?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(req?.headers['x-goog-api-key']).toBe('test-gemini-key');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['user-agent']).toMatch(/^adk-ts\/\S+ @adk\/models-gemini\/\d+\.\d+\.\d+ node\//);
    expect(req?.body).toEqual({
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      contents: [
        {
          role: 'user',
          parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
        },
        {
          role: 'model',
          parts: [
            { text: 'thinking…', thought: true },
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-1' },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { forecast: 'sunny' } } }],
        },
        { role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/doc.pdf' } }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather for a city',
              parameters: {
                type: 'object',
                properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
                required: ['city'],
              },
            },
            { name: 'get_time', description: 'Now' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        maxOutputTokens: 256,
        stopSequences: ['END'],
        thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
        candidateCount: 1,
      },
    });
  });

  it('sends vendor function-call ids back and asks for JSON with a schema', async () => {
    server.enqueue(jsonFixture('text.json'));
    await collect(
      model.generate({
        model: 'x',
        contents: [
          { role: 'model', parts: [{ functionCall: { id: 'vendor-7', name: 'f', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { id: 'vendor-7', name: 'f', response: { ok: 1 } } }] },
        ],
        config: {
          toolChoice: { name: 'f' },
          thinking: { effort: 'low' },
          responseSchema: z.toJSONSchema(z.object({ n: z.number().nullable(), tags: z.array(z.string()) })),
        },
      }),
    );
    expect(server.requests[0]?.body).toEqual({
      contents: [
        { role: 'model', parts: [{ functionCall: { id: 'vendor-7', name: 'f', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'vendor-7', name: 'f', response: { ok: 1 } } }] },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: {
          type: 'object',
          properties: {
            n: { type: 'number', nullable: true },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['n', 'tags'],
        },
        thinkingConfig: { thinkingLevel: 'low' },
      },
    });
  });

  it('calls Vertex AI with a bearer token from a function', async () => {
    server.enqueue(jsonFixture('text.json'));
    const vertex = new Gemini('gemini-2.5-pro', {
      vertexai: {
        project: 'my-proj',
        location: 'europe-west4',
        accessToken: async () => 'ya29.token',
        baseURL: `${server.url}/v1`,
      },
    });
    await collect(vertex.generate({ ...hello, config: { labels: { team: 'a' } } }));
    const [req] = server.requests;
    expect(req?.path).toBe(
      '/v1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent',
    );
    expect(req?.headers.authorization).toBe('Bearer ya29.token');
    expect(req?.headers['x-goog-api-key']).toBeUndefined();
    expect(req?.body).toEqual({ contents: hello.contents, labels: { team: 'a' } });
  });
});

describe('Gemini response', () => {
  it('returns text, finish reason and usage (cached and thinking tokens)', async () => {
    server.enqueue(jsonFixture('text.json'));
    expect(await collect(model.generate(hello))).toEqual([
      {
        content: { role: 'model', parts: [{ text: 'Hello! How can I help you today?' }] },
        turnComplete: true,
        finishReason: 'STOP',
        usageMetadata: {
          promptTokenCount: 12,
          candidatesTokenCount: 9,
          totalTokenCount: 35,
          cachedContentTokenCount: 4,
          thoughtsTokenCount: 14,
        },
        modelVersion: 'gemini-2.5-flash',
        customMetadata: { responseId: 'mKs4aMKXKJ2ZkdUPs6S9uQ4' },
      },
    ]);
  });

  it('streams partial text then one aggregated response', async () => {
    server.enqueue(sseFixture('stream-text.sse'));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(server.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(server.requests[0]?.headers.accept).toBe('text/event-stream');
    expect(responses.filter((r) => r.partial).map((r) => r.content?.parts[0]?.text)).toEqual([
      'The quick',
      ' brown fox',
      ' jumps.',
    ]);
    expect(responses.at(-1)).toMatchObject({
      content: { role: 'model', parts: [{ text: 'The quick brown fox jumps.' }] },
      finishReason: 'STOP',
      turnComplete: true,
      usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 6, totalTokenCount: 13 },
    });
    expect(responses.at(-1)?.partial).toBeUndefined();
  });

  it('returns a tool call with a generated id and its thought signature', async () => {
    server.enqueue(jsonFixture('tool-call.json'));
    const [response] = await collect(model.generate(hello));
    const part = response?.content?.parts[0];
    expect(part?.functionCall).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    expect(part?.functionCall?.id).toMatch(/^adk-[0-9a-f-]{36}$/);
    expect(part?.thoughtSignature).toBe('CiQB0e2Kb1sig-call-1');
  });

  it('returns parallel tool calls with distinct ids, and a call without args gets {}', async () => {
    server.enqueue(jsonFixture('parallel-tool-calls.json'), jsonFixture('tool-call-no-args.json'));
    const [parallel] = await collect(model.generate(hello));
    const calls = parallel?.content?.parts.map((p) => p.functionCall) ?? [];
    expect(calls.map((c) => [c?.name, c?.args])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'London' }],
      ['get_time', {}],
    ]);
    expect(new Set(calls.map((c) => c?.id)).size).toBe(3);
    const [noArgs] = await collect(model.generate(hello));
    expect(noArgs?.content?.parts[0]?.functionCall).toMatchObject({ name: 'get_time', args: {} });
  });

  it('assembles tool calls spread over stream chunks', async () => {
    server.enqueue(sseFixture('stream-tool-calls.sse', 9));
    const responses = await collect(model.generate(hello, { stream: true }));
    const final = responses.at(-1);
    expect(final?.content?.parts.map((p) => p.text ?? p.functionCall?.args)).toEqual([
      'Let me check both cities.',
      { city: 'Paris' },
      { city: 'London' },
    ]);
    expect(final?.content?.parts[1]?.thoughtSignature).toBe('sig-A');
    expect(
      responses.filter((r) => r.partial).every((r) => r.content?.parts.every((p) => !p.functionCall)),
    ).toBe(true);
  });

  it('keeps thoughts and signatures, and sends them back unchanged', async () => {
    server.enqueue(jsonFixture('thinking.json'), jsonFixture('text.json'));
    const [first] = await collect(model.generate(hello));
    expect(first?.content?.parts).toEqual([
      { text: '**Weighing the options**\nThe user wants a prime larger than 10.', thought: true },
      { text: '11 is the smallest prime larger than 10.', thoughtSignature: 'EtQBCtEBAdHtim9-sig-text' },
    ]);
    expect(first?.usageMetadata?.thoughtsTokenCount).toBe(100);
    await collect(
      model.generate({
        ...hello,
        contents: [...hello.contents, first?.content ?? { role: 'model', parts: [] }],
      }),
    );
    expect((server.requests[1]?.body as { contents: unknown[] } | undefined)?.contents[1]).toEqual({
      role: 'model',
      parts: [
        { text: '**Weighing the options**\nThe user wants a prime larger than 10.', thought: true },
        { text: '11 is the smallest prime larger than 10.', thoughtSignature: 'EtQBCtEBAdHtim9-sig-text' },
      ],
    });
  });

  it('streams thought chunks and keeps the trailing signature on the aggregated part', async () => {
    server.enqueue(sseFixture('stream-thinking.sse'));
    const responses = await collect(model.generate(hello, { stream: true }));
    expect(responses.filter((r) => r.partial).map((r) => r.content?.parts[0])).toEqual([
      { text: '**Planning**\nCount', thought: true },
      { text: ' the letters.', thought: true },
      { text: 'There are three' },
      { text: ' r letters.', thoughtSignature: 'Cs4BA-stream-sig' },
    ]);
    expect(responses.at(-1)?.content?.parts).toEqual([
      { text: '**Planning**\nCount the letters.', thought: true },
      { text: 'There are three r letters.', thoughtSignature: 'Cs4BA-stream-sig' },
    ]);
  });

  it.each([
    ['STOP', undefined],
    ['MAX_TOKENS', undefined],
    ['SAFETY', 'SAFETY'],
    ['RECITATION', 'RECITATION'],
    ['LANGUAGE', 'LANGUAGE'],
    ['BLOCKLIST', 'BLOCKLIST'],
    ['PROHIBITED_CONTENT', 'PROHIBITED_CONTENT'],
    ['SPII', 'SPII'],
    ['MALFORMED_FUNCTION_CALL', 'MALFORMED_FUNCTION_CALL'],
    ['IMAGE_SAFETY', 'IMAGE_SAFETY'],
    ['OTHER', 'OTHER'],
  ])('maps finish reason %s', async (finishReason, errorCode) => {
    const parts = errorCode ? [] : [{ text: 'ok' }];
    server.enqueue({
      body: JSON.stringify({
        candidates: [
          {
            content: { parts, role: 'model' },
            finishReason,
            ...(finishReason === 'MALFORMED_FUNCTION_CALL'
              ? { finishMessage: 'Malformed function call: print(' }
              : {}),
          },
        ],
      }),
    });
    const [response] = await collect(model.generate(hello));
    expect(response?.finishReason).toBe(finishReason);
    expect(response?.errorCode).toBe(errorCode);
    if (errorCode) expect(response?.errorMessage).toContain(`Gemini stopped the response (${finishReason})`);
  });

  it('reports a blocked prompt as a clear error response', async () => {
    server.enqueue(jsonFixture('prompt-blocked.json'));
    const [response] = await collect(model.generate(hello));
    expect(response).toMatchObject({
      finishReason: 'SAFETY',
      errorCode: 'SAFETY',
      errorMessage: 'Gemini blocked the prompt (SAFETY) [HARM_CATEGORY_DANGEROUS_CONTENT: HIGH]',
    });
    expect(response?.content).toBeUndefined();
  });
});

describe('Gemini errors', () => {
  it('turns 400 into a readable, non-retryable ApiCallError', async () => {
    server.enqueue(jsonFixture('error-400.json', 400));
    const error = await caught(collect(model.generate(hello)));
    expect(isApiCallError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      isRetryable: false,
      message:
        'Gemini API request failed with status 400 Bad Request: * GenerateContentRequest.contents: contents is not specified\n (INVALID_ARGUMENT)',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('turns 401 into an error that does not leak the key', async () => {
    server.enqueue(jsonFixture('error-401.json', 401));
    const error = await caught(collect(model.generate(hello)));
    expect(error).toMatchObject({ code: 'API_CALL', status: 401, isRetryable: false });
    expect(JSON.stringify(error) + String(error) + String((error as Error).stack)).not.toContain(
      'test-gemini-key',
    );
  });

  it('retries 429 after the RetryInfo delay, then succeeds', async () => {
    server.enqueue(jsonFixture('error-429.json', 429), jsonFixture('text.json'));
    const started = Date.now();
    const [response] = await collect(model.generate(hello));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(response?.content?.parts[0]?.text).toBe('Hello! How can I help you today?');
    expect(server.requests).toHaveLength(2);
  });

  it('retries 429 with Retry-After and 500, then succeeds', async () => {
    server.enqueue(
      {
        status: 429,
        headers: { 'retry-after': '0', 'content-type': 'application/json' },
        body: fixture('error-429.json'),
      },
      jsonFixture('error-500.json', 500),
      jsonFixture('text.json'),
    );
    const [response] = await collect(model.generate(hello));
    expect(response?.finishReason).toBe('STOP');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up with a RateLimitError', async () => {
    const limited = new Gemini('gemini-2.5-flash', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      retry: { maxRetries: 0 },
    });
    server.enqueue(jsonFixture('error-429.json', 429));
    const error = await caught(collect(limited.generate(hello)));
    expect(error).toMatchObject({ code: 'RATE_LIMIT', status: 429, retryAfterMs: 1000, isRetryable: true });
  });

  it('turns a malformed stream line into a typed error after the good chunks', async () => {
    server.enqueue(sseFixture('malformed.sse'));
    const seen: string[] = [];
    const error = await caught(
      (async () => {
        for await (const r of model.generate(hello, { stream: true }))
          seen.push(r.content?.parts[0]?.text ?? '');
      })(),
    );
    expect(seen).toEqual(['Hel']);
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'invalid-response' });
  });

  it('reads a text chunk with token details, and rejects a malformed variant of it with a typed error', async () => {
    // Text chunks are checked by hand before the schema; each broken variant must still fail.
    const chunk = {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Hi' }] },
          index: 0,
          safetyRatings: [],
          groundingMetadata: { anything: true },
        },
      ],
      usageMetadata: {
        promptTokenCount: 3,
        totalTokenCount: 3,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 3 }],
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'r1',
    };
    const last = {
      candidates: [{ content: { role: 'model', parts: [{ text: '!' }] }, finishReason: 'STOP', index: 0 }],
    };
    const stream = (chunks: unknown[]) => ({
      headers: { 'content-type': 'text/event-stream' },
      chunks: chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
    });
    server.enqueue(stream([chunk, last]));
    const ok = await collect(model.generate(hello, { stream: true }));
    expect(ok.at(-1)?.content?.parts).toEqual([{ text: 'Hi!' }]);
    const candidate = chunk.candidates[0] as Record<string, unknown>;
    const broken: unknown[] = [
      [chunk],
      { ...chunk, candidates: {} },
      { ...chunk, modelVersion: 2 },
      { ...chunk, responseId: null },
      { ...chunk, usageMetadata: { totalTokenCount: '3' } },
      { ...chunk, usageMetadata: null },
      { ...chunk, candidates: [{ ...candidate, index: '0' }] },
      { ...chunk, candidates: [{ ...candidate, finishReason: 1 }] },
      { ...chunk, candidates: [{ ...candidate, finishMessage: {} }] },
      { ...chunk, candidates: [{ ...candidate, safetyRatings: {} }] },
      { ...chunk, candidates: [{ ...candidate, content: { role: 1, parts: [] } }] },
      { ...chunk, candidates: [{ ...candidate, content: { parts: {} } }] },
      { ...chunk, candidates: [{ ...candidate, content: { parts: [{ text: 1 }] } }] },
      { ...chunk, candidates: [{ ...candidate, content: { parts: [{ thought: 'yes' }] } }] },
      { ...chunk, candidates: [{ ...candidate, content: { parts: [{ text: '', thoughtSignature: 1 }] } }] },
      { ...chunk, candidates: [{ ...candidate, content: { parts: [{ functionCall: { args: [] } }] } }] },
      { ...chunk, candidates: [{ ...candidate, content: { parts: [{ inlineData: { data: 'x' } }] } }] },
      { ...chunk, promptFeedback: { blockReason: 5 } },
    ];
    for (const bad of broken) {
      server.enqueue(stream([bad, last]));
      const error = await caught(collect(model.generate(hello, { stream: true })));
      expect(error, JSON.stringify(bad)).toMatchObject({ code: 'API_CALL', failure: 'invalid-response' });
    }
  });

  it('turns a connection dropped mid-stream into a typed error', async () => {
    server.enqueue({ ...sseFixture('truncated.sse'), drop: true });
    const error = await caught(collect(model.generate(hello, { stream: true })));
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'network' });
  });

  it('aborts a hanging stream with CancelledError', async () => {
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

  it('names the environment variables when no key is configured', async () => {
    const keyless = new Gemini('gemini-2.5-flash', { baseURL: server.url });
    const saved = { g: process.env.GEMINI_API_KEY, o: process.env.GOOGLE_API_KEY };
    delete process.env.GEMINI_API_KEY;
    delete process.env.GOOGLE_API_KEY;
    try {
      const error = await caught(collect(keyless.generate(hello)));
      expect(error).toMatchObject({ code: 'MISSING_API_KEY' });
      expect((error as Error).message).toContain('`GEMINI_API_KEY` or `GOOGLE_API_KEY`');
    } finally {
      if (saved.g !== undefined) process.env.GEMINI_API_KEY = saved.g;
      if (saved.o !== undefined) process.env.GOOGLE_API_KEY = saved.o;
    }
  });
});

describe('registerGemini', () => {
  it('resolves gemini-* names once registered, not before', () => {
    const registry = new ModelRegistry();
    expect(registry.has('gemini-2.5-flash')).toBe(false);
    expect(registerGemini(registry, { apiKey: 'k' })).toBe(registry);
    const llm = registry.resolve('gemini-2.5-flash');
    expect(llm).toBeInstanceOf(Gemini);
    expect(llm.model).toBe('gemini-2.5-flash');
    expect(registry.has('claude-sonnet-4-5')).toBe(false);
  });
});
