import {
  type Event,
  isRunFinished,
  NotFoundError,
  type Runner,
  type RunRecord,
  type RunStatus,
} from '@adk/core';
import type { Context, Hono } from 'hono';
import { readJson, validate } from '../http/body.js';
import { camelContent, camelKeys, requestSchemas } from '../http/schemas.js';
import { ServerError } from '../server/errors.js';
import { eventToAdkJson } from '../wire/adk-json.js';
import { idParam, type RouteContext, sessionKey } from './context.js';

const encoder = new TextEncoder();
const STATUSES = new Set<RunStatus>(['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled']);

/** A run record as the routes answer it (camelCase, with `runId` and the duration so far). */
export function runToJson(run: RunRecord, now = Date.now()): Record<string, unknown> {
  const { input: _input, ...rest } = run;
  const start = run.startedAt ?? run.createdAt;
  return {
    ...rest,
    runId: run.id,
    durationMs: Math.max(0, Math.round((run.endedAt ?? (isRunFinished(run.status) ? start : now)) - start)),
  };
}

/** The run, which must belong to the session of the path (404 otherwise). */
async function runOf(ctx: RouteContext, c: Context): Promise<{ runner: Runner; run: RunRecord }> {
  const key = await sessionKey(ctx, c);
  const runId = idParam(c, 'runId');
  const runner = await ctx.apps.runner(key.appName);
  const run = await runner.getRun(runId);
  if (!run || run.userId !== key.userId || run.sessionId !== key.sessionId)
    throw new NotFoundError(`Run not found: ${runId}`);
  return { runner, run };
}

/**
 * Runs as jobs: start a background run (202), read it, list a session's runs, cancel one, and tail
 * its events as SSE (resumable with `Last-Event-ID` or `?after=`), on any instance.
 */
export function runsRoutes(app: Hono, ctx: RouteContext): void {
  const base = '/apps/:app/users/:user/sessions/:session/runs';

  app.post(base, async (c) => {
    const key = await sessionKey(ctx, c);
    const body = camelKeys((await readJson(c.req.raw, ctx.bodyLimit)) ?? {});
    if (body && typeof body === 'object' && 'newMessage' in body) {
      (body as Record<string, unknown>).newMessage = camelContent(
        (body as Record<string, unknown>).newMessage,
      );
    }
    const req = validate(requestSchemas().startRun, body, 'StartRunRequest');
    for (const [field, value] of [
      ['appName', key.appName],
      ['userId', key.userId],
      ['sessionId', key.sessionId],
    ] as const) {
      if (req[field] != null && req[field] !== value)
        throw new ServerError(
          'BAD_REQUEST',
          `${field} in the body (${req[field]}) differs from the path (${value})`,
        );
    }
    const runner = await ctx.apps.runner(key.appName);
    const session = await ctx.stores.sessionService.getSession({ ...key, numRecentEvents: 0 });
    if (!session) throw new NotFoundError(`Session not found: ${key.sessionId}`);
    const tracked = ctx.runs.start();
    let record: RunRecord;
    try {
      record = await runner.startRun({
        userId: key.userId,
        sessionId: key.sessionId,
        ...(req.newMessage ? { newMessage: req.newMessage } : {}),
        ...(req.stateDelta ? { stateDelta: req.stateDelta } : {}),
        ...(req.invocationId ? { invocationId: req.invocationId } : {}),
        ...(req.multitaskStrategy ? { multitaskStrategy: req.multitaskStrategy } : {}),
        runConfig: {
          ...(req.streaming ? { streaming: true } : {}),
          ...(req.customMetadata ? { custom: req.customMetadata } : {}),
        },
        // Only a server shutdown stops a background run; its client may come and go.
        signal: tracked.signal,
      });
    } catch (error) {
      tracked.end();
      throw error;
    }
    // A shutdown waits for the runs this process executes (a queued one is a worker's).
    const ended = runner.runs.finished(record.id);
    if (ended) void ended.finally(() => tracked.end());
    else tracked.end();
    return c.json(runToJson(record), 202);
  });

  app.get(base, async (c) => {
    const key = await sessionKey(ctx, c);
    const runner = await ctx.apps.runner(key.appName);
    const pageSize = c.req.query('pageSize') ?? c.req.query('page_size');
    const pageToken = c.req.query('pageToken') ?? c.req.query('page_token');
    const status = c.req.query('status');
    const statuses = status ? status.split(',') : undefined;
    for (const s of statuses ?? [])
      if (!STATUSES.has(s as RunStatus)) throw new ServerError('BAD_REQUEST', `Unknown run status: ${s}`);
    const size = pageSize === undefined ? undefined : Number(pageSize);
    if (size !== undefined && (!Number.isInteger(size) || size < 1 || size > 1000))
      throw new ServerError('BAD_REQUEST', 'pageSize must be an integer from 1 to 1000');
    const page = await runner.listRuns({
      userId: key.userId,
      sessionId: key.sessionId,
      ...(statuses ? { status: statuses as RunStatus[] } : {}),
      ...(size !== undefined ? { pageSize: size } : {}),
      ...(pageToken ? { pageToken } : {}),
    });
    const now = Date.now();
    return c.json({
      runs: page.runs.map((r) => runToJson(r, now)),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    });
  });

  app.get(`${base}/:runId`, async (c) => {
    const { run } = await runOf(ctx, c);
    return c.json(runToJson(run));
  });

  app.post(`${base}/:runId/cancel`, async (c) => {
    const { runner, run } = await runOf(ctx, c);
    const cancelled = (await runner.cancelRun(run.id)) ?? run;
    return c.json(runToJson(cancelled));
  });

  app.get(`${base}/:runId/events`, async (c) => {
    const { runner, run } = await runOf(ctx, c);
    const after = c.req.header('Last-Event-ID') ?? c.req.query('after');
    const stop = new AbortController();
    const request = c.req.raw;
    const signal = AbortSignal.any([stop.signal, request.signal]);
    const events = runner.runEvents(run.id, { ...(after ? { after } : {}), signal });
    // The first step runs before the response starts, so an unknown `after` is a 422, not a stream.
    let first: IteratorResult<Event, RunRecord>;
    try {
      first = await events.next();
    } catch (error) {
      stop.abort();
      throw error;
    }
    let pending: IteratorResult<Event, RunRecord> | undefined = first;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = pending ?? (await events.next());
          pending = undefined;
          if (signal.aborted) return;
          if (next.done) {
            controller.enqueue(
              encoder.encode(`event: end\ndata: ${JSON.stringify(runToJson(next.value))}\n\n`),
            );
            controller.close();
            return;
          }
          const event = next.value;
          const id = event.partial ? '' : `id: ${event.id}\n`;
          controller.enqueue(encoder.encode(`${id}data: ${JSON.stringify(eventToAdkJson(event))}\n\n`));
        } catch (error) {
          if (signal.aborted) return;
          const message = error instanceof Error ? error.message : String(error);
          controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify({ error: message })}\n\n`));
          controller.close();
        }
      },
      async cancel() {
        stop.abort();
        await events.return(run).catch(() => undefined);
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
