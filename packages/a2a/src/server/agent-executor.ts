import type {
  A2aMetadata,
  Artifact,
  Message,
  Part,
  SendMessageRequest,
  Task,
  TaskState,
} from '../protocol/types.js';

/** The authenticated caller of a request, as an auth hook established it. */
export interface Caller {
  /** Stable identity; tasks are isolated per id. */
  id: string;
  /** Anything the hook wants the agent to see (claims, scopes, ...). */
  claims?: Record<string, unknown>;
}

/**
 * What an executor reports while it works. The runtime turns these into task state, history,
 * artifacts, stream events and push notifications.
 */
export type AgentUpdate =
  /** A direct reply without a task; only honoured as the very first update of a new conversation turn. */
  | { kind: 'message'; parts: Part[]; metadata?: A2aMetadata }
  /** A state change, optionally with an agent message (kept in the task history). */
  | { kind: 'status'; state: TaskState; parts?: Part[]; metadata?: A2aMetadata }
  /** A whole artifact, or a chunk of one when `append` is set. */
  | { kind: 'artifact'; artifact: Artifact; append?: boolean; lastChunk?: boolean };

export interface ExecutionContext {
  /** The incoming message, with `taskId` and `contextId` filled in. */
  message: Message;
  taskId: string;
  contextId: string;
  /** The task as stored before this message, when the message continues one. */
  task: Task | undefined;
  request: SendMessageRequest;
  caller: Caller | undefined;
  /** Aborted when the task is canceled or the server shuts down. */
  signal: AbortSignal;
}

/** The server-side contract every agent implementation (authoring API, ADK bridge) satisfies. */
export interface AgentExecutor {
  execute(context: ExecutionContext): AsyncIterable<AgentUpdate>;
  /** Called when the task is canceled, before the execution's signal aborts. */
  cancel?(context: { taskId: string; contextId: string; task: Task }): void | Promise<void>;
}
