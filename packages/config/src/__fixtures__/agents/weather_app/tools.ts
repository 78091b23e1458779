import {
  BaseAgent,
  type BaseAgentOptions,
  type CallbackContext,
  type Event,
  FunctionTool,
  type InvocationContext,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';

export const get_weather = new FunctionTool({
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, forecast: 'sunny', celsius: 21 }),
});

export const start_approval = new FunctionTool({
  name: 'start_approval',
  description: 'Asks a human to approve a request.',
  parameters: z.object({ what: z.string() }),
  execute: ({ what }) => ({ status: 'pending', what }),
});

/** A tool factory: `args` from the YAML arrive as one object. */
export function make_greeter(args: { greeting: string }) {
  return new FunctionTool({
    name: 'greet',
    description: 'Greets someone.',
    parameters: z.object({ who: z.string() }),
    execute: ({ who }) => `${args.greeting}, ${who}!`,
  });
}

export const record_model_call = ({ context }: { context: CallbackContext; request: LlmRequest }) => {
  context.state.set('model_calls', Number(context.state.get('model_calls') ?? 0) + 1);
  return undefined;
};

export const answer_instead = (): LlmResponse => ({
  content: { role: 'model', parts: [{ text: 'answered by a callback' }] },
});

export const Forecast = z.object({ city: z.string(), forecast: z.string() });
export const Question = z.object({ city: z.string() });

export const not_a_tool = 42;
export function plain_function() {
  return 'not a tool';
}

export const scripted = new ScriptedModel({ respond: () => 'scripted answer' });

/** A model factory for model_code with args. */
export function scripted_saying(text: string) {
  return new ScriptedModel({ respond: () => text });
}

export const prebuilt_agent = new LlmAgent({ name: 'prebuilt', instruction: 'I was built in code.' });

/** A custom agent class with its own config keys. */
export class EchoAgent extends BaseAgent {
  readonly reply: string;

  constructor(options: BaseAgentOptions & { reply?: string }) {
    super(options);
    this.reply = options.reply ?? 'echo';
  }

  static fromConfig(config: { reply?: string }, context: { options: BaseAgentOptions }) {
    return new EchoAgent({ ...context.options, ...(config.reply ? { reply: config.reply } : {}) });
  }

  protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield this.makeEvent(ctx, { content: { role: 'model', parts: [{ text: this.reply }] } });
  }
}

export class NotAnAgent {}
