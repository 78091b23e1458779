import {
  AlreadyExistsError,
  applyEventToSession,
  ConfigError,
  type CreateSessionParams,
  type Event,
  type ForkOrigin,
  type GetSessionParams,
  type ListSessionsParams,
  type ListSessionsResult,
  mergeState,
  NotFoundError,
  newId,
  nextUpdateTime,
  persistableEvent,
  type RunLock,
  type RunLockOptions,
  type Session,
  type SessionKey,
  type SessionService,
  StaleSessionError,
  type StorageCallOptions,
  type StoreForkParams,
  sessionStateAt,
  splitStateDelta,
  ValidationError,
} from '@adk/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type KyselyFromUrlOptions, kyselyFromUrl, splitConnectionOptions } from './connect.js';
import type { SqlFlavor } from './dialects/flavor.js';
import {
  decodePageToken,
  type EventRow,
  encodePageToken,
  eventFromRow,
  microsFromMs,
  msFromMicros,
  parseState,
  RESPONSE_FIELDS,
} from './rows.js';
import { AdvisoryRunLocks, isSharedServer } from './run-locks.js';
import { type Tables, tablesFor } from './schema/tables.js';
import { type CachedLog, SessionLogCache } from './session-log-cache.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

/**
 * Any Kysely instance: the service only runs its own SQL through it, whatever the caller's
 * database type parameter is.
 */
// biome-ignore lint/suspicious/noExplicitAny: Kysely<DB> is invariant in DB; accept every DB type
export type AnyKysely = Kysely<any>;

export interface SqlSessionServiceOptions extends SqlStoreOptions {
  /**
   * Hold a Postgres advisory lock per session while a Runner runs it, so several processes on one
   * database never run one session at once (see the README's "Several instances"). Default: on for
   * Postgres servers opened with `fromUrl`/`kyselyFromUrl`; off for PGlite and SQLite, which one
   * process owns, where the Runner's in-process queue is the whole story.
   */
  runLocks?: boolean;
  /**
   * Keep the event logs of this many recently used sessions in memory, so getSession reads only the
   * session row (and events appended since, by anyone) instead of the whole log (default 1000; 0
   * turns the cache off). A cached log is used only while the stored row's update time matches it.
   */
  cachedSessions?: number;
}

interface SessionRow {
  app_name: string;
  user_id: string;
  id: string;
  state: string;
  created_us: number | string;
  updated_us: number | string;
  app_state: string | null;
  user_state: string | null;
  initial_state: string | null;
  forked_from: string | null;
}

/**
 * The production SessionService: sessions, events and shared state in Postgres, PGlite or SQLite,
 * through Kysely. See the package README for the schema and the guarantees.
 */
export class SqlSessionService extends SqlStore implements SessionService {
  private readonly t: Tables;
  private readonly sessions;
  private readonly events;
  private readonly appStates;
  private readonly userStates;

  constructor(options: SqlSessionServiceOptions) {
    super(options);
    this.t = tablesFor(options.tablePrefix);
    this.sessions = sql.table(this.t.sessions);
    this.events = sql.table(this.t.events);
    this.appStates = sql.table(this.t.appStates);
    this.userStates = sql.table(this.t.userStates);
    const cached = options.cachedSessions ?? 1000;
    this.logs = cached > 0 ? new SessionLogCache(cached) : undefined;
    const runLocks = options.runLocks ?? (this.family === 'postgres' && isSharedServer(options.db));
    if (runLocks) {
      if (this.family !== 'postgres') throw new ConfigError('runLocks needs a Postgres database');
      const locks = new AdvisoryRunLocks(options.db, this.t.prefix);
      this.runLocks = locks;
      this.acquireRunLock = (key, lockOptions) => locks.acquire(key, lockOptions);
    }
  }

  /** Present only when run locks are on, so a Runner falls back to its in-process queue otherwise. */
  readonly acquireRunLock?: (key: SessionKey, options: RunLockOptions) => Promise<RunLock | undefined>;
  private readonly runLocks: AdvisoryRunLocks | undefined;
  private readonly logs: SessionLogCache | undefined;

  /**
   * A service on its own database, built from a URL (`pglite://memory` when omitted): PGlite in
   * memory or in a data directory, `sqlite://file.db`, or `postgres://…`. close() releases it.
   */
  static async fromUrl(
    url = 'pglite://memory',
    options: Omit<SqlSessionServiceOptions, 'db'> & KyselyFromUrlOptions = {},
  ): Promise<SqlSessionService> {
    const { connection, rest } = splitConnectionOptions(options);
    const db = await kyselyFromUrl(url, connection);
    return new SqlSessionService({ destroyOnClose: true, ...rest, db });
  }

  async createSession(params: CreateSessionParams): Promise<Session> {
    const sessionId = params.sessionId ?? newId();
    if (!sessionId.trim()) throw new ValidationError('sessionId must not be empty');
    const { appName, userId } = params;
    const split = splitStateDelta(params.state ?? {});
    const updateTime = nextUpdateTime(0);
    const now = this.f.time(microsFromMs(updateTime));
    await this.ready(params.signal);
    const row = await this.db.transaction().execute(async (trx) => {
      const inserted = await sql`
        insert into ${this.sessions} (app_name, user_id, id, state, initial_state, created_at, updated_at)
        values (${appName}, ${userId}, ${sessionId}, ${this.f.json(split.session, 'session state')},
          ${this.f.json(split.session, 'session state')}, ${now}, ${now})
        on conflict do nothing`.execute(trx);
      if (inserted.numAffectedRows === 0n) {
        throw new AlreadyExistsError(
          `Session ${sessionId} already exists for app ${appName}, user ${userId}`,
        );
      }
      this.checkSignal(params.signal);
      // Shared rows are created on first use, so that empty scopes read back as {}.
      await this.upsertSharedState(trx, appName, userId, split, now, { createEmpty: true });
      return this.selectSession(trx, { appName, userId, sessionId });
    });
    if (!row) throw new NotFoundError(`Session ${sessionId} vanished while it was being created`);
    return this.toSession(row, []);
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    if (params.after !== undefined && !Number.isFinite(params.after))
      throw new ValidationError(`after must be a finite time in ms, got ${params.after}`);
    await this.ready(params.signal);
    // The session row first: an event appended between the two reads then makes this copy stale
    // (a later append from it fails loudly) instead of silently missing an event.
    const row = await this.selectSession(this.db, params);
    if (!row) {
      this.logs?.delete(params);
      return undefined;
    }
    // No events asked for (a check that the session exists, its state): the log is not read.
    if (params.numRecentEvents !== undefined && params.numRecentEvents < 1) return this.toSession(row, []);
    this.checkSignal(params.signal);
    if (!this.logs) return this.toSession(row, await this.selectEvents(params));
    // The newest events of a session this process has not cached: one bounded query, instead of
    // reading (and caching) its whole log first — opening a long session in the web UI.
    if (params.numRecentEvents !== undefined && this.logs.get(params)?.createdUs !== usText(row.created_us))
      return this.toSession(row, await this.selectEvents(params));
    const log = await this.currentLog(params, row, this.logs);
    let events =
      params.after === undefined ? log.events : log.events.filter((e) => e.timestamp > params.after!);
    if (params.numRecentEvents !== undefined)
      events = events.slice(Math.max(0, events.length - Math.max(0, Math.floor(params.numRecentEvents))));
    return this.toSession(row, events === log.events ? events.slice() : events);
  }

  /** The session's full log as of `row`: the cached one, brought up to date with only what is new. */
  private async currentLog(key: SessionKey, row: SessionRow, logs: SessionLogCache): Promise<CachedLog> {
    const createdUs = usText(row.created_us);
    const updatedUs = usText(row.updated_us);
    const cached = logs.get(key);
    if (cached?.createdUs === createdUs && cached.updatedUs === updatedUs) return cached;
    const reuse = cached?.createdUs === createdUs ? cached : undefined;
    // Taken before the read: an append of this process that lands meanwhile extends the cached
    // entry in place, and the read below returns that event too; it must be counted once.
    const reuseSeq = reuse?.lastSeq ?? 0;
    const reuseEvents = reuse ? reuse.events.slice() : [];
    const fresh = await this.selectEventRows({ ...key, afterSeq: reuseSeq });
    const lastSeq = fresh.length > 0 ? Number(fresh.at(-1)?.seq) : reuseSeq;
    const events = fresh.map(eventFromRow);
    const log: CachedLog = {
      createdUs,
      updatedUs,
      lastSeq,
      events: reuse ? reuseEvents.concat(events) : events,
    };
    logs.set(key, log);
    return log;
  }

  async listSessions(params: ListSessionsParams): Promise<ListSessionsResult> {
    const { pageSize } = params;
    if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 0))
      throw new ValidationError(`pageSize must be a non-negative integer, got ${pageSize}`);
    const limit = pageSize ? pageSize : undefined;
    const cursor = params.pageToken ? decodePageToken(params.pageToken) : undefined;
    const conditions: RawBuilder<unknown>[] = [sql`s.app_name = ${params.appName}`];
    if (params.userId !== undefined) conditions.push(sql`s.user_id = ${params.userId}`);
    if (cursor) {
      const at = this.f.time(cursor.updatedMicros);
      conditions.push(sql`(s.updated_at < ${at} or (s.updated_at = ${at} and (s.user_id > ${cursor.userId}
        or (s.user_id = ${cursor.userId} and s.id > ${cursor.sessionId}))))`);
    }
    await this.ready(params.signal);
    const { rows } = await sql<SessionRow>`
      ${this.sessionSelect()}
      where ${sql.join(conditions, sql` and `)}
      order by s.updated_at desc, s.user_id, s.id
      ${limit === undefined ? sql`` : sql`limit ${limit + 1}`}`.execute(this.db);
    const page = limit === undefined ? rows : rows.slice(0, limit);
    const last = page.at(-1);
    const hasMore = limit !== undefined && rows.length > limit;
    return {
      sessions: page.map((row) => this.toSession(row, [])),
      ...(hasMore && last
        ? {
            nextPageToken: encodePageToken({
              updatedMicros: Math.round(Number(last.updated_us)),
              userId: last.user_id,
              sessionId: last.id,
            }),
          }
        : {}),
    };
  }

  async deleteSession(params: SessionKey & StorageCallOptions): Promise<void> {
    this.logs?.delete(params);
    await this.ready(params.signal);
    // The foreign key cascades too; deleting explicitly also covers SQLite without foreign_keys=ON.
    await this.db.transaction().execute(async (trx) => {
      await sql`delete from ${this.events}
        where app_name = ${params.appName} and user_id = ${params.userId} and session_id = ${params.sessionId}`.execute(
        trx,
      );
      this.checkSignal(params.signal);
      await sql`delete from ${this.sessions}
        where app_name = ${params.appName} and user_id = ${params.userId} and id = ${params.sessionId}`.execute(
        trx,
      );
    });
  }

  /**
   * Copies the first `eventCount` events into a new session in one transaction (rows copied by the
   * database, same ids, timestamps and order), with the session state of that point, the source's
   * initial state and `forked_from`. Shared `app:`/`user:` state is not written.
   */
  async forkSession(params: StoreForkParams): Promise<Session> {
    const { appName, userId, sessionId: sourceId, newSessionId, eventCount } = params;
    const source = await this.getSession({ appName, userId, sessionId: sourceId });
    if (!source) throw new NotFoundError(`Session ${sourceId} not found for app ${appName}, user ${userId}`);
    if (eventCount > source.events.length)
      throw new ValidationError(`Session ${sourceId} has ${source.events.length} events, not ${eventCount}`);
    const events = source.events.slice(0, eventCount);
    const last = events.at(-1);
    const origin: ForkOrigin = { sessionId: sourceId, ...(last ? { eventId: last.id } : {}) };
    const initial = source.initialState ?? sessionStateAt({ ...source, initialState: undefined }, 0);
    const state = sessionStateAt({ ...source, initialState: initial }, eventCount);
    const f = this.f;
    const now = f.time(microsFromMs(nextUpdateTime(0)));
    const row = await this.db.transaction().execute(async (trx) => {
      const inserted = await sql`
        insert into ${this.sessions} (app_name, user_id, id, state, initial_state, forked_from, created_at, updated_at)
        values (${appName}, ${userId}, ${newSessionId}, ${f.json(state, 'session state')},
          ${f.json(initial, 'session state')}, ${f.json(origin)}, ${now}, ${now})
        on conflict do nothing`.execute(trx);
      if (inserted.numAffectedRows === 0n)
        throw new AlreadyExistsError(
          `Session ${newSessionId} already exists for app ${appName}, user ${userId}`,
        );
      if (eventCount > 0) {
        const copied = await sql`
          insert into ${this.events} (id, app_name, user_id, session_id, seq, invocation_id, author, branch,
            "timestamp", content, actions, partial, turn_complete, interrupted, finish_reason, error_code,
            error_message, custom_metadata, usage_metadata, citation_metadata, grounding_metadata,
            long_running_tool_ids, output, node_info, response_fields)
          select id, app_name, user_id, ${newSessionId}, seq, invocation_id, author, branch,
            "timestamp", content, actions, partial, turn_complete, interrupted, finish_reason, error_code,
            error_message, custom_metadata, usage_metadata, citation_metadata, grounding_metadata,
            long_running_tool_ids, output, node_info, response_fields
          from ${this.events}
          where app_name = ${appName} and user_id = ${userId} and session_id = ${sourceId} and seq <= ${eventCount}`.execute(
          trx,
        );
        if (copied.numAffectedRows !== BigInt(eventCount))
          throw new NotFoundError(`Session ${sourceId} changed while it was being forked; try again`);
      }
      return this.selectSession(trx, { appName, userId, sessionId: newSessionId });
    });
    if (!row) throw new NotFoundError(`Session ${newSessionId} vanished while it was being forked`);
    return this.toSession(row, events);
  }

  async appendEvent(session: Session, event: Event, options?: StorageCallOptions): Promise<Event> {
    if (event.partial) return event;
    const persisted = persistableEvent(event);
    const split = splitStateDelta(persisted.actions.stateDelta);
    const updateTime = nextUpdateTime(session.lastUpdateTime);
    const now = this.f.time(microsFromMs(updateTime));
    const { appName, userId, id: sessionId } = session;
    const f = this.f;
    await this.ready(options?.signal);
    // The optimistic check: only a copy as new as the stored session may append. On Postgres the
    // row lock it takes also serializes concurrent appends to this session.
    const sets = [sql`updated_at = ${now}`];
    if (hasKeys(split.session)) sets.push(sql`state = ${f.mergeObject(sql`state`, split.session)}`);
    const touch = sql`update ${this.sessions} set ${sql.join(sets)}
        where app_name = ${appName} and user_id = ${userId} and id = ${sessionId}
          and updated_at = ${f.time(microsFromMs(session.lastUpdateTime))}`;
    const e = persisted;
    // Workflow fields only when the event has them: other events keep the statement they had.
    const workflow = e.output !== undefined || e.nodeInfo !== undefined;
    // Likewise what the event kept of a model response.
    const responseFields = responseFieldsOf(e);
    const columns = sql`(id, app_name, user_id, session_id, seq, invocation_id, author, branch,
          "timestamp", content, actions, partial, turn_complete, interrupted, finish_reason, error_code,
          error_message, custom_metadata, usage_metadata, citation_metadata, grounding_metadata,
          long_running_tool_ids${workflow ? sql`, output, node_info` : sql``}${
            responseFields ? sql`, response_fields` : sql``
          })`;
    const values = sql`${e.id}, ${appName}, ${userId}, ${sessionId},
          (select coalesce(max(seq), 0) + 1 from ${this.events}
            where app_name = ${appName} and user_id = ${userId} and session_id = ${sessionId}),
          ${e.invocationId}, ${e.author}, ${e.branch ?? null}, ${f.time(microsFromMs(e.timestamp))},
          ${optionalJson(f, e.content, `content of event ${e.id}`)}, ${f.json(e.actions, `actions of event ${e.id}`)},
          ${f.bool(e.partial)}, ${f.bool(e.turnComplete)},
          ${f.bool(e.interrupted)}, ${e.finishReason ?? null}, ${e.errorCode ?? null}, ${e.errorMessage ?? null},
          ${optionalJson(f, e.customMetadata, `customMetadata of event ${e.id}`)},
          ${optionalJson(f, e.usageMetadata, `usageMetadata of event ${e.id}`)},
          ${optionalJson(f, e.citationMetadata, `citationMetadata of event ${e.id}`)},
          ${optionalJson(f, e.groundingMetadata, `groundingMetadata of event ${e.id}`)},
          ${f.textArray(e.longRunningToolIds)}${
            workflow
              ? sql`, ${optionalJson(f, e.output, `output of event ${e.id}`)},
          ${optionalJson(f, e.nodeInfo, `nodeInfo of event ${e.id}`)}`
              : sql``
          }${responseFields ? sql`, ${f.json(responseFields, `model response fields of event ${e.id}`)}` : sql``}`;
    const key = { appName, userId, sessionId };
    if (this.family === 'postgres' && !hasKeys(split.app) && !hasKeys(split.user)) {
      // One statement, one round trip: the update and the insert commit together or not at all (a
      // statement is atomic), and the insert happens only when the check passed. A duplicate event
      // id fails the whole statement, update included.
      let inserted: { numAffectedRows?: bigint };
      try {
        inserted = await sql`with touched as (${touch} returning 1)
          insert into ${this.events} ${columns}
          select ${values} from touched`.execute(this.db);
      } catch (error) {
        if ((error as { code?: unknown }).code === '23505')
          throw new AlreadyExistsError(`Event ${e.id} is already stored in session ${sessionId}`, {
            cause: error,
          });
        throw error;
      }
      if (inserted.numAffectedRows === 0n) await this.refuseAppend(this.db, key, session.lastUpdateTime);
    } else
      await this.db.transaction().execute(async (trx) => {
        const updated = await touch.execute(trx);
        if (updated.numAffectedRows === 0n) await this.refuseAppend(trx, key, session.lastUpdateTime);
        this.checkSignal(options?.signal);
        const inserted = await sql`
        insert into ${this.events} ${columns}
        values (${values})
        on conflict do nothing`.execute(trx);
        if (inserted.numAffectedRows === 0n)
          throw new AlreadyExistsError(`Event ${e.id} is already stored in session ${sessionId}`);
        await this.upsertSharedState(trx, appName, userId, split, now, { createEmpty: false });
      });
    this.logs?.appended(
      { appName, userId, sessionId },
      usText(microsFromMs(session.lastUpdateTime)),
      usText(microsFromMs(updateTime)),
      persisted,
    );
    applyEventToSession(session, persisted, updateTime);
    return event;
  }

  /** Why an append's check matched no row: the session is gone, or this copy is stale. */
  private async refuseAppend(executor: AnyKysely, key: SessionKey, copyTime: number): Promise<never> {
    const stored = await this.selectSession(executor, key);
    if (!stored)
      throw new NotFoundError(
        `Session ${key.sessionId} not found for app ${key.appName}, user ${key.userId}`,
      );
    throw new StaleSessionError(
      `Session ${key.sessionId} was modified after this copy was read (copy ${copyTime}, stored ${msFromMicros(stored.updated_us)}); reload it`,
    );
  }

  override async close(): Promise<void> {
    await this.runLocks?.close();
    await super.close();
  }

  /**
   * Merges app- and user-scoped deltas into their rows. The database merges (no read-modify-write),
   * always app before user so that concurrent transactions lock rows in the same order. Empty deltas
   * are skipped unless `createEmpty` (a new session creates the rows, so empty scopes read as {}).
   */
  private async upsertSharedState(
    executor: AnyKysely,
    appName: string,
    userId: string,
    split: { app: Record<string, unknown>; user: Record<string, unknown> },
    now: RawBuilder<unknown>,
    { createEmpty }: { createEmpty: boolean },
  ): Promise<void> {
    if (createEmpty || hasKeys(split.app))
      await this.upsertState(executor, this.appStates, sql`app_name`, [appName], split.app, now);
    if (createEmpty || hasKeys(split.user))
      await this.upsertState(
        executor,
        this.userStates,
        sql`app_name, user_id`,
        [appName, userId],
        split.user,
        now,
      );
  }

  private async upsertState(
    executor: AnyKysely,
    table: RawBuilder<unknown>,
    keyColumns: RawBuilder<unknown>,
    keys: string[],
    delta: Record<string, unknown>,
    now: RawBuilder<unknown>,
  ): Promise<void> {
    const values = sql.join(keys.map((k) => sql`${k}`));
    const onConflict = hasKeys(delta)
      ? sql`do update set state = ${this.f.mergeObject(sql`${table}.state`, delta)}, updated_at = excluded.updated_at`
      : sql`do nothing`;
    await sql`insert into ${table} (${keyColumns}, state, updated_at)
      values (${values}, ${this.f.json(delta)}, ${now})
      on conflict (${keyColumns}) ${onConflict}`.execute(executor);
  }

  private sessionSelect(): RawBuilder<unknown> {
    const f = this.f;
    return sql`select s.app_name, s.user_id, s.id, ${f.jsonText(sql`s.state`)} as state,
        ${f.micros(sql`s.created_at`)} as created_us, ${f.micros(sql`s.updated_at`)} as updated_us,
        ${f.jsonText(sql`a.state`)} as app_state, ${f.jsonText(sql`u.state`)} as user_state,
        ${f.jsonText(sql`s.initial_state`)} as initial_state, ${f.jsonText(sql`s.forked_from`)} as forked_from
      from ${this.sessions} as s
      left join ${this.appStates} as a on a.app_name = s.app_name
      left join ${this.userStates} as u on u.app_name = s.app_name and u.user_id = s.user_id`;
  }

  private async selectSession(executor: AnyKysely, key: SessionKey): Promise<SessionRow | undefined> {
    const { rows } = await sql<SessionRow>`${this.sessionSelect()}
      where s.app_name = ${key.appName} and s.user_id = ${key.userId} and s.id = ${key.sessionId}`.execute(
      executor,
    );
    return rows[0];
  }

  private async selectEvents(params: GetSessionParams): Promise<Event[]> {
    const recent =
      params.numRecentEvents === undefined ? undefined : Math.max(0, Math.floor(params.numRecentEvents));
    if (recent === 0) return [];
    const f = this.f;
    const conditions = [
      sql`app_name = ${params.appName} and user_id = ${params.userId} and session_id = ${params.sessionId}`,
    ];
    // Strictly after `after` ms: stored µs T > after·1000 ⇔ T > floor(after·1000).
    if (params.after !== undefined)
      conditions.push(sql`"timestamp" > ${f.time(Math.floor(params.after * 1000))}`);
    const { rows } = await sql<EventRow>`
      select ${this.eventColumns()}
      from ${this.events}
      where ${sql.join(conditions, sql` and `)}
      ${recent === undefined ? sql`order by seq` : sql`order by seq desc limit ${recent}`}`.execute(this.db);
    const events = rows.map(eventFromRow);
    return recent === undefined ? events : events.reverse();
  }

  /** Events of a session after a given `seq`, in order, with their `seq`. */
  private async selectEventRows(
    params: SessionKey & { afterSeq: number },
  ): Promise<(EventRow & { seq: number | string })[]> {
    const { rows } = await sql<EventRow & { seq: number | string }>`
      select seq, ${this.eventColumns()}
      from ${this.events}
      where app_name = ${params.appName} and user_id = ${params.userId} and session_id = ${params.sessionId}
        and seq > ${params.afterSeq}
      order by seq`.execute(this.db);
    return rows;
  }

  private eventColumns(): RawBuilder<unknown> {
    const f = this.f;
    return sql`id, invocation_id, author, branch, ${f.micros(sql`"timestamp"`)} as timestamp_us,
        ${f.jsonText(sql`content`)} as content, ${f.jsonText(sql`actions`)} as actions,
        partial, turn_complete, interrupted, finish_reason, error_code, error_message,
        ${f.jsonText(sql`custom_metadata`)} as custom_metadata, ${f.jsonText(sql`usage_metadata`)} as usage_metadata,
        ${f.jsonText(sql`citation_metadata`)} as citation_metadata,
        ${f.jsonText(sql`grounding_metadata`)} as grounding_metadata,
        ${f.textArrayJson(sql`long_running_tool_ids`)} as long_running_tool_ids,
        ${f.jsonText(sql`output`)} as output, ${f.jsonText(sql`node_info`)} as node_info,
        ${f.jsonText(sql`response_fields`)} as response_fields`;
  }

  private toSession(row: SessionRow, events: Event[]): Session {
    return {
      id: row.id,
      appName: row.app_name,
      userId: row.user_id,
      state: mergeState(
        parseState(row.app_state, `app state of ${row.app_name}`),
        parseState(row.user_state, `user state of ${row.user_id}`),
        parseState(row.state, `state of session ${row.id}`),
      ),
      events,
      lastUpdateTime: msFromMicros(row.updated_us),
      ...(row.initial_state === null
        ? {}
        : { initialState: parseState(row.initial_state, `initial state of session ${row.id}`) }),
      ...(row.forked_from === null ? {} : { forkedFrom: parseForkOrigin(row.forked_from, row.id) }),
    };
  }
}

function parseForkOrigin(text: string, sessionId: string): ForkOrigin {
  const value = parseState(text, `forked_from of session ${sessionId}`);
  if (typeof value.sessionId !== 'string')
    throw new ValidationError(`Invalid forked_from of session ${sessionId}: no sessionId`);
  return {
    sessionId: value.sessionId,
    ...(typeof value.eventId === 'string' ? { eventId: value.eventId } : {}),
  };
}

function hasKeys(record: Record<string, unknown>): boolean {
  for (const _ in record) return true;
  return false;
}

/** The fields of `RESPONSE_FIELDS` an event has, or undefined when it has none (most events). */
function responseFieldsOf(event: Event): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const key of RESPONSE_FIELDS) {
    const value = event[key];
    if (value === undefined) continue;
    out ??= {};
    out[key] = value;
  }
  return out;
}

function optionalJson(f: SqlFlavor, value: unknown, what: string): RawBuilder<unknown> {
  return value === undefined ? sql`null` : f.json(value, what);
}

/** A stored time in µs as a canonical string, whether the driver gave text or a number. */
function usText(value: number | string): string {
  return String(Math.round(Number(value)));
}
