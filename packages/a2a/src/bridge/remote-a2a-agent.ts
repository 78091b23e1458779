import {
  type AdkErrorCode,
  type Part as AdkPart,
  BaseAgent,
  type BaseAgentOptions,
  createEvent,
  describeError,
  type Event,
  errorCodeOf,
  type InvocationContext,
  newFunctionCallId,
  newId,
  presentOtherAgentTurn,
  visibleEvents,
} from '@adk/core';
import { z } from 'zod';
import { A2aClient, type A2aClientOptions } from '../client/a2a-client.js';
import {
  type Artifact,
  isInterruptedState,
  isTerminalState,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
} from '../protocol/types.js';
import { ADK_NODE_INFO_KEY, ADK_OUTPUT_KEY, ADK_ROUTE_KEY } from './adk-agent-executor.js';
import {
  a2aPartToAdk,
  a2aText,
  adkPartToA2a,
  isLongRunningCallPart,
  REQUEST_CREDENTIAL,
  toA2aJson,
} from './part-conversion.js';

/**
 * The long-running function call a `RemoteA2aAgent` raises when a remote agent that is not an ADK
 * agent asks for input. Answer it with a function response (`{ result: '...' }` or any object), or
 * send a plain message: either continues the remote task.
 */
export const A2A_INPUT_REQUIRED = 'a2a_input_required';

/** Where `RemoteA2aAgent` keeps the remote task it talks to, in `event.customMetadata.a2a`. */
export interface RemoteA2aMetadata {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  /** Long-running calls raised for the remote task: `remote` ones are the remote agent's own calls. */
  pendingCalls?: Record<string, 'remote' | 'local'>;
}

const metadataSchema = z.object({
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  state: z.string().optional(),
  pendingCalls: z.record(z.string(), z.enum(['remote', 'local'])).optional(),
});

export interface RemoteA2aAgentOptions extends Omit<BaseAgentOptions, 'subAgents'> {
  /** The remote agent's base URL; its card is fetched from there. */
  url?: string;
  /** Or a ready client. */
  client?: A2aClient;
  clientOptions?: A2aClientOptions;
  /** Stream the remote task when its card allows it. Default true. */
  streaming?: boolean;
}

function readMetadata(event: Event | undefined): RemoteA2aMetadata {
  const parsed = metadataSchema.safeParse(event?.customMetadata?.a2a);
  return parsed.success ? (parsed.data as RemoteA2aMetadata) : {};
}

/**
 * A sub-agent that lives behind A2A. Each run forwards the session's events since this agent's last
 * reply to the remote agent (continuing its context, and its task when that waits for input), and
 * turns what comes back into events: progress as thought text, artifacts as the answer, failure as
 * an error event, and input-required/auth-required as a long-running function call that pauses the
 * flow until the user answers it.
 */
export class RemoteA2aAgent extends BaseAgent {
  readonly #options: RemoteA2aAgentOptions;
  #client: Promise<A2aClient> | undefined;

  constructor(options: RemoteA2aAgentOptions) {
    super(options);
    if (!options.url && !options.client) throw new TypeError('RemoteA2aAgent needs a url or a client');
    this.#options = options;
    if (options.client) this.#client = Promise.resolve(options.client);
  }

  /** The client, resolving the remote card on first use. */
  client(): Promise<A2aClient> {
    if (!this.#client) {
      const pending = A2aClient.fromUrl(this.#options.url as string, this.#options.clientOptions);
      // A failed card fetch is retried on the next run rather than cached.
      pending.catch(() => {
        if (this.#client === pending) this.#client = undefined;
      });
      this.#client = pending;
    }
    return this.#client;
  }

  protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const events = visibleEvents(ctx.session.events);
    let lastIndex = -1;
    for (let i = events.length - 1; i >= 0; i--) {
      if ((events[i] as Event).author === this.name) {
        lastIndex = i;
        break;
      }
    }
    const previous = readMetadata(events[lastIndex]);
    const parts = this.#newParts(events.slice(lastIndex + 1), previous.pendingCalls ?? {});
    if (parts.length === 0) return;
    const continues =
      previous.taskId !== undefined && previous.state !== undefined && isInterruptedState(previous.state);
    const message: Message = {
      messageId: newId(),
      role: 'ROLE_USER',
      parts,
      ...(previous.contextId ? { contextId: previous.contextId } : {}),
      ...(continues ? { taskId: previous.taskId } : {}),
    };

    const run = new RemoteRun(this, ctx);
    try {
      const client = await this.client();
      const stream = this.#options.streaming !== false && client.card.capabilities.streaming === true;
      if (stream) {
        for await (const item of client.sendStreamingMessage({ message }, { signal: ctx.signal })) {
          yield* run.onItem(item);
          if (run.finished) break;
        }
        if (!run.finished) yield* run.flushArtifacts();
      } else {
        const result = await client.sendMessage({ message }, { signal: ctx.signal });
        yield* 'message' in result ? run.onItem(result) : run.onTask(result.task);
      }
    } catch (error) {
      if (ctx.signal.aborted) {
        // Best effort: the remote task should not keep working for nobody.
        if (run.taskId && !run.finished) {
          void this.client()
            .then((c) => c.cancelTask(run.taskId as string))
            .catch(() => undefined);
        }
        return;
      }
      yield this.makeEvent(ctx, {
        errorCode: errorCodeOf(error),
        errorMessage: `Remote agent ${this.name} failed: ${describeError(error)}`,
        customMetadata: { a2a: run.metadata() },
      });
    }
  }

  /** The A2A parts for the events since the last reply: the user's words, answers to our calls, others' words as context. */
  #newParts(events: Event[], pendingCalls: Record<string, 'remote' | 'local'>): Part[] {
    const out: Part[] = [];
    for (const event of events) {
      if (event.partial || !event.content) continue;
      if (event.author === 'user') {
        for (const part of event.content.parts) {
          const response = part.functionResponse;
          if (response) {
            const kind = pendingCalls[response.id];
            if (kind === 'remote') {
              const converted = adkPartToA2a(part);
              if (converted) out.push(converted);
            } else if (kind === 'local') {
              const result = response.response.result;
              out.push(
                typeof result === 'string' ? { text: result } : { data: toA2aJson(response.response) },
              );
            }
            continue;
          }
          if (part.functionCall || part.thought) continue;
          const converted = adkPartToA2a(part);
          if (converted) out.push(converted);
        }
      } else {
        // Another agent's turn as ADK presents it to a model: the "For context:" preamble, then
        // each text, call and result quoted as data.
        const presented = presentOtherAgentTurn(event.author, event.content);
        for (const part of presented?.parts ?? []) {
          const converted = adkPartToA2a(part);
          if (converted) out.push(converted);
        }
      }
    }
    return out;
  }
}

/** The state of one exchange with the remote agent, turning its answers into events. */
class RemoteRun {
  taskId: string | undefined;
  contextId: string | undefined;
  state: TaskState | undefined;
  finished = false;
  readonly #artifacts = new Map<string, Artifact>();
  #answered = false;

  constructor(
    private readonly agent: RemoteA2aAgent,
    private readonly ctx: InvocationContext,
  ) {}

  metadata(extra: Partial<RemoteA2aMetadata> = {}): RemoteA2aMetadata {
    return {
      ...(this.taskId ? { taskId: this.taskId } : {}),
      ...(this.contextId ? { contextId: this.contextId } : {}),
      ...(this.state ? { state: this.state } : {}),
      ...extra,
    };
  }

  #event(fields: Partial<Event>): Event {
    return createAgentEvent(this.agent, this.ctx, {
      ...fields,
      customMetadata: { ...fields.customMetadata, a2a: { ...this.metadata(), ...readMeta(fields) } },
    });
  }

  *onItem(item: StreamResponse): Generator<Event> {
    if ('message' in item) {
      this.contextId = item.message.contextId ?? this.contextId;
      this.finished = true;
      this.#answered = true;
      yield this.#event({ content: { role: 'model', parts: item.message.parts.map(a2aPartToAdk) } });
      return;
    }
    if ('task' in item) {
      const task = item.task;
      this.taskId = task.id;
      this.contextId = task.contextId;
      this.state = task.status.state;
      if (isTerminalState(task.status.state) || isInterruptedState(task.status.state))
        yield* this.onTask(task);
      return;
    }
    if ('statusUpdate' in item) {
      const { status } = item.statusUpdate;
      this.taskId = item.statusUpdate.taskId;
      this.contextId = item.statusUpdate.contextId;
      this.state = status.state;
      if (isTerminalState(status.state) || isInterruptedState(status.state)) {
        yield* this.#finish(status.state, status.message?.parts ?? []);
        return;
      }
      const progress = progressParts(status.message?.parts ?? []);
      const workflow = workflowFields(item.statusUpdate.metadata);
      if (progress.length > 0 || workflow) {
        yield this.#event({
          ...(progress.length > 0 ? { content: { role: 'model', parts: progress } } : {}),
          ...(workflow ? { customMetadata: { a2a: { workflow } } } : {}),
        });
      }
      return;
    }
    const { artifact, append } = item.artifactUpdate;
    this.taskId = item.artifactUpdate.taskId;
    this.contextId = item.artifactUpdate.contextId;
    const current = this.#artifacts.get(artifact.artifactId);
    this.#artifacts.set(
      artifact.artifactId,
      append && current ? { ...current, parts: [...current.parts, ...artifact.parts] } : artifact,
    );
    // Emitted when the task settles, so the event carries the task's final state.
  }

  *onTask(task: Task): Generator<Event> {
    this.taskId = task.id;
    this.contextId = task.contextId;
    this.state = task.status.state;
    for (const artifact of task.artifacts ?? []) this.#artifacts.set(artifact.artifactId, artifact);
    if (isTerminalState(task.status.state) || isInterruptedState(task.status.state)) {
      yield* this.#finish(task.status.state, task.status.message?.parts ?? []);
    } else {
      yield* this.flushArtifacts();
    }
  }

  *flushArtifacts(): Generator<Event> {
    for (const id of [...this.#artifacts.keys()]) yield* this.#emitArtifact(id);
  }

  *#emitArtifact(id: string): Generator<Event> {
    const artifact = this.#artifacts.get(id);
    this.#artifacts.delete(id);
    if (!artifact || artifact.parts.length === 0) return;
    this.#answered = true;
    yield this.#event({ content: { role: 'model', parts: artifact.parts.map(a2aPartToAdk) } });
  }

  *#finish(state: TaskState, statusParts: Part[]): Generator<Event> {
    this.finished = true;
    this.state = state;
    if (state === 'TASK_STATE_COMPLETED') {
      yield* this.flushArtifacts();
      if (!this.#answered && statusParts.length > 0) {
        yield this.#event({ content: { role: 'model', parts: statusParts.map(a2aPartToAdk) } });
      }
      return;
    }
    if (isInterruptedState(state)) {
      yield* this.flushArtifacts();
      const parts: AdkPart[] = [];
      const ids: string[] = [];
      const pendingCalls: Record<string, 'remote' | 'local'> = {};
      for (const part of statusParts) {
        const converted = a2aPartToAdk(part);
        if (converted.functionCall && isLongRunningCallPart(part)) {
          ids.push(converted.functionCall.id);
          pendingCalls[converted.functionCall.id] = 'remote';
        }
        parts.push(converted);
      }
      if (ids.length === 0) {
        const id = newFunctionCallId();
        ids.push(id);
        pendingCalls[id] = 'local';
        parts.push({
          functionCall: {
            id,
            name: state === 'TASK_STATE_AUTH_REQUIRED' ? REQUEST_CREDENTIAL : A2A_INPUT_REQUIRED,
            args: {
              agent: this.agent.name,
              ...(this.taskId ? { taskId: this.taskId } : {}),
              message: a2aText(statusParts),
            },
          },
        });
      }
      yield this.#event({
        content: { role: 'model', parts },
        longRunningToolIds: ids,
        customMetadata: { a2a: this.metadata({ pendingCalls }) },
      });
      return;
    }
    // failed, canceled, rejected
    yield* this.flushArtifacts();
    const text = a2aText(statusParts);
    yield this.#event({
      // A2A_TASK_FAILED, A2A_TASK_CANCELED or A2A_TASK_REJECTED (the states that reach here).
      errorCode: `A2A_TASK_${state.replace('TASK_STATE_', '')}` as AdkErrorCode,
      errorMessage: text || `The remote task ended ${state.replace('TASK_STATE_', '').toLowerCase()}`,
    });
  }
}

/**
 * A remote workflow's `output`, `nodeInfo` and `route` as sent (see `AdkAgentExecutor`). They are
 * kept under `customMetadata.a2a.workflow`, not as this event's own fields: the paths name nodes of
 * the remote workflow, and a local workflow reading them as its own would misplace its records.
 */
function workflowFields(metadata: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!metadata) return undefined;
  const out: Record<string, unknown> = {};
  if (ADK_OUTPUT_KEY in metadata) out.output = metadata[ADK_OUTPUT_KEY];
  if (ADK_NODE_INFO_KEY in metadata) out.nodeInfo = metadata[ADK_NODE_INFO_KEY];
  if (ADK_ROUTE_KEY in metadata) out.route = metadata[ADK_ROUTE_KEY];
  return Object.keys(out).length > 0 ? out : undefined;
}

function readMeta(fields: Partial<Event>): Partial<RemoteA2aMetadata> {
  const value = fields.customMetadata?.a2a;
  return value && typeof value === 'object' ? (value as Partial<RemoteA2aMetadata>) : {};
}

/** Progress text is marked as thought so it never counts as the answer. */
function progressParts(parts: Part[]): AdkPart[] {
  const out: AdkPart[] = [];
  for (const part of parts) {
    const converted = a2aPartToAdk(part);
    if (converted.functionCall || converted.functionResponse) continue;
    out.push(converted.text !== undefined ? { ...converted, thought: true } : converted);
  }
  return out;
}

function createAgentEvent(agent: RemoteA2aAgent, ctx: InvocationContext, fields: Partial<Event>): Event {
  return createEvent({ ...fields, invocationId: ctx.invocationId, author: agent.name, branch: ctx.branch });
}
