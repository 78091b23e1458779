import { evictOldest } from '../utils/bounded.js';
/**
 * Where finished spans are kept for the trace views (`/debug/trace/*`, the dev UI's Traces view):
 * in memory for in-memory setups, or in the sessions' database (`SqlTraceStore` of
 * `@adk/session-sql`), where they outlive the process and every instance sees every instance's
 * spans. Stores are fed by a span processor (the server's), never by the runtime directly.
 */

/** One finished span (ADK's `debug/trace` shape, plus its status). */
export interface StoredSpan {
  name: string;
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  /** Nanoseconds since the epoch. */
  start_time: number;
  end_time: number;
  attributes: Record<string, unknown>;
  /** OpenTelemetry status: `error` when the operation failed. */
  status?: 'unset' | 'ok' | 'error';
  status_message?: string;
}

/** One trace (one invocation) as listed: taken from its root span and the spans under it. */
export interface TraceSummary {
  trace_id: string;
  /** The root span's name (`invocation`). */
  name: string;
  app_name: string | null;
  user_id: string | null;
  session_id: string | null;
  invocation_id: string | null;
  /** Nanoseconds since the epoch. */
  start_time: number;
  end_time: number;
  duration_ms: number;
  /** `error` when any span of the trace failed. */
  status: 'ok' | 'error';
  span_count: number;
  error_count: number;
  input_tokens: number;
  output_tokens: number;
  /** USD, the sum of the model calls' `adk.usage.cost_usd` (0 when no call was priced). */
  cost_usd?: number;
}

/** Filters of a trace listing; all optional, combined with AND. Newest first. */
export interface TraceQuery {
  appName?: string;
  userId?: string;
  sessionId?: string;
  invocationId?: string;
  /** Traces started at or after this time (ms since the epoch). */
  from?: number;
  /** Traces started before this time (ms since the epoch). */
  to?: number;
  status?: 'ok' | 'error';
  minDurationMs?: number;
  maxDurationMs?: number;
  /** Traces with a span whose attribute `key` equals `value` (compared as text). */
  attribute?: { key: string; value: string };
  /** Page size (default 50, at most 1000). */
  limit?: number;
  /** Continue after this cursor (the `nextCursor` of the previous page). */
  cursor?: string;
}

export interface TraceListResult {
  traces: TraceSummary[];
  /** Present when more traces match. */
  nextCursor?: string;
}

/** Retention of a trace store: traces older than `maxAgeMs`, or beyond the newest `maxTraces`, go. */
export interface TraceRetention {
  /** Default 7 days. */
  maxAgeMs?: number;
  /** Default 100 000. */
  maxTraces?: number;
}

/** A store of finished spans that the trace routes read. */
export interface TraceStore {
  /** Stores (or replaces, by trace and span id) finished spans, with the summaries of finished traces. */
  writeSpans(spans: readonly StoredSpan[], traces: readonly TraceSummary[]): Promise<void>;
  listTraces(query?: TraceQuery): Promise<TraceListResult>;
  /** Every span of a trace, oldest first. */
  traceSpans(traceId: string): Promise<StoredSpan[]>;
  /** Every span of the traces that touched the session, oldest first. */
  sessionSpans(sessionId: string): Promise<StoredSpan[]>;
  /** The span that produced an event (linked through `gcp.vertex.agent.event_id`). */
  eventSpan(eventId: string): Promise<StoredSpan | undefined>;
  /** Applies the retention limits now; returns how many traces were removed. */
  prune(): Promise<number>;
}

/** The attribute that links a span to the event it produced (as ADK records it). */
export const EVENT_ID_ATTRIBUTE = 'gcp.vertex.agent.event_id';

/** The session a span belongs to, from its attributes (GenAI's conversation id, else ADK's own). */
export function spanSessionId(span: StoredSpan): string | undefined {
  const a = span.attributes;
  const id = a['gen_ai.conversation.id'];
  if (typeof id === 'string') return id;
  const legacy = a['gcp.vertex.agent.session_id'];
  return typeof legacy === 'string' ? legacy : undefined;
}

function numberAttribute(span: StoredSpan, key: string): number {
  const value = span.attributes[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function stringAttribute(span: StoredSpan, key: string): string | null {
  const value = span.attributes[key];
  return typeof value === 'string' ? value : null;
}

/**
 * Folds finished spans into trace summaries: feed every span as it ends; the trace's summary comes
 * back when its run span (`invocation`) ends, or its root span when it has no run span. A span
 * that ends later is not counted. Bounded: traces whose root never ends are forgotten oldest first.
 */
export class TraceSummarizer {
  private readonly open = new Map<
    string,
    { spans: number; errors: number; input: number; output: number; cost: number; session: string | null }
  >();

  /** Traces already summarized (a root span above the run span, e.g. an HTTP span, ends after it). */
  private readonly done = new Set<string>();

  constructor(private readonly maxOpen = 10_000) {}

  /** Counts a span; returns the trace's summary when the span is the trace's run or root span. */
  add(span: StoredSpan): TraceSummary | undefined {
    let stats = this.open.get(span.trace_id);
    if (!stats) {
      // An open trace is never done: only a trace's first span (or one after its summary) asks.
      if (this.done.has(span.trace_id)) return undefined;
      stats = { spans: 0, errors: 0, input: 0, output: 0, cost: 0, session: null };
      this.open.set(span.trace_id, stats);
      evictOldest(this.open, this.maxOpen);
    }
    stats.spans += 1;
    if (span.status === 'error') stats.errors += 1;
    stats.input += numberAttribute(span, 'gen_ai.usage.input_tokens');
    stats.output += numberAttribute(span, 'gen_ai.usage.output_tokens');
    stats.cost += numberAttribute(span, 'adk.usage.cost_usd');
    stats.session ??= spanSessionId(span) ?? null;
    if (span.parent_span_id !== null && span.name !== 'invocation') return undefined;
    this.open.delete(span.trace_id);
    this.done.add(span.trace_id);
    evictOldest(this.done, this.maxOpen);
    return {
      trace_id: span.trace_id,
      name: span.name,
      app_name: stringAttribute(span, 'adk.app_name'),
      user_id: stringAttribute(span, 'adk.user_id'),
      session_id: spanSessionId(span) ?? stats.session,
      invocation_id: stringAttribute(span, 'adk.invocation_id'),
      start_time: span.start_time,
      end_time: span.end_time,
      duration_ms: Math.max(0, (span.end_time - span.start_time) / 1e6),
      status: stats.errors > 0 ? 'error' : 'ok',
      span_count: stats.spans,
      error_count: stats.errors,
      input_tokens: stats.input,
      output_tokens: stats.output,
      cost_usd: stats.cost,
    };
  }
}

/** Whether a summary passes a query's filters (all but the attribute and the cursor). */
export function traceMatches(trace: TraceSummary, query: TraceQuery): boolean {
  if (query.appName !== undefined && trace.app_name !== query.appName) return false;
  if (query.userId !== undefined && trace.user_id !== query.userId) return false;
  if (query.sessionId !== undefined && trace.session_id !== query.sessionId) return false;
  if (query.invocationId !== undefined && trace.invocation_id !== query.invocationId) return false;
  const startMs = trace.start_time / 1e6;
  if (query.from !== undefined && startMs < query.from) return false;
  if (query.to !== undefined && startMs >= query.to) return false;
  if (query.status !== undefined && trace.status !== query.status) return false;
  if (query.minDurationMs !== undefined && trace.duration_ms < query.minDurationMs) return false;
  if (query.maxDurationMs !== undefined && trace.duration_ms > query.maxDurationMs) return false;
  return true;
}
