import {
  createEvent,
  type Event,
  eventSchemas,
  eventTimestamp,
  NotFoundError,
  newId,
  type Session,
  type SessionService,
  ValidationError,
} from '@adk/core';
import type { Hono } from 'hono';
import { readJson, validate } from '../http/body.js';
import { camelKeys, requestSchemas } from '../http/schemas.js';
import { eventFromAdkJson, sessionToAdkJson } from '../wire/adk-json.js';
import { idParam, type RouteContext, sessionKey } from './context.js';

/** Sessions that eval runs create (ADK's prefix); the session list leaves them out, as ADK's does. */
const EVAL_SESSION_PREFIX = '___eval___session___';

/** Every session of a user (the store pages; ADK's route returns them all). */
async function allSessions(service: SessionService, appName: string, userId: string): Promise<Session[]> {
  const out: Session[] = [];
  let pageToken: string | undefined;
  do {
    const page = await service.listSessions({ appName, userId, ...(pageToken ? { pageToken } : {}) });
    out.push(...page.sessions);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return out;
}

/** Events sent in ADK's shape, validated; ids and invocation ids filled in, times fresh so order holds. */
function eventsFromBody(values: Record<string, unknown>[]): Event[] {
  const seen = new Set<string>();
  return values.map((value, index) => {
    const raw = eventFromAdkJson(value);
    const filled = {
      ...raw,
      id: typeof raw.id === 'string' && raw.id ? raw.id : newId(),
      invocationId: typeof raw.invocationId === 'string' ? raw.invocationId : `e-${newId()}`,
      timestamp: eventTimestamp(),
      actions: { stateDelta: {}, artifactDelta: {}, ...(raw.actions as object | undefined) },
    };
    const event = validate(eventSchemas().event, filled, `event ${index}`);
    // Checked before the session is created, so a bad list creates nothing.
    if (seen.has(event.id))
      throw new ValidationError(`Invalid events: id ${JSON.stringify(event.id)} appears twice`);
    seen.add(event.id);
    return event;
  });
}

/** Sessions: list, create (with or without id, with state and events), get, delete, PATCH state; memory. */
export function sessionRoutes(app: Hono, ctx: RouteContext): void {
  const service = () => ctx.stores.sessionService;

  app.get('/apps/:app/users/:user/sessions', async (c) => {
    const appName = idParam(c, 'app');
    const userId = idParam(c, 'user');
    await ctx.apps.assertApp(appName);
    const sessions = await allSessions(service(), appName, userId);
    return c.json(sessions.filter((s) => !s.id.startsWith(EVAL_SESSION_PREFIX)).map(sessionToAdkJson));
  });

  app.post('/apps/:app/users/:user/sessions', async (c) => {
    const appName = idParam(c, 'app');
    const userId = idParam(c, 'user');
    await ctx.apps.assertApp(appName);
    const body = await readJson(c.req.raw, ctx.bodyLimit);
    const req = validate(requestSchemas().createSession, camelKeys(body ?? {}), 'CreateSessionRequest');
    const events = req.events ? eventsFromBody(req.events) : [];
    const session = await service().createSession({
      appName,
      userId,
      ...(req.sessionId ? { sessionId: req.sessionId } : {}),
      ...(req.state ? { state: req.state } : {}),
    });
    for (const event of events) await service().appendEvent(session, event);
    return c.json(sessionToAdkJson(session));
  });

  app.post('/apps/:app/users/:user/sessions/:session', async (c) => {
    const key = await sessionKey(ctx, c);
    const body = await readJson(c.req.raw, ctx.bodyLimit);
    const state = validate(requestSchemas().state, body, 'state');
    const session = await service().createSession({ ...key, ...(state ? { state } : {}) });
    return c.json(sessionToAdkJson(session));
  });

  app.get('/apps/:app/users/:user/sessions/:session', async (c) => {
    const key = await sessionKey(ctx, c);
    const session = await service().getSession(key);
    if (!session) throw new NotFoundError('Session not found');
    return c.json(sessionToAdkJson(session));
  });

  app.delete('/apps/:app/users/:user/sessions/:session', async (c) => {
    const key = await sessionKey(ctx, c);
    await service().deleteSession(key);
    return c.json(null);
  });

  app.patch('/apps/:app/users/:user/sessions/:session', async (c) => {
    const key = await sessionKey(ctx, c);
    const body = await readJson(c.req.raw, ctx.bodyLimit);
    const req = validate(requestSchemas().updateSession, camelKeys(body), 'UpdateSessionRequest');
    const session = await service().getSession(key);
    if (!session) throw new NotFoundError('Session not found');
    await service().appendEvent(
      session,
      createEvent({ invocationId: `p-${newId()}`, author: 'user', actions: { stateDelta: req.stateDelta } }),
    );
    return c.json(sessionToAdkJson(session));
  });

  app.patch('/apps/:app/users/:user/memory', async (c) => {
    const appName = idParam(c, 'app');
    const userId = idParam(c, 'user');
    await ctx.apps.assertApp(appName);
    const body = await readJson(c.req.raw, ctx.bodyLimit);
    const req = validate(requestSchemas().updateMemory, camelKeys(body), 'UpdateMemoryRequest');
    const session = await service().getSession({ appName, userId, sessionId: req.sessionId });
    if (!session) throw new NotFoundError('Session not found');
    await ctx.stores.memoryService.addSessionToMemory(session);
    return c.json(null);
  });
}
