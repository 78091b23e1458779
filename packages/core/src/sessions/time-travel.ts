import { type AdkErrorOptions, NotFoundError, ValidationError } from '../errors/errors.js';
import type { Event } from '../events/event.js';
import { newId } from '../utils/ids.js';
import type { Session, SessionKey, SessionService } from './session.js';
import { scopeOf } from './state.js';
import { firstIndexByInvocation, visibleEvents } from './visible-events.js';

/** A rewind or fork named an invocation the session's visible history does not hold. */
export class InvocationNotFoundError extends NotFoundError {
  constructor(message: string, options?: AdkErrorOptions) {
    super(message, options);
  }
}

/** A fork named an event the session does not hold. */
export class EventNotFoundError extends NotFoundError {
  constructor(message: string, options?: AdkErrorOptions) {
    super(message, options);
  }
}

/** Where a fork is cut: after one event, or before an invocation's first event. */
export type ForkPoint =
  | { atEventId: string; beforeInvocationId?: undefined }
  | { beforeInvocationId: string; atEventId?: undefined };

export type ForkSessionParams = SessionKey &
  ForkPoint & {
    /** Generated when omitted. A duplicate id is an AlreadyExistsError. */
    newSessionId?: string;
  };

/** How many events of `events` a fork at `point` holds. */
export function forkEventCount(session: Pick<Session, 'id' | 'events'>, point: ForkPoint): number {
  const events = session.events;
  if (point.atEventId !== undefined && point.beforeInvocationId !== undefined)
    throw new ValidationError('Give either atEventId or beforeInvocationId, not both');
  if (point.atEventId !== undefined) {
    const at = events.findIndex((e) => e.id === point.atEventId);
    if (at < 0)
      throw new EventNotFoundError(`Event ${point.atEventId} not found in session ${session.id}`, {
        details: { eventId: point.atEventId },
      });
    return at + 1;
  }
  if (point.beforeInvocationId !== undefined) {
    const at = events.findIndex((e) => e.invocationId === point.beforeInvocationId);
    if (at < 0)
      throw new InvocationNotFoundError(
        `Invocation ${point.beforeInvocationId} not found in session ${session.id}`,
        { details: { invocationId: point.beforeInvocationId } },
      );
    return at;
  }
  throw new ValidationError('A fork needs atEventId or beforeInvocationId');
}

/**
 * The session-scoped state after the first `count` events of the log: the state the session was
 * created with plus every session-scoped key those events wrote (`app:`/`user:` keys are shared and
 * are not part of it). For sessions stored before stores kept their initial state, keys no event
 * ever wrote are taken as initial.
 */
export function sessionStateAt(
  session: Pick<Session, 'state' | 'events' | 'initialState'>,
  count: number,
): Record<string, unknown> {
  const state: Record<string, unknown> = { ...(session.initialState ?? legacyInitialState(session)) };
  const events = session.events;
  for (let i = 0; i < count && i < events.length; i++) {
    const delta = (events[i] as Event).actions.stateDelta;
    for (const key in delta) if (scopeOf(key) === 'session') state[key] = delta[key];
  }
  return state;
}

/** The session-scoped part of a session's merged state. */
export function sessionScopedState(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in state) if (scopeOf(key) === 'session') out[key] = state[key];
  return out;
}

function legacyInitialState(session: Pick<Session, 'state' | 'events'>): Record<string, unknown> {
  const written = new Set<string>();
  for (const e of session.events) for (const key in e.actions.stateDelta) written.add(key);
  const out: Record<string, unknown> = {};
  for (const key in session.state)
    if (scopeOf(key) === 'session' && !written.has(key)) out[key] = session.state[key];
  return out;
}

/**
 * The state delta that takes the session's state back to before the event at `start`: keys whose
 * value differs get their old value, keys written since are set to null (the state model has no
 * delete; a null value reads as unset). `app:`/`user:` keys are never part of it.
 */
export function restoringStateDelta(
  session: Pick<Session, 'state' | 'events' | 'initialState'>,
  start: number,
): Record<string, unknown> {
  const before = sessionStateAt(session, start);
  const now = sessionScopedState(session.state);
  const delta: Record<string, unknown> = {};
  for (const key in before) if (!sameJson(before[key], now[key])) delta[key] = before[key];
  for (const key in now) if (!(key in before) && now[key] !== null) delta[key] = null;
  return delta;
}

/** Session-scoped artifact name → latest version recorded by the first `count` events. */
export function artifactVersionsAt(events: readonly Event[], count: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < count && i < events.length; i++) {
    const delta = (events[i] as Event).actions.artifactDelta;
    for (const name in delta) if (!name.startsWith('user:')) out.set(name, delta[name] as number);
  }
  return out;
}

/**
 * The index in `session.events` of the first event of an invocation that is part of the visible
 * history (what a rewind goes back before). Unknown or already rewound: InvocationNotFoundError.
 */
export function rewindStart(session: Pick<Session, 'id' | 'events'>, invocationId: string): number {
  const visible = visibleEvents(session.events);
  if (!visible.some((e) => e.invocationId === invocationId))
    throw new InvocationNotFoundError(
      `Invocation ${invocationId} is not in the visible history of session ${session.id}`,
      { details: { invocationId } },
    );
  return firstIndexByInvocation(session.events).get(invocationId) as number;
}

/**
 * Forks a session: the store's own `forkSession` when it has one (one transaction), else a generic
 * copy (a new session with the source's initial state, then the first events appended again without
 * their `app:`/`user:` keys, which are shared and must not be written twice). The source is
 * untouched. Artifacts are copied by the Runner (`Runner.forkSession`), which owns the artifact
 * service.
 */
export async function forkSessionIn(
  service: SessionService,
  params: ForkSessionParams,
  source?: Session,
): Promise<Session> {
  const key = { appName: params.appName, userId: params.userId, sessionId: params.sessionId };
  const session = source ?? (await service.getSession(key));
  if (!session)
    throw new NotFoundError(
      `Session ${params.sessionId} not found for app ${params.appName}, user ${params.userId}`,
    );
  const eventCount = forkEventCount(session, params);
  const newSessionId = params.newSessionId ?? newId();
  if (!newSessionId.trim()) throw new ValidationError('newSessionId must not be empty');
  if (service.forkSession)
    return service.forkSession({
      ...key,
      eventCount,
      newSessionId,
      sourceLastUpdateTime: session.lastUpdateTime,
    });
  const fork = await service.createSession({
    appName: params.appName,
    userId: params.userId,
    sessionId: newSessionId,
    state: session.initialState ?? legacyInitialState(session),
  });
  for (const event of session.events.slice(0, eventCount)) {
    const stateDelta: Record<string, unknown> = {};
    for (const k in event.actions.stateDelta)
      if (scopeOf(k) === 'session') stateDelta[k] = event.actions.stateDelta[k];
    await service.appendEvent(fork, { ...event, actions: { ...event.actions, stateDelta } });
  }
  return fork;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(a) === JSON.stringify(b);
}
