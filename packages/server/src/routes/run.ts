import {
  describeError,
  type Event,
  eventFunctionResponses,
  isAdkError,
  NotFoundError,
  type RunConfig,
  type Runner,
  type RunParams,
} from '@adk/core';
import type { Hono } from 'hono';
import { readJson, validate } from '../http/body.js';
import { camelContent, camelKeys, requestSchemas } from '../http/schemas.js';
import { ServerError } from '../server/errors.js';
import { errorLine } from '../server/logger.js';
import type { TrackedRun } from '../server/run-tracker.js';
import { type AdkEventJson, eventToAdkJson } from '../wire/adk-json.js';
import type { RouteContext } from './context.js';

interface PreparedRun {
  runner: Runner;
  params: RunParams;
  request: Request;
  tracked: TrackedRun;
  /** Aborts the run (the client went away). */
  stop: AbortController;
  splitArtifacts: boolean;
}

/** Parses and checks a RunAgentRequest; the app must exist and the session too (404 otherwise). */
async function prepare(ctx: RouteContext, request: Request, streamingAllowed: boolean): Promise<PreparedRun> {
  const body = camelKeys(await readJson(request, ctx.bodyLimit));
  if (body && typeof body === 'object' && 'newMessage' in body) {
    (body as Record<string, unknown>).newMessage = camelContent((body as Record<string, unknown>).newMessage);
  }
  const req = validate(requestSchemas().runAgent, body, 'RunAgentRequest');
  if (!req.appName) throw new ServerError('BAD_REQUEST', 'appName is required');
  await ctx.apps.assertApp(req.appName);
  // The session is not looked up here: the runner loads it first thing and fails with NOT_FOUND,
  // before any event, which the routes turn into a 404 (one query per turn saved).
  const runner = await ctx.apps.runner(req.appName);
  const runConfig: RunConfig = {
    ...(streamingAllowed && req.streaming ? { streaming: true } : {}),
    ...(req.customMetadata ? { custom: req.customMetadata } : {}),
  };
  const tracked = ctx.runs.start();
  const stop = new AbortController();
  const signal = AbortSignal.any([tracked.signal, request.signal, stop.signal]);
  return {
    runner,
    request,
    tracked,
    stop,
    splitArtifacts: !req.functionCallEventId,
    params: {
      userId: req.userId,
      sessionId: req.sessionId,
      ...(req.newMessage ? { newMessage: req.newMessage } : {}),
      ...(req.stateDelta ? { stateDelta: req.stateDelta } : {}),
      ...(req.invocationId ? { invocationId: req.invocationId } : {}),
      ...(req.multitaskStrategy ? { multitaskStrategy: req.multitaskStrategy } : {}),
      runConfig,
      signal,
    },
  };
}

/** The runner's NOT_FOUND before the first event: the session does not exist (a 404, as in ADK). */
function missingSession(error: unknown, run: PreparedRun): unknown {
  return isAdkError(error, 'NOT_FOUND')
    ? new NotFoundError(`Session not found: ${run.params.sessionId}`)
    : error;
}

/** Links each yielded event to the span that produced it (for `/debug/trace/{eventId}`). */
function link(ctx: RouteContext, sessionId: string, event: Event): void {
  if (!ctx.spans || event.partial || event.author === 'user') return;
  ctx.spans.linkEvent(sessionId, event.id, eventFunctionResponses(event).length > 0 ? 'tool' : 'llm');
}

/**
 * ADK's web UI renders artifacts from `actions.artifactDelta` both while reading parts and while
 * reading actions; like ADK's server, an event with both is sent as a content event and an
 * action-only event.
 */
function wireEvents(event: Event, split: boolean): AdkEventJson[] {
  const json = eventToAdkJson(event);
  if (!split || Object.keys(event.actions.artifactDelta).length === 0 || !event.content?.parts.length)
    return [json];
  return [
    { ...json, actions: { ...json.actions, artifactDelta: {} } },
    (({ content: _content, ...rest }) => rest)(json) as AdkEventJson,
  ];
}

const encoder = new TextEncoder();

/**
 * Lets the event loop run between a run's steps. An embedded database (PGlite) completes queries
 * through promise callbacks only, so many runs at once can keep the loop in microtasks and leave
 * new requests unread for seconds; one macrotask per event keeps requests served in turn.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `POST /run` (all events as one JSON array) and `POST /run_sse` (one `data:` line per event). */
export function runRoutes(app: Hono, ctx: RouteContext): void {
  app.post('/run', async (c) => {
    const run = await prepare(ctx, c.req.raw, false);
    const events: AdkEventJson[] = [];
    const collect = async () => {
      try {
        for await (const event of run.runner.run(run.params)) {
          await yieldToEventLoop();
          link(ctx, run.params.sessionId, event);
          if (!event.partial) events.push(eventToAdkJson(event));
        }
      } catch (error) {
        throw events.length === 0 ? missingSession(error, run) : error;
      }
    };
    try {
      await (ctx.bind ? ctx.bind(run.request, collect) : collect());
    } finally {
      run.tracked.end();
    }
    return c.json(events);
  });

  app.post('/run_sse', async (c) => {
    const run = await prepare(ctx, c.req.raw, true);
    const iterator = run.runner.run(run.params)[Symbol.asyncIterator]();
    const step = () => (ctx.bind ? ctx.bind(run.request, () => iterator.next()) : iterator.next());
    const pull = async () => {
      await yieldToEventLoop();
      return step();
    };
    let finished = false;
    let cancelled = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      run.tracked.end();
    };
    // The first step runs before the response starts, so a missing session is a 404, not a stream.
    let pending: Promise<IteratorResult<Event, void>> | undefined;
    try {
      const first = await pull();
      pending = Promise.resolve(first);
    } catch (error) {
      const mapped = missingSession(error, run);
      // Refused before any event (no session; the session is busy and the run asked to be refused):
      // an HTTP error, not a stream.
      if (
        isAdkError(mapped, 'NOT_FOUND') ||
        isAdkError(mapped, 'CONCURRENT_INVOCATION') ||
        // An answer to a paused call this server did not sign (or that was altered): 403.
        isAdkError(mapped, 'FORBIDDEN')
      ) {
        finish();
        throw mapped;
      }
      pending = Promise.reject(error);
      pending.catch(() => undefined);
    }
    // The client goes away as a cancel of the body, or first as an abort of its request: either
    // way nothing more is written (a write after the cancel would throw "Controller is already
    // closed"), and the run is stopped.
    const clientGone = () => cancelled || run.request.signal.aborted;
    let closed = false;
    const write = (controller: ReadableStreamDefaultController<Uint8Array>, text: string) => {
      if (closed || clientGone()) return;
      try {
        controller.enqueue(encoder.encode(text));
      } catch {
        closed = true; // closed from the reading side meanwhile
      }
    };
    const end = (controller: ReadableStreamDefaultController<Uint8Array>) => {
      finish();
      if (closed) return;
      closed = true;
      try {
        controller.close();
      } catch {
        // already closed or cancelled by the reader
      }
    };
    const stopRun = async () => {
      cancelled = true;
      run.stop.abort();
      try {
        await iterator.return?.(undefined);
      } finally {
        finish();
      }
    };
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await (pending ?? pull());
          pending = undefined;
          if (cancelled) return;
          if (clientGone()) {
            end(controller);
            await stopRun();
            return;
          }
          if (next.done) {
            end(controller);
            return;
          }
          link(ctx, run.params.sessionId, next.value);
          let chunk = '';
          for (const json of wireEvents(next.value, run.splitArtifacts))
            chunk += `data: ${JSON.stringify(json)}\n\n`;
          write(controller, chunk);
        } catch (error) {
          pending = undefined;
          if (clientGone()) {
            end(controller);
            return;
          }
          // The runner turns agent failures into error events; this is what escapes it (a store
          // down, a plugin crash): told to the client as an error event, then the stream ends.
          ctx.logger.error(errorLine('run_sse failed', error));
          const name = error instanceof Error ? error.name : 'Error';
          write(controller, `data: ${JSON.stringify({ error: `${name}: ${describeError(error)}` })}\n\n`);
          end(controller);
        }
      },
      async cancel() {
        // The client went away: stop the run (the runner aborts its model call and tools).
        closed = true;
        await stopRun();
      },
    });
    return new Response(stream, {
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache',
        'X-Accel-Buffering': 'no',
      },
    });
  });
}
