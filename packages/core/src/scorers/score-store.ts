import { ValidationError } from '../errors/errors.js';
import { newId } from '../utils/ids.js';

/** One scorer's result for one turn. A failed score (the scorer threw or timed out) has no score. */
export interface ScoreRecord {
  id: string;
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  traceId?: string;
  scorerName: string;
  scorerVersion: string;
  status: 'ok' | 'failed';
  score?: number;
  reason?: string;
  /** Why the scorer failed (`code: message`). */
  error?: string;
  /** ms the scorer took. */
  durationMs: number;
  /** ms since the epoch. */
  createdAt: number;
}

export type NewScoreRecord = Omit<ScoreRecord, 'id'> & { id?: string };

export interface ScoreQuery {
  appName: string;
  scorerName?: string;
  sessionId?: string;
  invocationId?: string;
  /** ms, inclusive */
  from?: number;
  /** ms, exclusive */
  to?: number;
  /** Most records, newest first (default 100, at most 1000). */
  limit?: number;
}

export interface ScoreSummaryQuery {
  appName: string;
  scorerName?: string;
  /** ms, inclusive (default: all). */
  from?: number;
  /** ms, exclusive (default: now). */
  to?: number;
  /** Splits the range into windows of this many ms (aligned to the epoch); default one window. */
  bucketMs?: number;
}

/** The aggregate of one scorer over one window; `mean`, `p50`, `min`, `max` over the ok scores. */
export interface ScoreSummary {
  appName: string;
  scorerName: string;
  /** ms, inclusive; 0 when the query had no `from` and no bucket. */
  from: number;
  /** ms, exclusive */
  to: number;
  /** Results in the window, ok and failed. */
  count: number;
  failed: number;
  mean: number | null;
  p50: number | null;
  min: number | null;
  max: number | null;
}

/**
 * Where score results live. `save` is idempotent by (app, scorer, invocation): a second result for
 * the same turn and scorer (a retried job) is dropped and `save` resolves false.
 */
export interface ScoreStore {
  /** Saves a result; false when (app, scorer, invocation) had one already. */
  save(record: NewScoreRecord): Promise<boolean>;
  /** Results matching the query, newest first. */
  list(query: ScoreQuery): Promise<ScoreRecord[]>;
  /** One summary per scorer (and per window when `bucketMs` is set), oldest window first. */
  summarize(query: ScoreSummaryQuery): Promise<ScoreSummary[]>;
  /**
   * Marks an alert key as sent; resolves true only for the first caller (across instances when
   * the store is shared), so a window's alert goes out once.
   */
  claimAlert(key: string): Promise<boolean>;
  /** Releases what the store holds. */
  close?(): Promise<void>;
}

/** Validates a query's numbers (the server turns the error into a 422). */
export function checkScoreQuery(query: {
  from?: number;
  to?: number;
  limit?: number;
  bucketMs?: number;
}): void {
  for (const key of ['from', 'to', 'limit', 'bucketMs'] as const) {
    const v = query[key];
    if (v !== undefined && (!Number.isFinite(v) || v < 0))
      throw new ValidationError(`${key} must be a non-negative number`);
  }
  if (query.from !== undefined && query.to !== undefined && query.from > query.to)
    throw new ValidationError('from must not be after to');
  if (query.bucketMs !== undefined && query.bucketMs < 1000)
    throw new ValidationError('bucketMs must be at least 1000');
}

/** The median of sorted values (the mean of the two middle ones for an even count). */
function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Aggregates records (any order) per scorer and window: what every store's `summarize` returns. */
export function summarizeScores(
  records: readonly Pick<ScoreRecord, 'appName' | 'scorerName' | 'status' | 'score' | 'createdAt'>[],
  query: ScoreSummaryQuery,
  now = Date.now(),
): ScoreSummary[] {
  const groups = new Map<
    string,
    { scorerName: string; from: number; to: number; scores: number[]; count: number; failed: number }
  >();
  const to = query.to ?? now + 1;
  for (const r of records) {
    if (r.appName !== query.appName) continue;
    if (query.scorerName !== undefined && r.scorerName !== query.scorerName) continue;
    if (query.from !== undefined && r.createdAt < query.from) continue;
    if (r.createdAt >= to) continue;
    const start = query.bucketMs
      ? Math.floor(r.createdAt / query.bucketMs) * query.bucketMs
      : (query.from ?? 0);
    const end = query.bucketMs ? start + query.bucketMs : to;
    const key = `${r.scorerName}\u0000${start}`;
    let g = groups.get(key);
    if (!g) {
      g = { scorerName: r.scorerName, from: start, to: end, scores: [], count: 0, failed: 0 };
      groups.set(key, g);
    }
    g.count++;
    if (r.status === 'ok' && r.score !== undefined) g.scores.push(r.score);
    else g.failed++;
  }
  const out: ScoreSummary[] = [];
  for (const g of groups.values()) {
    const sorted = [...g.scores].sort((a, b) => a - b);
    const sum = sorted.reduce((a, b) => a + b, 0);
    out.push({
      appName: query.appName,
      scorerName: g.scorerName,
      from: g.from,
      to: g.to,
      count: g.count,
      failed: g.failed,
      mean: sorted.length ? sum / sorted.length : null,
      p50: median(sorted),
      min: sorted.length ? (sorted[0] as number) : null,
      max: sorted.length ? (sorted.at(-1) as number) : null,
    });
  }
  return out.sort((a, b) => a.from - b.from || a.scorerName.localeCompare(b.scorerName));
}

/** Scores in process memory, for in-memory setups and tests (bounded: the oldest are dropped). */
export class InMemoryScoreStore implements ScoreStore {
  private readonly records: ScoreRecord[] = [];
  private readonly keys = new Set<string>();
  private readonly alerts = new Set<string>();
  private readonly maxRecords: number;

  constructor(options: { maxRecords?: number } = {}) {
    this.maxRecords = options.maxRecords ?? 100_000;
  }

  async save(record: NewScoreRecord): Promise<boolean> {
    const key = `${record.appName}\u0000${record.scorerName}\u0000${record.invocationId}`;
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.records.push({ ...record, id: record.id ?? newId() });
    if (this.records.length > this.maxRecords) {
      const dropped = this.records.shift();
      if (dropped)
        this.keys.delete(`${dropped.appName}\u0000${dropped.scorerName}\u0000${dropped.invocationId}`);
    }
    return true;
  }

  async list(query: ScoreQuery): Promise<ScoreRecord[]> {
    checkScoreQuery(query);
    const limit = Math.min(query.limit ?? 100, 1000);
    const out: ScoreRecord[] = [];
    for (let i = this.records.length - 1; i >= 0 && out.length < limit; i--) {
      const r = this.records[i] as ScoreRecord;
      if (r.appName !== query.appName) continue;
      if (query.scorerName !== undefined && r.scorerName !== query.scorerName) continue;
      if (query.sessionId !== undefined && r.sessionId !== query.sessionId) continue;
      if (query.invocationId !== undefined && r.invocationId !== query.invocationId) continue;
      if (query.from !== undefined && r.createdAt < query.from) continue;
      if (query.to !== undefined && r.createdAt >= query.to) continue;
      out.push({ ...r });
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  async summarize(query: ScoreSummaryQuery): Promise<ScoreSummary[]> {
    checkScoreQuery(query);
    return summarizeScores(this.records, query);
  }

  async claimAlert(key: string): Promise<boolean> {
    if (this.alerts.has(key)) return false;
    this.alerts.add(key);
    return true;
  }
}
