import { describeError, errorCodeOf } from '../errors/errors.js';
import { createEvent, type Event, type EventFields } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { setAgentKind } from './agent-kind.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';

/**
 * Where a workflow agent starts when the run resumes a paused descendant: the index of the child on
 * the way to it (docs/architecture.md §5.3). The children before it finished before the pause.
 */
function resumeIndex(agent: BaseAgent, ctx: InvocationContext): number | undefined {
  const path = ctx.shared.resumePath;
  const at = path ? path.indexOf(agent) : -1;
  if (!path || at < 0 || at + 1 >= path.length) return undefined;
  // The next agent on the path is the paused one: it resumes from the events on its own.
  if (at + 2 === path.length) ctx.shared.resumePath = undefined;
  const index = agent.subAgents.indexOf(path[at + 1] as BaseAgent);
  return index < 0 ? undefined : index;
}

/**
 * Whether a descendant paused the run: a long-running call or a confirmation request waits for an
 * answer. A long-running call answered at once with an interim result does not pause.
 */
class PauseWatch {
  private readonly waiting = new Set<string>();
  constructor(private readonly agent: BaseAgent) {}
  see(event: Event): void {
    const ids = event.longRunningToolIds;
    if (ids && ids.length > 0 && this.agent.findSubAgent(event.author) !== undefined)
      for (const id of ids) this.waiting.add(id);
    if (this.waiting.size === 0 || !event.content) return;
    for (const p of event.content.parts) if (p.functionResponse) this.waiting.delete(p.functionResponse.id);
  }
  get paused(): boolean {
    return this.waiting.size > 0;
  }
}

/**
 * Runs its sub-agents one after another in the same branch; each sees what the previous wrote. A
 * sub-agent that pauses (long-running call, confirmation) stops the sequence; when the run resumes
 * it, the sequence goes on with the next sub-agent.
 */
export class SequentialAgent extends BaseAgent {
  /** @internal */
  constructor(options: BaseAgentOptions) {
    super(options);
    setAgentKind(this, 'sequential');
  }

  protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const subs = this.subAgents;
    for (let i = resumeIndex(this, ctx) ?? 0; i < subs.length; i++) {
      if (ctx.ended) return;
      const watch = new PauseWatch(this);
      for await (const event of (subs[i] as BaseAgent).run(ctx)) {
        yield event;
        watch.see(event);
      }
      if (watch.paused) return;
    }
  }
}

export interface LoopAgentOptions extends BaseAgentOptions {
  /** Stop after this many passes over the sub-agents (default: until an escalation). */
  maxIterations?: number;
}

/**
 * Runs its sub-agents in order, repeatedly, until one escalates (e.g. `exit_loop`) or maxIterations.
 * A paused sub-agent stops the loop and records the iteration in an `agentState` event, so a resumed
 * run continues that iteration with the next sub-agent and still counts towards maxIterations.
 */
export class LoopAgent extends BaseAgent {
  readonly maxIterations: number | undefined;

  constructor(options: LoopAgentOptions) {
    super(options);
    this.maxIterations = options.maxIterations;
    setAgentKind(this, 'loop');
  }

  protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const subs = this.subAgents;
    let start = resumeIndex(this, ctx);
    const first = start === undefined ? 0 : this.pausedIteration(ctx);
    for (let i = first; this.maxIterations === undefined || i < this.maxIterations; i++) {
      for (let j = start ?? 0; j < subs.length; j++) {
        let escalated = false;
        const watch = new PauseWatch(this);
        for await (const event of (subs[j] as BaseAgent).run(ctx)) {
          yield event;
          if (event.actions.escalate) escalated = true;
          watch.see(event);
        }
        if (watch.paused) {
          yield this.makeEvent(ctx, { actions: { agentState: { iteration: i } } });
          return;
        }
        if (escalated || ctx.ended) return;
      }
      start = undefined;
      if (subs.length === 0) return;
    }
  }

  /** The iteration this loop was in when it paused: its latest `agentState` event. */
  private pausedIteration(ctx: InvocationContext): number {
    const events = visibleEvents(ctx.session.events);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Event;
      if (event.author !== this.name) continue;
      const iteration = event.actions.agentState?.iteration;
      if (typeof iteration === 'number') return iteration;
    }
    return 0;
  }
}

export interface ParallelAgentOptions extends BaseAgentOptions {
  /** Abort the other branches as soon as one fails (default: let them finish). */
  failFast?: boolean;
}

type BranchItem = { kind: 'event'; event: Event; ack: () => void } | { kind: 'done' };

/**
 * Runs its sub-agents concurrently, each on its own branch (`parent.child`, so each sees only its
 * own history), and yields their events as they occur. A branch does not continue until its last
 * event has been committed. A failing branch becomes an error event; the others finish unless
 * `failFast` is set.
 */
export class ParallelAgent extends BaseAgent {
  readonly failFast: boolean;

  constructor(options: ParallelAgentOptions) {
    super(options);
    this.failFast = options.failFast ?? false;
    setAgentKind(this, 'parallel');
  }

  protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) controller.abort(ctx.signal.reason);
    else ctx.signal.addEventListener('abort', onAbort, { once: true });

    const items: BranchItem[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const push = (item: BranchItem) => {
      // Once the consumer has stopped, nothing waits for events any more.
      if (closed) {
        if (item.kind === 'event') item.ack();
        return;
      }
      items.push(item);
      wake?.();
    };

    const branches = this.subAgents.map(async (sub) => {
      const branch = `${ctx.branch ?? this.name}.${sub.name}`;
      const child = ctx.with({ branch, signal: controller.signal, scope: { ended: false } });
      try {
        for await (const event of sub.run(child)) {
          await new Promise<void>((ack) => push({ kind: 'event', event, ack }));
        }
      } catch (error) {
        if (!controller.signal.aborted) {
          const event = createEvent({
            invocationId: ctx.invocationId,
            author: sub.name,
            branch,
            errorCode: errorCodeOf(error),
            errorMessage: `Branch ${sub.name} failed: ${describeError(error)}`,
          });
          await new Promise<void>((ack) => push({ kind: 'event', event, ack }));
          if (this.failFast) controller.abort(error);
        }
      } finally {
        push({ kind: 'done' });
      }
    });

    let running = branches.length;
    let current: BranchItem | undefined;
    try {
      while (running > 0) {
        const item = items.shift();
        if (!item) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (item.kind === 'done') {
          running--;
          continue;
        }
        current = item;
        yield item.event;
        current = undefined;
        item.ack();
      }
    } finally {
      closed = true;
      ctx.signal.removeEventListener('abort', onAbort);
      if (running > 0) {
        // The consumer stopped early: stop the branches and release any waiting on an ack.
        controller.abort();
        if (current?.kind === 'event') current.ack();
        for (const item of items) if (item.kind === 'event') item.ack();
      }
      await Promise.allSettled(branches);
    }
  }
}

export interface FunctionAgentOptions extends BaseAgentOptions {
  run: (context: InvocationContext, agent: FunctionAgent) => AsyncIterable<Event>;
}

/** A custom agent from an async generator function, for logic that needs no subclass. */
export class FunctionAgent extends BaseAgent {
  private readonly body: FunctionAgentOptions['run'];

  constructor(options: FunctionAgentOptions) {
    super(options);
    this.body = options.run;
  }

  /** An event authored by this agent in the given context. */
  event(ctx: InvocationContext, fields: EventFields): Event {
    return this.makeEvent(ctx, fields);
  }

  protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* this.body(ctx, this);
  }
}
