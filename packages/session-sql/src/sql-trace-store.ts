import {
  EVENT_ID_ATTRIBUTE,
  type StoredSpan,
  spanSessionId,
  type TraceListResult,
  type TraceQuery,
  type TraceRetention,
  type TraceStore,
  type TraceSummary,
  tryParseJson,
  ValidationError,
} from '@adk/core';
import { type RawBuilder, sql } from 'kysely';
import { tablesFor } from './schema/tables.js';
import { traceTablesFor } from './schema/trace-migrations.js';
import type { AnyKysely } from './sql-session-service.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

export interface SqlTraceStoreOptions extends SqlStoreOptions {
  /** Age and count limits applied by `prune()` (the server prunes periodically). */
  retention?: TraceRetention;
}

interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  start_us: number | string;
  end_us: number | string;
  status: string;
  status_message: string | null;
  attributes: string;
}

interface TraceRow {
  trace_id: string;
  name: string;
  app_name: string | null;
  user_id: string | null;
  session_id: string | null;
  invocation_id: string | null;
  start_us: number | string;
  end_us: number | string;
  duration_us: number | string;
  status: string;
  span_count: number | string;
  error_count: number | string;
  input_tokens: number | string;
  output_tokens: number | string;
  cost_usd: number | string | null;
}

const DEFAULT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
const DEFAULT_MAX_TRACES = 100_000;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;
/** Rows per insert statement (11 parameters each stays far below every driver's limit). */
const ROWS_PER_INSERT = 200;
/** Spans (and as many summaries) per statement on Postgres, where a batch travels as one JSON text. */
const ROWS_PER_JSON_STATEMENT = 5000;
/** Postgres' SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = '23505';

const micros = (nanos: number) => Math.round(nanos / 1000);
const nanos = (value: number | string) => Number(value) * 1000;

/** Whether a string anywhere in `value` holds a NUL character (a scan, no serialization). */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasNul);
  for (const key in value) if (hasNul((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** A `JSON.stringify` replacer that drops NUL characters, which Postgres jsonb refuses, from strings. */
const dropNul = (_key: string, v: unknown): unknown =>
  typeof v === 'string' && v.includes('\u0000') ? v.replaceAll('\u0000', '') : v;

/** Drops NUL characters from every string of a value. */
function withoutNul(value: Record<string, unknown>): Record<string, unknown> {
  if (!hasNul(value)) return value;
  return JSON.parse(JSON.stringify(value, dropNul)) as Record<string, unknown>;
}

/**
 * A batch of rows as one JSON array text for `jsonb_to_recordset`, NUL characters dropped from
 * every string (jsonb refuses them). `JSON.stringify` writes a NUL as the escape `\u0000`, so a text
 * without that sequence needs no second pass.
 */
function jsonRows(rows: readonly object[], what: string): string {
  let text: string;
  try {
    text = JSON.stringify(rows);
  } catch (error) {
    throw new ValidationError(`${what} are not JSON-serializable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return text.includes('\\u0000') ? JSON.stringify(rows, dropNul) : text;
}

/** The last of each key wins: one statement may not upsert a row twice. */
function lastByKey<T>(items: readonly T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) byKey.set(key(item), item);
  return byKey.size === items.length ? [...items] : [...byKey.values()];
}

/**
 * The spans of a batch, the last of each (trace, span) id pair kept. Span ids are random and 64 bits
 * long, so a batch is first checked by span id alone (no key text built per span); only a batch in
 * which a span id repeats is sorted out by both ids.
 */
function uniqueSpans(spans: readonly StoredSpan[]): readonly StoredSpan[] {
  const seen = new Set<string>();
  for (const span of spans) {
    const size = seen.size;
    if (seen.add(span.span_id).size === size) return lastByKey(spans, (s) => `${s.trace_id}/${s.span_id}`);
  }
  return spans;
}

/** The session of each trace whose summary a batch writes, by trace id. */
function summarySessions(traces: readonly TraceSummary[]): Map<string, string | null> {
  const sessions = new Map<string, string | null>();
  for (const t of traces) sessions.set(t.trace_id, t.session_id);
  return sessions;
}

/**
 * A span as its row of the spans table (`attributes` as given). A span written with its trace's
 * summary, in the summary's session, is stored without a session: the session view finds it
 * through the summary, and the spans' session index (partial) takes no entry for it.
 */
function spanRow(s: StoredSpan, summaries: ReadonlyMap<string, string | null>) {
  const eventId = s.attributes[EVENT_ID_ATTRIBUTE];
  const session = spanSessionId(s) ?? null;
  return {
    trace_id: s.trace_id,
    span_id: s.span_id,
    parent_span_id: s.parent_span_id,
    name: s.name,
    session_id: session !== null && summaries.get(s.trace_id) === session ? null : session,
    event_id: typeof eventId === 'string' ? eventId : null,
    start_us: micros(s.start_time),
    end_us: micros(s.end_time),
    status: s.status ?? 'unset',
    status_message: s.status_message ?? null,
    attributes: s.attributes,
  };
}

/** A trace summary as its row of the traces table. */
function traceRow(t: TraceSummary) {
  return {
    trace_id: t.trace_id,
    name: t.name,
    app_name: t.app_name,
    user_id: t.user_id,
    session_id: t.session_id,
    invocation_id: t.invocation_id,
    start_us: micros(t.start_time),
    end_us: micros(t.end_time),
    duration_us: Math.round(t.duration_ms * 1000),
    status: t.status,
    span_count: t.span_count,
    error_count: t.error_count,
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    cost_usd: t.cost_usd ?? 0,
  };
}

/** The columns of a table's rows, in order, with the types `jsonb_to_recordset` reads them as. */
function columns(list: readonly (readonly [string, string])[]) {
  const names = list.map(([name]) => name);
  return {
    names,
    /** `(a, b, …)`: the insert's column list. */
    list: sql.raw(`(${names.join(', ')})`),
    /** `(a text, b bigint, …)`: the record type of a JSON row set. */
    typed: sql.raw(`(${list.map(([name, type]) => `${name} ${type}`).join(', ')})`),
  };
}

const SPAN_COLUMNS = columns([
  ['trace_id', 'text'],
  ['span_id', 'text'],
  ['parent_span_id', 'text'],
  ['name', 'text'],
  ['session_id', 'text'],
  ['event_id', 'text'],
  ['start_us', 'bigint'],
  ['end_us', 'bigint'],
  ['status', 'text'],
  ['status_message', 'text'],
  ['attributes', 'jsonb'],
]);

const TRACE_COLUMNS = columns([
  ['trace_id', 'text'],
  ['name', 'text'],
  ['app_name', 'text'],
  ['user_id', 'text'],
  ['session_id', 'text'],
  ['invocation_id', 'text'],
  ['start_us', 'bigint'],
  ['end_us', 'bigint'],
  ['duration_us', 'bigint'],
  ['status', 'text'],
  ['span_count', 'integer'],
  ['error_count', 'integer'],
  ['input_tokens', 'bigint'],
  ['output_tokens', 'bigint'],
  ['cost_usd', 'double precision'],
]);

/** What a span written again (its event link or payload came later) replaces. */
const SPAN_UPSERT = sql`on conflict (trace_id, span_id) do update set attributes = excluded.attributes,
  event_id = excluded.event_id, status = excluded.status, status_message = excluded.status_message,
  end_us = excluded.end_us`;

/** What a trace summary written again (more of its spans ended) replaces. */
const TRACE_UPSERT = sql`on conflict (trace_id) do update set end_us = excluded.end_us, duration_us = excluded.duration_us,
  status = excluded.status, span_count = excluded.span_count, error_count = excluded.error_count,
  input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
  cost_usd = excluded.cost_usd`;

function spanStatus(value: string): StoredSpan['status'] {
  return value === 'ok' || value === 'error' ? value : 'unset';
}

function toSpan(row: SpanRow): StoredSpan {
  const attributes = tryParseJson(row.attributes);
  return {
    name: row.name,
    span_id: row.span_id,
    trace_id: row.trace_id,
    parent_span_id: row.parent_span_id,
    start_time: nanos(row.start_us),
    end_time: nanos(row.end_us),
    attributes:
      attributes && typeof attributes === 'object' && !Array.isArray(attributes)
        ? (attributes as Record<string, unknown>)
        : {},
    status: spanStatus(row.status),
    ...(row.status_message ? { status_message: row.status_message } : {}),
  };
}

function toSummary(row: TraceRow): TraceSummary {
  return {
    trace_id: row.trace_id,
    name: row.name,
    app_name: row.app_name,
    user_id: row.user_id,
    session_id: row.session_id,
    invocation_id: row.invocation_id,
    start_time: nanos(row.start_us),
    end_time: nanos(row.end_us),
    duration_ms: Number(row.duration_us) / 1000,
    status: row.status === 'error' ? 'error' : 'ok',
    span_count: Number(row.span_count),
    error_count: Number(row.error_count),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cost_usd: Number(row.cost_usd ?? 0),
  };
}

function encodeCursor(row: TraceRow): string {
  return Buffer.from(`${row.start_us}:${row.trace_id}`).toString('base64url');
}

function decodeCursor(cursor: string): { startUs: number; traceId: string } {
  const text = Buffer.from(cursor, 'base64url').toString();
  const colon = text.indexOf(':');
  const startUs = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(startUs)) throw new ValidationError('Invalid trace cursor');
  return { startUs, traceId: text.slice(colon + 1) };
}

/**
 * Finished spans and trace summaries in the sessions' database (tables `<prefix>spans` and
 * `<prefix>traces`), shared by every process on it. A span written again (a payload or event link
 * added after its write) replaces the earlier row: writes are upserts by trace and span id, except
 * on Postgres for a batch of spans not written before, which is a plain insert (and upserts should
 * one of its rows exist after all).
 */
export class SqlTraceStore extends SqlStore implements TraceStore {
  /**
   * The span records this store has written (Postgres): a batch with one of them again (its event
   * link or payload came after its write) is written as upserts.
   */
  private readonly written = new WeakSet<StoredSpan>();
  private readonly spans;
  private readonly traces;
  private readonly maxAgeMs: number;
  private readonly maxTraces: number;

  constructor(options: SqlTraceStoreOptions) {
    super(options);
    const t = traceTablesFor(tablesFor(options.tablePrefix));
    this.spans = sql.table(t.spans);
    this.traces = sql.table(t.traces);
    this.maxAgeMs = options.retention?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.maxTraces = options.retention?.maxTraces ?? DEFAULT_MAX_TRACES;
  }

  /**
   * One batch: its spans and summaries are committed together, so that a span stored without its
   * own session (found through its summary's) is never left without that summary by a failed or
   * interrupted write. Postgres sends a batch as one statement (sent a second time, as upserts, when
   * a plain insert meets an existing row); SQLite (and a Postgres batch over one statement's rows) in
   * one transaction.
   */
  async writeSpans(spans: readonly StoredSpan[], traces: readonly TraceSummary[]): Promise<void> {
    if (spans.length === 0 && traces.length === 0) return;
    await this.ready();
    if (this.family === 'postgres') {
      const batch = uniqueSpans(spans);
      const uniqueTraces = lastByKey(traces, (t) => t.trace_id);
      const write = (upsert: boolean) =>
        Math.max(batch.length, uniqueTraces.length) <= ROWS_PER_JSON_STATEMENT
          ? this.writeSpansAsJson(this.db, batch, uniqueTraces, upsert)
          : this.db.transaction().execute((trx) => this.writeSpansAsJson(trx, batch, uniqueTraces, upsert));
      // A batch of spans this store has not written before is inserted without conflict handling (a
      // quarter less of the database's work per batch). Should a row exist after all (a retried write
      // that had committed, or a summary sent again), the batch is written again as upserts.
      const again = batch.some((s) => this.written.has(s));
      try {
        await write(again);
      } catch (error) {
        if (again || (error as { code?: unknown } | undefined)?.code !== UNIQUE_VIOLATION) throw error;
        await write(true);
      }
      for (const span of batch) this.written.add(span);
      return;
    }
    await this.db.transaction().execute((trx) => this.writeSpansAsValues(trx, spans, traces));
  }

  /** SQLite: multi-row VALUES lists, summaries first. */
  private async writeSpansAsValues(
    db: AnyKysely,
    spans: readonly StoredSpan[],
    traces: readonly TraceSummary[],
  ): Promise<void> {
    const f = this.f;
    for (let i = 0; i < traces.length; i += ROWS_PER_INSERT) {
      const rows = traces.slice(i, i + ROWS_PER_INSERT).map((t) => {
        const row: Record<string, unknown> = traceRow(t);
        return sql`(${sql.join(TRACE_COLUMNS.names.map((name) => sql`${row[name]}`))})`;
      });
      await sql`insert into ${this.traces} ${TRACE_COLUMNS.list}
        values ${sql.join(rows)} ${TRACE_UPSERT}`.execute(db);
    }
    const summaries = summarySessions(traces);
    for (let i = 0; i < spans.length; i += ROWS_PER_INSERT) {
      const rows = spans.slice(i, i + ROWS_PER_INSERT).map((s) => {
        const row: Record<string, unknown> = spanRow(s, summaries);
        return sql`(${sql.join(
          SPAN_COLUMNS.names.map((name) =>
            name === 'attributes' ? f.json(withoutNul(s.attributes), 'span attributes') : sql`${row[name]}`,
          ),
        )})`;
      });
      await sql`insert into ${this.spans} ${SPAN_COLUMNS.list}
        values ${sql.join(rows)} ${SPAN_UPSERT}`.execute(db);
    }
  }

  /**
   * Postgres: each statement's spans and summaries travel as two JSON texts (`jsonb_to_recordset`),
   * instead of multi-row VALUES lists of 11 and 15 parameters a row: the client builds no query tree
   * per row (half the client CPU of a batch) and the server binds two values, not thousands.
   */
  private async writeSpansAsJson(
    db: AnyKysely,
    spans: readonly StoredSpan[],
    traces: readonly TraceSummary[],
    upsert: boolean,
  ): Promise<void> {
    const summaries = summarySessions(traces);
    for (let i = 0; i < Math.max(spans.length, traces.length); i += ROWS_PER_JSON_STATEMENT) {
      const spanRows = spans.slice(i, i + ROWS_PER_JSON_STATEMENT).map((s) => spanRow(s, summaries));
      const traceRows = traces.slice(i, i + ROWS_PER_JSON_STATEMENT).map(traceRow);
      await sql`with written_spans as (
          insert into ${this.spans} ${SPAN_COLUMNS.list}
          select * from jsonb_to_recordset(${jsonRows(spanRows, 'span attributes')}::jsonb) as x${SPAN_COLUMNS.typed}
          ${upsert ? SPAN_UPSERT : sql``})
        insert into ${this.traces} ${TRACE_COLUMNS.list}
        select * from jsonb_to_recordset(${jsonRows(traceRows, 'trace summaries')}::jsonb) as y${TRACE_COLUMNS.typed}
        ${upsert ? TRACE_UPSERT : sql``}`.execute(db);
    }
  }

  async listTraces(query: TraceQuery = {}): Promise<TraceListResult> {
    await this.ready();
    const limit = Math.min(Math.max(1, Math.floor(query.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
    const where: RawBuilder<unknown>[] = [];
    if (query.appName !== undefined) where.push(sql`t.app_name = ${query.appName}`);
    if (query.userId !== undefined) where.push(sql`t.user_id = ${query.userId}`);
    if (query.sessionId !== undefined) where.push(sql`t.session_id = ${query.sessionId}`);
    if (query.invocationId !== undefined) where.push(sql`t.invocation_id = ${query.invocationId}`);
    if (query.from !== undefined) where.push(sql`t.start_us >= ${Math.round(query.from * 1000)}`);
    if (query.to !== undefined) where.push(sql`t.start_us < ${Math.round(query.to * 1000)}`);
    if (query.status !== undefined) where.push(sql`t.status = ${query.status}`);
    if (query.minDurationMs !== undefined)
      where.push(sql`t.duration_us >= ${Math.round(query.minDurationMs * 1000)}`);
    if (query.maxDurationMs !== undefined)
      where.push(sql`t.duration_us <= ${Math.round(query.maxDurationMs * 1000)}`);
    if (query.attribute) {
      const { key, value } = query.attribute;
      const read =
        this.family === 'postgres'
          ? sql`s.attributes ->> ${key}`
          : sql`cast(json_extract(s.attributes, ${`$.${JSON.stringify(key)}`}) as text)`;
      where.push(
        sql`exists (select 1 from ${this.spans} s where s.trace_id = t.trace_id and ${read} = ${value})`,
      );
    }
    if (query.cursor !== undefined) {
      const { startUs, traceId } = decodeCursor(query.cursor);
      where.push(sql`(t.start_us < ${startUs} or (t.start_us = ${startUs} and t.trace_id < ${traceId}))`);
    }
    const filter = where.length > 0 ? sql`where ${sql.join(where, sql` and `)}` : sql``;
    const { rows } = await sql<TraceRow>`select * from ${this.traces} t ${filter}
      order by t.start_us desc, t.trace_id desc limit ${limit + 1}`.execute(this.db);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      traces: page.map(toSummary),
      ...(rows.length > limit && last ? { nextCursor: encodeCursor(last) } : {}),
    };
  }

  private selectSpans(filter: RawBuilder<unknown>): Promise<StoredSpan[]> {
    return this.ready()
      .then(() =>
        sql<SpanRow>`select s.trace_id, s.span_id, s.parent_span_id, s.name, s.start_us, s.end_us, s.status,
            s.status_message, ${this.f.jsonText(sql.ref('s.attributes'))} as attributes
          from ${this.spans} s where ${filter} order by s.start_us, s.span_id`.execute(this.db),
      )
      .then(({ rows }) => rows.map(toSpan));
  }

  traceSpans(traceId: string): Promise<StoredSpan[]> {
    return this.selectSpans(sql`s.trace_id = ${traceId}`);
  }

  /** Through the summaries' session, and the session of spans written before their summary. */
  sessionSpans(sessionId: string): Promise<StoredSpan[]> {
    return this.selectSpans(
      sql`s.trace_id in (select t.trace_id from ${this.traces} t where t.session_id = ${sessionId}
        union select x.trace_id from ${this.spans} x where x.session_id = ${sessionId})`,
    );
  }

  async eventSpan(eventId: string): Promise<StoredSpan | undefined> {
    const [span] = await this.selectSpans(sql`s.event_id = ${eventId}`);
    return span;
  }

  async prune(now = Date.now()): Promise<number> {
    await this.ready();
    const cutoffUs = Math.round((now - this.maxAgeMs) * 1000);
    // The start of the oldest trace kept by the count limit.
    const { rows } = await sql<{ start_us: number | string }>`select start_us from ${this.traces}
      order by start_us desc, trace_id desc limit 1 offset ${this.maxTraces - 1}`.execute(this.db);
    const boundary = rows[0] ? Math.max(cutoffUs, Number(rows[0].start_us)) : cutoffUs;
    const old = sql`select trace_id from ${this.traces} where start_us < ${boundary}`;
    await sql`delete from ${this.spans} where trace_id in (${old})`.execute(this.db);
    // Spans whose trace never got a summary (its root never ended) go by age: a scan of the spans
    // (they have no start index, which every span write would pay for), once per prune.
    await sql`delete from ${this.spans} where start_us < ${cutoffUs}`.execute(this.db);
    const result = await sql`delete from ${this.traces} where start_us < ${boundary}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
