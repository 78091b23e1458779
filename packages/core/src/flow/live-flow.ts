import type { BaseAgent } from '../agents/base-agent.js';
import { firstResult } from '../agents/base-agent.js';
import type { CallbackContext } from '../agents/callback-context.js';
import { InvocationContext } from '../agents/invocation-context.js';
import { DEFAULT_LIVE_RECONNECT, liveConnectConfig } from '../agents/live-config.js';
import { type LiveRequest, LiveRequestQueue } from '../agents/live-request-queue.js';
import type { LlmAgent } from '../agents/llm-agent.js';
import {
  CancelledError,
  ConfigError,
  describeError,
  isAdkError,
  LiveNotSupportedError,
} from '../errors/errors.js';
import { LiveConnectionClosedError } from '../errors/live-errors.js';
import type { Content, FunctionCall, FunctionResponseScheduling, Part } from '../events/content.js';
import { createEvent, type Event, type EventActions, eventFunctionCalls } from '../events/event.js';
import {
  GUARDRAILS_METADATA_KEY,
  type GuardrailRecord,
  isGuardrailTripped,
} from '../guardrails/guardrail.js';
import { checkInput, checkToolResult, type InputGate, startInputGate } from '../guardrails/run-guardrails.js';
import type { LlmResponse } from '../models/llm.js';
import type { LlmConnection } from '../models/llm-connection.js';
import { supportsLive } from '../models/llm-connection.js';
import { resolveModel } from '../models/registry.js';
import type { BaseTool } from '../tools/base-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import { delayUnlessAborted as sleep } from '../utils/abort.js';
import { buildContents } from './contents.js';
import { asResponse, type CallOutcome, mergeActions, runCall } from './functions.js';
import { buildRequest, type ResolvedTools, resolveTools, withCallIds } from './llm-flow.js';

/** The `customMetadata` key of the event that records a session resumption handle. */
export const LIVE_RESUMPTION_HANDLE_KEY = 'liveSessionResumptionHandle';

/** The latest session resumption handle recorded in a session's events (for `runLive({ resumptionHandle })`). */
export function latestResumptionHandle(session: { events: readonly Event[] }): string | undefined {
  for (let i = session.events.length - 1; i >= 0; i--) {
    const handle = session.events[i]?.customMetadata?.[LIVE_RESUMPTION_HANDLE_KEY];
    if (typeof handle === 'string' && handle !== '') return handle;
  }
  return undefined;
}

/** Whether `runLive` stores an event: not partial, no inline audio/video, and something to keep. */
export function isStoredLiveEvent(event: Event): boolean {
  if (event.partial) return false;
  const parts = event.content?.parts;
  if (parts && parts.length > 0) {
    for (const p of parts) {
      const mime = p.inlineData?.mimeType;
      if (mime && (mime.startsWith('audio/') || mime.startsWith('video/'))) return false;
    }
    return true;
  }
  if (event.errorCode !== undefined || event.customMetadata !== undefined) return true;
  const a = event.actions;
  for (const _ in a.stateDelta) return true;
  for (const _ in a.artifactDelta) return true;
  return Boolean(a.transferToAgent || a.escalate || a.requestedToolConfirmations || a.requestedAuthConfigs);
}

type Item =
  | { kind: 'event'; event: Event; after?: () => void }
  /** A user message already sent that input guardrails still check beside the model: stored once they pass. */
  | { kind: 'gated'; event: Event; gate: InputGate; context: CallbackContext }
  | { kind: 'goAway'; gen: number }
  | { kind: 'closed'; gen: number; error?: unknown }
  | { kind: 'queueClosed' }
  | { kind: 'failed'; error: unknown };

/** An unbounded FIFO that one consumer awaits. */
class Channel<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Takes every item queued now. */
  drain(): T[] {
    return this.items.splice(0);
  }

  /** The next item, or undefined once `signal` aborts. */
  async next(signal: AbortSignal): Promise<T | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      if (this.items.length > 0) return this.items.shift();
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        this.wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }
}

interface RunningCall {
  id: string;
  name: string;
  controller: AbortController;
  streaming: boolean;
  /** Withdrawn by the model (or stopped): nothing more of it reaches the model. */
  cancelled: boolean;
}

const STREAM_ENDED = { status: 'The stream has ended.' };

/** How long before the time a goAway announced the connection is replaced, if a turn is still going. */
const GO_AWAY_MARGIN_MS = 2000;

/** A protobuf JSON duration ('10s', '1.5s'); 0 when absent or unreadable (replace at once). */
function parseDurationMs(value: string | undefined): number {
  const m = value === undefined ? null : /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return m ? Number(m[1]) * 1000 : 0;
}

/** Resolves with the promise's value, or with undefined as soon as `signal` aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(undefined);
        else reject(error);
      },
    );
  });
}

function isRecoverable(error: unknown): boolean {
  return (
    isAdkError(error, 'LIVE_CONNECTION_CLOSED') && (error as LiveConnectionClosedError).recoverable === true
  );
}

function hasUserText(content: Content): boolean {
  return content.parts.some((p) => p.text !== undefined && !p.thought);
}

/**
 * An LlmAgent's live session (docs/architecture.md §4.6): one model connection at a time; the
 * client's queue is forwarded to it; every response becomes an event as it arrives; tool calls run
 * at once, concurrently with the conversation, and their responses go back on the connection;
 * `transfer_to_agent` hands the session to the target; `goAway` and recoverable closes reconnect
 * (with the latest resumption handle when there is one, else with the history).
 */
export async function* runLiveFlow(
  agent: LlmAgent,
  parent: InvocationContext,
): AsyncGenerator<Event, void, undefined> {
  const queue = parent.liveRequestQueue;
  if (!queue) throw new ConfigError('A live run needs a liveRequestQueue (use Runner.runLive)');
  // This agent's part of the session: aborted when the flow ends in any way (transfer included).
  const controller = new AbortController();
  const stopFlow = () => controller.abort(parent.signal.reason);
  if (parent.signal.aborted) stopFlow();
  else parent.signal.addEventListener('abort', stopFlow, { once: true });
  const signal = controller.signal;
  const calls = new Map<string, RunningCall>();
  const stopStreaming = (name: string): number => {
    let stopped = 0;
    for (const running of calls.values()) {
      if (!running.streaming || running.name !== name || running.cancelled) continue;
      running.cancelled = true;
      running.controller.abort(new CancelledError(`The streaming call of "${name}" was stopped`));
      stopped++;
    }
    return stopped;
  };
  // Copies of the client's requests for running calls that asked for them (ToolContext.inputStream).
  const inputs = new Map<string, LiveRequestQueue>();
  const liveInputFor = (id: string): LiveRequestQueue | undefined => {
    const running = calls.get(id);
    if (!running || running.cancelled || signal.aborted) return undefined;
    let input = inputs.get(id);
    if (!input) {
      input = new LiveRequestQueue();
      inputs.set(id, input);
    }
    return input;
  };
  const endInput = (id: string) => {
    inputs.get(id)?.close();
    inputs.delete(id);
  };
  const ctx = new InvocationContext({ ...parent, signal, stopStreaming, liveInputFor });
  const handle = parent.liveResumptionHandle ?? { current: undefined };
  const reconnect = { ...DEFAULT_LIVE_RECONNECT, ...ctx.runConfig.liveReconnect };
  const channel = new Channel<Item>();
  const pushEvent = (event: Event, after?: () => void) =>
    channel.push(after ? { kind: 'event', event, after } : { kind: 'event', event });
  const makeEvent = (fields: Partial<Event>): Event =>
    createEvent({ invocationId: ctx.invocationId, author: agent.name, branch: ctx.branch, ...fields });

  let connection: LlmConnection | undefined;
  let tools: ResolvedTools | undefined;
  let gen = 0;
  /** Failed connections in a row (reset once a connection delivers model output). */
  let failures = 0;
  let connectionChanged: { promise: Promise<void>; resolve: () => void } = deferred();

  // Everything sent to the model goes through one chain, in order; a send that fails because the
  // connection dropped is tried once more on the next connection.
  let sendChain: Promise<void> = Promise.resolve();
  const send = (what: (c: LlmConnection) => Promise<void>): Promise<void> => {
    const run = async () => {
      for (let attempt = 0; attempt < 2 && !signal.aborted; attempt++) {
        if (!connection) await unlessAborted(connectionChanged.promise, signal);
        const c = connection;
        if (!c || signal.aborted) return;
        try {
          await what(c);
          return;
        } catch (error) {
          if (signal.aborted) return;
          if (attempt === 1 || c !== connection) {
            if (c === connection)
              pushEvent(makeEvent({ errorCode: 'LIVE_SEND', errorMessage: describeError(error) }));
            continue;
          }
          // Wait for the receiver to report the close and the flow to reconnect.
          await unlessAborted(connectionChanged.promise, signal);
        }
      }
    };
    sendChain = sendChain.then(run, run);
    return sendChain;
  };

  const open = async (): Promise<LlmConnection> => {
    tools = await resolveTools(agent, ctx);
    const resuming = handle.current;
    const contents = resuming ? [] : buildContents(ctx, agent.name, agent.includeContents);
    const request = await buildRequest(agent, ctx, tools, contents);
    request.config = { ...request.config, live: liveConnectConfig(ctx.runConfig, request.config.live) };
    const model = agent.canonicalModel;
    if (model === undefined)
      throw new ConfigError(`Agent "${agent.name}" has no model (and no ancestor gives one)`);
    const llm = resolveModel(model, ctx.models);
    if (!supportsLive(llm))
      throw new LiveNotSupportedError(
        `Model "${llm.model}" of agent "${agent.name}" does not support live sessions`,
      );
    if (!request.model) request.model = llm.model;
    const c = await llm.connect(request, { signal, ...(resuming ? { resumptionHandle: resuming } : {}) });
    try {
      if (!resuming && contents.length > 0) await c.sendHistory(contents);
    } catch (error) {
      await c.close().catch(() => undefined);
      throw error;
    }
    return c;
  };

  const use = (c: LlmConnection) => {
    connection = c;
    turnActive = false;
    clearTimeout(goAwayTimer);
    const myGen = ++gen;
    const changed = connectionChanged;
    connectionChanged = deferred();
    changed.resolve();
    void pump(c, myGen);
  };

  // goAway: the server closes this connection soon. A turn in progress is let finish first (a
  // reconnect mid-answer cuts the model off), up to shortly before the announced time.
  let turnActive = false;
  let goAwayGen = 0;
  let goAwayTimer: ReturnType<typeof setTimeout> | undefined;
  const onGoAway = (timeLeft: string | undefined, myGen: number) => {
    goAwayGen = myGen;
    if (!turnActive) {
      channel.push({ kind: 'goAway', gen: myGen });
      return;
    }
    const wait = Math.max(0, parseDurationMs(timeLeft) - GO_AWAY_MARGIN_MS);
    clearTimeout(goAwayTimer);
    goAwayTimer = setTimeout(() => channel.push({ kind: 'goAway', gen: myGen }), wait);
  };

  const pump = async (c: LlmConnection, myGen: number) => {
    try {
      for await (const response of c.receive()) {
        if (signal.aborted || myGen !== gen) break;
        // The connection works once the model says something (a resumption update or usage sent
        // right after connecting does not count: a server that drops every connection after one
        // would otherwise be retried forever).
        if (
          response.content ||
          response.inputTranscription ||
          response.outputTranscription ||
          response.turnComplete
        )
          failures = 0;
        onResponse(response, myGen);
      }
      channel.push({ kind: 'closed', gen: myGen });
    } catch (error) {
      channel.push({ kind: 'closed', gen: myGen, error });
    }
  };

  const onResponse = (r: LlmResponse, myGen: number) => {
    const update = r.liveSessionResumptionUpdate;
    if (update?.newHandle && update.resumable !== false) {
      handle.current = update.newHandle;
      pushEvent(makeEvent({ customMetadata: { [LIVE_RESUMPTION_HANDLE_KEY]: update.newHandle } }));
    }
    if (r.toolCallCancellation) for (const id of r.toolCallCancellation.ids) cancelCall(id);
    if (r.inputTranscription) {
      const t = r.inputTranscription;
      const done = Boolean(t.finished) && r.partial !== true;
      pushEvent(
        createEvent({
          invocationId: ctx.invocationId,
          author: 'user',
          branch: ctx.branch,
          inputTranscription: t,
          ...(done && t.text ? { content: { role: 'user', parts: [{ text: t.text }] } } : {}),
          ...(done ? {} : { partial: true }),
        }),
      );
    }
    if (r.outputTranscription) {
      const t = r.outputTranscription;
      const done = Boolean(t.finished) && r.partial !== true;
      pushEvent(
        makeEvent({
          outputTranscription: t,
          ...(done && t.text ? { content: { role: 'model', parts: [{ text: t.text }] } } : {}),
          ...(done ? {} : { partial: true }),
        }),
      );
    }
    const hasRest =
      (r.content && r.content.parts.length > 0) ||
      r.turnComplete ||
      r.interrupted ||
      r.errorCode !== undefined ||
      r.usageMetadata !== undefined;
    if (hasRest) {
      const fixed = withCallIds(r);
      const event = makeEvent({
        ...(fixed.content && fixed.content.parts.length > 0 ? { content: fixed.content } : {}),
        ...(fixed.partial ? { partial: true } : {}),
        ...(fixed.turnComplete ? { turnComplete: true } : {}),
        ...(fixed.interrupted ? { interrupted: true } : {}),
        ...(fixed.finishReason ? { finishReason: fixed.finishReason } : {}),
        ...(fixed.usageMetadata ? { usageMetadata: fixed.usageMetadata } : {}),
        ...(fixed.errorCode !== undefined ? { errorCode: fixed.errorCode } : {}),
        ...(fixed.errorMessage !== undefined ? { errorMessage: fixed.errorMessage } : {}),
        ...(fixed.groundingMetadata !== undefined ? { groundingMetadata: fixed.groundingMetadata } : {}),
        ...(fixed.citationMetadata !== undefined ? { citationMetadata: fixed.citationMetadata } : {}),
        ...(fixed.customMetadata ? { customMetadata: fixed.customMetadata } : {}),
        ...(fixed.modelVersion !== undefined ? { modelVersion: fixed.modelVersion } : {}),
        ...(fixed.avgLogprobs !== undefined ? { avgLogprobs: fixed.avgLogprobs } : {}),
        ...(fixed.logprobsResult !== undefined ? { logprobsResult: fixed.logprobsResult } : {}),
        ...(fixed.cacheMetadata !== undefined ? { cacheMetadata: fixed.cacheMetadata } : {}),
      });
      const found = event.partial ? [] : eventFunctionCalls(event);
      if (found.length > 0 && tools) {
        const byName = tools.byName;
        const longRunning = found.filter((c) => byName.get(c.name)?.isLongRunning).map((c) => c.id);
        if (longRunning.length > 0) event.longRunningToolIds = longRunning;
      }
      pushEvent(event);
      // Calls run as soon as they arrive, never held until the turn ends (a model that waits for
      // their responses before finishing its turn would otherwise wait forever).
      if (found.length > 0 && tools) startCalls(found, tools);
    }
    if (r.turnComplete || r.interrupted) {
      turnActive = false;
      if (goAwayGen === myGen) channel.push({ kind: 'goAway', gen: myGen });
    } else if (r.content?.parts.length || r.outputTranscription) turnActive = true;
    if (r.goAway) onGoAway(r.goAway.timeLeft, myGen);
  };

  const failed = (error: unknown) => channel.push({ kind: 'failed', error });

  const cancelCall = (id: string) => {
    const running = calls.get(id);
    if (!running || running.cancelled) return;
    running.cancelled = true;
    running.controller.abort(new CancelledError('The model cancelled this call'));
    pushEvent(
      makeEvent({
        content: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id,
                name: running.name,
                response: { error: `The call of "${running.name}" was cancelled by the model.` },
              },
            },
          ],
        },
      }),
    );
  };

  /** Runs one call; resolves with its outcome, or undefined when it was cancelled meanwhile. */
  const startCall = (
    call: FunctionCall,
    resolved: ResolvedTools,
  ): Promise<{ outcome: CallOutcome | undefined; running: RunningCall }> => {
    const callController = new AbortController();
    const onStop = () => callController.abort(signal.reason);
    signal.addEventListener('abort', onStop, { once: true });
    const running: RunningCall = {
      id: call.id,
      name: call.name,
      controller: callController,
      streaming: false,
      cancelled: false,
    };
    calls.set(call.id, running);
    const callCtx = ctx.with({ signal: callController.signal });
    const onStream = (stream: AsyncIterable<unknown>, tool: BaseTool, toolCtx: ToolContext) => {
      running.streaming = true;
      void streamResponses(call, tool, toolCtx, stream, running);
      return undefined;
    };
    const outcome = runCall(callCtx, call, resolved.byName, agent.callbacks, undefined, onStream);
    return unlessAborted(outcome, callController.signal)
      .catch((error: unknown) => {
        // A tool guardrail's tripwire ends the session, as it ends a run.
        if (isGuardrailTripped(error)) {
          running.cancelled = true;
          failed(error);
          return undefined;
        }
        // A plugin failing a call (or anything unexpected) fails this call only.
        const response = { error: `Tool "${call.name}" failed: ${describeError(error)}` };
        return { call, response, actions: { stateDelta: {}, artifactDelta: {} } } as CallOutcome;
      })
      .then((result) => {
        if (!running.streaming) signal.removeEventListener('abort', onStop);
        return { outcome: running.cancelled ? undefined : result, running };
      });
  };

  const streamResponses = async (
    call: FunctionCall,
    tool: BaseTool,
    toolCtx: ToolContext,
    stream: AsyncIterable<unknown>,
    running: RunningCall,
  ) => {
    const scheduling: FunctionResponseScheduling = tool.scheduling ?? 'WHEN_IDLE';
    const callSignal = running.controller.signal;
    const iterator = stream[Symbol.asyncIterator]();
    const respond = (
      response: Record<string, unknown>,
      willContinue: boolean,
      records?: GuardrailRecord[],
    ) => {
      const content: Content = {
        role: 'user',
        parts: [{ functionResponse: { id: call.id, name: call.name, response, willContinue, scheduling } }],
      };
      const metadata = records?.length ? { customMetadata: { [GUARDRAILS_METADATA_KEY]: records } } : {};
      pushEvent(makeEvent({ content, ...metadata }), () => {
        if (!running.cancelled) void send((c) => c.sendContent(content));
      });
    };
    try {
      for (;;) {
        const next = await unlessAborted(iterator.next(), callSignal);
        if (next === undefined || running.cancelled) break;
        if (next.done) {
          respond(STREAM_ENDED, false);
          break;
        }
        let response = asResponse(next.value);
        // Each chunk passes the tool-output guardrails before anything sees it (a tripwire throws).
        const records: GuardrailRecord[] = [];
        response = await checkToolResult(ctx, toolCtx, tool.name, call.id, call.args, response, records);
        if (running.cancelled || callSignal.aborted) break;
        const afterArgs = { tool, args: call.args, context: toolCtx, result: response };
        response =
          (await ctx.pluginManager.afterTool(afterArgs)) ??
          (await firstResult(agent.callbacks.afterTool, afterArgs)) ??
          response;
        if (running.cancelled || callSignal.aborted) break;
        respond(response, true, records);
      }
    } catch (error) {
      if (isGuardrailTripped(error)) {
        // The chunk is never sent: the call stops and the session ends with the tripwire.
        running.cancelled = true;
        running.controller.abort(error);
        failed(error);
      } else if (!running.cancelled && !callSignal.aborted)
        respond({ error: `Tool "${call.name}" failed: ${describeError(error)}` }, false);
    } finally {
      if (callSignal.aborted) iterator.return?.()?.catch?.(() => undefined);
      calls.delete(call.id);
      endInput(call.id);
    }
  };

  /**
   * Runs the calls of one model response. Blocking calls answer together in one user turn once all
   * have finished; non-blocking calls answer one by one with their scheduling; streaming calls
   * answer chunk by chunk; cancelled calls never answer.
   */
  const startCalls = (found: FunctionCall[], resolved: ResolvedTools) => {
    const blocking: Promise<{ outcome: CallOutcome | undefined; running: RunningCall }>[] = [];
    for (const call of found) {
      const tool = resolved.byName.get(call.name);
      const started = startCall(call, resolved);
      if (tool?.behavior !== 'NON_BLOCKING') blocking.push(started);
      else void started.then((one) => answer([one], tool.scheduling ?? 'WHEN_IDLE')).catch(failed);
    }
    if (blocking.length > 0)
      void Promise.all(blocking)
        .then((all) => answer(all, undefined))
        .catch(failed);
  };

  const answer = (
    results: { outcome: CallOutcome | undefined; running: RunningCall }[],
    scheduling: FunctionResponseScheduling | undefined,
  ) => {
    const done: CallOutcome[] = [];
    for (const { outcome, running } of results) {
      // A call the model withdrew after it finished (its group still running) is not answered either.
      if (outcome && !running.cancelled) done.push(unpaused(outcome));
      if (!running.streaming) {
        calls.delete(running.id);
        endInput(running.id);
      }
    }
    if (signal.aborted) return;
    const parts: Part[] = [];
    for (const o of done) {
      if (o.response === undefined) continue;
      parts.push({
        functionResponse: {
          id: o.call.id,
          name: o.call.name,
          response: o.response,
          ...(scheduling ? { scheduling } : {}),
        },
      });
    }
    const actions: EventActions = mergeActions(done.map((o) => o.actions));
    if (parts.length === 0 && !isStoredLiveEvent(makeEvent({ actions }))) return;
    const content: Content | undefined = parts.length > 0 ? { role: 'user', parts } : undefined;
    const records = done.flatMap((o) => o.guardrails ?? []);
    const event = makeEvent({
      ...(content ? { content } : {}),
      actions,
      ...(records.length > 0 ? { customMetadata: { [GUARDRAILS_METADATA_KEY]: records } } : {}),
    });
    // A transfer ends this agent's connection: its response is kept in the session only.
    const after =
      content && !actions.transferToAgent ? () => void send((c) => c.sendContent(content)) : undefined;
    pushEvent(event, after);
  };

  const forward = async (request: LiveRequest): Promise<void> => {
    for (const input of inputs.values()) input.send(request);
    if (request.content) {
      let content = request.content;
      if (content.role === 'user' && hasUserText(content) && !ctx.pluginManager.isEmpty) {
        content = (await ctx.pluginManager.onUserMessage({ context: ctx, message: content })) ?? content;
      }
      // Input guardrails before the text is committed and sent; a tripwire ends the session. What
      // the checks record (state, rewrites) is committed with the message.
      let checked: Awaited<ReturnType<typeof checkInput>>;
      if (content.role === 'user' && hasUserText(content)) {
        checked = await checkInput(ctx, ctx.rootAgent, content);
        if (checked) content = checked.message;
      }
      const message = content;
      const delta = checked?.context.actions.stateDelta;
      const event = createEvent({
        invocationId: ctx.invocationId,
        author: 'user',
        branch: ctx.branch,
        content,
        ...(delta && Object.keys(delta).length > 0
          ? { actions: { stateDelta: { ...delta }, artifactDelta: {} } }
          : {}),
        ...(checked && checked.records.length > 0
          ? { customMetadata: { [GUARDRAILS_METADATA_KEY]: checked.records } }
          : {}),
      });
      if (checked && checked.parallel.length > 0) {
        // Checks beside the model (docs/decisions/0030-guardrails.md): the text is sent at once and
        // stored once they pass; a tripwire ends the session and nothing of the message is stored.
        const gate = startInputGate(checked.parallel, message, checked.context);
        void gate.done.then((tripped) => {
          if (tripped) failed(tripped);
        });
        channel.push({ kind: 'gated', event, gate, context: checked.context });
        await send((c) => c.sendContent(message));
      } else {
        // Committed before it is sent, so the session never misses what the model has seen.
        let sent!: Promise<void>;
        const committed = new Promise<void>((resolve) => {
          pushEvent(event, () => {
            sent = send((c) => c.sendContent(message));
            resolve();
          });
        });
        await unlessAborted(committed, signal);
        if (signal.aborted) return;
        await sent;
      }
    }
    if (request.blob) {
      const blob = request.blob;
      await send((c) => c.sendRealtime(blob));
    }
    if (request.activityStart) await send((c) => c.sendActivityStart());
    if (request.activityEnd) await send((c) => c.sendActivityEnd());
  };

  const forwardQueue = async () => {
    try {
      for (;;) {
        const request = await queue.get(signal);
        if (request.close) {
          channel.push({ kind: 'queueClosed' });
          return;
        }
        await forward(request);
      }
    } catch (error) {
      if (!signal.aborted) channel.push({ kind: 'failed', error });
    }
  };

  /** Replaces the connection: at once after goAway, after a backoff following an abnormal close. */
  const reconnectAfter = async (lastError: unknown, planned: boolean): Promise<void> => {
    const old = connection;
    connection = undefined;
    old?.close().catch(() => undefined);
    let error = lastError;
    for (let first = true; ; first = false) {
      if (!(planned && first)) {
        if (failures >= reconnect.maxAttempts) {
          throw new LiveConnectionClosedError(
            isAdkError(error, 'LIVE_CONNECTION_CLOSED')
              ? (error as LiveConnectionClosedError).closeCode
              : 1006,
            `gave up after ${reconnect.maxAttempts} reconnect attempt${reconnect.maxAttempts === 1 ? '' : 's'} (${describeError(error)})`,
            { cause: error, recoverable: false },
          );
        }
        const delay = Math.min(reconnect.maxDelayMs, reconnect.initialDelayMs * 2 ** failures);
        failures++;
        await sleep(delay, signal);
        if (signal.aborted) return;
      }
      try {
        use(await open());
        return;
      } catch (connectError) {
        if (signal.aborted) return;
        if (!isRecoverable(connectError) && !(planned && first)) throw connectError;
        error = connectError;
      }
    }
  };

  const cleanup = async () => {
    clearTimeout(goAwayTimer);
    for (const id of [...inputs.keys()]) endInput(id);
    controller.abort(new CancelledError('The live session of this agent has ended'));
    parent.signal.removeEventListener('abort', stopFlow);
    const c = connection;
    connection = undefined;
    await c?.close().catch(() => undefined);
  };

  try {
    try {
      use(await open());
    } catch (error) {
      // A first connection that drops at once is retried like any other; anything else fails now.
      if (!isRecoverable(error)) throw error;
      await reconnectAfter(error, false);
      if (signal.aborted) return;
    }
    void forwardQueue();
    /** A sent user message whose parallel input checks still run: stored before the next stored event. */
    let gated: Extract<Item, { kind: 'gated' }> | undefined;
    const settleGated = async (): Promise<Event | undefined> => {
      const held = gated;
      if (!held) return undefined;
      gated = undefined;
      const tripped = await unlessAborted(held.gate.done, signal);
      if (tripped) throw tripped;
      if (signal.aborted) return undefined;
      // State the parallel checks recorded is committed with the message too.
      const delta = held.context.actions.stateDelta;
      if (Object.keys(delta).length === 0) return held.event;
      return {
        ...held.event,
        actions: { ...held.event.actions, stateDelta: { ...held.event.actions.stateDelta, ...delta } },
      };
    };
    for (;;) {
      const item = await channel.next(signal);
      if (!item) return;
      switch (item.kind) {
        case 'gated': {
          const earlier = await settleGated();
          if (earlier) yield earlier;
          gated = item;
          break;
        }
        case 'event': {
          if (gated && isStoredLiveEvent(item.event)) {
            const held = await settleGated();
            if (held) yield held;
          }
          yield item.event;
          item.after?.();
          const transfer = item.event.author === agent.name ? item.event.actions.transferToAgent : undefined;
          if (!transfer) break;
          const target: BaseAgent | undefined = tools?.transferTargets.find((t) => t.name === transfer);
          if (!target) {
            yield makeEvent({
              errorCode: 'INVALID_TRANSFER',
              errorMessage: `Agent "${agent.name}" cannot transfer to "${transfer}" (valid: ${tools?.transferTargets.map((t) => t.name).join(', ') || 'none'})`,
            });
            break;
          }
          await cleanup();
          if (parent.signal.aborted) return;
          // What arrived before the hand-over (a user message forwarded meanwhile) is kept: the
          // target gets it with the history.
          yield* pendingEvents(channel);
          // A resumption handle belongs to this agent's server session, not to the target's.
          handle.current = undefined;
          yield* target.runLive(parent);
          return;
        }
        case 'goAway':
          if (item.gen === gen) await reconnectAfter(undefined, true);
          break;
        case 'closed':
          if (item.gen !== gen || signal.aborted) break;
          // The close that a goAway announced: go on with the latest handle.
          if (goAwayGen === item.gen) {
            await reconnectAfter(item.error, true);
            break;
          }
          if (item.error === undefined) {
            // The server ended the session.
            const held = await settleGated();
            if (held) yield held;
            return;
          }
          if (!isRecoverable(item.error)) throw item.error;
          await reconnectAfter(item.error, false);
          break;
        case 'queueClosed': {
          // Everything queued before the close has been sent (the queue is forwarded in order);
          // what the model had already answered is still recorded.
          const held = await settleGated();
          if (held) yield held;
          await cleanup();
          yield* pendingEvents(channel);
          return;
        }
        case 'failed':
          throw item.error;
      }
    }
  } finally {
    await cleanup();
  }
}

/** The events still queued once the connection is gone (their sends are dropped). */
function* pendingEvents(channel: Channel<Item>): Generator<Event, void, undefined> {
  for (const item of channel.drain()) if (item.kind === 'event') yield item.event;
}

/**
 * A live session cannot pause for a confirmation or a credential (the model is waiting on the
 * connection): such a call is answered with an error instead of hanging the conversation.
 */
function unpaused(outcome: CallOutcome): CallOutcome {
  const {
    requestedToolConfirmations,
    requestedAuthConfigs,
    skipSummarization: _skip,
    ...actions
  } = outcome.actions;
  const id = outcome.call.id;
  if (outcome.response !== undefined || !(requestedToolConfirmations?.[id] || requestedAuthConfigs?.[id]))
    return outcome;
  const what = requestedToolConfirmations?.[id] ? 'a confirmation' : 'a credential';
  return {
    call: outcome.call,
    response: {
      error: `"${outcome.call.name}" needs ${what} from the user, which a live session cannot ask for.`,
    },
    actions,
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
