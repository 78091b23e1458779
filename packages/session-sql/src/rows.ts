import { type Event, parseEvent, parseJson, tryParseJson, ValidationError } from '@adk/core';
import { z } from 'zod';

const stateSchema = z.record(z.string(), z.unknown());

/** Microseconds (number or numeric text from the database) → ms with µs resolution. */
export function msFromMicros(value: number | string | bigint): number {
  const micros = Number(value);
  if (!Number.isFinite(micros)) throw new ValidationError(`Invalid stored time ${String(value)}`);
  return Math.round(micros) / 1000;
}

/** ms (fractional to µs) → integer microseconds. */
export function microsFromMs(ms: number): number {
  return Math.round(ms * 1000);
}

/** A stored state map (JSON text; SQL NULL for a missing app or user row). */
export function parseState(text: string | null | undefined, what: string): Record<string, unknown> {
  if (text == null) return {};
  const parsed = stateSchema.safeParse(parseJson(text, what));
  if (!parsed.success) throw new ValidationError(`Invalid ${what}: ${parsed.error.message}`);
  return parsed.data;
}

export interface EventRow {
  id: string;
  invocation_id: string;
  author: string;
  branch: string | null;
  timestamp_us: number | string;
  content: string | null;
  actions: string;
  partial: boolean | number | null;
  turn_complete: boolean | number | null;
  interrupted: boolean | number | null;
  finish_reason: string | null;
  error_code: string | null;
  error_message: string | null;
  custom_metadata: string | null;
  usage_metadata: string | null;
  citation_metadata: string | null;
  grounding_metadata: string | null;
  long_running_tool_ids: string | null;
  output: string | null;
  node_info: string | null;
  response_fields: string | null;
}

/** Event fields kept together in the `response_fields` JSON column. */
export const RESPONSE_FIELDS = [
  'modelVersion',
  'avgLogprobs',
  'logprobsResult',
  'cacheMetadata',
  'inputTranscription',
  'outputTranscription',
] as const satisfies readonly (keyof Event)[];

/** A stored event row → a validated Event. SQL NULL means "absent"; JSON null stays null. */
export function eventFromRow(row: EventRow): Event {
  const what = (column: string) => `stored ${column} of event ${row.id}`;
  const event: Record<string, unknown> = {
    id: row.id,
    invocationId: row.invocation_id,
    author: row.author,
    timestamp: msFromMicros(row.timestamp_us),
    actions: parseJson(row.actions, what('actions')),
  };
  if (row.branch !== null) event.branch = row.branch;
  if (row.content !== null) event.content = parseJson(row.content, what('content'));
  if (row.partial !== null) event.partial = Boolean(row.partial);
  if (row.turn_complete !== null) event.turnComplete = Boolean(row.turn_complete);
  if (row.interrupted !== null) event.interrupted = Boolean(row.interrupted);
  if (row.finish_reason !== null) event.finishReason = row.finish_reason;
  if (row.error_code !== null) event.errorCode = row.error_code;
  if (row.error_message !== null) event.errorMessage = row.error_message;
  if (row.usage_metadata !== null)
    event.usageMetadata = parseJson(row.usage_metadata, what('usage_metadata'));
  if (row.grounding_metadata !== null)
    event.groundingMetadata = parseJson(row.grounding_metadata, what('grounding_metadata'));
  if (row.citation_metadata !== null)
    event.citationMetadata = parseJson(row.citation_metadata, what('citation_metadata'));
  if (row.custom_metadata !== null)
    event.customMetadata = parseJson(row.custom_metadata, what('custom_metadata'));
  if (row.long_running_tool_ids !== null)
    event.longRunningToolIds = parseJson(row.long_running_tool_ids, what('long_running_tool_ids'));
  // SQL NULL is "no output"; a stored JSON null is an output of null.
  if (row.output != null) event.output = parseJson(row.output, what('output'));
  if (row.node_info != null) event.nodeInfo = parseJson(row.node_info, what('node_info'));
  if (row.response_fields != null) {
    const fields = parseJson(row.response_fields, what('response_fields'));
    if (fields && typeof fields === 'object' && !Array.isArray(fields))
      for (const key of RESPONSE_FIELDS) {
        const value = (fields as Record<string, unknown>)[key];
        if (value !== undefined) event[key] = value;
      }
  }
  try {
    return parseEvent(event);
  } catch (error) {
    throw new ValidationError(
      `Stored event ${row.id} does not match the event schema: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

const pageTokenSchema = z.tuple([z.number().int(), z.string(), z.string()]);

/** Where the next page starts: after (updated_at µs, user id, session id) in list order. */
export interface PageCursor {
  updatedMicros: number;
  userId: string;
  sessionId: string;
}

export function encodePageToken(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedMicros, cursor.userId, cursor.sessionId])).toString(
    'base64url',
  );
}

export function decodePageToken(token: string): PageCursor {
  const text = Buffer.from(token, 'base64url').toString();
  const parsed = pageTokenSchema.safeParse(tryParseJson(text));
  if (!parsed.success) throw new ValidationError(`Invalid pageToken: ${token}`);
  const [updatedMicros, userId, sessionId] = parsed.data;
  return { updatedMicros, userId, sessionId };
}
