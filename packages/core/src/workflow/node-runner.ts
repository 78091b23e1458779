import type { InvocationContext } from '../agents/invocation-context.js';
import { CancelledError, describeError, errorCodeOf } from '../errors/errors.js';
import { createEvent, type Event, type RouteValue } from '../events/event.js';
import { pauseEvent } from '../flow/pause.js';
import { isGuardrailTripped, trippedEventFields } from '../guardrails/guardrail.js';
import { delayUnlessAborted as sleep } from '../utils/abort.js';
import { zod } from '../utils/zod.js';
import type { BaseNode } from './base-node.js';
import { NodeReportedError, NodeTimeoutError, WorkflowOutputError } from './errors.js';
import { NodeContext, type NodeRuntime } from './node-context.js';
import type { ReplayIndex } from './replay.js';
import { isRequestInput, REQUEST_INPUT, type RequestInput } from './request-input.js';
import { isRetryable, retryDelayMs } from './retry-config.js';

export type RunOutcome =
  | { status: 'done'; output: unknown; route: RouteValue | RouteValue[] | undefined }
  | { status: 'waiting'; interruptIds: string[] }
  | { status: 'failed'; error: unknown };

/** Thrown by `ctx.runNode` when the child paused: the caller pauses with it. */
export class ChildPaused extends Error {
  constructor(readonly interruptIds: string[]) {
    super('A child node is waiting for input');
  }
}

/** Errors already reported as an error event (a failing child, seen again by its ancestors). */
export const reportedErrors = new WeakSet<object>();

export interface NodeRunParams {
  node: BaseNode;
  input: unknown;
  path: string;
  runId: string;
  /** The workflow the node belongs to: its events' author. */
  workflowName: string;
  /** The workflow's context (its branch). */
  invocationContext: InvocationContext;
  /** Fires when a sibling failed or the run was cancelled. */
  signal: AbortSignal;
  emit: (event: Event) => Promise<void>;
  replay: ReplayIndex;
  runtime: NodeRuntime;
  /** Ancestor paths this run's output also stands for (`runNode` with `useAsOutput`). */
  outputFor: string[];
  /** Test seam: the random source of retry jitter. */
  random?: () => number;
}

function toJsonSchema(schema: RequestInput['responseSchema']): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  if ('_zod' in schema || typeof (schema as { safeParse?: unknown }).safeParse === 'function') {
    return zod().z.toJSONSchema(schema as never, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
  }
  return schema as Record<string, unknown>;
}

/** The event that asks the user a question for a node run (the shared pause-and-answer piece). */
function requestEvent(ctx: NodeContext, request: RequestInput, branch: string | undefined): Event {
  const args: Record<string, unknown> = { interruptId: request.interruptId };
  if (request.message !== undefined) args.message = request.message;
  if (request.payload !== undefined) args.payload = request.payload;
  const schema = toJsonSchema(request.responseSchema);
  if (schema) args.response_schema = schema;
  return pauseEvent(
    {
      invocationId: ctx.invocationId,
      author: ctx.workflowName,
      branch,
      nodeInfo: { path: ctx.path },
      stateDelta: takeDelta(ctx),
    },
    [{ id: request.interruptId, name: REQUEST_INPUT, args }],
  ) as Event;
}

function takeDelta(ctx: NodeContext): Record<string, unknown> {
  const delta = { ...ctx.actions.stateDelta };
  for (const k in ctx.actions.stateDelta) delete ctx.actions.stateDelta[k];
  return delta;
}

/**
 * Runs one node run: fast-forwards it from the log when it completed before, answers it from the
 * reply when it was waiting, else runs it (hooks, attempts, timeout, retries) and records its
 * completion in one event whose `nodeInfo.outputFor` lists its path.
 */
export async function executeNode(p: NodeRunParams): Promise<RunOutcome> {
  const { node, path, replay } = p;
  const done = replay.completions.get(path);
  if (done) return { status: 'done', output: replay.outputs.get(path), route: done.route };

  let resumeInputs: Record<string, unknown> = {};
  const open = replay.openInterrupts(path);
  if (open.length > 0) {
    const unanswered = open.filter((i) => !replay.answerTo(i));
    if (unanswered.length > 0) return { status: 'waiting', interruptIds: unanswered.map((i) => i.id) };
    for (const i of open) resumeInputs[i.id] = replay.answerTo(i)?.value;
    if (!node.rerunOnResume && open.every((i) => i.name === REQUEST_INPUT)) {
      const last = open.at(-1) as (typeof open)[number];
      const output = open.length === 1 ? resumeInputs[last.id] : resumeInputs;
      const ctx = makeContext(p, 1, p.signal, resumeInputs);
      ctx.output = output;
      return complete(p, ctx, undefined);
    }
  } else resumeInputs = {};

  const pm = p.invocationContext.pluginManager;
  if (!pm.isEmpty) {
    const ctx = makeContext(p, 1, p.signal, resumeInputs);
    let replaced: unknown;
    try {
      replaced = await pm.beforeNode({ node, context: ctx, input: p.input });
    } catch (error) {
      return fail(p, ctx, error);
    }
    if (replaced !== undefined) {
      ctx.output = replaced;
      return complete(p, ctx, undefined);
    }
  }

  const retry = node.retry;
  for (let attempt = 1; ; attempt++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(p.signal.reason);
    if (p.signal.aborted) controller.abort(p.signal.reason);
    else p.signal.addEventListener('abort', onAbort, { once: true });
    const ctx = makeContext(p, attempt, controller.signal, resumeInputs);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const { held, reported } = await raceTimeout(
        consume(p, ctx, controller.signal),
        node,
        controller,
        (t) => {
          timer = t;
        },
      );
      if (ctx.interruptIds.length > 0) return flushWaiting(p, ctx);
      if (reported && !ctx.hasOutput) {
        // Its error event is already in the log: the failure is not reported a second time.
        const error = new NodeReportedError({
          nodeName: node.name,
          errorCode: reported.errorCode,
          errorMessage: reported.errorMessage,
        });
        reportedErrors.add(error);
        throw error;
      }
      return await complete(p, ctx, held);
    } catch (error) {
      if (error instanceof ChildPaused) {
        for (const id of error.interruptIds) if (!ctx.interruptIds.includes(id)) ctx.interruptIds.push(id);
        return flushWaiting(p, ctx);
      }
      if (p.signal.aborted) return { status: 'failed', error };
      await reportError(p, ctx, error);
      // A tripwire is final: nothing after it runs, a retry of the node included.
      if (attempt >= retry.maxAttempts || !isRetryable(retry, error) || isGuardrailTripped(error))
        return { status: 'failed', error };
      await sleep(retryDelayMs(retry, attempt, p.random), p.signal);
      if (p.signal.aborted) return { status: 'failed', error };
    } finally {
      if (timer) clearTimeout(timer);
      p.signal.removeEventListener('abort', onAbort);
      // Cancels whatever the attempt left running; one shared reason, so finishing a node does not
      // build an AbortError (a DOMException with its stack) every time.
      controller.abort(ATTEMPT_ENDED);
    }
  }
}

async function flushWaiting(p: NodeRunParams, ctx: NodeContext): Promise<RunOutcome> {
  // State written before the question travels on an event of its own so it is not lost.
  if (ctx.state.hasDelta()) {
    await p.emit(
      createEvent({
        invocationId: ctx.invocationId,
        author: p.workflowName,
        branch: p.invocationContext.branch,
        nodeInfo: { path: p.path },
        actions: { stateDelta: takeDelta(ctx) },
      }),
    );
  }
  return { status: 'waiting', interruptIds: [...ctx.interruptIds] };
}

function makeContext(
  p: NodeRunParams,
  attempt: number,
  signal: AbortSignal,
  resumeInputs: Record<string, unknown>,
): NodeContext {
  const ctx = new NodeContext({
    invocationContext: p.invocationContext,
    node: p.node,
    path: p.path,
    runId: p.runId,
    workflowName: p.workflowName,
    attemptCount: attempt,
    abortSignal: signal,
    resumeInputs,
    runtime: p.runtime,
    replay: p.replay,
    emit: p.emit,
  });
  ctx.outputFor = p.outputFor;
  return ctx;
}

async function raceTimeout<T>(
  work: Promise<T>,
  node: BaseNode,
  controller: AbortController,
  setTimer: (t: ReturnType<typeof setTimeout>) => void,
): Promise<T> {
  if (node.timeout === undefined) return work;
  const seconds = node.timeout;
  return Promise.race([
    work,
    new Promise<T>((_, reject) => {
      setTimer(
        setTimeout(() => {
          const error = new NodeTimeoutError({ nodeName: node.name, timeout: seconds });
          controller.abort(error);
          reject(error);
        }, seconds * 1000),
      );
    }),
  ]);
}

/**
 * Drives the node's generator; returns the event that carries its output (held back until the
 * end) and the last error event the node reported, if any.
 */
async function consume(
  p: NodeRunParams,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<{ held: Event | undefined; reported: Event | undefined }> {
  let held: Event | undefined;
  let reported: Event | undefined;
  const branch = p.invocationContext.branch;
  const it = p.node.runImpl(ctx, p.input);
  try {
    for (;;) {
      const step = await it.next();
      if (step.done) break;
      if (signal.aborted) break;
      const item = step.value;
      if (isRequestInput(item)) {
        ctx.interruptIds.push(item.interruptId);
        await p.emit(requestEvent(ctx, item, branch));
        continue;
      }
      if (isEvent(item)) {
        const event = stamp(item, ctx, branch);
        if (event.longRunningToolIds?.length) ctx.interruptIds.push(...event.longRunningToolIds);
        // A long-running call answered at once (an interim result) does not interrupt the node.
        if (ctx.interruptIds.length > 0) dropAnswered(ctx.interruptIds, event);
        if (event.errorCode && !event.partial) reported = event;
        if (event.output !== undefined) {
          if (ctx.hasOutput) throw tooMany(p);
          ctx.output = event.output;
          if (held) await p.emit(held);
          held = event;
          continue;
        }
        if (held && !event.partial) {
          await p.emit(held);
          held = undefined;
        }
        await p.emit(event);
        continue;
      }
      if (ctx.hasOutput) throw tooMany(p);
      ctx.output = item;
    }
  } finally {
    if (signal.aborted) void it.return(undefined).catch(() => undefined);
  }
  return { held, reported };
}

function tooMany(p: NodeRunParams): WorkflowOutputError {
  return new WorkflowOutputError(
    `Node "${p.node.name}" (${p.path}) produced more than one output in one run`,
    {
      path: p.path,
    },
  );
}

function isEvent(value: unknown): value is Event {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Event).id === 'string' &&
    typeof (value as Event).invocationId === 'string' &&
    typeof (value as Event).actions === 'object'
  );
}

function stamp(event: Event, ctx: NodeContext, branch: string | undefined): Event {
  if (!event.nodeInfo) event.nodeInfo = { path: ctx.path };
  if (event.branch === undefined && branch !== undefined) event.branch = branch;
  return event;
}

async function complete(p: NodeRunParams, ctx: NodeContext, held: Event | undefined): Promise<RunOutcome> {
  const pm = p.invocationContext.pluginManager;
  let output = ctx.output;
  let replaced = false;
  if (!pm.isEmpty) {
    try {
      const after = await pm.afterNode({ node: p.node, context: ctx, input: p.input, output });
      if (after !== undefined) {
        output = after;
        replaced = true;
      }
    } catch (error) {
      return fail(p, ctx, error);
    }
  }
  const outputFor = [p.path, ...p.outputFor];
  const delta = takeDelta(ctx);
  const route = ctx.route;
  // A workflow whose terminal node's event already carried its output adds no event of its own
  // (ADK 2.x); a resumed run re-walks such a workflow from the records of its nodes.
  if (ctx.outputFromTerminal && !replaced && !held && route === undefined && !hasKeys(delta))
    return { status: 'done', output, route };
  if (held) {
    held.nodeInfo = { ...held.nodeInfo, path: p.path, outputFor };
    if (replaced) {
      held.output = output;
      held.nodeInfo.messageAsOutput = false;
    }
    Object.assign(held.actions.stateDelta, delta);
    if (route !== undefined) held.actions.route = route;
    await p.emit(held);
  } else {
    const carries = ctx.hasOutput && output !== undefined && (!ctx.outputDelegated || replaced);
    await p.emit(
      createEvent({
        invocationId: ctx.invocationId,
        author: p.workflowName,
        branch: p.invocationContext.branch,
        nodeInfo: { path: p.path, outputFor },
        ...(carries ? { output } : {}),
        actions: { stateDelta: delta, ...(route !== undefined ? { route } : {}) },
      }),
    );
  }
  return { status: 'done', output: ctx.hasOutput || replaced ? output : undefined, route };
}

async function reportError(p: NodeRunParams, ctx: NodeContext, error: unknown): Promise<void> {
  if (typeof error === 'object' && error !== null) {
    if (reportedErrors.has(error)) return;
    reportedErrors.add(error);
  }
  await p.emit(
    createEvent({
      invocationId: ctx.invocationId,
      author: p.workflowName,
      branch: p.invocationContext.branch,
      nodeInfo: { path: p.path },
      errorCode: errorCodeOf(error),
      errorMessage: `Node "${p.node.name}" failed (attempt ${ctx.attemptCount}): ${describeError(error)}`,
      // A tripwire's record (which guardrail, why) and the retraction clients act on.
      ...(isGuardrailTripped(error) ? trippedEventFields(error) : {}),
    }),
  );
}

async function fail(p: NodeRunParams, ctx: NodeContext, error: unknown): Promise<RunOutcome> {
  await reportError(p, ctx, error);
  return { status: 'failed', error };
}

const ATTEMPT_ENDED = /* @__PURE__ */ new CancelledError('The node attempt has ended');

function dropAnswered(ids: string[], event: Event): void {
  for (const part of event.content?.parts ?? []) {
    const id = part.functionResponse?.id;
    if (id === undefined) continue;
    const at = ids.indexOf(id);
    if (at >= 0) ids.splice(at, 1);
  }
}

function hasKeys(record: Record<string, unknown>): boolean {
  for (const _ in record) return true;
  return false;
}
