import {
  type ClaimMemoryJobsParams,
  type EnqueueMemoryJob,
  isPlainObject,
  type MemoryJob,
  type MemoryJobQueue,
  type MemoryJobStats,
  type MemoryJobStatus,
  newId,
  parseJson,
} from '@adk/core';
import { sql } from 'kysely';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

interface JobRow {
  id: string;
  kind: string;
  app_name: string;
  user_id: string;
  session_id: string | null;
  event_ids: string;
  payload: string | null;
  status: string;
  attempts: number | string;
  run_after: number | string;
  created_at: number | string;
  last_error: string | null;
}

/**
 * The memory job outbox in the session database (`<prefix>memory_jobs`, migration
 * 0008_memory_contract). Enqueue is idempotent by (kind, event id) through a key table; a claim
 * is a lease (`claimed_by`, `lease_until`) taken on Postgres with `FOR UPDATE SKIP LOCKED`, so
 * workers on several instances share the queue and a killed worker's jobs are taken over once
 * their lease ends. `complete`/`fail` only act for the claim's holder.
 */
export class SqlMemoryJobQueue extends SqlStore implements MemoryJobQueue {
  readonly turnKinds = new Set<string>(['index']);
  private readonly jobs;
  private readonly keys;

  constructor(options: SqlStoreOptions) {
    super(options);
    this.jobs = sql.table(`${this.prefix}memory_jobs`);
    this.keys = sql.table(`${this.prefix}memory_jobs_events`);
  }

  private columns() {
    return sql`id, kind, app_name, user_id, session_id, ${this.f.jsonText(sql`event_ids`)} as event_ids,
      ${this.f.jsonText(sql`payload`)} as payload, status, attempts, run_after, created_at, last_error`;
  }

  async enqueue(jobs: readonly EnqueueMemoryJob[], options?: { signal?: AbortSignal }): Promise<MemoryJob[]> {
    options?.signal?.throwIfAborted();
    await this.ready();
    const now = Date.now();
    const f = this.f;
    return this.db.transaction().execute(async (trx) => {
      const created: MemoryJob[] = [];
      for (const job of jobs) {
        const id = newId();
        let eventIds = [...new Set(job.eventIds)];
        if (eventIds.length > 0) {
          const { rows } = await sql<{ event_id: string }>`insert into ${this.keys} (kind, event_id, job_id)
            values ${sql.join(eventIds.map((e) => sql`(${job.kind}, ${e}, ${id})`))}
            on conflict (kind, event_id) do nothing returning event_id`.execute(trx);
          const fresh = new Set(rows.map((r) => r.event_id));
          eventIds = eventIds.filter((e) => fresh.has(e));
          if (eventIds.length === 0) continue;
        }
        await sql`insert into ${this.jobs} (id, kind, app_name, user_id, session_id, event_ids, payload, status,
            attempts, run_after, created_at)
          values (${id}, ${job.kind}, ${job.appName}, ${job.userId}, ${job.sessionId ?? null}, ${f.json(eventIds)},
            ${job.payload ? f.json(job.payload) : null}, 'pending', 0, ${now}, ${now})`.execute(trx);
        created.push({
          id,
          kind: job.kind,
          appName: job.appName,
          userId: job.userId,
          ...(job.sessionId !== undefined ? { sessionId: job.sessionId } : {}),
          eventIds,
          attempts: 0,
          status: 'pending',
          runAfter: now,
          createdAt: now,
          ...(job.payload ? { payload: structuredClone(job.payload) } : {}),
        });
      }
      return created;
    });
  }

  async claim(params: ClaimMemoryJobsParams): Promise<MemoryJob[]> {
    await this.ready();
    const now = params.now ?? Date.now();
    const kinds =
      params.kinds === undefined ? sql`` : sql`and kind in (${sql.join(params.kinds.map((k) => sql`${k}`))})`;
    if (params.kinds?.length === 0) return [];
    const ready = sql`((status = 'pending' and run_after <= ${now}) or (status = 'running' and lease_until <= ${now})) ${kinds}`;
    // Postgres: concurrent claimers skip each other's rows; SQLite has one writer.
    const lock = this.family === 'postgres' ? sql`for update skip locked` : sql``;
    const { rows } = await sql<JobRow>`update ${this.jobs}
      set status = 'running', attempts = attempts + 1, claimed_by = ${params.workerId},
        lease_until = ${now + params.leaseMs}
      where id in (
        select id from ${this.jobs}
        where ${ready} and kind = (select kind from ${this.jobs} where ${ready} order by created_at, id limit 1)
        order by created_at, id
        limit ${Math.max(1, Math.floor(params.limit))}
        ${lock})
      returning ${this.columns()}`.execute(this.db);
    return rows.map(toJob).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async complete(ids: readonly string[], workerId: string): Promise<void> {
    if (ids.length === 0) return;
    await this.ready();
    await sql`update ${this.jobs} set status = 'done', claimed_by = null, lease_until = null
      where id in (${sql.join(ids.map((id) => sql`${id}`))}) and claimed_by = ${workerId} and status = 'running'`.execute(
      this.db,
    );
  }

  async fail(id: string, workerId: string, error: string, retryAt: number | undefined): Promise<void> {
    await this.ready();
    const next =
      retryAt === undefined ? sql`status = 'failed'` : sql`status = 'pending', run_after = ${retryAt}`;
    await sql`update ${this.jobs} set ${next}, last_error = ${error}, claimed_by = null, lease_until = null
      where id = ${id} and claimed_by = ${workerId} and status = 'running'`.execute(this.db);
  }

  async stats(params?: { appName?: string; userId?: string }): Promise<MemoryJobStats> {
    await this.ready();
    const where = [sql`1 = 1`];
    if (params?.appName !== undefined) where.push(sql`app_name = ${params.appName}`);
    if (params?.userId !== undefined) where.push(sql`user_id = ${params.userId}`);
    const { rows } = await sql<{ status: string; n: number | string; next: number | string | null }>`
      select status, count(*) as n,
        min(case when status = 'pending' then run_after when status = 'running' then lease_until end) as next
      from ${this.jobs} where ${sql.join(where, sql` and `)} group by status`.execute(this.db);
    const stats: MemoryJobStats = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const r of rows) {
      if (r.status in stats) stats[r.status as MemoryJobStatus] = Number(r.n);
      if (r.next != null) stats.nextRunAt = Math.min(stats.nextRunAt ?? Number(r.next), Number(r.next));
    }
    return stats;
  }

  async list(params?: {
    appName?: string;
    userId?: string;
    status?: MemoryJobStatus;
    limit?: number;
  }): Promise<MemoryJob[]> {
    await this.ready();
    const where = [sql`1 = 1`];
    if (params?.appName !== undefined) where.push(sql`app_name = ${params.appName}`);
    if (params?.userId !== undefined) where.push(sql`user_id = ${params.userId}`);
    if (params?.status !== undefined) where.push(sql`status = ${params.status}`);
    const { rows } = await sql<JobRow>`select ${this.columns()} from ${this.jobs}
      where ${sql.join(where, sql` and `)} order by created_at desc, id desc limit ${params?.limit ?? 100}`.execute(
      this.db,
    );
    return rows.map(toJob);
  }
}

function toJob(row: JobRow): MemoryJob {
  const eventIds = parseJson(row.event_ids, `memory job ${row.id} event ids`);
  const payload = row.payload == null ? undefined : parseJson(row.payload, `memory job ${row.id} payload`);
  return {
    id: row.id,
    kind: row.kind,
    appName: row.app_name,
    userId: row.user_id,
    ...(row.session_id == null ? {} : { sessionId: row.session_id }),
    eventIds: Array.isArray(eventIds) ? eventIds.map(String) : [],
    attempts: Number(row.attempts),
    status: row.status as MemoryJobStatus,
    runAfter: Number(row.run_after),
    createdAt: Number(row.created_at),
    ...(row.last_error == null ? {} : { lastError: row.last_error }),
    ...(isPlainObject(payload) ? { payload } : {}),
  };
}
