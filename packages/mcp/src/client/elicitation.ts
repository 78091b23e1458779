import { type Event, eventFunctionCalls, REQUEST_CONFIRMATION, type ToolContext } from '@adk/core';
import { originalCallOf } from '@adk/core/internal';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/** The key of the pause payload that carries an MCP elicitation. */
export const MCP_ELICITATION = 'mcpElicitation';

/** An MCP server's request for user input, as the user (or `elicitationHandler`) sees it. */
export interface McpElicitationRequest {
  /** The server's name. */
  server: string;
  /** The server's tool whose call asked. */
  tool: string;
  /** `form`: fill in `requestedSchema`; `url`: open `url` and consent (or refuse). */
  mode: 'form' | 'url';
  message: string;
  /** The JSON Schema of the answer (form mode): a flat object of primitive fields. */
  requestedSchema?: Record<string, unknown>;
  url?: string;
  elicitationId?: string;
}

/** An answer to an elicitation: accept (with the form's content), decline or cancel. */
export type McpElicitationAnswer = ElicitResult;

/**
 * Answers elicitations in code. Return undefined to leave one to the user (the run pauses).
 */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  context: ToolContext,
) => McpElicitationAnswer | undefined | Promise<McpElicitationAnswer | undefined>;

/** What a paused call stores in its confirmation payload. */
export interface StoredElicitation {
  question: McpElicitationRequest;
  /** Answers given before this question, in the order the server asked, replayed on the next run. */
  answers: McpElicitationAnswer[];
}

export function elicitationRequestOf(
  params: ElicitRequest['params'],
  server: string,
  tool: string,
): McpElicitationRequest {
  const p = params as Record<string, unknown>;
  const mode = p.mode === 'url' ? 'url' : 'form';
  return {
    server,
    tool,
    mode,
    message: typeof p.message === 'string' ? p.message : '',
    ...(mode === 'form' && isObject(p.requestedSchema) ? { requestedSchema: p.requestedSchema } : {}),
    ...(typeof p.url === 'string' ? { url: p.url } : {}),
    ...(typeof p.elicitationId === 'string' ? { elicitationId: p.elicitationId } : {}),
  };
}

/**
 * The answers to replay when this call runs again after the user answered its elicitation: the
 * earlier answers stored with the question plus the user's answer. `retry` is set when the answer
 * does not fit the requested schema (the question is asked again).
 */
export function elicitationReplay(
  context: ToolContext,
): { answers: McpElicitationAnswer[]; retry?: { stored: StoredElicitation; error: string } } | undefined {
  const confirmation = context.toolConfirmation;
  if (!confirmation?.confirmed) return undefined;
  const stored = storedQuestion(context.session.events, context.functionCallId);
  if (!stored) return undefined;
  const answer = answerFrom(stored.question, confirmation.payload);
  if (typeof answer === 'string') return { answers: stored.answers, retry: { stored, error: answer } };
  return { answers: [...stored.answers, answer] };
}

/** The newest elicitation question asked for this call. */
function storedQuestion(events: readonly Event[], callId: string): StoredElicitation | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    for (const call of eventFunctionCalls(events[i] as Event)) {
      if (call.name !== REQUEST_CONFIRMATION) continue;
      if (originalCallOf(call)?.id !== callId) continue;
      const confirmation = call.args.toolConfirmation;
      const payload = isObject(confirmation) ? confirmation.payload : undefined;
      const stored = isObject(payload) ? payload[MCP_ELICITATION] : undefined;
      if (!isObject(stored) || !isObject(stored.question)) return undefined;
      return {
        question: stored.question as unknown as McpElicitationRequest,
        answers: Array.isArray(stored.answers) ? (stored.answers as McpElicitationAnswer[]) : [],
      };
    }
  }
  return undefined;
}

/**
 * The user's answer from the confirmation payload: `{ action: 'decline' | 'cancel' }`, or
 * `{ action?: 'accept', content }` (form), or anything (URL mode: confirming is consenting).
 * A string is the reason the content does not fit the schema.
 */
function answerFrom(question: McpElicitationRequest, payload: unknown): McpElicitationAnswer | string {
  const given = isObject(payload) ? payload : {};
  if (given.action === 'decline' || given.action === 'cancel') return { action: given.action };
  if (question.mode === 'url') return { action: 'accept' };
  const content = isObject(given.content) ? given.content : undefined;
  if (!content) return 'The answer has no content object';
  const error = checkContent(question.requestedSchema, content);
  if (error) return error;
  return { action: 'accept', content: content as ElicitResult['content'] };
}

/** Checks form content against the flat schema MCP allows (required fields, primitive types, enums). */
export function checkContent(
  schema: Record<string, unknown> | undefined,
  content: Record<string, unknown>,
): string | undefined {
  if (!schema) return undefined;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) {
    if (typeof name === 'string' && content[name] === undefined)
      return `The answer lacks the required field "${name}"`;
  }
  for (const [name, value] of Object.entries(content)) {
    const field = properties[name];
    if (!isObject(field)) return `The answer has a field "${name}" the form does not ask for`;
    const type = field.type;
    const ok =
      type === 'string'
        ? typeof value === 'string'
        : type === 'number'
          ? typeof value === 'number'
          : type === 'integer'
            ? Number.isInteger(value)
            : type === 'boolean'
              ? typeof value === 'boolean'
              : type === 'array'
                ? Array.isArray(value) && value.every((v) => typeof v === 'string')
                : true;
    if (!ok) return `The answer's field "${name}" must be of type ${String(type)}`;
    if (Array.isArray(field.enum) && !field.enum.includes(value)) {
      return `The answer's field "${name}" must be one of ${field.enum.map((v) => JSON.stringify(v)).join(', ')}`;
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
