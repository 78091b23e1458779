// Gemini 3 streams function-call arguments as real gemini-3 streams do (fixtures written in that shape):
// a name chunk (`willContinue: true`, maybe a part-level thoughtSignature), chunks of `partialArgs` only,
// a string closed by an empty `stringValue`, the call closed by a part whose functionCall is `{}`,
// calls one after another, a call without arguments as a name chunk without `willContinue`.
import {
  type Event,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  ModelRegistry,
  type Part,
  Runner,
  userContent,
} from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  collect,
  type ReplayResponse,
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
const listAlerts = new FunctionTool({
  name: 'list_alerts',
  description: 'Active weather alerts',
  parameters: z.object({}),
  execute: () => ({ alerts: [] }),
});
const getTime = new FunctionTool({
  name: 'get_time',
  description: 'The current time',
  parameters: z.object({}),
  execute: () => ({ time: '12:00' }),
});

async function runStreamed(fixture: string | ReplayResponse, sessionId: string) {
  const models = registerGemini(new ModelRegistry(), {
    apiKey: 'k',
    baseURL: `${server.url}/v1beta`,
    retry: false,
    streamFunctionCallArguments: true,
  });
  const agent = new LlmAgent({
    name: 'assistant',
    model: 'gemini-3-flash-preview',
    tools: [weather, listAlerts, getTime],
  });
  const runner = new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    models,
  });
  const before = server.requests.length;
  server.enqueue(
    typeof fixture === 'string' ? sseFixture(fixture, 29) : fixture,
    sseFixture('stream-text.sse'),
  );
  const events = await collect(
    runner.run({
      userId: 'u',
      sessionId,
      newMessage: userContent('What is the weather?'),
      runConfig: { streaming: true },
    }),
  );
  const [first, next] = server.requests.slice(before).map((r) => r.body as GeminiBody);
  if (!first || !next) throw new Error('expected two requests');
  return { events, first, next };
}

interface GeminiBody {
  contents: { role: string; parts: Record<string, unknown>[] }[];
  toolConfig?: unknown;
}

function callParts(events: Event[]): Part[] {
  return events.flatMap((e) => e.content?.parts ?? []).filter((p) => p.functionCall);
}

/** What each streamed call must look like: in one final event, once, never in a partial event. */
function expectCallsOnce(events: Event[], expected: { name: string; args: unknown }[]): Part[] {
  expect(events.filter((e) => e.partial).flatMap((e) => callParts([e]))).toEqual([]);
  const calls = callParts(events);
  expect(calls.map((p) => ({ name: p.functionCall?.name, args: p.functionCall?.args }))).toEqual(expected);
  expect(calls.every((p) => p.functionCall?.invalidArgs === undefined)).toBe(true);
  const withCalls = events.filter((e) => callParts([e]).length > 0);
  expect(withCalls).toHaveLength(1);
  return calls;
}

/** The model turn the next request sends back, and the function responses after it. */
function sentBack(next: GeminiBody) {
  const model = next.contents.find((c) => c.role === 'model');
  const responses = next.contents
    .flatMap((c) => c.parts)
    .filter((p) => p.functionResponse)
    .map((p) => p.functionResponse);
  return { parts: model?.parts ?? [], responses };
}

describe('Gemini 3 streamed function-call arguments (wire shape of real streams)', () => {
  it('yields one call, complete, with its thought signature sent back in the next request', async () => {
    const { events, first, next } = await runStreamed('stream-fc-args-one-call.sse', 'one');
    expect(first.toolConfig).toEqual({ functionCallingConfig: { streamFunctionCallArguments: true } });
    const [call] = expectCallsOnce(events, [{ name: 'get_weather', args: { city: 'Paris' } }]);
    expect(call?.thoughtSignature).toBe('EtQBCtEBAXLI2nw-one-call');
    const callEvent = events.find((e) => callParts([e]).length > 0);
    expect(callEvent?.usageMetadata).toMatchObject({ promptTokenCount: 41, candidatesTokenCount: 18 });
    const back = sentBack(next);
    expect(back.parts).toEqual([
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris' } },
        thoughtSignature: 'EtQBCtEBAXLI2nw-one-call',
      },
    ]);
    expect(back.responses).toEqual([{ name: 'get_weather', response: { city: 'Paris', forecast: 'sunny' } }]);
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('The quick brown fox jumps.');
    expect(events.some((e) => e.errorCode)).toBe(false);
  });

  it('yields three parallel calls in order, the signature staying on the first', async () => {
    const { events, next } = await runStreamed('stream-fc-args-parallel.sse', 'parallel');
    const calls = expectCallsOnce(events, [
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: 'London' } },
      { name: 'get_weather', args: { city: 'Tokyo' } },
    ]);
    expect(calls.map((p) => p.thoughtSignature)).toEqual(['EqgCCqUCAXLI2nz-parallel', undefined, undefined]);
    expect(new Set(calls.map((p) => p.functionCall?.id)).size).toBe(3);
    const back = sentBack(next);
    expect(back.parts).toEqual([
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris' } },
        thoughtSignature: 'EqgCCqUCAXLI2nz-parallel',
      },
      { functionCall: { name: 'get_weather', args: { city: 'London' } } },
      { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
    ]);
    expect(back.responses.map((r) => (r as { response: unknown }).response)).toEqual([
      { city: 'Paris', forecast: 'sunny' },
      { city: 'London', forecast: 'sunny' },
      { city: 'Tokyo', forecast: 'sunny' },
    ]);
    expect(events.some((e) => e.errorCode)).toBe(false);
  });

  it('yields calls without arguments among streamed ones, and no call for the closing {}', async () => {
    const { events, next } = await runStreamed('stream-fc-args-no-arg-call.sse', 'no-arg');
    const calls = expectCallsOnce(events, [
      { name: 'get_weather', args: { city: 'Oslo' } },
      { name: 'list_alerts', args: {} },
      { name: 'get_weather', args: { city: 'Bergen' } },
      { name: 'get_time', args: {} },
    ]);
    expect(calls[0]?.thoughtSignature).toBe('EpwBCpkBAXLI2nw-no-arg');
    const back = sentBack(next);
    expect(back.parts.map((p) => (p.functionCall as { name: string }).name)).toEqual([
      'get_weather',
      'list_alerts',
      'get_weather',
      'get_time',
    ]);
    expect(back.parts[0]?.thoughtSignature).toBe('EpwBCpkBAXLI2nw-no-arg');
    expect(back.responses.map((r) => (r as { response: unknown }).response)).toEqual([
      { city: 'Oslo', forecast: 'sunny' },
      { alerts: [] },
      { city: 'Bergen', forecast: 'sunny' },
      { time: '12:00' },
    ]);
    expect(events.some((e) => e.errorCode)).toBe(false);
  });

  it('keeps the signature on a call without arguments that comes first', async () => {
    const { events, next } = await runStreamed('stream-fc-args-no-arg-first.sse', 'no-arg-first');
    const calls = expectCallsOnce(events, [
      { name: 'get_time', args: {} },
      { name: 'get_weather', args: { city: 'Lisbon' } },
    ]);
    expect(calls.map((p) => p.thoughtSignature)).toEqual(['EsABCr0BAXLI2nw-no-arg-first', undefined]);
    expect(sentBack(next).parts).toEqual([
      { functionCall: { name: 'get_time', args: {} }, thoughtSignature: 'EsABCr0BAXLI2nw-no-arg-first' },
      { functionCall: { name: 'get_weather', args: { city: 'Lisbon' } } },
    ]);
  });

  it('streams thoughts and text before the calls as partial events, then the calls once', async () => {
    const { events, next } = await runStreamed('stream-fc-args-after-text.sse', 'after-text');
    const partialText = events
      .filter((e) => e.partial)
      .flatMap((e) => e.content?.parts ?? [])
      .slice(0, 4)
      .map((p) => ({ text: p.text, thought: p.thought === true }));
    expect(partialText).toEqual([
      { text: '**Checking two cities**\n\nThe user wants the weather in', thought: true },
      { text: ' Paris and Rome, so I will call the weather tool twice.', thought: true },
      { text: 'Let me look up ', thought: false },
      { text: 'both cities.', thought: false },
    ]);
    const calls = expectCallsOnce(events, [
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: 'Rome' } },
    ]);
    expect(calls.map((p) => p.thoughtSignature)).toEqual(['EuIBCt8BAXLI2nw-after-text', undefined]);
    const final = events.find((e) => !e.partial && callParts([e]).length > 0);
    expect(
      final?.content?.parts.map((p) => (p.functionCall ? `call:${p.functionCall.args.city}` : p.text)),
    ).toEqual([
      '**Checking two cities**\n\nThe user wants the weather in Paris and Rome, so I will call the weather tool twice.',
      'Let me look up both cities.',
      'call:Paris',
      'call:Rome',
    ]);
    const back = sentBack(next);
    const sentCalls = back.parts.filter((p) => p.functionCall);
    expect(sentCalls).toEqual([
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris' } },
        thoughtSignature: 'EuIBCt8BAXLI2nw-after-text',
      },
      { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
    ]);
    expect(back.parts.find((p) => p.text === 'Let me look up both cities.')).toBeDefined();
  });

  it('ends a call on a last piece without willContinue (array arguments), then reads the next call', async () => {
    const model = new Gemini('gemini-3-flash-preview', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      retry: false,
      streamFunctionCallArguments: true,
    });
    server.enqueue(sseFixture('stream-fc-args-terminal-piece.sse', 31));
    const responses = await collect(
      model.generate(
        {
          model: 'gemini-3-flash-preview',
          contents: [
            { role: 'user', parts: [{ text: 'Add an apple and a pear, then the weather in Nice' }] },
          ],
          tools: [
            { name: 'write_items', parameters: { type: 'object' } },
            { name: 'get_weather', parameters: { type: 'object' } },
          ],
          config: {},
        },
        { stream: true },
      ),
    );
    expect(responses).toHaveLength(1);
    const parts = responses[0]?.content?.parts ?? [];
    expect(parts.map((p) => ({ name: p.functionCall?.name, args: p.functionCall?.args }))).toEqual([
      {
        name: 'write_items',
        args: {
          operations: [
            { action: 'add', itemid: 'apple', price: 1.25 },
            { action: 'add', itemid: 'pear', price: 0.5 },
          ],
        },
      },
      { name: 'get_weather', args: { city: 'Nice' } },
    ]);
    expect(parts.map((p) => p.thoughtSignature)).toEqual(['EoQCCoECAXLI2nw-terminal', undefined]);
    expect(parts.every((p) => p.functionCall?.invalidArgs === undefined)).toBe(true);
  });

  it('answers a call with an unusable argument path with an error instead of running it', async () => {
    const chunk = (parts: unknown[], finish = false) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: 'STOP' } : {}) }] })}\r\n\r\n`;
    const body =
      chunk([{ functionCall: { name: 'get_weather', willContinue: true }, thoughtSignature: 'sig-bad' }]) +
      chunk([
        { functionCall: { partialArgs: [{ jsonPath: 'city', stringValue: 'Paris' }], willContinue: true } },
      ]) +
      chunk([{ functionCall: {} }], true);
    const { events, next } = await runStreamed(
      { headers: { 'content-type': 'text/event-stream' }, body },
      'bad-path',
    );
    const [call] = callParts(events);
    expect(call?.functionCall?.name).toBe('get_weather');
    expect(call?.functionCall?.invalidArgs).toContain('unusable streamed argument at city');
    const back = sentBack(next);
    expect(back.parts[0]?.thoughtSignature).toBe('sig-bad');
    expect(JSON.stringify(back.responses)).toContain('unusable streamed argument at city');
    expect(JSON.stringify(back.responses)).not.toContain('sunny');
  });

  it('assembles nested objects, array items, numbers, booleans and null from their JSON paths', async () => {
    const model = new Gemini('gemini-3.1-pro-preview', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      retry: false,
      streamFunctionCallArguments: true,
    });
    server.enqueue(sseFixture('stream-fc-args-nested.sse', 23));
    const responses = await collect(
      model.generate(
        {
          model: 'gemini-3.1-pro-preview',
          contents: [{ role: 'user', parts: [{ text: 'Plan the team offsite' }] }],
          tools: [{ name: 'create_event', parameters: { type: 'object' } }],
          config: {},
        },
        { stream: true },
      ),
    );
    expect(responses.filter((r) => r.partial)).toEqual([]);
    expect(responses).toHaveLength(1);
    const parts = responses[0]?.content?.parts;
    expect(parts).toHaveLength(1);
    expect(parts?.[0]?.thoughtSignature).toBe('ErcCCrQCAXLI2nw-nested');
    expect(parts?.[0]?.functionCall?.invalidArgs).toBeUndefined();
    expect(parts?.[0]?.functionCall?.name).toBe('create_event');
    expect(parts?.[0]?.functionCall?.args).toEqual({
      title: 'Team offsite',
      location: { city: 'Lyon', lat: 45.764, lng: 4.8357 },
      attendees: [
        { name: 'Ada', optional: false },
        { name: 'Grace Hopper', optional: true },
      ],
      tags: ['planning', 'travel'],
      durationHours: 6,
      allDay: false,
      notes: null,
    });
    expect(responses[0]?.finishReason).toBe('STOP');
    expect(responses[0]?.usageMetadata).toMatchObject({ candidatesTokenCount: 88, thoughtsTokenCount: 204 });
  });
});
