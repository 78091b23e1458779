import { z } from 'zod';
import { strictlyAfter } from '../utils/clock.js';
import { newId } from '../utils/ids.js';
import { contentSchema, type FunctionCall, functionCallsOf, functionResponsesOf } from './content.js';

export const usageMetadataSchema = z.object({
  promptTokenCount: z.number().optional(),
  candidatesTokenCount: z.number().optional(),
  totalTokenCount: z.number().optional(),
  cachedContentTokenCount: z.number().optional(),
  thoughtsTokenCount: z.number().optional(),
  toolUsePromptTokenCount: z.number().optional(),
});
export type UsageMetadata = z.infer<typeof usageMetadataSchema>;

/** A request, made by a tool, that the user confirm a function call before it runs. */
export const toolConfirmationSchema = z.object({
  hint: z.string().optional(),
  confirmed: z.boolean(),
  payload: z.unknown().optional(),
});
export type ToolConfirmation = z.infer<typeof toolConfirmationSchema>;

/** Replaces a range of events by a summary when the next request is built (raw events stay). */
export const eventCompactionSchema = z.object({
  startTimestamp: z.number(),
  endTimestamp: z.number(),
  compactedContent: contentSchema,
});
export type EventCompaction = z.infer<typeof eventCompactionSchema>;

export const eventActionsSchema = z.object({
  stateDelta: z.record(z.string(), z.unknown()),
  artifactDelta: z.record(z.string(), z.number()),
  transferToAgent: z.string().optional(),
  escalate: z.boolean().optional(),
  skipSummarization: z.boolean().optional(),
  requestedToolConfirmations: z.record(z.string(), toolConfirmationSchema).optional(),
  requestedAuthConfigs: z.record(z.string(), z.unknown()).optional(),
  endOfAgent: z.boolean().optional(),
  compaction: eventCompactionSchema.optional(),
});
export type EventActions = z.infer<typeof eventActionsSchema>;

export const eventSchema = z.object({
  id: z.string(),
  invocationId: z.string(),
  author: z.string(),
  branch: z.string().optional(),
  timestamp: z.number(),
  content: contentSchema.optional(),
  partial: z.boolean().optional(),
  turnComplete: z.boolean().optional(),
  interrupted: z.boolean().optional(),
  finishReason: z.string().optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
  usageMetadata: usageMetadataSchema.optional(),
  groundingMetadata: z.unknown().optional(),
  citationMetadata: z.unknown().optional(),
  customMetadata: z.record(z.string(), z.unknown()).optional(),
  longRunningToolIds: z.array(z.string()).optional(),
  actions: eventActionsSchema,
});
export type Event = z.infer<typeof eventSchema>;

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
  return eventSchema.parse(value);
}

/** Whether an event carries any state, artifact or control action. */
export function hasActions(actions: EventActions): boolean {
  for (const _ in actions.stateDelta) return true;
  for (const _ in actions.artifactDelta) return true;
  return Boolean(
    actions.transferToAgent ||
      actions.escalate ||
      actions.skipSummarization ||
      actions.requestedToolConfirmations ||
      actions.requestedAuthConfigs ||
      actions.endOfAgent ||
      actions.compaction,
  );
}
