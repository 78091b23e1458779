import {
  type Content,
  describeError,
  type Event,
  isAdkError,
  newId,
  parseJson,
  type Runner,
  type Session,
  visibleEvents,
} from '@adk/core';
import { ActiveStream, ActiveStreams } from './active-streams.js';
import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from './chunks.js';
import { toUIMessages } from './messages.js';
import { answersOf, ChatRequestError, parseChatBody, userMessageContent } from './request.js';
import { UIMessageStreamTranslator } from './translate.js';

export interface ChatHandlerOptions {
  runner: Runner;
  /**
   * The user the chat belongs to, from the request (a session cookie, a verified token). When it
   * gives none: the body's `userId` (or the `userId` query parameter of GET routes) with
   * `trustClientUserId`, else `'user'`.
   */
  resolveUserId?: (request: Request) => string | undefined | Promise<string | undefined>;
  /**
   * Take the user id the client sends (body `userId`, query `userId`) when `resolveUserId` gives
   * none. Default false: a client could otherwise read and write any user's chats. `adk web` and
   * `api_server` set it, as their `/run_sse` takes the user from the request too.
   */
  trustClientUserId?: boolean;
  /**
   * Run chats in the background unless the body says otherwise (`background`): a client that goes
   * away does not stop the run, and can resume it. Default false: a disconnect cancels the run.
   */
  background?: boolean;
  /** Largest request body in bytes. Default 16 MiB. */
  bodyLimit?: number;
  /** Stream the model's text as it comes (partial events). Default true. */
  streaming?: boolean;
}

/**
 * A Fetch-API handler of the AI SDK chat protocol for one ADK app (mount it as a route handler).
 * Called directly it routes by method and path: `POST` → {@link ChatHandler.chat}, `GET …/{id}/stream`
 * → {@link ChatHandler.resume}, `GET …/{id}/messages` → {@link ChatHandler.messages}.
 */
/** What a host passes with one `POST` besides the request (e.g. a server's own shutdown). */
export interface ChatRequestOptions {
  /** Stops the run too, as the request's own signal does (a client that goes away). */
  signal?: AbortSignal;
  /**
   * Called once when the response is over: its stream read to the end or cancelled, or at once
   * for a response without a stream (an error). Lets a host count runs in flight without wrapping
   * the response.
   */
  onEnd?: () => void;
}

export interface ChatHandler {
  (request: Request): Promise<Response>;
  /** `POST`: `DefaultChatTransport`'s body in, a UI message stream (SSE) out. */
  chat(request: Request, options?: ChatRequestOptions): Promise<Response>;
  /** `GET`: the chat's active answer from its `start`, then live; 204 when none runs. */
  resume(request: Request, chatId: string): Promise<Response>;
  /** `GET`: the chat's session as `UIMessage[]` (useChat's initial `messages`). */
  messages(request: Request, chatId: string): Promise<Response>;
}

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;
const DONE_FRAME = 'data: [DONE]\n\n';

function frame(chunk: UIMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ detail: message, error: message, code }, { status });
}

/** Reads a JSON body with a size limit; every refusal is a ChatRequestError with its status. */
async function readBody(request: Request, limit: number): Promise<unknown> {
  const type = request.headers.get('content-type');
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type.split(';')[0]?.trim() ?? ''))
    throw new ChatRequestError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON');
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit)
    throw new ChatRequestError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
  let text: string;
  try {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit)
      throw new ChatRequestError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof ChatRequestError) throw error;
    throw new ChatRequestError(400, 'BAD_REQUEST', 'The request body could not be read as UTF-8');
  }
  if (text.trim() === '') throw new ChatRequestError(400, 'BAD_REQUEST', 'The request body is empty');
  try {
    return parseJson(text, 'request body');
  } catch (error) {
    throw new ChatRequestError(400, 'BAD_REQUEST', describeError(error));
  }
}

/** Events of the assistant message that an answer continues: those since the last user text. */
function currentMessageEvents(session: Session): Event[] {
  const events = visibleEvents(session.events);
  let start = events.length;
  while (start > 0) {
    const event = events[start - 1] as Event;
    if (
      event.author === 'user' &&
      event.content?.parts.some((p) => p.text !== undefined || p.inlineData || p.fileData)
    )
      break;
    start--;
  }
  return events.slice(start).filter((e) => !e.partial);
}

function errorResponse(error: unknown): Response {
  if (error instanceof ChatRequestError) return jsonError(error.status, error.code, error.message);
  if (isAdkError(error, 'NOT_FOUND')) return jsonError(404, 'NOT_FOUND', describeError(error));
  if (isAdkError(error, 'CONCURRENT_INVOCATION')) return jsonError(409, error.code, describeError(error));
  if (isAdkError(error, 'VALIDATION') || isAdkError(error, 'BAD_REQUEST'))
    return jsonError(400, error.code, describeError(error));
  // An answer to a paused call whose signature does not verify (pause signing).
  if (isAdkError(error, 'FORBIDDEN')) return jsonError(403, error.code, describeError(error));
  // Anything else (a configuration error of the app…) is the server's: a JSON 500, never a throw.
  return jsonError(500, isAdkError(error) ? error.code : 'INTERNAL', describeError(error));
}

/** Lets the event loop serve other requests between two events (setImmediate is not a Web global). */
const yieldToLoop: () => Promise<void> =
  typeof setImmediate === 'function'
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/** Builds the chat handler of one app's runner. */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const { runner } = options;
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const streams = new ActiveStreams();

  const userOf = async (request: Request, fromBody?: string): Promise<string> =>
    (await options.resolveUserId?.(request)) ??
    (options.trustClientUserId
      ? (fromBody ?? new URL(request.url).searchParams.get('userId') ?? undefined)
      : undefined) ??
    'user';

  const sessionOf = async (
    userId: string,
    sessionId: string,
    create: boolean,
  ): Promise<Session | undefined> => {
    const key = { appName: runner.appName, userId, sessionId };
    const session = await runner.sessionService.getSession(key);
    if (session || !create) return session;
    return runner.sessionService.createSession(key);
  };

  const chat = async (request: Request, call: ChatRequestOptions = {}): Promise<Response> => {
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      call.onEnd?.();
    };
    let streamed = false;
    try {
      const response = await answer(request, call.signal, () => {
        streamed = true;
        return end;
      });
      return response;
    } finally {
      if (!streamed) end();
    }
  };

  const answer = async (
    request: Request,
    signal: AbortSignal | undefined,
    takeEnd: () => () => void,
  ): Promise<Response> => {
    try {
      const body = parseChatBody(await readBody(request, limit));
      const userId = await userOf(request, body.userId);
      const sessionId = body.id;
      const session = (await sessionOf(userId, sessionId, true)) as Session;
      const last = body.messages[body.messages.length - 1] as (typeof body.messages)[number];
      let newMessage: Content;
      let messageId: string;
      let invocationId: string | undefined;
      let denied: string[] = [];
      let earlier: Event[] = [];
      /** The rewind of a regeneration: undone when the new run is refused. */
      let rewound: Event | undefined;
      if (last.role === 'user') {
        newMessage = userMessageContent(last);
        if (body.trigger === 'regenerate-message') {
          // The answer to the last user message is asked again: the log rewinds to before it.
          const lastUser = [...visibleEvents(session.events)]
            .reverse()
            .find((e) => e.author === 'user' && e.content);
          if (lastUser)
            rewound = await runner.rewind({
              userId,
              sessionId,
              rewindBeforeInvocationId: lastUser.invocationId,
            });
        }
        invocationId = newId();
        messageId = invocationId;
      } else if (last.role === 'assistant') {
        const answers = answersOf(last, session.events);
        if (!answers)
          throw new ChatRequestError(
            400,
            'BAD_REQUEST',
            'The last message is an assistant message that answers no open question of this chat',
          );
        newMessage = answers.content;
        denied = answers.denied;
        messageId = last.id;
        earlier = currentMessageEvents(session);
      } else {
        throw new ChatRequestError(
          400,
          'BAD_REQUEST',
          'The last message must be a user or an assistant message',
        );
      }
      const background = body.background ?? options.background ?? false;
      const params = {
        userId,
        sessionId,
        newMessage,
        runConfig: { streaming: options.streaming ?? true },
        ...(invocationId ? { invocationId } : {}),
      };

      let events: AsyncGenerator<Event, unknown, undefined> | undefined;
      const stop = new AbortController();
      let runId: string | undefined;
      // The first step runs before the response: a refused run is an HTTP error, not a stream.
      let first: IteratorResult<Event, unknown>;
      try {
        if (background) {
          const record = await runner.startRun(params);
          runId = record.id;
          events = runner.runEvents(record.id);
        } else {
          events = runner.run({ ...params, signal: stop.signal });
        }
        first = await events.next();
      } catch (error) {
        stop.abort();
        // A regeneration whose run was refused keeps its history: the rewind is rewound (a rewind
        // before the rewind's own invocation hides it, restoring the history, state and artifacts).
        if (rewound)
          await runner
            .rewind({ userId, sessionId, rewindBeforeInvocationId: rewound.invocationId })
            .catch(() => undefined);
        return errorResponse(error);
      }
      const run = events;

      const active = new ActiveStream(runId);
      const translator = new UIMessageStreamTranslator({
        messageId,
        deniedCallIds: denied,
        messageMetadata: { invocationId: messageId },
      });
      const send = (chunks: UIMessageChunk[]) => {
        for (const chunk of chunks) active.push(frame(chunk));
      };
      send(translator.start());
      if (earlier.length > 0) {
        // A resumed client rebuilds the whole message: the part before this run comes first.
        const before = new UIMessageStreamTranslator({ messageId });
        const prefix: string[] = [];
        for (const event of earlier)
          for (const chunk of before.push(event))
            if (chunk.type !== 'start' && chunk.type !== 'message-metadata') prefix.push(frame(chunk));
        active.prefix = prefix;
      }
      streams.set(userId, sessionId, active);
      let cancelled = false;
      const cancel = () => {
        if (background || cancelled) return;
        cancelled = true;
        stop.abort();
      };
      if (!background) {
        request.signal?.addEventListener('abort', cancel, { once: true });
        signal?.addEventListener('abort', cancel, { once: true });
        if (signal?.aborted) cancel();
      }
      void (async () => {
        try {
          let next = first;
          while (!next.done) {
            send(translator.push(next.value));
            // One macrotask per event keeps other requests served while runs stream.
            await yieldToLoop();
            next = await run.next();
          }
          send(translator.finish());
        } catch (error) {
          send(translator.fail(describeError(error)));
        } finally {
          active.push(DONE_FRAME);
          active.end();
          streams.release(userId, sessionId, active);
          request.signal?.removeEventListener('abort', cancel);
          signal?.removeEventListener('abort', cancel);
        }
      })();
      return new Response(active.readable({ onCancel: cancel, onEnd: takeEnd() }), {
        status: 200,
        headers: UI_MESSAGE_STREAM_HEADERS,
      });
    } catch (error) {
      return errorResponse(error);
    }
  };

  const resume = async (request: Request, chatId: string): Promise<Response> => {
    try {
      const userId = await userOf(request);
      const active = streams.get(userId, chatId);
      if (active)
        return new Response(active.readable({ replay: true }), { headers: UI_MESSAGE_STREAM_HEADERS });
      // Running in another process (a shared run store): follow it from the log.
      const { runs } = await runner.listRuns({ userId, sessionId: chatId, status: ['queued', 'running'] });
      const run = runs[0];
      if (!run) return new Response(null, { status: 204 });
      const session = await sessionOf(userId, chatId, false);
      const messages = session ? toUIMessages(session) : [];
      const lastMessage = messages[messages.length - 1];
      const messageId = lastMessage?.role === 'assistant' ? lastMessage.id : run.invocationId;
      const tail = runner.runEvents(run.id, { signal: request.signal });
      const earlier = session
        ? currentMessageEvents(session).filter((e) => e.invocationId !== run.invocationId)
        : [];
      const translator = new UIMessageStreamTranslator({ messageId, ignorePartials: true });
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          const out = (chunks: UIMessageChunk[]) =>
            controller.enqueue(encoder.encode(chunks.map(frame).join('')));
          out(translator.start());
          for (const event of earlier) out(translator.push(event));
        },
        async pull(controller) {
          const out = (chunks: UIMessageChunk[]) =>
            controller.enqueue(encoder.encode(chunks.map(frame).join('')));
          try {
            const next = await tail.next();
            if (!next.done) {
              out(translator.push(next.value));
              return;
            }
            out(translator.finish());
          } catch (error) {
            out(translator.fail(describeError(error)));
          }
          controller.enqueue(encoder.encode(DONE_FRAME));
          controller.close();
        },
        async cancel() {
          await tail.return(undefined as never).catch(() => undefined);
        },
      });
      return new Response(stream, { headers: UI_MESSAGE_STREAM_HEADERS });
    } catch (error) {
      return errorResponse(error);
    }
  };

  const messages = async (request: Request, chatId: string): Promise<Response> => {
    try {
      const userId = await userOf(request);
      const session = await sessionOf(userId, chatId, false);
      return Response.json(session ? toUIMessages(session) : []);
    } catch (error) {
      return errorResponse(error);
    }
  };

  const handler = (async (request: Request): Promise<Response> => {
    if (request.method === 'POST') return chat(request);
    if (request.method === 'GET') {
      const segments = new URL(request.url).pathname.split('/').filter(Boolean);
      const action = segments[segments.length - 1];
      const id = segments[segments.length - 2];
      if (id && action === 'stream') return resume(request, decodeURIComponent(id));
      if (id && action === 'messages') return messages(request, decodeURIComponent(id));
    }
    return jsonError(404, 'NOT_FOUND', 'Not Found');
  }) as ChatHandler;
  handler.chat = chat;
  handler.resume = resume;
  handler.messages = messages;
  return handler;
}
