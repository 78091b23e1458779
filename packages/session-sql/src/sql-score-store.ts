import {
  checkScoreQuery,
  type NewScoreRecord,
  newId,
  type ScoreQuery,
  type ScoreRecord,
  type ScoreStore,
  type ScoreSummary,
  type ScoreSummaryQuery,
  summarizeScores,
} from '@adk/core';
import { type RawBuilder, sql } from 'kysely';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

interface ScoreRow {
  id: string;
  app_name: string;
  user_id: string;
  session_id: string;
  invocation_id: string;
  trace_id: string | null;
  scorer_name: string;
  scorer_version: string;
  status: string;
  score: number | string | null;
  reason: string | null;
  error: string | null;
  duration_ms: number | string;
  created_at: number | string;
}

interface AggregateRow {
  scorer_name: string;
  bucket: number | string;
  count: number | string;
  failed: number | string;
  mean: number | string | null;
  p50: number | string | null;
  min: number | string | null;
  max: number | string | null;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function toRecord(row: ScoreRow): ScoreRecord {
  return {
    id: row.id,
    appName: row.app_name,
    userId: row.user_id,
    sessionId: row.session_id,
    invocationId: row.invocation_id,
    ...(row.trace_id ? { traceId: row.trace_id } : {}),
    scorerName: row.scorer_name,
    scorerVersion: row.scorer_version,
    status: row.status === 'ok' ? 'ok' : 'failed',
    ...(row.score !== null ? { score: Number(row.score) } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    durationMs: Number(row.duration_ms),
    createdAt: Number(row.created_at),
  };
}

/**
 * Scorer results in the sessions' database (`<prefix>scores`, migration 0010_scores), shared by
 * every process on it. `save` is an insert that does nothing on a second result for the same
 * (app, scorer, invocation). On Postgres and PGlite `summarize` aggregates in SQL
 * (`percentile_cont` for p50); on SQLite it aggregates the window's rows in process.
 */
export class SqlScoreStore extends SqlStore implements ScoreStore {
  private readonly scores;
  private readonly alerts;

  constructor(options: SqlStoreOptions) {
    super(options);
    this.scores = sql.table(`${this.prefix}scores`);
    this.alerts = sql.table(`${this.prefix}score_alerts`);
  }

  async save(r: NewScoreRecord): Promise<boolean> {
    await this.ready();
    const result =
      await sql`insert into ${this.scores} (id, app_name, user_id, session_id, invocation_id, trace_id,
        scorer_name, scorer_version, status, score, reason, error, duration_ms, created_at)
      values (${r.id ?? newId()}, ${r.appName}, ${r.userId}, ${r.sessionId}, ${r.invocationId}, ${r.traceId ?? null},
        ${r.scorerName}, ${r.scorerVersion}, ${r.status}, ${r.score ?? null}, ${r.reason ?? null}, ${r.error ?? null},
        ${Math.round(r.durationMs)}, ${Math.round(r.createdAt)})
      on conflict (app_name, scorer_name, invocation_id) do nothing`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  private where(query: {
    appName: string;
    scorerName?: string;
    from?: number;
    to?: number;
  }): RawBuilder<unknown> {
    const parts = [sql`app_name = ${query.appName}`];
    if (query.scorerName !== undefined) parts.push(sql`scorer_name = ${query.scorerName}`);
    if (query.from !== undefined) parts.push(sql`created_at >= ${Math.floor(query.from)}`);
    if (query.to !== undefined) parts.push(sql`created_at < ${Math.ceil(query.to)}`);
    return sql.join(parts, sql` and `);
  }

  async list(query: ScoreQuery): Promise<ScoreRecord[]> {
    checkScoreQuery(query);
    await this.ready();
    const parts = [this.where(query)];
    if (query.sessionId !== undefined) parts.push(sql`session_id = ${query.sessionId}`);
    if (query.invocationId !== undefined) parts.push(sql`invocation_id = ${query.invocationId}`);
    const limit = Math.min(Math.floor(query.limit ?? 100), 1000);
    const { rows } = await sql<ScoreRow>`select * from ${this.scores} where ${sql.join(parts, sql` and `)}
      order by created_at desc, id desc limit ${limit}`.execute(this.db);
    return rows.map(toRecord);
  }

  async summarize(query: ScoreSummaryQuery): Promise<ScoreSummary[]> {
    checkScoreQuery(query);
    await this.ready();
    const to = query.to ?? Date.now() + 1;
    const where = this.where({ ...query, to });
    if (this.family !== 'postgres') {
      const { rows } = await sql<
        Pick<ScoreRow, 'scorer_name' | 'status' | 'score' | 'created_at'>
      >`select scorer_name,
          status, score, created_at from ${this.scores} where ${where}`.execute(this.db);
      return summarizeScores(
        rows.map((r) => ({
          appName: query.appName,
          scorerName: r.scorer_name,
          status: r.status === 'ok' ? ('ok' as const) : ('failed' as const),
          ...(r.score !== null ? { score: Number(r.score) } : {}),
          createdAt: Number(r.created_at),
        })),
        { ...query, to },
      );
    }
    const bucket = query.bucketMs ? sql`floor(created_at / ${query.bucketMs}::double precision)` : sql`0`;
    const { rows } = await sql<AggregateRow>`select scorer_name, ${bucket} as bucket, count(*) as count,
        count(*) filter (where status <> 'ok' or score is null) as failed,
        avg(score) filter (where status = 'ok') as mean,
        percentile_cont(0.5) within group (order by score) filter (where status = 'ok') as p50,
        min(score) filter (where status = 'ok') as min, max(score) filter (where status = 'ok') as max
      from ${this.scores} where ${where} group by 1, 2 order by 2, 1`.execute(this.db);
    return rows.map((r) => {
      const start = query.bucketMs ? Number(r.bucket) * query.bucketMs : (query.from ?? 0);
      return {
        appName: query.appName,
        scorerName: r.scorer_name,
        from: start,
        to: query.bucketMs ? start + query.bucketMs : to,
        count: Number(r.count),
        failed: Number(r.failed),
        mean: num(r.mean),
        p50: num(r.p50),
        min: num(r.min),
        max: num(r.max),
      };
    });
  }

  async claimAlert(key: string): Promise<boolean> {
    await this.ready();
    const result = await sql`insert into ${this.alerts} (key, created_at) values (${key}, ${Date.now()})
      on conflict (key) do nothing`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }
}
