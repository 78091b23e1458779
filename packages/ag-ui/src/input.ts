import {
  type Content,
  type Event,
  eventFunctionCalls,
  eventFunctionResponses,
  formatIssues,
  isPlainObject,
  lazySchema,
  type Part,
  REQUEST_CONFIRMATION,
  visibleEvents,
} from '@adk/core';
import { originalCallOf } from '@adk/core/internal';
import type { FrontendToolSpec } from './frontend-tools.js';

/** The parts of AG-UI's `RunAgentInput` ADK reads (other fields are accepted and ignored). */
export interface AgUiRunInput {
  threadId: string;
  runId: string;
  protocolVersion?: string | undefined;
  parentRunId?: string | undefined;
  state?: unknown;
  messages: AgUiInputMessage[];
  tools?: FrontendToolSpec[] | undefined;
  context?: { description: string; value: string }[] | undefined;
  forwardedProps?: unknown;
  resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[] | undefined;
}

export interface AgUiInputMessage {
  id: string;
  role: 'developer' | 'system' | 'assistant' | 'user' | 'tool' | 'activity' | 'reasoning';
  content?: unknown;
  toolCallId?: string | undefined;
  error?: string | undefined;
  [key: string]: unknown;
}

const idText = (z: typeof import('zod').z) =>
  z
    .string()
    .min(1)
    .max(256)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters');

const inputSchema = lazySchema((z) =>
  z.looseObject({
    threadId: idText(z),
    runId: z.string().min(1).max(256),
    protocolVersion: z.string().optional(),
    parentRunId: z.string().optional(),
    state: z.unknown().optional(),
    messages: z.array(
      z.looseObject({
        id: z.string(),
        role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
        content: z.unknown().optional(),
        toolCallId: z.string().optional(),
        error: z.string().optional(),
      }),
    ),
    tools: z
      .array(
        z.looseObject({
          name: z.string().min(1).max(128),
          description: z.string(),
          parameters: z.unknown().optional(),
        }),
      )
      .optional(),
    context: z.array(z.looseObject({ description: z.string(), value: z.string() })).optional(),
    forwardedProps: z.unknown().optional(),
    resume: z
      .array(
        z.looseObject({
          interruptId: z.string(),
          status: z.enum(['resolved', 'cancelled']),
          payload: z.unknown().optional(),
        }),
      )
      .optional(),
  }),
);

/** A refusal of a request, with its HTTP status and the reason. */
export class AgUiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgUiRequestError';
  }
}

export function parseRunInput(value: unknown): AgUiRunInput {
  const parsed = inputSchema.safeParse(value);
  if (!parsed.success)
    throw new AgUiRequestError(
      400,
      'BAD_REQUEST',
      `Invalid RunAgentInput: ${formatIssues(parsed.error.issues)}`,
    );
  const input = parsed.data as AgUiRunInput;
  if (input.state !== undefined && input.state !== null && !isPlainObject(input.state))
    throw new AgUiRequestError(400, 'BAD_REQUEST', 'Invalid RunAgentInput: state must be an object');
  return input;
}

/** Text of an AG-UI message's content (a string, or text parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (isPlainObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

/** A user message's content as ADK parts (text, and inline data or URLs of binary parts). */
function userParts(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const p of content) {
    if (!isPlainObject(p)) continue;
    if (p.type === 'text' && typeof p.text === 'string') {
      parts.push({ text: p.text });
      continue;
    }
    const source = isPlainObject(p.source) ? p.source : p;
    const mimeType =
      typeof source.mimeType === 'string'
        ? source.mimeType
        : typeof p.mimeType === 'string'
          ? p.mimeType
          : 'application/octet-stream';
    if (typeof source.data === 'string' || typeof source.value === 'string') {
      if (source.type === 'url' || typeof source.url === 'string')
        parts.push({ fileData: { fileUri: String(source.value ?? source.url), mimeType } });
      else parts.push({ inlineData: { mimeType, data: String(source.data ?? source.value) } });
    } else if (typeof source.url === 'string') parts.push({ fileData: { fileUri: source.url, mimeType } });
  }
  return parts;
}

/** A question the session waits on. */
export interface OpenCall {
  /** The id an answer's function response carries (and the interrupt's id). */
  id: string;
  name: string;
  kind: 'approval' | 'call';
  /** For an approval: the call it asks about. */
  toolCallId: string;
}

export function openCalls(events: readonly Event[]): OpenCall[] {
  const visible = visibleEvents(events);
  const answered = new Set<string>();
  for (const event of visible) for (const r of eventFunctionResponses(event)) answered.add(r.id);
  const out: OpenCall[] = [];
  for (const event of visible) {
    if (event.author === 'user' || !event.longRunningToolIds?.length) continue;
    for (const call of eventFunctionCalls(event)) {
      if (answered.has(call.id) || !event.longRunningToolIds.includes(call.id)) continue;
      if (call.name === REQUEST_CONFIRMATION) {
        const original = originalCallOf(call);
        if (original) out.push({ id: call.id, name: call.name, kind: 'approval', toolCallId: original.id });
      } else out.push({ id: call.id, name: call.name, kind: 'call', toolCallId: call.id });
    }
  }
  return out;
}

function responseOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : { result: value ?? null };
}

/** A tool message's content as a response object (JSON text is read as JSON). */
function toolMessageResponse(message: AgUiInputMessage): Record<string, unknown> {
  if (message.error) return { error: message.error };
  const text = contentText(message.content);
  try {
    return responseOf(JSON.parse(text));
  } catch {
    return { result: text };
  }
}

/** Whether a resume payload approves: `true`, `{ confirmed: true }` or `{ approved: true }`. */
function approves(payload: unknown): boolean {
  if (typeof payload === 'boolean') return payload;
  if (isPlainObject(payload)) {
    if (typeof payload.confirmed === 'boolean') return payload.confirmed;
    if (typeof payload.approved === 'boolean') return payload.approved;
  }
  return true;
}

export interface RunMessage {
  /** The user turn to run with (answers and/or text), or undefined when there is nothing to run. */
  content: Content | undefined;
  /** Results to announce as TOOL_CALL_RESULT for the original calls (answers to interrupts). */
  results: { toolCallId: string; content: unknown }[];
}

/**
 * The new user turn a RunAgentInput carries: answers to open calls (`resume[]` entries and `tool`
 * messages after the last assistant message) and the last message's text when it is a user's.
 * An answer to something the session does not wait for is a 400.
 */
export function runMessage(input: AgUiRunInput, events: readonly Event[]): RunMessage {
  const open = openCalls(events);
  const parts: Part[] = [];
  const results: RunMessage['results'] = [];
  for (const entry of input.resume ?? []) {
    const call = open.find((c) => c.id === entry.interruptId);
    if (!call)
      throw new AgUiRequestError(400, 'BAD_REQUEST', `No open interrupt has the id "${entry.interruptId}"`);
    if (call.kind === 'approval') {
      const confirmed = entry.status === 'resolved' && approves(entry.payload);
      parts.push({
        functionResponse: {
          id: call.id,
          name: call.name,
          response: { confirmed, ...(entry.payload !== undefined ? { payload: entry.payload } : {}) },
        },
      });
    } else {
      const response =
        entry.status === 'cancelled'
          ? { error: 'The user cancelled this request.' }
          : responseOf(entry.payload);
      parts.push({ functionResponse: { id: call.id, name: call.name, response } });
      results.push({ toolCallId: call.id, content: response });
    }
  }
  // Tool messages answering open calls (the client's own tools), after the last assistant turn.
  const answeredHere = new Set(parts.map((p) => p.functionResponse?.id));
  for (const message of input.messages) {
    if (message.role !== 'tool' || !message.toolCallId || answeredHere.has(message.toolCallId)) continue;
    const call = open.find((c) => c.kind === 'call' && c.id === message.toolCallId);
    if (!call) continue;
    answeredHere.add(call.id);
    parts.push({
      functionResponse: { id: call.id, name: call.name, response: toolMessageResponse(message) },
    });
  }
  const last = input.messages[input.messages.length - 1];
  if (last?.role === 'user' && !(input.resume?.length ?? 0)) parts.push(...userParts(last.content));
  if (input.context?.length && parts.some((p) => p.text !== undefined)) {
    const lines = input.context.map((c) => `${c.description}: ${c.value}`).join('\n');
    parts.push({ text: `Context from the application:\n${lines}` });
  }
  return { content: parts.length > 0 ? { role: 'user', parts } : undefined, results };
}

/**
 * Whether a client may write a state key: never `app:` (shared by every user), `temp:` (the
 * invocation's scratch space) or the framework's own `adk_` keys (guardrail budgets…); `user:` keys
 * only when the handler allows them.
 */
export function clientWritableKey(key: string, allowUserState: boolean): boolean {
  if (key.startsWith('app:') || key.startsWith('temp:')) return false;
  const bare = key.startsWith('user:') ? key.slice('user:'.length) : key;
  if (bare.startsWith('adk_')) return false;
  return allowUserState || !key.startsWith('user:');
}

/**
 * The input's `state` as a delta against the session's: only keys whose values differ, and only
 * keys a client may write (`clientWritableKey`; others are ignored).
 */
export function stateDelta(
  input: AgUiRunInput,
  current: Record<string, unknown>,
  allowUserState = false,
): Record<string, unknown> | undefined {
  if (!isPlainObject(input.state)) return undefined;
  let delta: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(input.state)) {
    if (!clientWritableKey(key, allowUserState)) continue;
    if (JSON.stringify(current[key]) === JSON.stringify(value)) continue;
    delta ??= {};
    delta[key] = value;
  }
  return delta;
}
