import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Event,
  FunctionTool,
  InMemoryArtifactService,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  type LlmResponse,
  ModelRegistry,
  Runner,
  runAgent,
  runAgentText,
  userContent,
} from '../index.js';
import { functionCallResponse, functionCallsResponse, ScriptedModel } from '../testing/index.js';

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, forecast: 'sunny' }),
});

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

function setup(agent: LlmAgent, extra: Partial<ConstructorParameters<typeof Runner>[0]> = {}) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true, ...extra });
  const run = (text: string, opts: Partial<Parameters<Runner['run']>[0]> = {}) =>
    collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text), ...opts }));
  const session = () => sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
  return { runner, run, session, sessionService };
}

describe('Runner with an LlmAgent', () => {
  it('the second model request contains the first call and its response, in a user turn', async () => {
    const model = new ScriptedModel([
      functionCallResponse('get_weather', { city: 'Paris' }),
      'It is sunny in Paris.',
    ]);
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model, tools: [weather] }));
    const events = await run('Weather in Paris?');

    expect(events.map((e) => e.author)).toEqual(['user', 'assistant', 'assistant', 'assistant']);
    const second = model.requests[1]!;
    expect(second.contents).toHaveLength(3);
    expect(second.contents[0]).toEqual(userContent('Weather in Paris?'));
    const call = second.contents[1]!;
    expect(call.role).toBe('model');
    const callPart = call.parts[0]!.functionCall!;
    expect(callPart).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    expect(callPart.id).toMatch(/^adk-/);
    expect(second.contents[2]).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: callPart.id,
            name: 'get_weather',
            response: { city: 'Paris', forecast: 'sunny' },
          },
        },
      ],
    });
    expect(second.tools?.[0]).toMatchObject({
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    expect((await session())?.events).toHaveLength(4);
  });

  it('a second user turn sends the whole history, including the earlier tool call', async () => {
    const model = new ScriptedModel([
      functionCallResponse('get_weather', { city: 'Oslo' }),
      'Cold.',
      'You asked about Oslo.',
    ]);
    const { run } = setup(new LlmAgent({ name: 'assistant', model, tools: [weather] }));
    await run('Weather in Oslo?');
    await run('What did I ask?');
    expect(model.requests[2]!.contents.map((c) => c.role)).toEqual([
      'user',
      'model',
      'user',
      'model',
      'user',
    ]);
  });

  it('tool calls of one model turn run concurrently and all their state deltas merge', async () => {
    let running = 0;
    let peak = 0;
    const slow = new FunctionTool({
      name: 'slow',
      description: 'takes a while',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }, ctx) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 30));
        running--;
        ctx.state.set(`k${n}`, n);
        ctx.state.set('user:last', n);
        return { n };
      },
    });
    const model = new ScriptedModel([
      functionCallsResponse([
        { name: 'slow', args: { n: 1 } },
        { name: 'slow', args: { n: 2 } },
        { name: 'slow', args: { n: 3 } },
      ]),
      'done',
    ]);
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model, tools: [slow] }));
    const events = await run('go');
    expect(peak).toBe(3);
    const responseEvent = events[2]!;
    expect(responseEvent.content?.parts.map((p) => p.functionResponse?.response)).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
    expect(responseEvent.actions.stateDelta).toEqual({ k1: 1, k2: 2, k3: 3, 'user:last': 3 });
    expect((await session())?.state).toMatchObject({ k1: 1, k2: 2, k3: 3, 'user:last': 3 });
  });

  it('state and artifacts written inside a tool land in the response event and the session', async () => {
    const save = new FunctionTool({
      name: 'save_note',
      description: 'saves a note',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }, ctx) => {
        ctx.state.set('notes', 1);
        ctx.state.set('app:total', 5);
        ctx.state.set('temp:scratch', 'x');
        const version = await ctx.saveArtifact('note.txt', { text });
        return { version };
      },
    });
    const model = new ScriptedModel([functionCallResponse('save_note', { text: 'hello' }), 'saved']);
    const artifactService = new InMemoryArtifactService();
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model, tools: [save] }), {
      artifactService,
    });
    const events = await run('save it');
    const response = events[2]!;
    expect(response.actions.stateDelta).toEqual({ notes: 1, 'app:total': 5, 'temp:scratch': 'x' });
    expect(response.actions.artifactDelta).toEqual({ 'note.txt': 0 });
    const stored = await session();
    expect(stored?.state).toEqual({ notes: 1, 'app:total': 5 });
    expect(stored?.events[2]?.actions.stateDelta).toEqual({ notes: 1, 'app:total': 5 });
    expect(stored?.events[2]?.actions.artifactDelta).toEqual({ 'note.txt': 0 });
    expect(
      await artifactService.loadArtifact({
        appName: 'app',
        userId: 'u',
        sessionId: 's',
        filename: 'note.txt',
      }),
    ).toEqual({ text: 'hello' });
  });

  it('temp: state is visible for the rest of the invocation and never persisted', async () => {
    const write = new FunctionTool({
      name: 'write',
      description: '',
      parameters: z.object({}),
      execute: (_a, ctx) => {
        ctx.state.set('temp:seen', 'yes');
        return {};
      },
    });
    const model = new ScriptedModel([functionCallResponse('write'), 'ok', 'next']);
    const { run, session } = setup(
      new LlmAgent({ name: 'assistant', model, tools: [write], instruction: 'seen={temp:seen?}' }),
    );
    await run('go');
    expect(model.requests[0]!.systemInstruction).toContain('seen=');
    expect(model.requests[1]!.systemInstruction).toContain('seen=yes');
    const stored = await session();
    expect(stored?.state).toEqual({});
    await run('again');
    expect(model.requests[2]!.systemInstruction).toMatch(/^seen=\n\n/);
  });

  it('an unknown tool, invalid arguments, invalid JSON and a throwing tool become error responses to the model', async () => {
    const boom = new FunctionTool({
      name: 'boom',
      description: '',
      parameters: z.object({}),
      execute: () => {
        throw new Error('kaput');
      },
    });
    const model = new ScriptedModel([
      {
        content: {
          role: 'model',
          parts: [
            { functionCall: { id: 'a', name: 'nope', args: {} } },
            { functionCall: { id: 'b', name: 'get_weather', args: { city: 42 } } },
            { functionCall: { id: 'c', name: 'get_weather', args: {}, invalidArgs: '{"city": ' } },
            { functionCall: { id: 'd', name: 'boom', args: {} } },
          ],
        },
      },
      'recovered',
    ]);
    const { run } = setup(new LlmAgent({ name: 'assistant', model, tools: [weather, boom] }));
    const events = await run('go');
    const responses = events[2]!.content!.parts.map((p) => p.functionResponse!.response.error as string);
    expect(responses[0]).toMatch(/Tool "nope" does not exist. Available tools: get_weather, boom/);
    expect(responses[1]).toMatch(/Invalid arguments for "get_weather"/);
    expect(responses[2]).toMatch(/not valid JSON/);
    expect(responses[3]).toBe('Tool "boom" failed: kaput');
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('recovered');
  });

  it('long-running calls are marked and pause the invocation', async () => {
    const approve = new FunctionTool({
      name: 'ask_manager',
      description: 'asks a human',
      parameters: z.object({ amount: z.number() }),
      isLongRunning: true,
      execute: () => undefined,
    });
    const model = new ScriptedModel([functionCallResponse('ask_manager', { amount: 100 })]);
    const { run } = setup(new LlmAgent({ name: 'assistant', model, tools: [approve] }));
    const events = await run('refund 100');
    expect(events).toHaveLength(2);
    const callId = events[1]!.content!.parts[0]!.functionCall!.id;
    expect(events[1]!.longRunningToolIds).toEqual([callId]);
    expect(model.requests).toHaveLength(1);
  });

  it('finishReason and usage survive into the committed event', async () => {
    const model = new ScriptedModel([
      {
        content: { role: 'model', parts: [{ text: 'cut' }] },
        finishReason: 'MAX_TOKENS',
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 },
      },
    ]);
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model }));
    await run('hi');
    const stored = (await session())!.events[1]!;
    expect(stored.finishReason).toBe('MAX_TOKENS');
    expect(stored.usageMetadata).toEqual({
      promptTokenCount: 3,
      candidatesTokenCount: 1,
      totalTokenCount: 4,
    });
  });

  it('yields events as they happen, before the invocation ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const wait = new FunctionTool({
      name: 'wait',
      description: '',
      parameters: z.object({}),
      execute: async () => {
        await gate;
        return {};
      },
    });
    const model = new ScriptedModel([functionCallResponse('wait'), 'after']);
    const { runner } = setup(new LlmAgent({ name: 'assistant', model, tools: [wait] }));
    const iterator = runner
      .run({ userId: 'u', sessionId: 's', newMessage: userContent('go') })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value?.author).toBe('user');
    const call = (await iterator.next()).value as Event;
    expect(call.content?.parts[0]?.functionCall?.name).toBe('wait');
    expect(model.requests).toHaveLength(1);
    release();
    const rest: Event[] = [];
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
    expect(rest.map((e) => e.content?.parts[0]?.text ?? 'response')).toEqual(['response', 'after']);
  });

  it('instruction templates resolve {key}, {key?}, {app:x}, {user:x} and {artifact.name}', async () => {
    const model = new ScriptedModel(['ok']);
    const artifactService = new InMemoryArtifactService();
    await artifactService.saveArtifact({
      appName: 'app',
      userId: 'u',
      sessionId: 's',
      filename: 'policy',
      artifact: { text: 'be kind' },
    });
    const sessionService = new InMemorySessionService();
    await sessionService.createSession({
      appName: 'app',
      userId: 'u',
      sessionId: 's',
      state: { 'app:brand': 'Acme', 'user:name': 'Ada', topic: 'tea', obj: { a: 1 } },
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      instruction:
        'Brand {app:brand}; user {user:name}; topic {topic}; obj {obj}; opt [{missing?}]; policy: {artifact.policy}; json {"x": 1}',
    });
    const runner = new Runner({ appName: 'app', agent, sessionService, artifactService });
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    expect(model.requests[0]!.systemInstruction).toContain(
      'Brand Acme; user Ada; topic tea; obj {"a":1}; opt []; policy: be kind; json {"x": 1}',
    );
  });

  it('a missing template key becomes an error event, not a crash', async () => {
    const model = new ScriptedModel(['never']);
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model, instruction: 'Hi {name}' }));
    const events = await run('hi');
    expect(events.at(-1)).toMatchObject({ errorCode: 'VALIDATION' });
    expect(events.at(-1)?.errorMessage).toMatch(/state key "name"/);
    expect(model.requests).toHaveLength(0);
    expect((await session())?.events).toHaveLength(2);
  });

  it('instructions compose global → instruction → identity (as ADK), and functions are not templated', async () => {
    const model = new ScriptedModel(['ok']);
    const agent = new LlmAgent({
      name: 'assistant',
      description: 'helps',
      model,
      globalInstruction: 'GLOBAL',
      instruction: (ctx) => `Agent {literal} for ${ctx.userId}`,
    });
    await runAgent(agent, 'hi', { userId: 'ada' });
    expect(model.requests[0]!.systemInstruction).toBe(
      'GLOBAL\n\nAgent {literal} for ada\n\nYou are an agent. Your internal name is "assistant". The description about you is "helps".',
    );
  });

  it('maxLlmCalls ends the invocation with an error event', async () => {
    const model = new ScriptedModel({ respond: () => functionCallResponse('get_weather', { city: 'X' }) });
    const { run } = setup(new LlmAgent({ name: 'assistant', model, tools: [weather] }));
    const events = await run('loop', { runConfig: { maxLlmCalls: 3 } });
    expect(model.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ errorCode: 'LLM_CALL_LIMIT' });
  });

  it('outputKey stores the final text; outputSchema is sent, validated, and works with tools', async () => {
    // A model that takes a response schema together with tools gets both (see flow/output-schema.test.ts).
    const model = new ScriptedModel({
      script: [functionCallResponse('get_weather', { city: 'Rome' }), '{"city":"Rome","ok":true}'],
      capabilities: { responseSchemaWithTools: true },
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      tools: [weather],
      outputKey: 'result',
      outputSchema: z.object({ city: z.string(), ok: z.boolean() }),
    });
    const { run, session } = setup(agent);
    await run('Rome?');
    expect(model.requests[0]!.config.responseSchema).toMatchObject({
      type: 'object',
      required: ['city', 'ok'],
    });
    expect(model.requests[0]!.config.responseMimeType).toBe('application/json');
    expect(model.requests[0]!.systemInstruction).not.toContain('set_model_response');
    expect((await session())?.state.result).toEqual({ city: 'Rome', ok: true });

    const bad = new ScriptedModel(['not json']);
    const result = await runAgent(
      new LlmAgent({ name: 'a', model: bad, outputKey: 'r', outputSchema: z.object({ x: z.number() }) }),
      'hi',
      { rejectOnError: false },
    );
    expect(result.error?.code).toBe('OUTPUT_SCHEMA');
    expect(result.session.state.r).toBeUndefined();

    const plain = await runAgent(
      new LlmAgent({ name: 'a', model: new ScriptedModel(['hello']), outputKey: 'greeting' }),
      'hi',
    );
    expect(plain.session.state.greeting).toBe('hello');
  });

  it('streaming yields partial chunks (not stored) and then the aggregated event', async () => {
    const model = new ScriptedModel({ script: ['Hello there, friend'], chunkSize: 5 });
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model }));
    const events = await run('hi', { runConfig: { streaming: true } });
    const partial = events.filter((e) => e.partial);
    expect(partial.map((e) => e.content?.parts[0]?.text)).toEqual(['Hello', ' ther', 'e, fr', 'iend']);
    expect(events.at(-1)).toMatchObject({
      partial: false,
      content: { parts: [{ text: 'Hello there, friend' }] },
    });
    expect((await session())?.events).toHaveLength(2);
  });

  it('a model error becomes an error event; on-model-error callbacks fire and can recover', async () => {
    const failing = () => new ScriptedModel([new Error('upstream 503')]);
    const failed = await runAgent(new LlmAgent({ name: 'a', model: failing() }), 'hi', {
      rejectOnError: false,
    });
    expect(failed.error).toEqual({ code: 'INTERNAL', message: 'Model call failed: upstream 503' });

    const seen: unknown[] = [];
    const recovered = await runAgent(
      new LlmAgent({
        name: 'a',
        model: failing(),
        onModelErrorCallback: [
          ({ error }) => {
            seen.push((error as Error).message);
          },
          (): LlmResponse => ({ content: { role: 'model', parts: [{ text: 'fallback answer' }] } }),
        ],
      }),
      'hi',
    );
    expect(seen).toEqual(['upstream 503']);
    expect(recovered.text).toBe('fallback answer');
    expect(recovered.error).toBeUndefined();
  });

  it('an unresolvable model name throws before the run (docs/decisions/0022)', async () => {
    const run = runAgent(new LlmAgent({ name: 'a', model: 'gemini-9-ultra' }), 'hi', {
      models: new ModelRegistry(),
    });
    await expect(run).rejects.toMatchObject({ code: 'PROVIDER_NOT_REGISTERED' });
    await expect(run).rejects.toThrow(/No model provider is registered for "gemini-9-ultra"/);
  });

  it('model names resolve through the registry', async () => {
    const registry = new ModelRegistry().register({
      name: 'scripted',
      matches: (m) => m.startsWith('scripted-'),
      create: (m) => new ScriptedModel({ model: m, respond: () => `I am ${m}` }),
    });
    expect(
      await runAgentText(new LlmAgent({ name: 'a', model: 'scripted-1' }), 'who?', { models: registry }),
    ).toBe('I am scripted-1');
  });

  it('AbortSignal cancels the model request and running tools and ends the invocation cleanly', async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const hang = new FunctionTool({
      name: 'hang',
      description: '',
      parameters: z.object({}),
      execute: (_a, ctx) =>
        new Promise((_resolve, reject) => {
          toolSignal = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
          setTimeout(() => controller.abort(), 10);
        }),
    });
    const model = new ScriptedModel([functionCallResponse('hang'), 'never']);
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model, tools: [hang] }));
    const events = await run('go', { signal: controller.signal });
    expect(toolSignal?.aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ errorCode: 'CANCELLED', interrupted: true });
    expect(model.requests).toHaveLength(1);
    expect((await session())?.events.at(-1)?.errorCode).toBe('CANCELLED');

    const slowModel = new ScriptedModel({ script: ['slow answer'], delayMs: 5_000 });
    const c2 = new AbortController();
    setTimeout(() => c2.abort(), 20);
    const started = Date.now();
    const result = await runAgent(new LlmAgent({ name: 'a', model: slowModel }), 'hi', {
      signal: c2.signal,
      rejectOnError: false,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.error?.code).toBe('CANCELLED');
  });

  it('two concurrent runs on one session are serialized and never corrupt it', async () => {
    const model = new ScriptedModel({
      respond: (req) => `echo ${req.contents.at(-1)?.parts[0]?.text}`,
      delayMs: 10,
    });
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model }));
    await Promise.all([run('one'), run('two'), run('three')]);
    const events = (await session())!.events;
    expect(events).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) {
      expect(events[i]!.author).toBe('user');
      expect(events[i + 1]!.content?.parts[0]?.text).toBe(`echo ${events[i]!.content?.parts[0]?.text}`);
    }
  });

  it("concurrentRuns: 'reject' refuses a second run on a busy session with a typed error", async () => {
    const model = new ScriptedModel({ respond: () => 'ok', delayMs: 30 });
    const { runner } = setup(new LlmAgent({ name: 'assistant', model }), { concurrentRuns: 'reject' });
    const first = collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('a') }));
    await new Promise((r) => setTimeout(r, 5));
    await expect(
      collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('b') })),
    ).rejects.toSatisfy((e) => isAdkError(e, 'CONCURRENT_INVOCATION'));
    await first;
  });

  it('an unknown session without autoCreateSession is a typed NOT_FOUND error', async () => {
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model: new ScriptedModel([]) }),
      sessionService: new InMemorySessionService(),
    });
    await expect(
      collect(runner.run({ userId: 'u', sessionId: 'missing', newMessage: userContent('hi') })),
    ).rejects.toSatisfy((e) => isAdkError(e, 'NOT_FOUND'));
  });

  it('includeContents none sends only the current turn', async () => {
    const model = new ScriptedModel(['first', 'second']);
    const { run } = setup(new LlmAgent({ name: 'assistant', model, includeContents: 'none' }));
    await run('one');
    await run('two');
    expect(model.requests[1]!.contents).toEqual([userContent('two')]);
  });

  it('a stateDelta given to run is committed with the user message', async () => {
    const model = new ScriptedModel(['ok']);
    const { run, session } = setup(new LlmAgent({ name: 'assistant', model, instruction: 'mood={mood}' }));
    await run('hi', { stateDelta: { mood: 'happy' } });
    expect(model.requests[0]!.systemInstruction).toContain('mood=happy');
    expect((await session())?.events[0]?.actions.stateDelta).toEqual({ mood: 'happy' });
  });
});
