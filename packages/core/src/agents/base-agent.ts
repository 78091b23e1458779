import { ConfigError, isAdkError, LiveNotSupportedError } from '../errors/errors.js';
import type { Content } from '../events/content.js';
import { createEvent, type Event, type EventFields, hasActions } from '../events/event.js';
import type { AgentHookArgs, MaybePromise } from '../plugins/plugin.js';
import { endSpan, startSpan } from '../telemetry/tracing.js';
import { CallbackContext } from './callback-context.js';
import type { InvocationContext } from './invocation-context.js';

export type AgentCallback = (args: AgentHookArgs) => MaybePromise<Content | undefined | void>;
/** One callback or several, tried in order; the first to return a value wins. */
export type Callbacks<F> = F | F[];

export interface BaseAgentOptions {
  /** Unique in the agent tree; a JavaScript identifier (letters, digits, `_`), not `user`. */
  name: string;
  description?: string;
  subAgents?: BaseAgent[];
  beforeAgentCallback?: Callbacks<AgentCallback>;
  afterAgentCallback?: Callbacks<AgentCallback>;
}

export function asArray<F>(value: Callbacks<F> | undefined): F[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

const NO_RESULT: Promise<undefined> = /* @__PURE__ */ Promise.resolve(undefined);

/** Runs callbacks in order and returns the first defined result. */
export function firstResult<A, R>(
  callbacks: ((args: A) => MaybePromise<R | undefined | void>)[],
  args: A,
): Promise<R | undefined> {
  // Called several times per step, usually with no callbacks: no async frame for those.
  return callbacks.length === 0 ? NO_RESULT : firstResultOf<A, R>(callbacks, args);
}

async function firstResultOf<A, R>(
  callbacks: ((args: A) => MaybePromise<R | undefined | void>)[],
  args: A,
): Promise<R | undefined> {
  for (const cb of callbacks) {
    const result = await cb(args);
    if (result !== undefined && result !== null) return result as R;
  }
  return undefined;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Errors already offered to `onAgentError` hooks (an error rethrown by each ancestor agent). */
const reportedErrors = new WeakSet<object>();

/**
 * An agent: `run(context)` yields events. Subclasses implement `runImpl`; `run` adds the
 * before/after agent callbacks (plugins first), the `invoke_agent` span and the context switch.
 */
export abstract class BaseAgent {
  readonly name: string;
  readonly description: string;
  readonly subAgents: readonly BaseAgent[];
  private parent: BaseAgent | undefined;
  protected readonly beforeAgentCallbacks: AgentCallback[];
  protected readonly afterAgentCallbacks: AgentCallback[];

  constructor(options: BaseAgentOptions) {
    if (!NAME.test(options.name)) {
      throw new ConfigError(
        `Invalid agent name "${options.name}": use letters, digits and underscores, not starting with a digit`,
      );
    }
    if (options.name === 'user') throw new ConfigError('"user" is reserved and cannot be an agent name');
    this.name = options.name;
    this.description = options.description ?? '';
    this.subAgents = options.subAgents ?? [];
    this.beforeAgentCallbacks = asArray(options.beforeAgentCallback);
    this.afterAgentCallbacks = asArray(options.afterAgentCallback);
    for (const sub of this.subAgents) {
      if (sub.parent) {
        throw new ConfigError(
          `Agent "${sub.name}" already has a parent ("${sub.parent.name}"); an agent can be in one tree only`,
        );
      }
      sub.parent = this;
    }
    const seen = new Set<string>();
    for (const agent of this.descendantsAndSelf()) {
      if (seen.has(agent.name))
        throw new ConfigError(`Agent names must be unique in a tree: "${agent.name}" appears twice`);
      seen.add(agent.name);
    }
  }

  get parentAgent(): BaseAgent | undefined {
    return this.parent;
  }

  get rootAgent(): BaseAgent {
    let agent: BaseAgent = this;
    while (agent.parent) agent = agent.parent;
    return agent;
  }

  /** This agent or a descendant with that name. */
  findAgent(name: string): BaseAgent | undefined {
    if (this.name === name) return this;
    return this.findSubAgent(name);
  }

  findSubAgent(name: string): BaseAgent | undefined {
    for (const sub of this.subAgents) {
      const found = sub.findAgent(name);
      if (found) return found;
    }
    return undefined;
  }

  *descendantsAndSelf(): Generator<BaseAgent> {
    yield this;
    for (const sub of this.subAgents) yield* sub.descendantsAndSelf();
  }

  /** Runs the agent in a context derived from the caller's. */
  run(parentContext: InvocationContext): AsyncGenerator<Event, void, undefined> {
    return this.invoke(parentContext, false);
  }

  /**
   * Runs the agent in a live session (`Runner.runLive`): the context carries the
   * `liveRequestQueue`. Before/after agent callbacks run as in `run`.
   */
  runLive(parentContext: InvocationContext): AsyncGenerator<Event, void, undefined> {
    return this.invoke(parentContext, true);
  }

  private async *invoke(
    parentContext: InvocationContext,
    live: boolean,
  ): AsyncGenerator<Event, void, undefined> {
    const trace = startSpan(`invoke_agent ${this.name}`, parentContext.trace, () => ({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': this.name,
      'gen_ai.agent.description': this.description,
      'gen_ai.conversation.id': parentContext.session.id,
    }));
    const ctx = parentContext.with({ agent: this, trace });
    let failure: unknown;
    try {
      const before = await this.agentHook(ctx, 'before');
      if (before) {
        yield before.event;
        if (before.stop) return;
      }
      if (ctx.ended) return;
      yield* live ? this.runLiveImpl(ctx) : this.runImpl(ctx);
      if (ctx.signal.aborted) return;
      const after = await this.agentHook(ctx, 'after');
      if (after) yield after.event;
    } catch (error) {
      const recovered = await this.onError(ctx, error);
      if (!recovered) {
        failure = error;
        throw error;
      }
      yield recovered;
    } finally {
      endSpan(trace, failure);
    }
  }

  protected abstract runImpl(context: InvocationContext): AsyncGenerator<Event, void, undefined>;

  /** The agent's live behaviour; agents that cannot hold a live session fail with LiveNotSupportedError. */
  // biome-ignore lint/correctness/useYield: fails before yielding anything
  protected async *runLiveImpl(_context: InvocationContext): AsyncGenerator<Event, void, undefined> {
    throw new LiveNotSupportedError(
      `Agent "${this.name}" (${this.constructor.name}) cannot run live; live sessions are held by LlmAgents`,
    );
  }

  /** An event for the agent with the given content and actions. */
  protected makeEvent(ctx: InvocationContext, fields: EventFields): Event {
    return createEvent({ invocationId: ctx.invocationId, author: this.name, branch: ctx.branch, ...fields });
  }

  /**
   * `onAgentError` plugins, once per error (for the agent where it arose, not each ancestor it
   * passes through). Content they return becomes this agent's reply instead of the error.
   */
  private async onError(ctx: InvocationContext, error: unknown): Promise<Event | undefined> {
    if (ctx.pluginManager.isEmpty || ctx.signal.aborted || isAdkError(error, 'CANCELLED')) return undefined;
    // A tripwire ends the invocation: no plugin may answer in its place.
    if (isAdkError(error, 'GUARDRAIL_TRIPPED')) return undefined;
    if (typeof error === 'object' && error !== null) {
      if (reportedErrors.has(error)) return undefined;
      reportedErrors.add(error);
    }
    const context = new CallbackContext(ctx);
    const content = await ctx.pluginManager.onAgentError({ agent: this, context, error });
    return content ? this.makeEvent(ctx, { content, actions: context.actions }) : undefined;
  }

  private async agentHook(
    ctx: InvocationContext,
    which: 'before' | 'after',
  ): Promise<{ event: Event; stop: boolean } | undefined> {
    const callbacks = which === 'before' ? this.beforeAgentCallbacks : this.afterAgentCallbacks;
    if (callbacks.length === 0 && ctx.pluginManager.isEmpty) return undefined;
    const context = new CallbackContext(ctx);
    const args: AgentHookArgs = { agent: this, context };
    const content =
      (which === 'before'
        ? await ctx.pluginManager.beforeAgent(args)
        : await ctx.pluginManager.afterAgent(args)) ?? (await firstResult(callbacks, args));
    if (content) return { event: this.makeEvent(ctx, { content, actions: context.actions }), stop: true };
    if (hasActions(context.actions))
      return { event: this.makeEvent(ctx, { actions: context.actions }), stop: false };
    return undefined;
  }
}
