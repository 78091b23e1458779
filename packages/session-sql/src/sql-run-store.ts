import {
  type ClaimRunParams,
  type ListRunsParams,
  type ListRunsResult,
  type PollRunsOptions,
  parseJson,
  pollRunsOptions,
  type RunInput,
  type RunKey,
  type RunPatch,
  type RunRecord,
  type RunStatus,
  type RunStore,
  type RunUsage,
  tryParseJson,
  ValidationError,
} from '@adk/core';
import { type RawBuilder, sql } from 'kysely';
import { microsFromMs, msFromMicros } from './rows.js';
import { isSharedServer, lockName } from './run-locks.js';
import { runTableFor } from './schema/run-migrations.js';
import { tablesFor } from './schema/tables.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

interface RunRow {
  app_name: string;
  id: string;
  user_id: string;
  session_id: string;
  invocation_id: string;
  status: string;
  background: boolean | number;
  owner: string | null;
  heartbeat_us: number | string | null;
  cancel_requested: boolean | number | null;
  created_us: number | string;
  started_us: number | string | null;
  ended_us: number | string | null;
  error_code: string | null;
  error_message: string | null;
  input: string;
  usage: string | null;
}

const STATUSES = new Set<RunStatus>(['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled']);
const FINISHED = ['paused', 'succeeded', 'failed', 'cancelled'] as const;
const DEFAULT_PAGE_SIZE = 100;

export interface SqlRunStoreOptions extends SqlStoreOptions {
  /**
   * Whether the processes on this database hold a run's session with a Postgres advisory lock
   * while it runs (`SqlSessionService`'s `runLocks`, on by default on a Postgres server): then a
   * claim takes over a `running` run whose session lock is free — its owner's connection closed —
   * without waiting for its heartbeat to go stale. Default: as `SqlSessionService` decides.
   */
  runLocks?: boolean;
}

/**
 * Run records in the session database (table `<prefix>runs`), shared by every process on it. A
 * cancel request is a flag on the row; the processes that execute runs read it while they run
 * (`Runner`'s run manager asks with `pollRuns`), together with their heartbeat.
 */
export class SqlRunStore extends SqlStore implements RunStore {
  readonly shared = true;
  private readonly table;
  private readonly runLocks: boolean;

  constructor(options: SqlRunStoreOptions) {
    super(options);
    this.table = sql.table(runTableFor(tablesFor(options.tablePrefix)));
    this.runLocks = this.family === 'postgres' && (options.runLocks ?? isSharedServer(options.db));
  }

  async createRun(run: RunRecord): Promise<RunRecord> {
    const f = this.f;
    const time = (ms: number | undefined) => (ms === undefined ? null : f.time(microsFromMs(ms)));
    await this.ready();
    await sql`insert into ${this.table} (app_name, id, user_id, session_id, invocation_id, status, background,
        owner, heartbeat_at, cancel_requested, created_at, started_at, ended_at, error_code, error_message, input,
        usage)
      values (${run.appName}, ${run.id}, ${run.userId}, ${run.sessionId}, ${run.invocationId}, ${run.status},
        ${f.bool(run.background)}, ${run.owner ?? null}, ${time(run.heartbeatAt)}, ${f.bool(run.cancelRequested)},
        ${time(run.createdAt)}, ${time(run.startedAt)}, ${time(run.endedAt)}, ${run.error?.code ?? null},
        ${run.error?.message ?? null}, ${f.json(run.input, 'run input')},
        ${run.usage ? f.json(run.usage, 'run usage') : null})`.execute(this.db);
    return structuredClone(run);
  }

  async getRun(key: RunKey): Promise<RunRecord | undefined> {
    await this.ready();
    const { rows } = await sql<RunRow>`${this.select()}
      where app_name = ${key.appName} and id = ${key.runId}`.execute(this.db);
    return rows[0] && this.toRecord(rows[0]);
  }

  async updateRun(key: RunKey, patch: RunPatch): Promise<RunRecord | undefined> {
    const f = this.f;
    const sets: RawBuilder<unknown>[] = [];
    const time = (ms: number) => f.time(microsFromMs(ms));
    // A finished run keeps its status (and when it ended): a late write never reopens it.
    const open = sql`status not in (${sql.join(FINISHED.map((s) => sql`${s}`))})`;
    if (patch.status !== undefined)
      sets.push(sql`status = case when ${open} then ${patch.status} else status end`);
    if (patch.owner !== undefined) sets.push(sql`owner = ${patch.owner}`);
    if (patch.heartbeatAt !== undefined) sets.push(sql`heartbeat_at = ${time(patch.heartbeatAt)}`);
    if (patch.cancelRequested !== undefined)
      sets.push(sql`cancel_requested = ${f.bool(patch.cancelRequested)}`);
    if (patch.input !== undefined) sets.push(sql`input = ${f.json(patch.input, 'run input')}`);
    if (patch.usage !== undefined) sets.push(sql`usage = ${f.json(patch.usage, 'run usage')}`);
    if (patch.startedAt !== undefined) sets.push(sql`started_at = ${time(patch.startedAt)}`);
    if (patch.endedAt !== undefined)
      sets.push(sql`ended_at = case when ${open} then ${time(patch.endedAt)} else ended_at end`);
    if (patch.error !== undefined) {
      sets.push(sql`error_code = case when ${open} then ${patch.error.code} else error_code end`);
      sets.push(sql`error_message = case when ${open} then ${patch.error.message} else error_message end`);
    }
    await this.ready();
    if (sets.length > 0)
      await sql`update ${this.table} set ${sql.join(sets)}
        where app_name = ${key.appName} and id = ${key.runId}`.execute(this.db);
    return this.getRun(key);
  }

  async listRuns(params: ListRunsParams): Promise<ListRunsResult> {
    const f = this.f;
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new ValidationError(`pageSize must be a positive integer, got ${pageSize}`);
    const conditions: RawBuilder<unknown>[] = [sql`app_name = ${params.appName}`];
    if (params.userId !== undefined) conditions.push(sql`user_id = ${params.userId}`);
    if (params.sessionId !== undefined) conditions.push(sql`session_id = ${params.sessionId}`);
    if (params.status) {
      for (const s of params.status)
        if (!STATUSES.has(s)) throw new ValidationError(`Unknown run status: ${s}`);
      if (params.status.length === 0) return { runs: [] };
      conditions.push(sql`status in (${sql.join(params.status.map((s) => sql`${s}`))})`);
    }
    if (params.pageToken) {
      const cursor = decodeRunCursor(params.pageToken);
      const at = f.time(cursor.createdMicros);
      conditions.push(sql`(created_at < ${at} or (created_at = ${at} and id < ${cursor.id}))`);
    }
    await this.ready();
    const { rows } = await sql<RunRow>`${this.select()}
      where ${sql.join(conditions, sql` and `)}
      order by created_at desc, id desc
      limit ${pageSize + 1}`.execute(this.db);
    const page = rows.slice(0, pageSize).map((row) => this.toRecord(row));
    const last = rows.length > pageSize ? rows[pageSize - 1] : undefined;
    return last
      ? {
          runs: page,
          nextPageToken: encodeRunCursor(Math.round(Number(last.created_us)), last.id),
        }
      : { runs: page };
  }

  async requestCancel(key: RunKey): Promise<RunRecord | undefined> {
    const f = this.f;
    await this.ready();
    const now = f.time(microsFromMs(Date.now()));
    // One statement: a queued run is cancelled at once; a running one is flagged for its owner.
    await sql`update ${this.table} set
        cancel_requested = ${f.bool(true)},
        status = case when status = 'queued' then 'cancelled' else status end,
        ended_at = case when status = 'queued' then ${now} else ended_at end,
        error_code = case when status = 'queued' then 'CANCELLED' else error_code end,
        error_message = case when status = 'queued' then 'The run was cancelled before it started' else error_message end
      where app_name = ${key.appName} and id = ${key.runId}
        and status not in (${sql.join(FINISHED.map((s) => sql`${s}`))})`.execute(this.db);
    return this.getRun(key);
  }

  /**
   * Called by the process that executes `runIds` while they run: records its heartbeat on them
   * (when `heartbeat`) and answers which of them someone asked to cancel.
   */
  async pollRuns(appName: string, runIds: string[], options?: PollRunsOptions | boolean): Promise<string[]> {
    const { heartbeat = false, signal } = pollRunsOptions(options);
    signal?.throwIfAborted();
    if (runIds.length === 0) return [];
    const f = this.f;
    const ids = sql.join(runIds.map((id) => sql`${id}`));
    await this.ready();
    if (heartbeat) {
      await sql`update ${this.table} set heartbeat_at = ${f.time(microsFromMs(Date.now()))}
        where app_name = ${appName} and id in (${ids}) and status in ('queued', 'running')`.execute(this.db);
    }
    const { rows } = await sql<{ id: string }>`select id from ${this.table}
      where app_name = ${appName} and id in (${ids}) and cancel_requested = ${f.bool(true)}`.execute(this.db);
    return rows.map((r) => r.id);
  }

  async claimRun(params: ClaimRunParams): Promise<RunRecord | undefined> {
    const f = this.f;
    const now = f.time(microsFromMs(Date.now()));
    const stale = f.time(microsFromMs(params.staleBefore));
    // Postgres: concurrent claimers skip each other's candidate rows; SQLite has one writer (and
    // its RETURNING takes only bare column names).
    const lock = this.family === 'postgres' ? sql`for update skip locked` : sql``;
    await this.ready();
    const app = params.appName === undefined ? sql`` : sql`app_name = ${params.appName} and`;
    const { rows } = await sql<{ app_name: string; id: string }>`update ${this.table} as r
      set owner = ${params.owner}, heartbeat_at = ${now}
      from (
        select app_name, id from ${this.table} as c
        where ${app} (
          (status = 'queued' and owner is null)
          or (status in ('queued', 'running') and owner <> ${params.owner}
            and coalesce(heartbeat_at, created_at) < ${stale}))
          -- FIFO per session: never a run while an earlier one of its session is unfinished.
          and not exists (select 1 from ${this.table} as e
            where e.app_name = c.app_name and e.user_id = c.user_id and e.session_id = c.session_id
              and e.status in ('queued', 'running')
              and (e.created_at < c.created_at or (e.created_at = c.created_at and e.id < c.id)))
        order by created_at, id
        limit 1
        ${lock}) as picked
      where r.app_name = picked.app_name and r.id = picked.id
      returning ${this.family === 'postgres' ? sql`r.app_name, r.id` : sql`app_name, id`}`.execute(this.db);
    const row = rows[0];
    if (row !== undefined) return this.getRun({ appName: row.app_name, runId: row.id });
    if (params.orphanedBefore === undefined || !this.runLocks) return undefined;
    return this.claimOrphaned(params, params.orphanedBefore);
  }

  /**
   * A `running` run whose owner no longer holds its session's run lock (the lock of a connection
   * that closed is released by Postgres at once): taking the same lock for the claim's transaction
   * succeeds only then. The owner finishes a run's record before it releases the lock, and takes
   * the lock before it marks a run running, so a live owner's run is never taken this way.
   */
  private async claimOrphaned(params: ClaimRunParams, before: number): Promise<RunRecord | undefined> {
    const f = this.f;
    const app = params.appName === undefined ? sql`` : sql`app_name = ${params.appName} and`;
    const { rows: candidates } = await sql<{
      app_name: string;
      id: string;
      user_id: string;
      session_id: string;
      owner: string;
    }>`select app_name, id, user_id, session_id, owner from ${this.table}
      where ${app} status = 'running' and owner is not null and owner <> ${params.owner}
        and coalesce(heartbeat_at, created_at) < ${f.time(microsFromMs(before))}
      order by created_at, id
      limit 10`.execute(this.db);
    for (const c of candidates) {
      const name = lockName(this.prefix, { appName: c.app_name, userId: c.user_id, sessionId: c.session_id });
      const claimed = await this.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ free: boolean }>`
          select pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) as free`.execute(trx);
        if (rows[0]?.free !== true) return false;
        const updated = await sql`update ${this.table}
          set owner = ${params.owner}, heartbeat_at = ${f.time(microsFromMs(Date.now()))}
          where app_name = ${c.app_name} and id = ${c.id} and status = 'running' and owner = ${c.owner}`.execute(
          trx,
        );
        return updated.numAffectedRows === 1n;
      });
      if (claimed) return this.getRun({ appName: c.app_name, runId: c.id });
    }
    return undefined;
  }

  private select(): RawBuilder<unknown> {
    const f = this.f;
    return sql`select app_name, id, user_id, session_id, invocation_id, status, background, owner,
        ${f.micros(sql`heartbeat_at`)} as heartbeat_us, cancel_requested,
        ${f.micros(sql`created_at`)} as created_us, ${f.micros(sql`started_at`)} as started_us,
        ${f.micros(sql`ended_at`)} as ended_us, error_code, error_message, ${f.jsonText(sql`input`)} as input,
        ${f.jsonText(sql`usage`)} as usage
      from ${this.table}`;
  }

  private toRecord(row: RunRow): RunRecord {
    if (!STATUSES.has(row.status as RunStatus))
      throw new ValidationError(`Invalid stored status ${JSON.stringify(row.status)} of run ${row.id}`);
    const record: RunRecord = {
      id: row.id,
      appName: row.app_name,
      userId: row.user_id,
      sessionId: row.session_id,
      invocationId: row.invocation_id,
      status: row.status as RunStatus,
      background: Boolean(row.background),
      createdAt: msFromMicros(row.created_us),
      input: parseJson(row.input, `stored input of run ${row.id}`) as RunInput,
    };
    if (row.owner !== null) record.owner = row.owner;
    if (row.heartbeat_us !== null) record.heartbeatAt = msFromMicros(row.heartbeat_us);
    if (row.cancel_requested) record.cancelRequested = true;
    if (row.started_us !== null) record.startedAt = msFromMicros(row.started_us);
    if (row.ended_us !== null) record.endedAt = msFromMicros(row.ended_us);
    if (row.error_code !== null) record.error = { code: row.error_code, message: row.error_message ?? '' };
    if (row.usage !== null && row.usage !== undefined)
      record.usage = parseJson(row.usage, `stored usage of run ${row.id}`) as RunUsage;
    return record;
  }
}

function encodeRunCursor(createdMicros: number, id: string): string {
  return Buffer.from(JSON.stringify([createdMicros, id])).toString('base64url');
}

function decodeRunCursor(token: string): { createdMicros: number; id: string } {
  const parsed = tryParseJson(Buffer.from(token, 'base64url').toString());
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'number' || typeof parsed[1] !== 'string')
    throw new ValidationError(`Invalid pageToken: ${token}`);
  return { createdMicros: parsed[0], id: parsed[1] };
}
