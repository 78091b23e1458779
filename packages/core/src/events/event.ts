import type { AdkErrorCode } from '../errors/errors.js';
import type { Transcription } from '../models/llm-connection.js';
import { strictlyAfter } from '../utils/clock.js';
import { newId } from '../utils/ids.js';
import { type Content, type FunctionCall, functionCallsOf, functionResponsesOf } from './content.js';
import { eventSchemas } from './schemas.js';

export type UsageMetadata = {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
};

/** A request, made by a tool, that the user confirm a function call before it runs. */
export type ToolConfirmation = {
  hint?: string;
  confirmed: boolean;
  payload?: unknown;
};

/** Replaces a range of events by a summary when the next request is built (raw events stay). */
export type EventCompaction = {
  startTimestamp: number;
  endTimestamp: number;
  compactedContent: Content;
};

export type EventActions = {
  /** State changes, routed by key prefix when the event is committed. */
  stateDelta: Record<string, unknown>;
  /** Artifact name → version saved with this event. */
  artifactDelta: Record<string, number>;
  transferToAgent?: string;
  escalate?: boolean;
  skipSummarization?: boolean;
  /** Function-call id → confirmation the user is asked for. */
  requestedToolConfirmations?: Record<string, ToolConfirmation>;
  requestedAuthConfigs?: Record<string, unknown>;
  endOfAgent?: boolean;
  /** A workflow agent's own state when the run paused inside it (e.g. a LoopAgent's iteration). */
  agentState?: Record<string, unknown>;
  compaction?: EventCompaction;
  /**
   * Time travel: this event rewinds the session to before the invocation with this id. That
   * invocation and everything after it up to this event drop out of the history every reader sees
   * (`visibleEvents`); the events stay in the log.
   */
  rewindBeforeInvocationId?: string;
  /** The route(s) a workflow node took: edges with a matching route fire (see Workflow). */
  route?: RouteValue | RouteValue[];
  /**
   * The validated arguments of a `set_model_response` call (adk-python's
   * `EventActions.set_model_response`): the agent's structured final answer, which the flow then
   * repeats as a model event of JSON text.
   */
  setModelResponse?: unknown;
};

/** A value a workflow node routes by (`ctx.route`), matched against routing-map keys as text. */
export type RouteValue = string | number | boolean;

/** Where in a workflow an event comes from (the adk-python / adk-go wire shape). */
export type NodeInfo = {
  /** The node run that produced the event: `workflow@runId/node@runId`, nested with `/`. */
  path: string;
  /** Node runs whose output this event carries (the node itself, then ancestors it stands in for). */
  outputFor?: string[];
  /** The event's text content is the node's output (an agent's reply). */
  messageAsOutput?: boolean;
};

/**
 * Codes a model reports for an answer it withheld or could not give (finish and block reasons of
 * Gemini, Claude's and OpenAI's refusals). Vendors add reasons over time: an unknown one is carried
 * as it came.
 */
export type ModelErrorCode =
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'LANGUAGE'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'REFUSAL'
  | 'IMAGE_SAFETY'
  | 'IMAGE_PROHIBITED_CONTENT'
  | 'IMAGE_RECITATION'
  | 'IMAGE_OTHER'
  | 'NO_IMAGE'
  | 'UNEXPECTED_TOOL_CALL'
  | 'TOO_MANY_TOOL_CALLS'
  | 'MISSING_THOUGHT_SIGNATURE'
  | 'OTHER'
  /** The AI SDK adapter: the wrapped model reported an error. */
  | 'MODEL_ERROR'
  /** Gemini's Interactions API: the interaction ended failed or cancelled. */
  | 'INTERACTION_FAILED'
  | 'INTERACTION_CANCELLED'
  | 'BLOCK_REASON_UNSPECIFIED'
  | 'FINISH_REASON_UNSPECIFIED';

/** `event.errorCode`: one of ours, or the model's own. */
export type EventErrorCode = AdkErrorCode | ModelErrorCode;

export type Event = {
  id: string;
  invocationId: string;
  /** 'user' or an agent name */
  author: string;
  branch?: string;
  /** ms since the epoch, µs resolution */
  timestamp: number;
  content?: Content;
  partial?: boolean;
  turnComplete?: boolean;
  interrupted?: boolean;
  finishReason?: string;
  /** Ours (an {@link AdkErrorCode}: narrow with `isAdkErrorCode`) or the model's own ({@link ModelErrorCode}). */
  errorCode?: EventErrorCode;
  errorMessage?: string;
  usageMetadata?: UsageMetadata;
  groundingMetadata?: unknown;
  citationMetadata?: unknown;
  customMetadata?: Record<string, unknown>;
  /** From the model response the event was made of (ADK's `Event` keeps `LlmResponse`'s fields). */
  modelVersion?: string;
  avgLogprobs?: number;
  logprobsResult?: unknown;
  cacheMetadata?: unknown;
  longRunningToolIds?: string[];
  /** A workflow node's output (any JSON value). */
  output?: unknown;
  /** Set on every event a workflow node produces. */
  nodeInfo?: NodeInfo;
  /**
   * Live sessions: a chunk (partial) or the finished text of the user's speech. Only on the live
   * stream: the stored record of a finished transcription is its `content` text.
   */
  inputTranscription?: Transcription;
  /** Live sessions: the same for the model's speech. */
  outputTranscription?: Transcription;
  actions: EventActions;
};

export type EventInit = Partial<Omit<Event, 'actions'>> & {
  invocationId: string;
  author: string;
  actions?: Partial<EventActions>;
};

/** Event fields an agent sets; id, timestamp, invocation, author and branch are filled in. */
export type EventFields = Partial<Omit<Event, 'actions'>> & { actions?: Partial<EventActions> };

export function emptyActions(): EventActions {
  return { stateDelta: {}, artifactDelta: {} };
}

let lastTimestamp = 0;

/**
 * Current time in ms with µs resolution, strictly increasing within the process, so events of one
 * session never share a timestamp (compaction ranges and `after` filters rely on the order).
 */
export function eventTimestamp(): number {
  lastTimestamp = strictlyAfter(lastTimestamp);
  return lastTimestamp;
}

/** Creates an event with a fresh id and timestamp; fields given override the defaults. */
export function createEvent(init: EventInit): Event {
  const { actions, ...rest } = init;
  const event: Event = {
    ...rest,
    id: init.id ?? newId(),
    timestamp: init.timestamp ?? eventTimestamp(),
    actions: { stateDelta: {}, artifactDelta: {}, ...actions },
  };
  return event;
}

export function eventFunctionCalls(event: Event): FunctionCall[] {
  return functionCallsOf(event.content);
}

export function eventFunctionResponses(event: Event) {
  return functionResponsesOf(event.content);
}

/**
 * Whether this event is the agent's final response of its turn (ADK's rule): events that skip
 * summarization or carry long-running tool ids are final; partial events are not; events with
 * function calls or responses are not; everything else is.
 */
export function isFinalResponse(event: Event): boolean {
  if (event.actions.skipSummarization || (event.longRunningToolIds && event.longRunningToolIds.length > 0)) {
    return true;
  }
  if (event.partial) return false;
  const parts = event.content?.parts ?? [];
  for (const part of parts) if (part.functionCall || part.functionResponse) return false;
  const last = parts.at(-1);
  if (last?.codeExecutionResult === undefined && last?.executableCode !== undefined) return false;
  return true;
}

/** Parses persisted event JSON (from a database, the wire, a file) into a typed event. */
export function parseEvent(value: unknown): Event {
  return eventSchemas().event.parse(value);
}

/** Whether an event carries any state, artifact or control action. */
export function hasActions(actions: EventActions): boolean {
  for (const _ in actions.stateDelta) return true;
  for (const _ in actions.artifactDelta) return true;
  return Boolean(
    actions.transferToAgent ||
      actions.escalate ||
      actions.skipSummarization ||
      actions.rewindBeforeInvocationId ||
      actions.requestedToolConfirmations ||
      actions.requestedAuthConfigs ||
      actions.endOfAgent ||
      actions.compaction ||
      actions.route !== undefined ||
      actions.setModelResponse !== undefined,
  );
}
