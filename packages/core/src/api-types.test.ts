import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type ADK_ERROR_CODES,
  type AdkErrorCode,
  defineState,
  type Event,
  type EventErrorCode,
  FunctionTool,
  InMemorySessionService,
  isAdkErrorCode,
  isErrorEvent,
  isFunctionCallPart,
  isOutputEventOf,
  isTextPart,
  LlmAgent,
  type ModelErrorCode,
  type OutputEvent,
  type Part,
  RunFailedError,
  Runner,
  runAgent,
  SequentialAgent,
  userContent,
  viewEvent,
  viewPart,
} from './index.js';
import { ScriptedModel } from './testing/index.js';

describe('inferred types', () => {
  it('an LlmAgent is typed by its output schema, and so is runAgent(...).output', async () => {
    const agent = new LlmAgent({
      name: 'extractor',
      model: new ScriptedModel(['```json\n{"city":"Paris","days":3}\n```']),
      outputSchema: z.object({ city: z.string(), days: z.number() }),
    });
    expectTypeOf(agent).toEqualTypeOf<LlmAgent<{ city: string; days: number }>>();
    const result = await runAgent(agent, 'Three days in Paris');
    expectTypeOf(result.output).toEqualTypeOf<{ city: string; days: number } | undefined>();
    expect(result.output).toEqual({ city: 'Paris', days: 3 });

    const plain = await runAgent(new LlmAgent({ name: 'a', model: new ScriptedModel(['hi']) }), 'hi');
    expectTypeOf(plain.output).toEqualTypeOf<unknown>();
    const seq = new SequentialAgent({ name: 's', subAgents: [] });
    expectTypeOf<Awaited<ReturnType<typeof runAgent<typeof seq>>>['output']>().toEqualTypeOf<unknown>();
  });

  it("the final event's output is typed by the schema and carries the validated value", async () => {
    const schema = z.object({ city: z.string(), days: z.number().default(1) });
    const agent = new LlmAgent({
      name: 'extractor',
      model: new ScriptedModel(['{"city":"Rome"}', '{"city":"Oslo","days":2}']),
      outputSchema: schema,
    });
    const result = await runAgent(agent, 'Rome');
    expectTypeOf(result.finalEvent).toEqualTypeOf<OutputEvent<{ city: string; days: number }> | undefined>();
    expectTypeOf(result.finalEvent!.output).toEqualTypeOf<{ city: string; days: number } | undefined>();
    // The schema's default applied: the value is the parsed one, not the raw JSON.
    expect(result.finalEvent?.output).toEqual({ city: 'Rome', days: 1 });
    expect(result.output).toEqual({ city: 'Rome', days: 1 });

    // Events read from a Runner narrow with isOutputEventOf.
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const outputs: { city: string; days: number }[] = [];
    for await (const event of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Oslo') })) {
      expectTypeOf(event.output).toEqualTypeOf<unknown>();
      if (isOutputEventOf(agent, event)) {
        expectTypeOf(event.output).toEqualTypeOf<{ city: string; days: number }>();
        outputs.push(event.output);
      }
    }
    expect(outputs).toEqual([{ city: 'Oslo', days: 2 }]);
  });

  it('an agent with a stateSchema types runAgent(...).state and its typed view', async () => {
    const appState = defineState(z.object({ visits: z.number(), 'user:name': z.string().optional() }));
    const counter = new FunctionTool({
      name: 'count',
      description: 'counts a visit',
      parameters: z.object({}),
      execute: (_args, ctx): { ok: boolean } => {
        const state = agent.state(ctx.state);
        expectTypeOf(state.get('visits')).toEqualTypeOf<number | undefined>();
        state.set('visits', (state.get('visits') ?? 0) + 1);
        // @ts-expect-error: not a key of the schema
        expect(() => state.set('nope', 1)).toThrow(/not in the state schema/);
        return { ok: true };
      },
    });
    const agent = new LlmAgent({
      name: 'a',
      model: new ScriptedModel([[{ functionCall: { id: '1', name: 'count', args: {} } }], 'done']),
      tools: [counter],
      stateSchema: appState,
    });
    expectTypeOf(agent).toEqualTypeOf<
      LlmAgent<unknown, { visits: number; 'user:name'?: string | undefined }>
    >();
    const result = await runAgent(agent, 'hi');
    expectTypeOf(result.state).toEqualTypeOf<{ visits: number; 'user:name'?: string | undefined }>();
    expect(result.state).toEqual({ visits: 1 });

    // Without a schema there is no `state` in the result, and `agent.state()` is a ConfigError.
    const plain = new LlmAgent({ name: 'p', model: new ScriptedModel(['ok']) });
    const plainResult = await runAgent(plain, 'hi');
    expectTypeOf(plainResult).not.toHaveProperty('state');
    expect(() => plain.state(plainResult.session.state as never)).toThrow(/has no stateSchema/);
  });

  it('state reads are typed by a state schema given to the run and used in tools', async () => {
    const appState = defineState(z.object({ 'user:last_city': z.string().optional(), visits: z.number() }));
    const remember = new FunctionTool({
      name: 'remember',
      description: 'remembers a city',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }, ctx) => {
        const state = appState.view(ctx.state);
        expectTypeOf(state.get('visits')).toEqualTypeOf<number | undefined>();
        state.set('user:last_city', city);
        state.set('visits', (state.get('visits') ?? 0) + 1);
        // @ts-expect-error: not a number
        expect(() => state.set('visits', 'many')).toThrow(/does not match its schema/);
        return { ok: true };
      },
    });
    const model = new ScriptedModel([
      [{ functionCall: { id: '1', name: 'remember', args: { city: 'Oslo' } } }],
      'noted',
    ]);
    const result = await runAgent(new LlmAgent({ name: 'a', model, tools: [remember] }), 'Oslo', {
      stateSchema: appState,
    });
    expectTypeOf(result.state).toEqualTypeOf<{ 'user:last_city'?: string | undefined; visits: number }>();
    expect(result.state).toEqual({ 'user:last_city': 'Oslo', visits: 1 });
  });

  it('errorCode is a closed union of our codes and the models', () => {
    expectTypeOf<Event['errorCode']>().toEqualTypeOf<EventErrorCode | undefined>();
    expectTypeOf<EventErrorCode>().toEqualTypeOf<AdkErrorCode | ModelErrorCode>();
    // Closed: a made-up code is a type error, and `string` does not fit.
    // @ts-expect-error
    const bad: AdkErrorCode = 'NOT_A_CODE';
    expect(isAdkErrorCode(bad)).toBe(false);
    expectTypeOf<string>().not.toExtend<AdkErrorCode>();
    // The run-time list has every code of the union.
    expectTypeOf<AdkErrorCode>().toExtend<(typeof ADK_ERROR_CODES)[number]>();
    const code = 'MISSING_API_KEY' as string;
    if (isAdkErrorCode(code)) expectTypeOf(code).toEqualTypeOf<AdkErrorCode>();
    const exhaustive = (c: AdkErrorCode | ModelErrorCode): string => {
      switch (c) {
        case 'SAFETY':
          return 'blocked';
        default:
          return c;
      }
    };
    expect(exhaustive('SAFETY')).toBe('blocked');
  });

  it('parts and events narrow with guards and kind views; the wire shape is unchanged', () => {
    const parts: Part[] = [
      { text: 'thinking', thought: true },
      { text: 'hello' },
      { functionCall: { id: '1', name: 'f', args: { a: 1 } } },
      { thoughtSignature: 'sig' },
    ];
    const kinds = parts.map((p) => {
      const view = viewPart(p);
      switch (view.kind) {
        case 'text':
          expectTypeOf(view.text).toEqualTypeOf<string>();
          return `text:${view.text}`;
        case 'functionCall':
          expectTypeOf(view.functionCall.name).toEqualTypeOf<string>();
          return `call:${view.functionCall.name}`;
        default:
          return view.kind;
      }
    });
    expect(kinds).toEqual(['thought', 'text:hello', 'call:f', 'empty']);
    const text = parts.filter(isTextPart);
    expectTypeOf(text[0]!.text).toEqualTypeOf<string>();
    expect(text.map((p) => p.text)).toEqual(['hello']);
    expect(parts.filter(isFunctionCallPart).map((p) => p.functionCall.args)).toEqual([{ a: 1 }]);
    expect(JSON.stringify(parts[1])).toBe('{"text":"hello"}');

    const failed = {
      id: 'e',
      invocationId: 'i',
      author: 'a',
      timestamp: 1,
      actions: { stateDelta: {}, artifactDelta: {} },
      errorCode: 'API_CALL',
      errorMessage: 'down',
    } as Event;
    if (isErrorEvent(failed)) expectTypeOf(failed.errorCode).toEqualTypeOf<EventErrorCode>();
    const view = viewEvent(failed);
    expect(view.kind).toBe('error');
    if (view.kind === 'error') expect(view.errorMessage).toBe('down');
  });

  it('a failed run rejects with a typed error', async () => {
    const error = await runAgent(
      new LlmAgent({ name: 'a', model: new ScriptedModel([new Error('x')]) }),
      'hi',
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    if (error instanceof RunFailedError) expectTypeOf(error.code).toEqualTypeOf<AdkErrorCode>();
  });
});
