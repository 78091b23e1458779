import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Content,
  type Event,
  FunctionTool,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  type Plugin,
  PluginManager,
  Runner,
  runAgent,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

const add = new FunctionTool({
  name: 'add',
  description: 'adds',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

function text(t: string): Content {
  return { role: 'model', parts: [{ text: t }] };
}

describe('agent callbacks', () => {
  it('fire in order around agent, model and tool, and can write state', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([functionCallResponse('add', { a: 1, b: 2 }), 'three']);
    const agent = new LlmAgent({
      name: 'calc',
      model,
      tools: [add],
      beforeAgentCallback: ({ context }) => {
        log.push('beforeAgent');
        context.state.set('started', true);
      },
      afterAgentCallback: ({ context }) => {
        log.push('afterAgent');
        context.state.set('finished', true);
      },
      beforeModelCallback: ({ context }) => {
        log.push('beforeModel');
        context.state.set('calls', ((context.state.get<number>('calls') ?? 0) as number) + 1);
      },
      afterModelCallback: () => {
        log.push('afterModel');
      },
      beforeToolCallback: ({ args }) => {
        log.push(`beforeTool ${JSON.stringify(args)}`);
      },
      afterToolCallback: ({ result, context }) => {
        log.push(`afterTool ${JSON.stringify(result)}`);
        context.state.set('lastSum', result.sum);
      },
    });
    const result = await runAgent(agent, 'add 1 and 2');
    expect(log).toEqual([
      'beforeAgent',
      'beforeModel',
      'afterModel',
      'beforeTool {"a":1,"b":2}',
      'afterTool {"sum":3}',
      'beforeModel',
      'afterModel',
      'afterAgent',
    ]);
    expect(result.session.state).toEqual({ started: true, finished: true, calls: 2, lastSum: 3 });
    expect(result.text).toBe('three');
  });

  it('arrays are chained and the first defined result wins (short-circuit and replace)', async () => {
    const model = new ScriptedModel([functionCallResponse('add', { a: 1, b: 2 }), 'model answer']);
    const calls: string[] = [];
    const agent = new LlmAgent({
      name: 'calc',
      model,
      tools: [add],
      beforeToolCallback: [
        () => {
          calls.push('first');
        },
        () => {
          calls.push('second');
          return { sum: 42 };
        },
        () => {
          calls.push('never');
          return { sum: 0 };
        },
      ],
      afterModelCallback: [
        () => undefined,
        ({ response }) =>
          response.content?.parts[0]?.text
            ? { ...response, content: text(`${response.content.parts[0].text}!`) }
            : undefined,
      ],
    });
    const result = await runAgent(agent, 'go');
    expect(calls).toEqual(['first', 'second']);
    expect(model.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({ sum: 42 });
    expect(result.text).toBe('model answer!');
  });

  it('beforeModel can answer instead of the model; beforeAgent can skip the agent', async () => {
    const model = new ScriptedModel([]);
    const cached = await runAgent(
      new LlmAgent({ name: 'a', model, beforeModelCallback: () => ({ content: text('from cache') }) }),
      'hi',
    );
    expect(cached.text).toBe('from cache');
    expect(model.requests).toHaveLength(0);

    const skipped = await runAgent(
      new LlmAgent({ name: 'a', model, beforeAgentCallback: () => text('closed today') }),
      'hi',
    );
    expect(skipped.text).toBe('closed today');
    expect(skipped.events.map((e) => e.author)).toEqual(['user', 'a']);
  });

  it('onToolError recovers with a result; without it the error goes to the model', async () => {
    const flaky = new FunctionTool({
      name: 'flaky',
      description: '',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const model = new ScriptedModel([functionCallResponse('flaky'), 'ok']);
    await runAgent(
      new LlmAgent({
        name: 'a',
        model,
        tools: [flaky],
        onToolErrorCallback: ({ error }) => ({ recovered: (error as Error).message }),
      }),
      'go',
    );
    expect(model.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
      recovered: 'disk full',
    });
  });
});

describe('plugins', () => {
  it('run before agent callbacks at each hook, and every run-level hook fires', async () => {
    const log: string[] = [];
    const plugin: Plugin = {
      name: 'audit',
      init: () => {
        log.push('init');
      },
      onUserMessage: ({ message }) => {
        log.push('onUserMessage');
        return { ...message, parts: [{ text: `${message.parts[0]?.text} (audited)` }] };
      },
      beforeRun: () => {
        log.push('beforeRun');
      },
      beforeAgent: () => {
        log.push('plugin.beforeAgent');
      },
      beforeModel: () => {
        log.push('plugin.beforeModel');
      },
      afterModel: () => {
        log.push('plugin.afterModel');
      },
      beforeTool: () => {
        log.push('plugin.beforeTool');
      },
      afterTool: () => {
        log.push('plugin.afterTool');
      },
      afterAgent: () => {
        log.push('plugin.afterAgent');
      },
      onEvent: ({ event }) => {
        log.push(`onEvent ${event.author}`);
        return { ...event, customMetadata: { audited: true } };
      },
      afterRun: () => {
        log.push('afterRun');
      },
      close: () => {
        log.push('close');
      },
    };
    const model = new ScriptedModel([functionCallResponse('add', { a: 2, b: 2 }), 'four']);
    const agent = new LlmAgent({
      name: 'calc',
      model,
      tools: [add],
      beforeAgentCallback: () => {
        log.push('agent.beforeAgent');
      },
      beforeModelCallback: () => {
        log.push('agent.beforeModel');
      },
      beforeToolCallback: () => {
        log.push('agent.beforeTool');
      },
    });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService,
      autoCreateSession: true,
      plugins: [plugin],
    });
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('2+2') }))
      events.push(e);
    await runner.close();
    expect(log).toEqual([
      'init',
      'onUserMessage',
      'onEvent user',
      'beforeRun',
      'plugin.beforeAgent',
      'agent.beforeAgent',
      'plugin.beforeModel',
      'agent.beforeModel',
      'plugin.afterModel',
      'onEvent calc',
      'plugin.beforeTool',
      'agent.beforeTool',
      'plugin.afterTool',
      'onEvent calc',
      'plugin.beforeModel',
      'agent.beforeModel',
      'plugin.afterModel',
      'onEvent calc',
      'plugin.afterAgent',
      'afterRun',
      'close',
    ]);
    expect(model.requests[0]!.contents[0]).toEqual(userContent('2+2 (audited)'));
    const stored = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    expect(stored?.events.every((e) => e.customMetadata?.audited === true)).toBe(true);
    expect(events.every((e) => e.customMetadata?.audited === true)).toBe(true);
  });

  it('a plugin short-circuit wins over agent callbacks', async () => {
    const model = new ScriptedModel([]);
    const result = await runAgent(
      new LlmAgent({ name: 'a', model, beforeModelCallback: () => ({ content: text('agent') }) }),
      'hi',
      { plugins: [{ name: 'p', beforeModel: () => ({ content: text('plugin') }) }] },
    );
    expect(result.text).toBe('plugin');
  });

  it('beforeRun may halt the run with a reply, in either style', async () => {
    const model = new ScriptedModel([]);
    const direct = await runAgent(new LlmAgent({ name: 'a', model }), 'hi', {
      plugins: [{ name: 'gate', beforeRun: () => text('maintenance window') }],
    });
    expect(direct.text).toBe('maintenance window');

    class Quota implements Plugin {
      readonly name = 'quota';
      private used = 0;
      constructor(private readonly limit: number) {}
      beforeRun() {
        this.used++;
        return this.used > this.limit ? { halt: text('quota exceeded') } : { continue: true as const };
      }
    }
    const quota = new Quota(1);
    const m2 = new ScriptedModel({ respond: () => 'answer' });
    const agent = new LlmAgent({ name: 'b', model: m2 });
    expect((await runAgent(agent, 'one', { plugins: [quota] })).text).toBe('answer');
    expect((await runAgent(agent, 'two', { plugins: [quota] })).text).toBe('quota exceeded');
    expect(m2.requests).toHaveLength(1);
  });

  it('a throwing hook becomes an error event and leaves the session consistent', async () => {
    const model = new ScriptedModel(['fine']);
    const result = await runAgent(new LlmAgent({ name: 'a', model }), 'hi', {
      rejectOnError: false,
      plugins: [
        {
          name: 'broken',
          afterModel: () => {
            throw new Error('oops');
          },
        },
      ],
    });
    expect(result.error).toEqual({ code: 'PLUGIN', message: 'Plugin "broken" failed in afterModel: oops' });
    expect(result.session.events.map((e) => e.author)).toEqual(['user', 'a']);
    expect(result.session.events[1]?.errorCode).toBe('PLUGIN');
  });

  it('plugin names are unique', () => {
    const manager = new PluginManager([{ name: 'x' }]);
    expect(() => manager.register({ name: 'x' })).toThrow(/already registered/);
    try {
      manager.register({ name: 'x' });
    } catch (e) {
      expect(isAdkError(e, 'ALREADY_EXISTS')).toBe(true);
    }
  });
});
