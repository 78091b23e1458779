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

/** The body `DefaultChatTransport` posts (plus `userId` and `background`, ours). */
export interface ChatRequestBody {
  /** The chat id: ADK's session id. */
  id: string;
  messages: ChatRequestMessage[];
  trigger?: 'submit-message' | 'regenerate-message' | undefined;
  messageId?: string | undefined;
  userId?: string | undefined;
  /** Run in the background: a client that goes away does not stop it (and can resume it). */
  background?: boolean | undefined;
}

export interface ChatRequestMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  parts: Record<string, unknown>[];
}

const idText = (z: typeof import('zod').z) =>
  z
    .string()
    .min(1)
    .max(256)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters');

const bodySchema = lazySchema((z) =>
  z.object({
    id: idText(z),
    messages: z
      .array(
        z.object({
          id: z.string(),
          role: z.enum(['system', 'user', 'assistant']),
          parts: z.array(z.looseObject({ type: z.string() })),
        }),
      )
      .min(1, 'at least one message'),
    trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
    messageId: z.string().optional(),
    userId: idText(z).optional(),
    background: z.boolean().optional(),
  }),
);

/** A refusal of a request, with the HTTP status and the reason told to the client. */
export class ChatRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChatRequestError';
  }
}

/** Parses and checks a chat body (400 with every issue otherwise). */
export function parseChatBody(value: unknown): ChatRequestBody {
  const parsed = bodySchema.safeParse(value);
  if (!parsed.success)
    throw new ChatRequestError(
      400,
      'BAD_REQUEST',
      `Invalid chat request: ${formatIssues(parsed.error.issues)}`,
    );
  return parsed.data as ChatRequestBody;
}

const DATA_URL = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s;

/** A user message's parts as an ADK user turn (text and files; other parts are left out). */
export function userMessageContent(message: ChatRequestMessage): Content {
  const parts: Part[] = [];
  for (const part of message.parts) {
    if (part.type === 'text' && typeof part.text === 'string') {
      parts.push({ text: part.text });
    } else if (part.type === 'file' && typeof part.url === 'string') {
      const mediaType = typeof part.mediaType === 'string' ? part.mediaType : 'application/octet-stream';
      const data = DATA_URL.exec(part.url);
      if (data)
        parts.push({
          inlineData: {
            mimeType: data[1] ?? mediaType,
            data: data[2] ?? '',
            ...(typeof part.filename === 'string' ? { displayName: part.filename } : {}),
          },
        });
      else parts.push({ fileData: { fileUri: part.url, mimeType: mediaType } });
    }
  }
  if (parts.length === 0)
    throw new ChatRequestError(400, 'BAD_REQUEST', 'The last message has no text or file part');
  return { role: 'user', parts };
}

/** A question the session is waiting on: a confirmation, a long-running call, a workflow question. */
interface OpenQuestion {
  /** The id the answer's function response carries. */
  id: string;
  /** The function name the answer responds to. */
  name: string;
  /** For a confirmation: the call it asks about (the tool part's `toolCallId`). */
  toolCallId: string;
  kind: 'approval' | 'output';
}

/** The session's open questions (long-running calls without an answer), by tool call id. */
export function openQuestions(events: readonly Event[]): OpenQuestion[] {
  const visible = visibleEvents(events);
  const answered = new Set<string>();
  for (const event of visible) for (const r of eventFunctionResponses(event)) answered.add(r.id);
  const out: OpenQuestion[] = [];
  for (const event of visible) {
    if (event.author === 'user' || !event.longRunningToolIds?.length) continue;
    for (const call of eventFunctionCalls(event)) {
      if (answered.has(call.id) || !event.longRunningToolIds.includes(call.id)) continue;
      if (call.name === REQUEST_CONFIRMATION) {
        const original = originalCallOf(call);
        if (original) out.push({ id: call.id, name: call.name, toolCallId: original.id, kind: 'approval' });
      } else out.push({ id: call.id, name: call.name, toolCallId: call.id, kind: 'output' });
    }
  }
  return out;
}

export interface Answers {
  content: Content;
  /** Calls the user denied. */
  denied: string[];
}

/**
 * The answers an assistant message gives to the session's open questions: tool parts in state
 * `approval-responded` (confirmations) and `output-available`/`output-error` (client-side tools,
 * workflow questions). Parts that answer nothing open are ignored, so a client cannot answer a
 * question that was never asked.
 */
export function answersOf(message: ChatRequestMessage, events: readonly Event[]): Answers | undefined {
  const open = openQuestions(events);
  if (open.length === 0) return undefined;
  const parts: Part[] = [];
  const denied: string[] = [];
  for (const part of message.parts) {
    if (typeof part.type !== 'string' || !(part.type.startsWith('tool-') || part.type === 'dynamic-tool'))
      continue;
    const toolCallId = part.toolCallId;
    if (typeof toolCallId !== 'string') continue;
    if (part.state === 'approval-responded' && isPlainObject(part.approval)) {
      const approval = part.approval;
      const question = open.find(
        (q) => q.kind === 'approval' && q.toolCallId === toolCallId && q.id === approval.id,
      );
      if (!question || typeof approval.approved !== 'boolean') continue;
      if (!approval.approved) denied.push(toolCallId);
      parts.push({
        functionResponse: {
          id: question.id,
          name: question.name,
          response: {
            confirmed: approval.approved,
            ...(typeof approval.reason === 'string' ? { payload: { reason: approval.reason } } : {}),
          },
        },
      });
    } else if (part.state === 'output-available' || part.state === 'output-error') {
      const question = open.find((q) => q.kind === 'output' && q.id === toolCallId);
      if (!question) continue;
      const response =
        part.state === 'output-error'
          ? { error: typeof part.errorText === 'string' ? part.errorText : 'the client tool failed' }
          : isPlainObject(part.output)
            ? part.output
            : { result: part.output ?? null };
      parts.push({ functionResponse: { id: question.id, name: question.name, response } });
    }
  }
  return parts.length > 0 ? { content: { role: 'user', parts }, denied } : undefined;
}
