import { AlreadyExistsError, NotFoundError, StaleSessionError, ValidationError } from '../errors/errors.js';
import type { Event } from '../events/event.js';
import { newId } from '../utils/ids.js';
import { getOrCreate } from '../utils/json.js';
import { applyEventToSession, persistableEvent } from './apply-event.js';
import {
  type CreateSessionParams,
  type ForkOrigin,
  type GetSessionParams,
  type ListSessionsParams,
  type ListSessionsResult,
  nextUpdateTime,
  type Session,
  type SessionKey,
  type SessionService,
  type StorageCallOptions,
  type StoreForkParams,
} from './session.js';
import { mergeState, splitStateDelta } from './state.js';

interface StoredSession {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events: Event[];
  lastUpdateTime: number;
  /** The app's and the user's shared state (never replaced, so kept here for each read). */
  appState: Record<string, unknown>;
  userState: Record<string, unknown>;
  initialState: Record<string, unknown>;
  forkedFrom?: ForkOrigin;
}

const key = (appName: string, userId: string, sessionId: string) =>
  `${appName}\u0000${userId}\u0000${sessionId}`;

/**
 * Sessions in process memory, for tests, scripts and development. Reads copy the state map and the
 * event array (not the events, which are immutable once committed).
 */
export class InMemorySessionService implements SessionService {
  private readonly sessions = new Map<string, StoredSession>();
  /**
   * The same sessions by app, user and id: the lookups of every read and append use the caller's
   * strings as they are, with no key built and hashed each time.
   */
  private readonly byApp = new Map<string, Map<string, Map<string, StoredSession>>>();
  private readonly appState = new Map<string, Record<string, unknown>>();
  private readonly userState = new Map<string, Record<string, unknown>>();

  async createSession(params: CreateSessionParams): Promise<Session> {
    params.signal?.throwIfAborted();
    const sessionId = params.sessionId ?? newId();
    if (!sessionId.trim()) throw new ValidationError('sessionId must not be empty');
    const k = key(params.appName, params.userId, sessionId);
    if (this.sessions.has(k)) {
      throw new AlreadyExistsError(
        `Session ${sessionId} already exists for app ${params.appName}, user ${params.userId}`,
      );
    }
    const split = splitStateDelta(params.state ?? {});
    const stored: StoredSession = {
      id: sessionId,
      appName: params.appName,
      userId: params.userId,
      state: split.session,
      events: [],
      lastUpdateTime: nextUpdateTime(0),
      appState: this.appStateOf(params.appName),
      userState: this.userStateOf(params.appName, params.userId),
      initialState: { ...split.session },
    };
    this.sessions.set(k, stored);
    const byUser = getOrCreate(
      this.byApp,
      params.appName,
      () => new Map<string, Map<string, StoredSession>>(),
    );
    getOrCreate(byUser, params.userId, () => new Map<string, StoredSession>()).set(sessionId, stored);
    Object.assign(stored.appState, split.app);
    Object.assign(stored.userState, split.user);
    return this.view(stored, stored.events.slice());
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    params.signal?.throwIfAborted();
    const stored = this.find(params.appName, params.userId, params.sessionId);
    if (!stored) return undefined;
    let events = stored.events;
    if (params.after !== undefined) {
      const after = params.after;
      let start = events.length;
      while (start > 0 && (events[start - 1] as Event).timestamp > after) start--;
      events = events.slice(start);
    }
    if (params.numRecentEvents !== undefined) {
      const n = Math.max(0, params.numRecentEvents);
      events = n === 0 ? [] : events.slice(-n);
    } else if (events === stored.events) {
      events = events.slice();
    }
    return this.view(stored, events);
  }

  async listSessions(params: ListSessionsParams): Promise<ListSessionsResult> {
    params.signal?.throwIfAborted();
    // Page tokens are base64url: the codec is loaded by the first listing.
    const { base64ToUtf8, utf8ToBase64Url } = await loadBytes();
    const all: StoredSession[] = [];
    for (const s of this.sessions.values()) {
      if (s.appName === params.appName && (params.userId === undefined || s.userId === params.userId))
        all.push(s);
    }
    all.sort((a, b) => b.lastUpdateTime - a.lastUpdateTime || (a.id < b.id ? -1 : 1));
    const offset = params.pageToken ? decodeOffset(params.pageToken, base64ToUtf8) : 0;
    const size = params.pageSize && params.pageSize > 0 ? params.pageSize : all.length || 1;
    const page = all.slice(offset, offset + size);
    const next = offset + size < all.length ? String(offset + size) : undefined;
    return {
      sessions: page.map((s) => this.view(s, [])),
      ...(next ? { nextPageToken: utf8ToBase64Url(next) } : {}),
    };
  }

  async deleteSession(params: SessionKey & StorageCallOptions): Promise<void> {
    params.signal?.throwIfAborted();
    this.sessions.delete(key(params.appName, params.userId, params.sessionId));
    this.byApp.get(params.appName)?.get(params.userId)?.delete(params.sessionId);
  }

  async forkSession(params: StoreForkParams): Promise<Session> {
    const { sessionStateAt } = await loadTimeTravel();
    const source = this.sessions.get(key(params.appName, params.userId, params.sessionId));
    if (!source)
      throw new NotFoundError(
        `Session ${params.sessionId} not found for app ${params.appName}, user ${params.userId}`,
      );
    const k = key(params.appName, params.userId, params.newSessionId);
    if (this.sessions.has(k))
      throw new AlreadyExistsError(
        `Session ${params.newSessionId} already exists for app ${params.appName}, user ${params.userId}`,
      );
    const events = source.events.slice(0, params.eventCount);
    const last = events.at(-1);
    const stored: StoredSession = {
      id: params.newSessionId,
      appName: params.appName,
      userId: params.userId,
      state: sessionStateAt(
        { state: source.state, events, initialState: source.initialState },
        events.length,
      ),
      events,
      lastUpdateTime: nextUpdateTime(0),
      appState: source.appState,
      userState: source.userState,
      initialState: { ...source.initialState },
      forkedFrom: { sessionId: source.id, ...(last ? { eventId: last.id } : {}) },
    };
    this.sessions.set(k, stored);
    const byUser = getOrCreate(
      this.byApp,
      params.appName,
      () => new Map<string, Map<string, StoredSession>>(),
    );
    getOrCreate(byUser, params.userId, () => new Map<string, StoredSession>()).set(
      params.newSessionId,
      stored,
    );
    return this.view(stored, events.slice());
  }

  /** Also `appendEvent({ session, event })`, as @google/adk calls it. */
  async appendEvent(
    session: Session | { session: Session; event: Event },
    event?: Event,
    options?: StorageCallOptions,
  ): Promise<Event> {
    options?.signal?.throwIfAborted();
    if (event === undefined && 'session' in session) return this.appendEvent(session.session, session.event);
    if (event === undefined || 'session' in session)
      throw new ValidationError('appendEvent(session, event): no event');
    if (event.partial) return event;
    const stored = this.find(session.appName, session.userId, session.id);
    if (!stored)
      throw new NotFoundError(
        `Session ${session.id} not found for app ${session.appName}, user ${session.userId}`,
      );
    if (stored.lastUpdateTime !== session.lastUpdateTime) {
      throw new StaleSessionError(
        `Session ${session.id} was modified after this copy was read (copy ${session.lastUpdateTime}, stored ${stored.lastUpdateTime}); reload it`,
      );
    }
    const persisted = persistableEvent(event);
    // Most events change no state: nothing to split and merge for them.
    for (const _ in persisted.actions.stateDelta) {
      const split = splitStateDelta(persisted.actions.stateDelta);
      Object.assign(stored.state, split.session);
      Object.assign(stored.appState, split.app);
      Object.assign(stored.userState, split.user);
      break;
    }
    stored.events.push(persisted);
    stored.lastUpdateTime = nextUpdateTime(stored.lastUpdateTime);
    applyEventToSession(session, persisted, stored.lastUpdateTime);
    return event;
  }

  private find(appName: string, userId: string, sessionId: string): StoredSession | undefined {
    return this.byApp.get(appName)?.get(userId)?.get(sessionId);
  }

  private appStateOf(appName: string): Record<string, unknown> {
    return getOrCreate(this.appState, appName, () => ({}));
  }

  private userStateOf(appName: string, userId: string): Record<string, unknown> {
    return getOrCreate(this.userState, `${appName}\u0000${userId}`, () => ({}));
  }

  private view(stored: StoredSession, events: Event[]): Session {
    return {
      id: stored.id,
      appName: stored.appName,
      userId: stored.userId,
      state: mergeState(stored.appState, stored.userState, stored.state),
      events,
      lastUpdateTime: stored.lastUpdateTime,
      initialState: { ...stored.initialState },
      ...(stored.forkedFrom ? { forkedFrom: { ...stored.forkedFrom } } : {}),
    };
  }
}

function decodeOffset(token: string, base64ToUtf8: (base64: string) => string): number {
  let n = Number.NaN;
  try {
    n = Number(base64ToUtf8(token));
  } catch {
    // not base64: rejected below
  }
  if (!Number.isInteger(n) || n < 0) throw new ValidationError(`Invalid pageToken: ${token}`);
  return n;
}

let timeTravel: Promise<typeof import('./time-travel.js')> | undefined;
/** Time travel (forks) is loaded on the first fork: an app that never forks does not load it. */
const loadTimeTravel = () => (timeTravel ??= import('./time-travel.js'));

let bytes: Promise<typeof import('../utils/bytes.js')> | undefined;
/** Base64 for page tokens, loaded by the first `listSessions`. */
const loadBytes = () => (bytes ??= import('../utils/bytes.js'));
