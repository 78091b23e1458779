import { lazyZod, NotFoundError } from '@adk/core';
import type { Hono } from 'hono';
import { readJson, validate } from '../http/body.js';
import { camelKeys } from '../http/schemas.js';
import { eventToAdkJson, sessionToAdkJson } from '../wire/adk-json.js';
import { type RouteContext, sessionKey } from './context.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
const ID = /^[^\u0000-\u001f\u007f]{1,256}$/;

const timeTravelSchemas = lazyZod((z) => {
  const id = z.string().regex(ID, 'must be 1–256 characters without control characters');
  return {
    rewind: z.strictObject({ rewindBeforeInvocationId: id, cancelRunning: z.boolean().optional() }),
    fork: z
      .strictObject({
        atEventId: id.optional(),
        beforeInvocationId: id.optional(),
        newSessionId: id.optional(),
        cancelRunning: z.boolean().optional(),
      })
      .refine((b) => (b.atEventId === undefined) !== (b.beforeInvocationId === undefined), {
        message: 'give exactly one of atEventId and beforeInvocationId',
      }),
  };
});

/**
 * Time travel over a session's log (docs/architecture.md §5.5): rewind before an invocation (one
 * appended event, answered in ADK's JSON shape) and fork into a new session. A session with a run
 * queued or running answers 409 unless the body asks to cancel it.
 */
export function timeTravelRoutes(app: Hono, ctx: RouteContext): void {
  const base = '/apps/:app/users/:user/sessions/:session';

  app.post(`${base}/rewind`, async (c) => {
    const key = await sessionKey(ctx, c);
    const body = camelKeys(await readJson(c.req.raw, ctx.bodyLimit));
    const req = validate(timeTravelSchemas().rewind, body, 'RewindRequest');
    const runner = await ctx.apps.runner(key.appName);
    const event = await runner.rewind({
      userId: key.userId,
      sessionId: key.sessionId,
      rewindBeforeInvocationId: req.rewindBeforeInvocationId,
      ...(req.cancelRunning ? { cancelRunning: true } : {}),
    });
    return c.json(eventToAdkJson(event));
  });

  app.post(`${base}/fork`, async (c) => {
    const key = await sessionKey(ctx, c);
    const body = camelKeys(await readJson(c.req.raw, ctx.bodyLimit));
    const req = validate(timeTravelSchemas().fork, body, 'ForkRequest');
    const runner = await ctx.apps.runner(key.appName);
    const point =
      req.atEventId !== undefined
        ? { atEventId: req.atEventId }
        : { beforeInvocationId: req.beforeInvocationId as string };
    const fork = await runner.forkSession({
      userId: key.userId,
      sessionId: key.sessionId,
      ...point,
      ...(req.newSessionId ? { newSessionId: req.newSessionId } : {}),
      ...(req.cancelRunning ? { cancelRunning: true } : {}),
    });
    const stored = await ctx.stores.sessionService.getSession({ ...key, sessionId: fork.id });
    if (!stored) throw new NotFoundError(`Session not found: ${fork.id}`);
    return c.json(sessionToAdkJson(stored));
  });
}
