import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content } from '../events/content.js';
import type { Event, EventActions, RouteValue } from '../events/event.js';
import type { Session } from '../sessions/session.js';
import { State } from '../sessions/state.js';
import type { BaseNode } from './base-node.js';
import type { ReplayIndex } from './replay.js';

export interface RunNodeOptions {
  /** The child's output becomes this node's output. */
  useAsOutput?: boolean;
  /** The child run's id in its path (default: 1, 2, … per child name, in call order). */
  runId?: string;
}

/** What a child run started with `ctx.runNode` produced. */
export interface NodeResult {
  output: unknown;
  route: RouteValue | RouteValue[] | undefined;
}

/** @internal what a NodeContext needs from the engine that runs its node */
export interface NodeRuntime {
  runChild(parent: NodeContext, child: unknown, input: unknown, options: RunNodeOptions): Promise<NodeResult>;
}

export interface NodeContextInit {
  invocationContext: InvocationContext;
  node: BaseNode;
  path: string;
  runId: string;
  workflowName: string;
  attemptCount: number;
  abortSignal: AbortSignal;
  resumeInputs: Record<string, unknown>;
  /** @internal the engine that runs the node (kept out of the published types) */
  runtime: NodeRuntime;
  replay: ReplayIndex;
  emit: (event: Event) => Promise<void>;
}

/**
 * The context of one node run (one attempt). State writes made through `state` travel on the
 * node's output event as `actions.stateDelta`; `route` picks the outgoing edges; `output` is the
 * node's result (as an alternative to returning it).
 */
export class NodeContext {
  readonly invocationContext: InvocationContext;
  readonly node: BaseNode;
  /** This run in the workflow tree: `wf@1/node@2`. */
  readonly path: string;
  readonly runId: string;
  /** Name of the workflow the node belongs to (author of its events). */
  readonly workflowName: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attemptCount: number;
  /** Fires when the node times out, a sibling fails, or the run is cancelled. */
  readonly signal: AbortSignal;
  /** @deprecated The same as `signal`. */
  readonly abortSignal: AbortSignal;
  /** Replies to this node's questions, by interrupt id (set when it runs again on resume). */
  readonly resumeInputs: Record<string, unknown>;
  readonly actions: EventActions;
  readonly state: State;
  route: RouteValue | RouteValue[] | undefined;
  /** @internal */
  outputCount = 0;
  /** @internal interrupt ids this run waits on */
  readonly interruptIds: string[] = [];
  /** @internal node paths (ancestors) this run's output also stands for */
  outputFor: string[] = [];
  /** @internal a child run gave this node its output */
  outputDelegated = false;
  /**
   * @internal a graph's terminal node gave this workflow its output: that node's event lists this
   * path in `outputFor`, and the workflow records no output event of its own (ADK 2.x)
   */
  outputFromTerminal = false;
  private outputValue: unknown;
  /** @internal */
  readonly runtime: NodeRuntime;
  /** @internal what the invocation's log says about earlier runs */
  readonly replay: ReplayIndex;
  /** @internal */
  readonly emitEvent: (event: Event) => Promise<void>;
  /** @internal run-id counters of `runNode` children, by child name */
  readonly childRuns = new Map<string, number>();

  constructor(init: NodeContextInit) {
    this.invocationContext = init.invocationContext;
    this.node = init.node;
    this.path = init.path;
    this.runId = init.runId;
    this.workflowName = init.workflowName;
    this.attemptCount = init.attemptCount;
    this.abortSignal = init.abortSignal;
    this.signal = init.abortSignal;
    this.resumeInputs = init.resumeInputs;
    this.runtime = init.runtime;
    this.replay = init.replay;
    this.emitEvent = init.emit;
    this.actions = { stateDelta: {}, artifactDelta: {} };
    this.state = new State(
      init.invocationContext.session.state,
      this.actions.stateDelta,
      init.invocationContext.shared.tempState,
    );
  }

  get output(): unknown {
    return this.outputValue;
  }
  set output(value: unknown) {
    this.outputValue = value;
    this.outputCount++;
  }

  /** @internal true once the node gave an output (by return, yield, `ctx.output` or a child) */
  get hasOutput(): boolean {
    return this.outputCount > 0;
  }

  get session(): Session {
    return this.invocationContext.session;
  }
  get invocationId(): string {
    return this.invocationContext.invocationId;
  }
  get userContent(): Content | undefined {
    return this.invocationContext.userContent;
  }
  get branch(): string | undefined {
    return this.invocationContext.branch;
  }

  /**
   * Runs another node (a function, agent, tool, workflow or node) as a child of this one and
   * returns its result. Children are numbered per name (1, 2, …) unless `runId` is given, so a
   * resumed run finds the children that already finished and does not run them again.
   */
  runNode(child: unknown, input?: unknown, options: RunNodeOptions = {}): Promise<NodeResult> {
    return this.runtime.runChild(this, child, input, options);
  }
}
