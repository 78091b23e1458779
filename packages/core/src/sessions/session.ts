import type { Event } from '../events/event.js';
import { strictlyAfter } from '../utils/clock.js';

export interface Session {
  readonly id: string;
  readonly appName: string;
  readonly userId: string;
  /** Merged state: session keys, plus `app:` and `user:` keys with their prefixes. */
  state: Record<string, unknown>;
  /** Non-partial events in chronological order (possibly only the most recent, see getSession). */
  events: Event[];
  /**
   * Time of the session's last stored change, in ms (fractional to µs). Strictly increasing per
   * session; an append from a copy whose value differs from the stored one is stale.
   */
  lastUpdateTime: number;
  /** Where a forked session came from (see `forkSession`); absent for sessions that were created. */
  forkedFrom?: ForkOrigin;
  /**
   * The session-scoped state it was created with (stores that keep it), so a rewind can restore the
   * state before the first invocation. Undefined on sessions stored before stores kept it.
   */
  initialState?: Record<string, unknown>;
}

/** The session and event a fork was taken from. */
export interface ForkOrigin {
  sessionId: string;
  /** The last event copied into the fork (absent when the fork was taken before the first event). */
  eventId?: string;
}

export interface SessionKey {
  appName: string;
  userId: string;
  sessionId: string;
}

/**
 * Cancellation of one storage call: a store stops waiting (a queued query, a lock) and rejects
 * with `CancelledError` or the signal's reason. Stores that cannot interrupt a call check it before
 * they start. The Runner does not pass its run's signal to the commits of a run (a cancelled run
 * still records its end).
 */
export interface StorageCallOptions {
  signal?: AbortSignal;
}

export interface CreateSessionParams extends StorageCallOptions {
  appName: string;
  userId: string;
  /** Generated when omitted. A duplicate id is an AlreadyExistsError. */
  sessionId?: string;
  /** Initial state; `app:` and `user:` keys are routed to the shared scopes, `temp:` keys dropped. */
  state?: Record<string, unknown>;
}

export interface GetSessionParams extends SessionKey, StorageCallOptions {
  /** Only the last N events (after `after` is applied). 0 means no events. */
  numRecentEvents?: number;
  /** Only events with a timestamp strictly after this time (ms). */
  after?: number;
}

export interface ListSessionsParams extends StorageCallOptions {
  appName: string;
  /** When omitted, sessions of every user of the app. */
  userId?: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListSessionsResult {
  /** Newest update first; `events` is empty. */
  sessions: Session[];
  nextPageToken?: string;
}

/**
 * Stores sessions and their event logs. Every implementation passes the conformance suite in
 * `@adk/core/testing` (`sessionServiceConformance`).
 */
export interface SessionService {
  createSession(params: CreateSessionParams): Promise<Session>;
  /** The session, or undefined when it does not exist. */
  getSession(params: GetSessionParams): Promise<Session | undefined>;
  listSessions(params: ListSessionsParams): Promise<ListSessionsResult>;
  /** Removes the session and its events; deleting a missing session is not an error. */
  deleteSession(params: SessionKey & StorageCallOptions): Promise<void>;
  /**
   * Commits an event: stores it (unless partial), applies its state delta by scope, and updates the
   * given session object in place (events, state, lastUpdateTime). Throws NotFoundError for an
   * unknown session and StaleSessionError when `session` is older than the stored copy.
   */
  appendEvent(session: Session, event: Event, options?: StorageCallOptions): Promise<Event>;
  /**
   * Optional: a run lock on one session that holds across processes (for example a Postgres
   * advisory lock), so several server instances on one database never run a session at once. The
   * Runner takes it after its in-process queue. With `wait: false` it resolves to undefined when
   * another holder has the lock; with `wait: true` it waits (until `signal` aborts). A lock must be
   * released by the store when its holder dies (a closed connection), never by a timeout alone.
   */
  acquireRunLock?(key: SessionKey, options: RunLockOptions): Promise<RunLock | undefined>;
  /**
   * Optional: copies the first `eventCount` events of a session into a new session, atomically,
   * with the session-scoped state as it was after them (shared `app:`/`user:` state untouched) and
   * `forkedFrom` recorded. Stores without it get a generic fallback in `forkSession`
   * (docs/architecture.md §5.5).
   */
  forkSession?(params: StoreForkParams): Promise<Session>;
  /** Releases connections and other resources. */
  close?(): Promise<void>;
}

/** What a store's `forkSession` is given: the cut is already resolved to an event count. */
export interface StoreForkParams extends SessionKey {
  /** How many events of the source log the fork holds (0: none). */
  eventCount: number;
  newSessionId: string;
  /** The source's update time when the cut was computed (its log prefix is immutable anyway). */
  sourceLastUpdateTime?: number;
}

export interface RunLockOptions {
  wait: boolean;
  signal?: AbortSignal;
}

/** A held session run lock (see `SessionService.acquireRunLock`). */
export interface RunLock {
  release(): Promise<void>;
}

/** Next strictly increasing update time (ms with µs resolution) after `previous`. */
export function nextUpdateTime(previous: number): number {
  return strictlyAfter(previous);
}
