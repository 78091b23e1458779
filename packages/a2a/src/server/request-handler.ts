import { newId } from '@adk/core';
import { cloneJson } from '../protocol/clone.js';
import { A2aError } from '../protocol/errors.js';
import {
  type A2aMetadata,
  type AgentCard,
  type Artifact,
  isInterruptedState,
  isTerminalState,
  type ListPushConfigsRequest,
  type ListPushConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type Part,
  type ProtocolVersion,
  type PushConfigRef,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type TaskState,
} from '../protocol/types.js';
import { InMemoryTaskStore } from '../stores/in-memory-task-store.js';
import type { TaskStore } from '../stores/task-store.js';
import type { AgentExecutor, AgentUpdate, Caller, ExecutionContext } from './agent-executor.js';
import { AsyncQueue } from './async-queue.js';
import type { PushNotificationSender } from './push-sender.js';
import type { TaskEventBus } from './task-event-bus.js';

export interface CallContext {
  caller?: Caller;
  /** The protocol version of the request (decides the push payload shape of configs it creates). */
  version?: ProtocolVersion;
  /** Extension URIs the client declared (`A2A-Extensions` header). */
  extensions?: string[];
}

export interface RequestHandlerOptions {
  executor: AgentExecutor;
  /** The public card; its capabilities gate streaming, push notifications and the extended card. */
  card: () => AgentCard;
  /** The card returned by GetExtendedAgentCard, per caller. */
  extendedCard?: (caller: Caller | undefined) => AgentCard | Promise<AgentCard>;
  store?: TaskStore;
  pushSender?: PushNotificationSender;
  /** Media types accepted in message parts; defaults to the card's defaultInputModes. */
  acceptedInputModes?: string[];
  /** How long a cancel waits for the running execution to stop (ms). */
  cancelGraceMs?: number;
  /**
   * Carries live updates between server processes that share `store` (e.g. `PostgresTaskEventBus`),
   * so streams and resubscriptions work on any instance. Push notifications are still sent once, by
   * the process that runs the task.
   */
  eventBus?: TaskEventBus;
}

interface Run {
  abort: AbortController;
  done: Promise<void>;
}

type StreamEnd = 'terminal-or-interrupted';

interface Subscriber {
  queue: AsyncQueue<StreamResponse>;
  end: StreamEnd;
}

let lastNowMs = Number.NaN;
let lastNowIso = '';
/** The current time, ISO 8601 UTC; formatted once per millisecond (several events share one). */
const now = (): string => {
  const ms = Date.now();
  if (ms !== lastNowMs) {
    lastNowMs = ms;
    lastNowIso = new Date(ms).toISOString();
  }
  return lastNowIso;
};

/** Returns the task with at most `historyLength` recent history messages (0 omits the field). */
export function trimHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined || !task.history) return task;
  const { history, ...rest } = task;
  if (historyLength === 0) return rest;
  return { ...rest, history: history.slice(-historyLength) };
}

function mediaTypeAccepted(mediaType: string, accepted: string[]): boolean {
  const [type] = mediaType.split(';');
  const t = (type ?? '').trim().toLowerCase();
  return accepted.some((a) => {
    const m = a.toLowerCase();
    return m === '*/*' || m === t || (m.endsWith('/*') && t.startsWith(m.slice(0, -1)));
  });
}

/**
 * The binding-independent A2A operations: owns the task state machine, history, artifacts, live
 * streams, cancellation and push notifications. The JSON-RPC and REST bindings, and in-process
 * calls, go through it.
 */
export class A2aRequestHandler {
  readonly store: TaskStore;
  readonly #options: RequestHandlerOptions;
  readonly #runs = new Map<string, Run>();
  readonly #subscribers = new Map<string, Set<Subscriber>>();
  readonly #pushChains = new Map<string, Promise<void>>();
  #closed = false;

  constructor(options: RequestHandlerOptions) {
    this.#options = options;
    this.store = options.store ?? new InMemoryTaskStore();
  }

  get card(): AgentCard {
    return this.#options.card();
  }

  // --- SendMessage / SendStreamingMessage ---------------------------------------------------------

  async sendMessage(request: SendMessageRequest, ctx: CallContext = {}): Promise<SendMessageResponse> {
    const prepared = await this.#prepare(request, ctx);
    const queue = new AsyncQueue<StreamResponse>();
    this.#attach(prepared.taskId, { queue, end: 'terminal-or-interrupted' });
    this.#start(prepared, request, ctx, queue);
    const returnImmediately = request.configuration?.returnImmediately === true;
    const historyLength = request.configuration?.historyLength;
    let latest: Task | undefined;
    try {
      for await (const item of queue) {
        if ('message' in item) return { message: item.message };
        if ('task' in item) latest = item.task;
        if (returnImmediately && latest) break;
      }
    } finally {
      queue.end();
    }
    const task = (await this.store.get(prepared.taskId, ctx.caller?.id)) ?? latest;
    if (!task) throw new A2aError('INTERNAL', 'The agent produced no task and no message');
    return { task: trimHistory(task, historyLength) };
  }

  /** Validates the request, then returns the event stream (so validation errors precede any SSE). */
  async sendStreamingMessage(
    request: SendMessageRequest,
    ctx: CallContext = {},
  ): Promise<AsyncIterable<StreamResponse>> {
    if (!this.card.capabilities.streaming)
      throw new A2aError('UNSUPPORTED_OPERATION', 'Streaming is not supported');
    const prepared = await this.#prepare(request, ctx);
    const queue = new AsyncQueue<StreamResponse>();
    this.#attach(prepared.taskId, { queue, end: 'terminal-or-interrupted' });
    this.#start(prepared, request, ctx, queue);
    return queue;
  }

  // --- tasks --------------------------------------------------------------------------------------

  async getTask(id: string, historyLength: number | undefined, ctx: CallContext = {}): Promise<Task> {
    const task = await this.store.get(id, ctx.caller?.id);
    if (!task) throw new A2aError('TASK_NOT_FOUND', `Task ${id} not found`, { metadata: { taskId: id } });
    return trimHistory(task, historyLength);
  }

  async listTasks(request: ListTasksRequest, ctx: CallContext = {}): Promise<ListTasksResponse> {
    const pageSize = request.pageSize ?? 50;
    const after = request.statusTimestampAfter ? Date.parse(request.statusTimestampAfter) : undefined;
    const page = await this.store.list({
      owner: ctx.caller?.id,
      ...(request.contextId ? { contextId: request.contextId } : {}),
      ...(request.status ? { status: request.status } : {}),
      ...(after !== undefined && !Number.isNaN(after) ? { statusTimestampAfter: after } : {}),
      pageSize,
      ...(request.pageToken ? { pageToken: request.pageToken } : {}),
    });
    const tasks = page.tasks.map((t) => {
      const trimmed = trimHistory(t, request.historyLength);
      if (request.includeArtifacts) return { ...trimmed, artifacts: trimmed.artifacts ?? [] };
      const { artifacts: _omit, ...rest } = trimmed;
      return rest;
    });
    return { tasks, nextPageToken: page.nextPageToken, pageSize, totalSize: page.totalSize };
  }

  async cancelTask(id: string, ctx: CallContext = {}): Promise<Task> {
    const task = await this.store.get(id, ctx.caller?.id);
    if (!task) throw new A2aError('TASK_NOT_FOUND', `Task ${id} not found`, { metadata: { taskId: id } });
    if (isTerminalState(task.status.state)) {
      throw new A2aError('TASK_NOT_CANCELABLE', `Task ${id} is ${task.status.state}`, {
        metadata: { taskId: id },
      });
    }
    const run = this.#runs.get(id);
    if (run) {
      try {
        await this.#options.executor.cancel?.({ taskId: id, contextId: task.contextId, task });
      } finally {
        run.abort.abort(new A2aError('UNSUPPORTED_OPERATION', 'Task canceled'));
      }
      const grace = this.#options.cancelGraceMs ?? 5000;
      await Promise.race([run.done, new Promise((r) => setTimeout(r, grace).unref?.())]);
    } else {
      // Not running here (waiting for input, or running in another process): cancel in the store.
      await this.#options.executor.cancel?.({ taskId: id, contextId: task.contextId, task });
      task.status = { state: 'TASK_STATE_CANCELED', timestamp: now() };
      await this.store.save(task);
      this.#publish(task.id, {
        statusUpdate: { taskId: id, contextId: task.contextId, status: task.status },
      });
    }
    const final = (await this.store.get(id, ctx.caller?.id)) ?? task;
    return final;
  }

  async subscribe(id: string, ctx: CallContext = {}): Promise<AsyncIterable<StreamResponse>> {
    if (!this.card.capabilities.streaming)
      throw new A2aError('UNSUPPORTED_OPERATION', 'Streaming is not supported');
    const task = await this.store.get(id, ctx.caller?.id);
    if (!task) throw new A2aError('TASK_NOT_FOUND', `Task ${id} not found`, { metadata: { taskId: id } });
    if (isTerminalState(task.status.state)) {
      throw new A2aError(
        'UNSUPPORTED_OPERATION',
        `Task ${id} is in a terminal state (${task.status.state})`,
        {
          metadata: { taskId: id },
        },
      );
    }
    const queue = new AsyncQueue<StreamResponse>();
    queue.push({ task });
    this.#attach(id, { queue, end: 'terminal-or-interrupted' });
    if (this.#options.eventBus && !this.#runs.has(id)) await this.#follow(task, queue, ctx);
    return queue;
  }

  /** Forwards updates of a task that another process runs into a subscriber's queue. */
  async #follow(task: Task, queue: AsyncQueue<StreamResponse>, ctx: CallContext): Promise<void> {
    const bus = this.#options.eventBus;
    if (!bus) return;
    const id = task.id;
    const forward = (item: StreamResponse) => {
      queue.push(item);
      const state =
        'statusUpdate' in item
          ? item.statusUpdate.status.state
          : 'task' in item
            ? item.task.status.state
            : undefined;
      if (state && (isTerminalState(state) || isInterruptedState(state))) queue.end();
    };
    const stop = await bus.subscribe(id, (item) => {
      if (item) forward(item);
      else
        void this.store.get(id, ctx.caller?.id).then(
          (task) => task && forward({ task }),
          () => undefined,
        );
    });
    const onClose = queue.onClose;
    queue.onClose = () => {
      stop();
      onClose?.();
    };
    // An update published between the first read and the subscription: read the task once more.
    const latest = await this.store.get(id, ctx.caller?.id);
    if (latest && latest.status.timestamp !== task.status.timestamp && isTerminalOrInterrupted(latest))
      forward({ task: latest });
  }

  // --- push notification configs --------------------------------------------------------------------

  #requirePush(): void {
    if (!this.card.capabilities.pushNotifications || !this.#options.pushSender) {
      throw new A2aError('PUSH_NOTIFICATION_NOT_SUPPORTED');
    }
  }

  async #requireTask(taskId: string, ctx: CallContext): Promise<Task> {
    const task = await this.store.get(taskId, ctx.caller?.id);
    if (!task) throw new A2aError('TASK_NOT_FOUND', `Task ${taskId} not found`, { metadata: { taskId } });
    return task;
  }

  async createPushConfig(
    config: Omit<TaskPushNotificationConfig, 'id'> & { id?: string },
    ctx: CallContext = {},
  ): Promise<TaskPushNotificationConfig> {
    this.#requirePush();
    await this.#requireTask(config.taskId, ctx);
    return this.#savePushConfig(config, ctx);
  }

  async #savePushConfig(
    config: Omit<TaskPushNotificationConfig, 'id'> & { id?: string },
    ctx: CallContext,
  ): Promise<TaskPushNotificationConfig> {
    await this.#options.pushSender?.validateUrl(config.url);
    const saved: TaskPushNotificationConfig & { protocolVersion?: ProtocolVersion } = {
      ...config,
      id: config.id || newId(),
    };
    if (ctx.version === '0.3') saved.protocolVersion = '0.3';
    await this.store.savePushConfig(saved);
    const { protocolVersion: _v, ...visible } = saved;
    return visible;
  }

  async getPushConfig(ref: PushConfigRef, ctx: CallContext = {}): Promise<TaskPushNotificationConfig> {
    this.#requirePush();
    await this.#requireTask(ref.taskId, ctx);
    const config = await this.store.getPushConfig(ref.taskId, ref.id);
    if (!config) {
      throw new A2aError('TASK_NOT_FOUND', `Push notification config ${ref.id} not found`, {
        metadata: { taskId: ref.taskId, configId: ref.id },
      });
    }
    return stripInternal(config);
  }

  async listPushConfigs(
    request: ListPushConfigsRequest,
    ctx: CallContext = {},
  ): Promise<ListPushConfigsResponse> {
    this.#requirePush();
    await this.#requireTask(request.taskId, ctx);
    const configs = (await this.store.listPushConfigs(request.taskId)).map(stripInternal);
    return { configs, nextPageToken: '' };
  }

  async deletePushConfig(ref: PushConfigRef, ctx: CallContext = {}): Promise<void> {
    this.#requirePush();
    await this.#requireTask(ref.taskId, ctx);
    await this.store.deletePushConfig(ref.taskId, ref.id);
  }

  async getExtendedCard(ctx: CallContext = {}): Promise<AgentCard> {
    if (!this.card.capabilities.extendedAgentCard) throw new A2aError('UNSUPPORTED_OPERATION');
    if (!this.#options.extendedCard) throw new A2aError('EXTENDED_AGENT_CARD_NOT_CONFIGURED');
    return this.#options.extendedCard(ctx.caller);
  }

  /** Aborts every running execution and ends every open stream. */
  async close(): Promise<void> {
    this.#closed = true;
    const runs = [...this.#runs.values()];
    for (const run of runs) run.abort.abort(new Error('server closing'));
    await Promise.allSettled(runs.map((r) => r.done));
    for (const subs of this.#subscribers.values()) for (const s of subs) s.queue.end();
    this.#subscribers.clear();
    await Promise.allSettled([...this.#pushChains.values()]);
  }

  // --- internals ------------------------------------------------------------------------------------

  async #prepare(request: SendMessageRequest, ctx: CallContext) {
    if (this.#closed) throw new A2aError('INTERNAL', 'The server is shutting down');
    const declared = new Set([...(ctx.extensions ?? []), ...(request.message.extensions ?? [])]);
    for (const extension of this.card.capabilities.extensions ?? []) {
      if (extension.required && !declared.has(extension.uri)) {
        throw new A2aError(
          'EXTENSION_SUPPORT_REQUIRED',
          `The agent requires the extension ${extension.uri}; declare it in the A2A-Extensions header`,
          { metadata: { extension: extension.uri } },
        );
      }
    }
    const { message } = request;
    if (message.role !== 'ROLE_USER') {
      throw new A2aError('INVALID_PARAMS', 'message.role must be ROLE_USER', {
        fieldViolations: [{ field: 'message.role', description: 'must be ROLE_USER' }],
      });
    }
    const accepted = this.#options.acceptedInputModes ?? this.card.defaultInputModes;
    for (const part of message.parts) {
      if (part.mediaType && !mediaTypeAccepted(part.mediaType, accepted)) {
        throw new A2aError('CONTENT_TYPE_NOT_SUPPORTED', `Media type ${part.mediaType} is not supported`, {
          metadata: { mediaType: part.mediaType },
        });
      }
    }
    if (request.configuration?.taskPushNotificationConfig) this.#requirePush();
    let existing: Task | undefined;
    if (message.taskId) {
      existing = await this.store.get(message.taskId, ctx.caller?.id);
      if (!existing) {
        throw new A2aError('TASK_NOT_FOUND', `Task ${message.taskId} not found`, {
          metadata: { taskId: message.taskId },
        });
      }
      if (isTerminalState(existing.status.state)) {
        throw new A2aError(
          'UNSUPPORTED_OPERATION',
          `Task ${existing.id} is in a terminal state (${existing.status.state}) and accepts no further messages`,
          { metadata: { taskId: existing.id } },
        );
      }
      if (this.#runs.has(existing.id)) {
        throw new A2aError('UNSUPPORTED_OPERATION', `Task ${existing.id} is still being processed`, {
          metadata: { taskId: existing.id },
        });
      }
      if (message.contextId && message.contextId !== existing.contextId) {
        throw new A2aError('INVALID_PARAMS', 'message.contextId does not match the task context', {
          fieldViolations: [
            { field: 'message.contextId', description: 'does not match the referenced task' },
          ],
        });
      }
    }
    const taskId = existing?.id ?? newId();
    const contextId = existing?.contextId ?? message.contextId ?? newId();
    const userMessage: Message = { ...message, taskId, contextId };
    return { existing, taskId, contextId, userMessage };
  }

  #attach(taskId: string, subscriber: Subscriber): void {
    let set = this.#subscribers.get(taskId);
    if (!set) {
      set = new Set();
      this.#subscribers.set(taskId, set);
    }
    set.add(subscriber);
    subscriber.queue.onClose = () => {
      const s = this.#subscribers.get(taskId);
      s?.delete(subscriber);
      if (s && s.size === 0) this.#subscribers.delete(taskId);
    };
  }

  #publish(taskId: string, item: StreamResponse, opts: { persistent?: boolean } = {}): void {
    const set = this.#subscribers.get(taskId);
    if (set) {
      for (const sub of [...set]) {
        sub.queue.push(item);
        if ('statusUpdate' in item) {
          const state = item.statusUpdate.status.state;
          if (isTerminalState(state) || isInterruptedState(state)) sub.queue.end();
        }
      }
    }
    if (opts.persistent !== false && !('message' in item)) this.#push(taskId, item);
    void this.#options.eventBus?.publish(taskId, item).catch(() => undefined);
  }

  #push(taskId: string, item: StreamResponse): void {
    const sender = this.#options.pushSender;
    if (!sender || !this.card.capabilities.pushNotifications) return;
    const previous = this.#pushChains.get(taskId) ?? Promise.resolve();
    // Chained per task so webhook receivers see events in order.
    const next = previous.then(async () => {
      const configs = await this.store.listPushConfigs(taskId);
      await Promise.allSettled(configs.map((c) => sender.send(c, item)));
    });
    const settled = next.catch(() => undefined);
    this.#pushChains.set(taskId, settled);
    void settled.then(() => {
      if (this.#pushChains.get(taskId) === settled) this.#pushChains.delete(taskId);
    });
  }

  #start(
    prepared: { existing: Task | undefined; taskId: string; contextId: string; userMessage: Message },
    request: SendMessageRequest,
    ctx: CallContext,
    first: AsyncQueue<StreamResponse>,
  ): void {
    const abort = new AbortController();
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => {
      resolveDone = r;
    });
    const run: Run = { abort, done };
    this.#runs.set(prepared.taskId, run);
    void this.#drive(prepared, request, ctx, abort.signal, first)
      .catch(() => undefined)
      .finally(() => {
        this.#runs.delete(prepared.taskId);
        resolveDone();
      });
  }

  async #drive(
    prepared: { existing: Task | undefined; taskId: string; contextId: string; userMessage: Message },
    request: SendMessageRequest,
    ctx: CallContext,
    signal: AbortSignal,
    first: AsyncQueue<StreamResponse>,
  ): Promise<void> {
    const { existing, taskId, contextId, userMessage } = prepared;
    const owner = ctx.caller?.id;
    let task: Task | undefined;

    const ensureTask = async (): Promise<Task> => {
      if (task) return task;
      if (existing) {
        task = {
          ...existing,
          status: { state: 'TASK_STATE_WORKING', timestamp: now() },
          history: [...(existing.history ?? []), userMessage],
        };
      } else {
        task = {
          id: taskId,
          contextId,
          status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
          history: [userMessage],
          ...(request.metadata ? { metadata: request.metadata } : {}),
        };
      }
      await this.store.save(task, owner);
      const pushConfig = request.configuration?.taskPushNotificationConfig;
      if (pushConfig) await this.#savePushConfig({ ...pushConfig, taskId }, ctx);
      this.#publish(taskId, { task: cloneJson(task) });
      return task;
    };

    const setStatus = async (state: TaskState, parts?: Part[], metadata?: A2aMetadata) => {
      const t = await ensureTask();
      const statusMessage: Message | undefined = parts?.length
        ? { messageId: newId(), role: 'ROLE_AGENT', parts, taskId, contextId }
        : undefined;
      t.status = { state, ...(statusMessage ? { message: statusMessage } : {}), timestamp: now() };
      if (statusMessage) t.history = [...(t.history ?? []), statusMessage];
      await this.store.save(t, owner);
      this.#publish(taskId, {
        statusUpdate: { taskId, contextId, status: t.status, ...(metadata ? { metadata } : {}) },
      });
    };

    const context: ExecutionContext = {
      message: userMessage,
      taskId,
      contextId,
      task: existing,
      request,
      caller: ctx.caller,
      signal,
    };

    let iterator: AsyncIterator<AgentUpdate> | undefined;
    const aborted = new Promise<'aborted'>((resolve) => {
      if (signal.aborted) resolve('aborted');
      else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    try {
      iterator = this.#options.executor.execute(context)[Symbol.asyncIterator]();
      let firstUpdate = true;
      for (;;) {
        const next = await Promise.race([iterator.next(), aborted]);
        if (next === 'aborted') throw signal.reason;
        if (next.done) break;
        const update = next.value;
        if (update.kind === 'message' && firstUpdate && !existing) {
          const reply: Message = {
            messageId: newId(),
            role: 'ROLE_AGENT',
            parts: update.parts,
            contextId,
            ...(update.metadata ? { metadata: update.metadata } : {}),
          };
          first.push({ message: reply });
          first.end();
          void iterator.return?.()?.catch(() => undefined);
          return;
        }
        firstUpdate = false;
        if (update.kind === 'message') {
          await setStatus('TASK_STATE_WORKING', update.parts, update.metadata);
        } else if (update.kind === 'status') {
          await setStatus(update.state, update.parts, update.metadata);
          if (isTerminalState(update.state) || isInterruptedState(update.state)) {
            void iterator.return?.()?.catch(() => undefined);
            return;
          }
        } else {
          const t = await ensureTask();
          t.artifacts = mergeArtifact(t.artifacts ?? [], update.artifact, update.append === true);
          await this.store.save(t, owner);
          this.#publish(taskId, {
            artifactUpdate: {
              taskId,
              contextId,
              artifact: update.artifact,
              ...(update.append ? { append: true } : {}),
              ...(update.lastChunk !== undefined ? { lastChunk: update.lastChunk } : {}),
            },
          });
        }
      }
      await setStatus('TASK_STATE_COMPLETED');
    } catch (error) {
      if (signal.aborted) {
        void iterator?.return?.()?.catch(() => undefined);
        await setStatus('TASK_STATE_CANCELED').catch(() => undefined);
      } else {
        const text = error instanceof Error ? error.message : String(error);
        await setStatus('TASK_STATE_FAILED', [{ text }]).catch(() => undefined);
      }
    } finally {
      // A stream that saw no task (e.g. the executor yielded nothing and failed to save) still ends.
      first.end();
    }
  }
}

function stripInternal(config: TaskPushNotificationConfig & { protocolVersion?: ProtocolVersion }) {
  const { protocolVersion: _v, ...rest } = config;
  return rest;
}

function mergeArtifact(artifacts: Artifact[], update: Artifact, append: boolean): Artifact[] {
  const index = artifacts.findIndex((a) => a.artifactId === update.artifactId);
  if (index < 0) return [...artifacts, update];
  const current = artifacts[index] as Artifact;
  const merged: Artifact = append
    ? { ...current, ...update, parts: [...current.parts, ...update.parts] }
    : update;
  const out = [...artifacts];
  out[index] = merged;
  return out;
}

function isTerminalOrInterrupted(task: Task): boolean {
  return isTerminalState(task.status.state) || isInterruptedState(task.status.state);
}
