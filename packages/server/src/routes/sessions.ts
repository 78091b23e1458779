import {
  createEvent,
  type Event,
  eventSchemas,
  eventTimestamp,
  type GetSessionParams,
  isAdkError,
  NotFoundError,
  newId,
  type Session,
  type SessionService,
  ValidationError,
} from '@adk/core';
import type { Context, Hono } from 'hono';
import { readJson, validate } from '../http/body.js';
import { camelKeys, requestSchemas } from '../http/schemas.js';
import { ServerError } from '../server/errors.js';
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

/** Page size when only `pageToken` is given. */
const DEFAULT_PAGE_SIZE = 100;

/** Largest `pageSize` the session list accepts. */
const MAX_PAGE_SIZE = 1000;

/** `?name=` (or its snake_case spelling): an integer in [min, max], or a 400 that says so. */
function intQuery(c: Context, names: [string, string], min: number, max: number): number | undefined {
  const raw = c.req.query(names[0]) ?? c.req.query(names[1]);
  if (raw === undefined) return undefined;
  const n = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ServerError(
      'BAD_REQUEST',
      `${names[0]} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  return n;
}

/** ADK's GetSessionConfig as query params: `numRecentEvents` and `afterTimestamp` (float seconds). */
function getSessionConfig(c: Context): Pick<GetSessionParams, 'numRecentEvents' | 'after'> {
  const numRecentEvents = intQuery(c, ['numRecentEvents', 'num_recent_events'], 0, Number.MAX_SAFE_INTEGER);
  const rawAfter = c.req.query('afterTimestamp') ?? c.req.query('after_timestamp');
  let after: number | undefined;
  if (rawAfter !== undefined) {
    const seconds = rawAfter.trim() === '' ? Number.NaN : Number(rawAfter);
    if (!Number.isFinite(seconds))
      throw new ServerError(
        'BAD_REQUEST',
        `afterTimestamp must be a time in seconds, got ${JSON.stringify(rawAfter)}`,
      );
    after = seconds * 1000;
  }
  return {
    ...(numRecentEvents !== undefined ? { numRecentEvents } : {}),
    ...(after !== undefined ? { after } : {}),
  };
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
    const pageSize = intQuery(c, ['pageSize', 'page_size'], 1, MAX_PAGE_SIZE);
    const pageToken = c.req.query('pageToken') ?? c.req.query('page_token');
    const visible = (s: Session) => !s.id.startsWith(EVAL_SESSION_PREFIX);
    if (pageSize === undefined && pageToken === undefined) {
      // ADK's answer: the whole list as an array (its web UI reads this).
      const sessions = await allSessions(service(), appName, userId);
      return c.json(sessions.filter(visible).map(sessionToAdkJson));
    }
    if (pageToken === '') throw new ServerError('BAD_REQUEST', 'pageToken must not be empty');
    let page: Awaited<ReturnType<SessionService['listSessions']>>;
    try {
      page = await service().listSessions({
        appName,
        userId,
        pageSize: pageSize ?? DEFAULT_PAGE_SIZE,
        ...(pageToken ? { pageToken } : {}),
      });
    } catch (error) {
      // A token this store did not issue is the client's mistake, as a malformed query param.
      if (pageToken && isAdkError(error, 'VALIDATION'))
        throw new ServerError('BAD_REQUEST', `Invalid pageToken: ${pageToken}`, { cause: error });
      throw error;
    }
    return c.json({
      sessions: page.sessions.filter(visible).map(sessionToAdkJson),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    });
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
    const session = await service().getSession({ ...key, ...getSessionConfig(c) });
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
