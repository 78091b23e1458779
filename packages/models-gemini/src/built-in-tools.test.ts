import {
  codeExecution,
  FunctionTool,
  googleSearch,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  type LlmRequest,
  ModelRegistry,
  Runner,
  type ToolUnion,
  urlContext,
  userContent,
  webFetch,
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
import { Gemini, registerGemini } from './index.js';

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

function runnerWith(tools: ToolUnion[], options: { streamFunctionCallArguments?: boolean } = {}) {
  const models = registerGemini(new ModelRegistry(), {
    apiKey: 'k',
    baseURL: `${server.url}/v1beta`,
    retry: false,
    ...options,
  });
  const agent = new LlmAgent({ name: 'assistant', model: 'gemini-2.5-flash', tools });
  return new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    models,
  });
}

describe('Gemini built-in tools', () => {
  it('declares googleSearch, urlContext and codeExecution next to function declarations, and keeps grounding and code parts on the event', async () => {
    const runner = runnerWith([googleSearch(), urlContext(), codeExecution(), weather]);
    server.enqueue(jsonFixture('grounded-code.json'));
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('2^10? And the weather in Paris?') }),
    );
    const body = server.requests.at(-1)?.body as Record<string, unknown>;
    expect(body.tools).toMatchInlineSnapshot(`
      [
        {
          "functionDeclarations": [
            {
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
          ],
        },
        {
          "googleSearch": {},
        },
        {
          "urlContext": {},
        },
        {
          "codeExecution": {},
        },
      ]
    `);
    const answer = events.at(-1);
    expect(answer?.content?.parts.map((p) => Object.keys(p)[0])).toEqual([
      'text',
      'executableCode',
      'codeExecutionResult',
      'text',
    ]);
    expect(answer?.content?.parts[1]?.executableCode).toEqual({ language: 'PYTHON', code: 'print(2 ** 10)' });
    expect(answer?.content?.parts[2]?.codeExecutionResult).toEqual({
      outcome: 'OUTCOME_OK',
      output: '1024\n',
    });
    expect(answer?.groundingMetadata).toMatchObject({ webSearchQueries: ['weather Paris today'] });
    expect(answer?.customMetadata?.urlContextMetadata).toMatchObject({
      urlMetadata: [{ retrievedUrl: 'https://weather.example/paris' }],
    });
  });

  it('adds providerOptions.tools to the declared tools instead of replacing them', async () => {
    const model = new Gemini('gemini-2.5-flash', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      retry: false,
    });
    server.enqueue(jsonFixture('text.json'));
    const request: LlmRequest = {
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      tools: [{ name: 'get_time', description: 'Now' }],
      builtInTools: [{ type: 'googleSearch' }],
      config: { providerOptions: { gemini: { tools: [{ googleSearchRetrieval: {} }] } } },
    };
    await collect(model.generate(request));
    expect(
      (server.requests.at(-1)?.body as Record<string, unknown> | undefined)?.tools,
    ).toMatchInlineSnapshot(`
      [
        {
          "functionDeclarations": [
            {
              "description": "Now",
              "name": "get_time",
            },
          ],
        },
        {
          "googleSearch": {},
        },
        {
          "googleSearchRetrieval": {},
        },
      ]
    `);
  });

  it('rejects a built-in tool Gemini does not have, with a typed error naming the ones it has', async () => {
    const runner = runnerWith([webFetch()]);
    const before = server.requests.length;
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's2', newMessage: userContent('fetch it') }),
    );
    expect(server.requests.length).toBe(before);
    expect(events.at(-1)?.errorCode).toBe('UNSUPPORTED_BUILT_IN_TOOL');
    expect(events.at(-1)?.errorMessage).toContain('Gemini has no built-in tool "webFetch"');
    const model = new Gemini('gemini-2.5-flash', { apiKey: 'k', baseURL: `${server.url}/v1beta` });
    const error = await caught(
      collect(
        model.generate({ model: 'x', contents: [], builtInTools: [{ type: 'webSearch' }], config: {} }),
      ),
    );
    expect(isAdkError(error, 'UNSUPPORTED_BUILT_IN_TOOL')).toBe(true);
  });
});

describe('Gemini 3 streamed function-call arguments', () => {
  it('assembles partialArgs pieces (strings joined per path, numbers, booleans, null, array indexes) into one call', async () => {
    const model = new Gemini('gemini-3-pro-preview', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      retry: false,
      streamFunctionCallArguments: true,
    });
    server.enqueue(sseFixture('stream-partial-args.sse', 23));
    const responses = await collect(
      model.generate(
        {
          model: 'gemini-3-pro-preview',
          contents: [{ role: 'user', parts: [{ text: 'Write and save an article' }] }],
          tools: [{ name: 'save_article', parameters: { type: 'object' } }],
          config: {},
        },
        { stream: true },
      ),
    );
    const body = server.requests.at(-1)?.body as Record<string, unknown>;
    expect(body.toolConfig).toEqual({ functionCallingConfig: { streamFunctionCallArguments: true } });
    const final = responses.at(-1);
    expect(final?.partial).toBeUndefined();
    expect(final?.content?.parts).toHaveLength(1);
    const part = final?.content?.parts[0];
    expect(part?.thoughtSignature).toBe('sig-stream');
    expect(part?.functionCall?.name).toBe('save_article');
    expect(part?.functionCall?.invalidArgs).toBeUndefined();
    expect(part?.functionCall?.args).toEqual({
      title: 'Streaming arguments',
      body: 'A long article.',
      meta: { words: 3, draft: false },
      tags: ['gemini', 'tools'],
      summary: null,
    });
  });

  it('runs two streamed calls through the Runner (each ends when willContinue is off)', async () => {
    const runner = runnerWith([weather], { streamFunctionCallArguments: true });
    server.enqueue(sseFixture('stream-partial-args-two-calls.sse', 31), sseFixture('stream-text.sse'));
    const events = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's3',
        newMessage: userContent('Paris and Oslo?'),
        runConfig: { streaming: true },
      }),
    );
    const calls = events
      .flatMap((e) => (e.partial ? [] : (e.content?.parts ?? [])))
      .filter((p) => p.functionCall);
    expect(calls.map((p) => p.functionCall?.args)).toEqual([{ city: 'Paris' }, { city: 'Oslo' }]);
    const responses = events.flatMap((e) => e.content?.parts ?? []).filter((p) => p.functionResponse);
    expect(responses.map((p) => p.functionResponse?.response)).toEqual([
      { city: 'Paris', forecast: 'sunny' },
      { city: 'Oslo', forecast: 'sunny' },
    ]);
    expect(events.at(-1)?.errorCode).toBeUndefined();
  });

  it('marks a call whose stream ended early as invalid instead of running it with half its arguments', async () => {
    const model = new Gemini('gemini-3-pro-preview', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      retry: false,
    });
    server.enqueue({
      headers: { 'content-type': 'text/event-stream' },
      body:
        'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","partialArgs":[{"jsonPath":"$.city","stringValue":"Pa","willContinue":true}],"willContinue":true}}]}}]}\n\n' +
        'data: {"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"MAX_TOKENS"}]}\n\n',
    });
    const responses = await collect(
      model.generate(
        { model: 'x', contents: [{ role: 'user', parts: [{ text: 'hi' }] }], config: {} },
        { stream: true },
      ),
    );
    const call = responses.at(-1)?.content?.parts[0]?.functionCall;
    expect(call?.name).toBe('get_weather');
    expect(call?.args).toEqual({});
    expect(call?.invalidArgs).toContain('the stream ended before the call was complete');
  });
});
