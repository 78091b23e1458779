import {
  createEvent,
  describeError,
  type Event,
  isAdkError,
  parseJson,
  type Runner,
  type Session,
} from '@adk/core';
import type { Message } from '@ag-ui/core';
import type { AgUiEvent } from './events.js';
import { FRONTEND_TOOLS_KEY, installFrontendTools } from './frontend-tools.js';
import { AgUiRequestError, parseRunInput, runMessage, stateDelta } from './input.js';
import { toAgUiMessages } from './messages.js';
import { AgUiTranslator } from './translate.js';

export interface AgUiHandlerOptions {
  runner: Runner;
  /**
   * The user a thread belongs to, from the request; else `forwardedProps.userId` with
   * `trustClientUserId`, else `'user'`.
   */
  resolveUserId?: (request: Request) => string | undefined | Promise<string | undefined>;
  /**
   * Take `forwardedProps.userId` from the client when `resolveUserId` gives none. Default false: a
   * client could otherwise open any user's threads. `adk web` and `api_server` set it, as their
   * `/run_sse` takes the user from the request too.
   */
  trustClientUserId?: boolean;
  /**
   * Declare the client's tools (`RunAgentInput.tools`) to every LlmAgent of the app (adds a
   * `FrontendToolset` to each; default true). With false, agents see them only where the app put a
   * `FrontendToolset` itself.
   */
  frontendTools?: boolean;
  /** Run in the background: a client that goes away does not stop the run. Default false. */
  background?: boolean;
  /** Largest request body in bytes. Default 16 MiB. */
  bodyLimit?: number;
  /** Stream the model's text as it comes. Default true. */
  streaming?: boolean;
  /**
   * Let the client's `state` write `user:` keys (shared by every session of the user). Default
   * false. `app:`, `temp:` and the framework's `adk_` keys are never written from a client.
   */
  allowUserState?: boolean;
}

/** What a host passes with one run besides the request (e.g. a server's own shutdown). */
export interface AgUiRequestOptions {
  /** Stops the run too, as the request's own signal does (a client that goes away). */
  signal?: AbortSignal;
  /**
   * Called once when the response is over: its stream read to the end or cancelled, or at once
   * for a response without a stream. Lets a host count runs in flight without wrapping the response.
   */
  onEnd?: () => void;
}

/** A Fetch-API handler of AG-UI for one ADK app: `RunAgentInput` in, AG-UI events as SSE out. */
export type AgUiHandler = (request: Request, options?: AgUiRequestOptions) => Promise<Response>;

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ detail: message, error: message, code }, { status });
}

async function readBody(request: Request, limit: number): Promise<unknown> {
  const type = request.headers.get('content-type');
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type.split(';')[0]?.trim() ?? ''))
    throw new AgUiRequestError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON');
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit)
    throw new AgUiRequestError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > limit)
    throw new AgUiRequestError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AgUiRequestError(400, 'BAD_REQUEST', 'The request body is not UTF-8');
  }
  if (text.trim() === '') throw new AgUiRequestError(400, 'BAD_REQUEST', 'The request body is empty');
  try {
    return parseJson(text, 'request body');
  } catch (error) {
    throw new AgUiRequestError(400, 'BAD_REQUEST', describeError(error));
  }
}

const encoder = new TextEncoder();
/** SSE with LF framing, one `data:` line per event, no `[DONE]`. */
const frame = (events: AgUiEvent[]): Uint8Array =>
  encoder.encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Builds the AG-UI handler of one app's runner. */
export function createAgUiHandler(options: AgUiHandlerOptions): AgUiHandler {
  const { runner } = options;
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  if (options.frontendTools !== false) installFrontendTools(runner.agent);

  return async (request: Request, call: AgUiRequestOptions = {}): Promise<Response> => {
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      call.onEnd?.();
    };
    let streamed = false;
    try {
      return await answer(request, call.signal, () => {
        streamed = true;
        return end;
      });
    } finally {
      if (!streamed) end();
    }
  };

  async function answer(
    request: Request,
    signal: AbortSignal | undefined,
    takeEnd: () => () => void,
  ): Promise<Response> {
    if (request.method !== 'POST') return jsonError(405, 'METHOD_NOT_ALLOWED', 'AG-UI runs are POSTed');
    try {
      const input = parseRunInput(await readBody(request, limit));
      const forwarded = input.forwardedProps as Record<string, unknown> | undefined;
      const userId =
        (await options.resolveUserId?.(request)) ??
        (options.trustClientUserId && typeof forwarded?.userId === 'string' ? forwarded.userId : undefined) ??
        'user';
      const key = { appName: runner.appName, userId, sessionId: input.threadId };
      const session: Session =
        (await runner.sessionService.getSession(key)) ?? (await runner.sessionService.createSession(key));
      const { content, results } = runMessage(input, session.events);
      const delta = stateDelta(input, session.state, options.allowUserState ?? false);
      const translator = new AgUiTranslator({
        threadId: input.threadId,
        runId: input.runId,
        protocolVersion: input.protocolVersion,
        state: { ...session.state, ...(delta ?? {}) },
        frontendTools: (input.tools ?? []).map((t) => t.name),
        results,
        messages: input.messages as unknown as Message[],
      });

      // Nothing to run (a thread opened, or only a state change): the thread as it is.
      if (!content) {
        if (delta)
          await runner.sessionService.appendEvent(
            session,
            createEvent({
              invocationId: `ag-ui-${input.runId}`,
              author: 'user',
              actions: { stateDelta: delta },
            }),
          );
        const events = [
          ...translator.start(),
          { type: 'MESSAGES_SNAPSHOT' as const, messages: toAgUiMessages(session) },
          ...translator.finish(),
        ];
        return new Response(frame(events), { headers: SSE_HEADERS });
      }

      const background = options.background ?? forwarded?.background === true;
      const stop = new AbortController();
      const params = {
        userId,
        sessionId: input.threadId,
        newMessage: content,
        ...(delta ? { stateDelta: delta } : {}),
        runConfig: {
          streaming: options.streaming ?? true,
          custom: { [FRONTEND_TOOLS_KEY]: input.tools ?? [], ag_ui_run_id: input.runId },
        },
      };
      let events: AsyncGenerator<Event, unknown, undefined>;
      if (background) {
        const record = await runner.startRun(params);
        events = runner.runEvents(record.id);
      } else {
        events = runner.run({ ...params, signal: stop.signal });
      }
      let first: IteratorResult<Event, unknown>;
      try {
        first = await events.next();
      } catch (error) {
        stop.abort();
        if (isAdkError(error, 'CONCURRENT_INVOCATION'))
          return jsonError(409, error.code, describeError(error));
        if (isAdkError(error, 'VALIDATION') || isAdkError(error, 'BAD_REQUEST'))
          return jsonError(400, error.code, describeError(error));
        // Told as RUN_ERROR: the stream is the protocol's channel for failures.
        return new Response(frame(translator.fail(describeError(error), 'RUN_FAILED')), {
          headers: SSE_HEADERS,
        });
      }
      let pending: IteratorResult<Event, unknown> | undefined = first;
      let gone = false;
      const onAbort = () => void cancel();
      // The request's signal outlives the run (a kept-alive connection): the listener goes with it.
      const detach = () => {
        request.signal?.removeEventListener('abort', onAbort);
        signal?.removeEventListener('abort', onAbort);
      };
      const cancel = async () => {
        gone = true;
        detach();
        if (background) return;
        stop.abort();
        await events.return(undefined).catch(() => undefined);
      };
      if (!background) {
        request.signal?.addEventListener('abort', onAbort, { once: true });
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) onAbort();
      }
      const onEnd = takeEnd();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(frame(translator.start()));
        },
        async pull(controller) {
          try {
            // A pull that enqueues nothing is not called again: read until there is something to send.
            for (;;) {
              const next = pending ?? (await events.next());
              pending = undefined;
              if (gone) return;
              if (next.done) {
                detach();
                controller.enqueue(frame(translator.finish()));
                controller.close();
                onEnd();
                return;
              }
              const out = translator.push(next.value);
              if (out.length === 0) continue;
              controller.enqueue(frame(out));
              return;
            }
          } catch (error) {
            detach();
            if (gone) return;
            controller.enqueue(frame(translator.fail(describeError(error), 'RUN_FAILED')));
            controller.close();
            onEnd();
          }
        },
        async cancel() {
          onEnd();
          await cancel();
        },
      });
      return new Response(stream, { headers: SSE_HEADERS });
    } catch (error) {
      if (error instanceof AgUiRequestError) return jsonError(error.status, error.code, error.message);
      if (isAdkError(error, 'NOT_FOUND')) return jsonError(404, error.code, describeError(error));
      throw error;
    }
  }
}
