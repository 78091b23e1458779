import { newId } from '@adk/core';
import type { AgentCardInput } from '../protocol/agent-card.js';
import type {
  A2aMetadata,
  AgentSkill,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
  Task,
} from '../protocol/types.js';
import { type A2aServer, type A2aServerOptions, createA2aServer } from '../server/a2a-server.js';
import type { AgentExecutor, AgentUpdate, Caller } from '../server/agent-executor.js';
import { type ListeningServer, listen } from '../server/node-adapter.js';
import { A2aRequestHandler } from '../server/request-handler.js';

/** What `handleMessage` returns; build one with the helpers below. */
export type AgentResult =
  | { type: 'reply'; parts: Part[]; artifactName?: string }
  | { type: 'input-required'; parts: Part[] }
  | { type: 'auth-required'; parts: Part[] }
  | { type: 'stream'; chunks: AsyncIterable<string | Part | Part[]>; artifactName?: string }
  | { type: 'message'; parts: Part[] }
  | { type: 'error'; message: string }
  | { type: 'rejected'; parts: Part[] };

type PartsInput = string | Part | Part[];
const toParts = (input: PartsInput): Part[] =>
  typeof input === 'string' ? [{ text: input }] : Array.isArray(input) ? input : [input];

/** The answer: its parts become an artifact, and the task completes. */
export const reply = (parts: PartsInput, options: { artifactName?: string } = {}): AgentResult => ({
  type: 'reply',
  parts: toParts(parts),
  ...options,
});
/** Ask the caller for more; the task pauses until a message with the same task id arrives. */
export const inputRequired = (parts: PartsInput): AgentResult => ({
  type: 'input-required',
  parts: toParts(parts),
});
/** Ask the caller to authenticate (out of band); the task pauses like input-required. */
export const authRequired = (parts: PartsInput): AgentResult => ({
  type: 'auth-required',
  parts: toParts(parts),
});
/** Stream parts as artifact chunks; completes when drained, fails if the iterable throws. */
export const stream = (
  chunks: AsyncIterable<PartsInput>,
  options: { artifactName?: string } = {},
): AgentResult => ({
  type: 'stream',
  chunks,
  ...options,
});
/** A direct message reply without a task (for trivial exchanges). */
export const message = (parts: PartsInput): AgentResult => ({ type: 'message', parts: toParts(parts) });
/** The task fails with this message. */
export const fail = (message: string): AgentResult => ({ type: 'error', message });
/** The agent declines the task. */
export const reject = (parts: PartsInput): AgentResult => ({ type: 'rejected', parts: toParts(parts) });

export interface AgentContext {
  taskId: string;
  contextId: string;
  /** The task before this message (history included) when the message continues it. */
  task: Task | undefined;
  caller: Caller | undefined;
  metadata: A2aMetadata | undefined;
  signal: AbortSignal;
}

export interface AgentDefinition {
  name: string;
  description: string;
  version?: string;
  skills?: AgentSkill[];
  card?: Omit<AgentCardInput, 'name' | 'description' | 'skills' | 'version'>;
  handleMessage(
    message: Message,
    context: AgentContext,
  ): AgentResult | string | Promise<AgentResult | string>;
  handleCancel?(context: { taskId: string; contextId: string; task: Task }): void | Promise<void>;
}

export interface CallOptions {
  taskId?: string;
  contextId?: string;
  metadata?: A2aMetadata;
  caller?: Caller;
}

export interface A2aAgent {
  readonly name: string;
  readonly card: AgentCardInput;
  readonly executor: AgentExecutor;
  /** Runs the agent in-process and returns the task (or direct message) once it settles. */
  call(input: PartsInput | Message, options?: CallOptions): Promise<Task | Message>;
  /** Runs the agent in-process and yields the protocol stream (task, status and artifact updates). */
  stream(input: PartsInput | Message, options?: CallOptions): AsyncIterable<StreamResponse>;
  /** A Fetch-API server for this agent. */
  server(options?: Omit<A2aServerOptions, 'executor' | 'card'>): A2aServer;
  /** Serves the agent over HTTP on Node (127.0.0.1 unless `host` says otherwise). */
  serve(
    options?: Omit<A2aServerOptions, 'executor' | 'card'> & { port?: number; host?: string },
  ): Promise<ListeningServer & { a2a: A2aServer }>;
}

function asArray(value: string | Part | Part[]): Part[] {
  return toParts(value);
}

async function* runResult(result: AgentResult): AsyncGenerator<AgentUpdate> {
  switch (result.type) {
    case 'reply':
      yield {
        kind: 'artifact',
        artifact: {
          artifactId: newId(),
          ...(result.artifactName ? { name: result.artifactName } : {}),
          parts: result.parts,
        },
        lastChunk: true,
      };
      yield { kind: 'status', state: 'TASK_STATE_COMPLETED' };
      return;
    case 'input-required':
      yield { kind: 'status', state: 'TASK_STATE_INPUT_REQUIRED', parts: result.parts };
      return;
    case 'auth-required':
      yield { kind: 'status', state: 'TASK_STATE_AUTH_REQUIRED', parts: result.parts };
      return;
    case 'message':
      yield { kind: 'message', parts: result.parts };
      return;
    case 'error':
      yield { kind: 'status', state: 'TASK_STATE_FAILED', parts: [{ text: result.message }] };
      return;
    case 'rejected':
      yield { kind: 'status', state: 'TASK_STATE_REJECTED', parts: result.parts };
      return;
    case 'stream': {
      const artifactId = newId();
      let pending: Part[] | undefined;
      let index = 0;
      const chunk = (parts: Part[], last: boolean): AgentUpdate => ({
        kind: 'artifact',
        artifact: { artifactId, ...(result.artifactName ? { name: result.artifactName } : {}), parts },
        ...(index++ > 0 ? { append: true } : {}),
        lastChunk: last,
      });
      // One chunk is held back so the final one can carry lastChunk: true.
      for await (const item of result.chunks) {
        if (pending) yield chunk(pending, false);
        pending = asArray(item);
      }
      if (pending) yield chunk(pending, true);
      yield { kind: 'status', state: 'TASK_STATE_COMPLETED' };
      return;
    }
  }
}

function toUserMessage(input: PartsInput | Message, options: CallOptions): Message {
  const base: Message =
    typeof input === 'object' && !Array.isArray(input) && 'messageId' in input
      ? input
      : { messageId: newId(), role: 'ROLE_USER', parts: toParts(input as PartsInput) };
  return {
    ...base,
    ...(options.taskId ? { taskId: options.taskId } : {}),
    ...(options.contextId ? { contextId: options.contextId } : {}),
  };
}

/**
 * Defines an A2A agent from a message handler. The runtime owns the task state machine and
 * history; the handler only decides what to answer.
 */
export function defineAgent(definition: AgentDefinition): A2aAgent {
  const executor: AgentExecutor = {
    async *execute(ctx) {
      const result = await definition.handleMessage(ctx.message, {
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        task: ctx.task,
        caller: ctx.caller,
        metadata: ctx.request.metadata,
        signal: ctx.signal,
      });
      yield* runResult(typeof result === 'string' ? reply(result) : result);
    },
    ...(definition.handleCancel ? { cancel: (c) => definition.handleCancel?.(c) } : {}),
  };
  const card: AgentCardInput = {
    ...definition.card,
    name: definition.name,
    description: definition.description,
    ...(definition.version ? { version: definition.version } : {}),
    skills: definition.skills ?? [],
  };
  let local: A2aRequestHandler | undefined;
  const inProcess = () => {
    local ??= new A2aRequestHandler({
      executor,
      card: () => ({
        name: card.name,
        description: card.description,
        version: card.version ?? '1.0.0',
        supportedInterfaces: [],
        capabilities: { streaming: true },
        defaultInputModes: card.defaultInputModes ?? ['*/*'],
        defaultOutputModes: card.defaultOutputModes ?? ['*/*'],
        skills: card.skills ?? [],
      }),
    });
    return local;
  };
  const request = (input: PartsInput | Message, options: CallOptions): SendMessageRequest => ({
    message: toUserMessage(input, options),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  });
  return {
    name: definition.name,
    card,
    executor,
    async call(input, options = {}) {
      const r = await inProcess().sendMessage(
        request(input, options),
        options.caller ? { caller: options.caller } : {},
      );
      return 'task' in r ? r.task : r.message;
    },
    async *stream(input, options = {}) {
      yield* await inProcess().sendStreamingMessage(
        request(input, options),
        options.caller ? { caller: options.caller } : {},
      );
    },
    server(options = {}) {
      return createA2aServer({ ...options, executor, card });
    },
    async serve(options = {}) {
      const { port, host, ...rest } = options;
      const a2a = createA2aServer({ ...rest, executor, card });
      const listening = await listen((r) => a2a.fetch(r), {
        ...(port ? { port } : {}),
        ...(host ? { host } : {}),
      });
      return {
        ...listening,
        a2a,
        close: async () => {
          await a2a.close();
          await listening.close();
        },
      };
    },
  };
}
