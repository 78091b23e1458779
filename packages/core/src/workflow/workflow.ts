import { BaseAgent, type BaseAgentOptions } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { ValidationError } from '../errors/errors.js';
import { contentText } from '../events/content.js';
import type { Event } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { formatIssues, type SchemaIssue } from '../utils/zod.js';
import { AgentNode } from './agent-node.js';
import { BaseNode, type BaseNodeOptions, START } from './base-node.js';
import { WORKFLOW_BRAND } from './brand.js';
import { WorkflowOutputError, WorkflowResumeError, WorkflowValidationError } from './errors.js';
import { type ChainElement, type EdgeItem, Graph } from './graph.js';
import { toNode } from './node.js';
import type { NodeContext, NodeResult, NodeRuntime, RunNodeOptions } from './node-context.js';
import { ChildPaused, executeNode, type RunOutcome } from './node-runner.js';
import { ParallelWorker } from './parallel-worker.js';
import { checkReply, ReplayIndex } from './replay.js';
import { REQUEST_INPUT } from './request-input.js';

/** A schema the workflow's output must match (a zod schema, or anything with `safeParse`). */
export interface OutputSchema {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: SchemaIssue[] } };
}

export interface WorkflowOptions extends Omit<BaseAgentOptions, 'subAgents'> {
  /** The graph: a chain (`[START, a, b]`) or a list of chains and `Edge`s. */
  edges: readonly EdgeItem[] | readonly ChainElement[];
  /** How many nodes of this workflow run at once (default: no limit). */
  maxConcurrency?: number;
  /** Checks the workflow's output. */
  outputSchema?: OutputSchema;
  /** Used when this workflow is a node of another one (see `node()`). */
  rerunOnResume?: BaseNodeOptions['rerunOnResume'];
  retryConfig?: BaseNodeOptions['retryConfig'];
  timeout?: BaseNodeOptions['timeout'];
}

/** @google/adk's name for {@link WorkflowOptions}. */
export type WorkflowConfig = WorkflowOptions;

export function isWorkflow(value: unknown): value is Workflow {
  return value instanceof Workflow;
}

interface Trigger {
  node: BaseNode;
  input: unknown;
  runId: string;
  path: string;
}

const runtime: NodeRuntime = {
  async runChild(
    parent: NodeContext,
    child: unknown,
    input: unknown,
    options: RunNodeOptions,
  ): Promise<NodeResult> {
    const node = toNode(child);
    const count = (parent.childRuns.get(node.name) ?? 0) + 1;
    parent.childRuns.set(node.name, count);
    const runId = options.runId ?? String(count);
    const outcome = await executeNode({
      node,
      input,
      path: `${parent.path}/${node.name}@${runId}`,
      runId,
      workflowName: parent.workflowName,
      invocationContext: parent.invocationContext,
      signal: parent.abortSignal,
      emit: parent.emitEvent,
      replay: parent.replay,
      runtime,
      outputFor: options.useAsOutput ? [parent.path, ...parent.outputFor] : [],
    });
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'waiting') {
      // Recorded on the parent too, so a parent that catches the pause still waits.
      for (const id of outcome.interruptIds)
        if (!parent.interruptIds.includes(id)) parent.interruptIds.push(id);
      throw new ChildPaused(outcome.interruptIds);
    }
    if (options.useAsOutput) {
      parent.output = outcome.output;
      parent.outputDelegated = true;
    }
    return { output: outcome.output, route: outcome.route };
  },
};

/**
 * A graph of nodes (functions, agents, tools, other workflows) joined by edges, as in ADK 2.0.
 * It is an agent, so it runs wherever an agent does (a Runner's root, a sub-agent, an AgentTool);
 * inside another workflow it is a node. See the package README for the edge syntax and semantics,
 * and docs/decisions/0012-workflow-resume.md for how a paused workflow resumes.
 */
export class Workflow extends BaseAgent {
  readonly graph: Graph;
  readonly maxConcurrency: number | undefined;
  readonly outputSchema: OutputSchema | undefined;
  /** Options that apply when this workflow is a node of another one. */
  readonly nodeOptions: Partial<BaseNodeOptions>;

  constructor(options: WorkflowOptions) {
    // Everything is checked before the agents are adopted as sub-agents (they can have one parent).
    const max = options.maxConcurrency;
    if (max !== undefined && !(Number.isInteger(max) && max > 0)) {
      throw new WorkflowValidationError(
        'invalid-option',
        `maxConcurrency of "${options.name}" must be a positive integer`,
      );
    }
    const graph = new Graph(options.edges);
    const agents: BaseAgent[] = [];
    for (const n of graph.nodes.values()) {
      const agent = agentOf(n);
      if (agent && !agents.includes(agent)) agents.push(agent);
    }
    const {
      edges: _edges,
      maxConcurrency,
      outputSchema,
      rerunOnResume,
      retryConfig,
      timeout,
      ...rest
    } = options;
    super({ ...rest, subAgents: agents });
    // A brand set here, not a computed class field (bundlers keep those as side effects).
    (this as unknown as Record<symbol, boolean>)[WORKFLOW_BRAND] = true;
    this.graph = graph;
    this.maxConcurrency = maxConcurrency;
    this.outputSchema = outputSchema;
    this.nodeOptions = {
      ...(rerunOnResume !== undefined ? { rerunOnResume } : {}),
      ...(retryConfig !== undefined ? { retryConfig } : {}),
      ...(timeout !== undefined ? { timeout } : {}),
    };
  }

  /** @internal the node this workflow is when it appears in another workflow's edges */
  asSubWorkflowNode(options: Partial<BaseNodeOptions>): BaseNode {
    return new SubWorkflowNode(this, { ...this.nodeOptions, ...options }, true);
  }

  /** Runs the workflow for one invocation (or resumes it, from the invocation's events). */
  protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const resumed = ctx.userContent?.parts.some((p) => p.functionResponse) ?? false;
    const replay = new ReplayIndex(visibleEvents(ctx.session.events), ctx.invocationId, resumed);
    checkResumeMessage(ctx, replay);
    // Runs of this workflow that finished earlier in the invocation (a loop around it) keep their ids.
    let runId = 1;
    while (replay.completions.has(`${this.name}@${runId}`)) runId++;
    const input = replay.startText ?? contentText(ctx.userContent);

    type Item = { event: Event; ack: () => void };
    const items: Item[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const emit = (event: Event) =>
      new Promise<void>((ack) => {
        if (closed) return ack();
        items.push({ event, ack });
        wake?.();
      });
    let finished = false;
    const task = executeNode({
      node: new SubWorkflowNode(this, this.nodeOptions),
      input,
      path: `${this.name}@${runId}`,
      runId: String(runId),
      workflowName: this.name,
      invocationContext: ctx,
      signal: ctx.signal,
      emit,
      replay,
      runtime,
      outputFor: [],
    }).finally(() => {
      finished = true;
      wake?.();
    });
    let current: Item | undefined;
    try {
      for (;;) {
        const item = items.shift();
        if (item) {
          current = item;
          yield item.event;
          current = undefined;
          item.ack();
          continue;
        }
        if (finished) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      const outcome = await task;
      if (outcome.status === 'failed' && ctx.signal.aborted) throw outcome.error;
    } finally {
      closed = true;
      current?.ack();
      for (const item of items) item.ack();
    }
  }

  /** @internal Runs the graph as the body of this workflow's node run. */
  async runGraph(
    nctx: NodeContext,
    input: unknown,
    nested: boolean,
  ): Promise<{ output: unknown } | undefined> {
    const parent = nctx.invocationContext;
    const ic = nested
      ? parent.with({
          agent: this,
          branch: `${parent.branch ?? nctx.workflowName}.${this.name}@${nctx.runId}`,
        })
      : parent;
    const controller = new AbortController();
    const onAbort = () => controller.abort(nctx.abortSignal.reason);
    if (nctx.abortSignal.aborted) controller.abort(nctx.abortSignal.reason);
    else nctx.abortSignal.addEventListener('abort', onAbort, { once: true });

    let failed: { error: unknown } | undefined;
    const emit = (event: Event) => (failed ? Promise.resolve() : nctx.emitEvent(event));
    const runCounts = new Map<string, number>();
    const queue: Trigger[] = [];
    const joins = new Map<string, Map<string, unknown>>();
    const fastForward: { t: Trigger; outcome: RunOutcome; index: number }[] = [];
    const finished: { t: Trigger; outcome: RunOutcome }[] = [];
    const waiting: string[] = [];
    const terminal: { path: string; output: unknown }[] = [];
    let live = 0;
    let wake: (() => void) | undefined;
    const replay = nctx.replay;

    const trigger = (node: BaseNode, value: unknown) => {
      const n = (runCounts.get(node.name) ?? 0) + 1;
      runCounts.set(node.name, n);
      queue.push({ node, input: value, runId: String(n), path: `${nctx.path}/${node.name}@${n}` });
    };
    const start = (t: Trigger) => {
      live++;
      executeNode({
        node: t.node,
        input: t.input,
        path: t.path,
        runId: t.runId,
        workflowName: this.name,
        invocationContext: ic,
        signal: controller.signal,
        emit,
        replay,
        runtime,
        // A terminal node's output is the workflow's too: its event says so for both (ADK 2.x).
        outputFor: this.graph.isTerminal(t.node.name) ? [nctx.path, ...nctx.outputFor] : [],
      })
        .catch((error: unknown): RunOutcome => ({ status: 'failed', error }))
        .then((outcome) => {
          finished.push({ t, outcome });
          wake?.();
        });
    };
    const handle = (t: Trigger, outcome: RunOutcome) => {
      if (outcome.status === 'failed') {
        failed = { error: outcome.error };
        controller.abort(outcome.error);
        queue.length = 0;
        return;
      }
      if (outcome.status === 'waiting') {
        waiting.push(...outcome.interruptIds);
        return;
      }
      const name = t.node.name;
      if (this.graph.isTerminal(name) && outcome.output !== undefined)
        terminal.push({ path: t.path, output: outcome.output });
      for (const next of this.graph.next(name, outcome.route)) {
        if (!next.requiresAllPredecessors) {
          trigger(next, outcome.output);
          continue;
        }
        const got = joins.get(next.name) ?? new Map<string, unknown>();
        got.set(name, outcome.output);
        joins.set(next.name, got);
        if (this.graph.predecessorsOf(next.name).every((p) => got.has(p))) {
          joins.delete(next.name);
          trigger(next, Object.fromEntries(got));
        }
      }
    };

    for (const first of this.graph.next(START.name, undefined)) trigger(first, input);
    try {
      for (;;) {
        if (failed) break;
        for (let i = 0; i < queue.length; ) {
          const t = queue[i] as Trigger;
          const record = replay.completions.get(t.path);
          if (record) {
            queue.splice(i, 1);
            fastForward.push({
              t,
              outcome: { status: 'done', output: replay.outputs.get(t.path), route: record.route },
              index: record.index,
            });
            continue;
          }
          if (this.maxConcurrency !== undefined && live >= this.maxConcurrency) {
            i++;
            continue;
          }
          queue.splice(i, 1);
          start(t);
        }
        // Runs that completed before a pause are replayed in the order they completed then, so
        // every later trigger gets the run id it had (deterministic resume).
        if (fastForward.length > 0) {
          fastForward.sort((a, b) => a.index - b.index);
          const f = fastForward.shift() as (typeof fastForward)[number];
          handle(f.t, f.outcome);
          continue;
        }
        const f = finished.shift();
        if (f) {
          live--;
          handle(f.t, f.outcome);
          continue;
        }
        if (live === 0) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      nctx.abortSignal.removeEventListener('abort', onAbort);
    }
    if (failed) throw failed.error;
    if (waiting.length > 0) {
      nctx.interruptIds.push(...waiting);
      return undefined;
    }
    if (terminal.length > 1) {
      throw new WorkflowOutputError(
        `Workflow "${this.name}" produced ${terminal.length} terminal outputs (${terminal.map((t) => t.path).join(', ')}); a workflow has one output — join them with a JoinNode`,
        { paths: terminal.map((t) => t.path) },
      );
    }
    const output = terminal[0]?.output;
    if (output !== undefined) nctx.outputFromTerminal = true;
    if (output !== undefined && this.outputSchema) {
      const checked = this.outputSchema.safeParse(output);
      if (!checked.success) {
        throw new ValidationError(
          `The output of workflow "${this.name}" does not match its outputSchema: ${formatIssues(checked.error?.issues ?? [])}`,
        );
      }
      return { output: checked.data };
    }
    return { output };
  }
}

/** A workflow as a node (of another workflow, or the root run): runs its graph; its output is its terminal node's. */
export class SubWorkflowNode extends BaseNode {
  constructor(
    readonly workflow: Workflow,
    options: Partial<BaseNodeOptions>,
    private readonly nested = false,
  ) {
    super({ description: workflow.description, ...options, name: options.name ?? workflow.name });
  }

  async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<unknown, void, undefined> {
    const result = await this.workflow.runGraph(ctx, input, this.nested);
    if (result && result.output !== undefined) yield result.output;
  }
}

/** The agent (or workflow) a node runs, if it runs one: what a graph view draws for it. */
export function agentOfNode(node: BaseNode): BaseAgent | undefined {
  return agentOf(node);
}

function agentOf(node: BaseNode): BaseAgent | undefined {
  if (node instanceof AgentNode) return node.agent;
  if (node instanceof SubWorkflowNode) return node.workflow;
  if (node instanceof ParallelWorker) return agentOf(node.inner);
  const original = (node as { original?: unknown }).original;
  return original instanceof BaseNode ? agentOf(original) : undefined;
}

/**
 * A message that answers questions must answer open ones, with replies that match their schema,
 * and hold nothing else; otherwise nothing runs and the questions stay open.
 */
function checkResumeMessage(ctx: InvocationContext, replay: ReplayIndex): void {
  const parts = ctx.userContent?.parts ?? [];
  const replies = parts.filter((p) => p.functionResponse?.name === REQUEST_INPUT);
  if (replies.length === 0) return;
  if (parts.some((p) => p.text !== undefined && p.text.trim() !== '')) {
    throw new WorkflowResumeError(
      'A message that answers a workflow question cannot also hold text; send the text in a message of its own',
    );
  }
  for (const part of replies) {
    const reply = part.functionResponse as NonNullable<typeof part.functionResponse>;
    const owner = replay.interruptOwner.get(reply.id);
    const open = owner ? replay.openInterrupts(owner).find((i) => i.id === reply.id) : undefined;
    if (!open) {
      throw new WorkflowResumeError(`No open question has the id "${reply.id}"`, { interruptId: reply.id });
    }
    const checked = checkReply(open.responseSchema, reply.response);
    if (!checked.ok) {
      throw new WorkflowResumeError(
        `The reply to question "${reply.id}" does not match its response_schema: ${checked.issues}`,
        { interruptId: reply.id },
      );
    }
  }
}
