// The server's trace routes (see @adk/server's README, "Observability"): `GET /debug/traces` lists
// traces across sessions with filters, `GET /debug/traces/{traceId}` answers one trace's spans.
// Declared here, not imported, so the bundle carries no server code.
import { apiFetch } from '../api/auth.js';
import { ApiError } from '../api/client.js';
import type { JsonObject } from '../api/types.js';

/** One trace as listed (snake_case, as the server sends it). */
export interface TraceSummary {
  trace_id: string;
  name: string;
  app_name: string | null;
  user_id: string | null;
  session_id: string | null;
  invocation_id: string | null;
  /** Nanoseconds since the epoch. */
  start_time: number;
  end_time: number;
  duration_ms: number;
  status: 'ok' | 'error';
  span_count: number;
  error_count: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

export interface TraceList {
  traces: TraceSummary[];
  nextCursor?: string;
}

/** One span of a trace, times in milliseconds since the epoch. */
export interface TraceSpan {
  name: string;
  spanId: string;
  parentSpanId: string | null;
  start: number;
  end: number;
  status: 'unset' | 'ok' | 'error';
  statusMessage?: string;
  attributes: JsonObject;
}

/** The list's filters, as typed in the form (empty = no filter). */
export interface TraceFilters {
  app: string;
  user: string;
  session: string;
  status: '' | 'ok' | 'error';
  minDurationMs: string;
  /** `datetime-local` values (local time). */
  from: string;
  to: string;
  /** `key=value`. */
  attribute: string;
}

export const NO_FILTERS: TraceFilters = {
  app: '',
  user: '',
  session: '',
  status: '',
  minDurationMs: '',
  from: '',
  to: '',
  attribute: '',
};

const enc = encodeURIComponent;

async function getJson<T>(path: string): Promise<T> {
  let res: Response;
  try {
    res = await apiFetch(path, { headers: { accept: 'application/json' } });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    let detail = text || res.statusText;
    try {
      const body = JSON.parse(text) as { detail?: unknown; error?: unknown };
      const d = body.detail ?? body.error;
      if (d !== undefined) detail = typeof d === 'string' ? d : JSON.stringify(d);
    } catch {}
    throw new ApiError(res.status, `${res.status} ${detail}`);
  }
  return JSON.parse(text) as T;
}

/** The query string of `/debug/traces` for these filters. */
export function traceQueryString(filters: TraceFilters, cursor?: string, limit = 50): string {
  const q = new URLSearchParams();
  const set = (key: string, value: string) => {
    const v = value.trim();
    if (v) q.set(key, v);
  };
  set('app', filters.app);
  set('user', filters.user);
  set('session', filters.session);
  set('status', filters.status);
  set('min_duration_ms', filters.minDurationMs);
  set('attribute', filters.attribute);
  const time = (value: string) => {
    const ms = value ? new Date(value).getTime() : Number.NaN;
    return Number.isFinite(ms) ? String(ms) : '';
  };
  set('from', time(filters.from));
  set('to', time(filters.to));
  q.set('limit', String(limit));
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

export const tracesApi = {
  list: (filters: TraceFilters, cursor?: string) =>
    getJson<TraceList>(`/debug/traces?${traceQueryString(filters, cursor)}`),
  async spans(traceId: string): Promise<TraceSpan[]> {
    const raw = await getJson<unknown>(`/debug/traces/${enc(traceId)}`);
    return Array.isArray(raw) ? raw.map(toSpan) : [];
  },
};

const nsToMs = (v: unknown) => {
  const n = typeof v === 'number' ? v : Number(v ?? 0);
  return n > 1e15 ? n / 1e6 : n;
};

function toSpan(raw: unknown): TraceSpan {
  const s = (raw ?? {}) as Record<string, unknown>;
  const status = s.status === 'error' || s.status === 'ok' ? s.status : 'unset';
  const parent = s.parent_span_id;
  return {
    name: String(s.name ?? 'span'),
    spanId: String(s.span_id ?? ''),
    parentSpanId: typeof parent === 'string' && parent !== '' ? parent : null,
    start: nsToMs(s.start_time),
    end: nsToMs(s.end_time),
    status,
    ...(typeof s.status_message === 'string' && s.status_message ? { statusMessage: s.status_message } : {}),
    attributes: (s.attributes as JsonObject | undefined) ?? {},
  };
}

const num = (attributes: JsonObject, key: string): number | undefined => {
  const v = attributes[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/** Tokens and cost a span recorded (a model call's `gen_ai.usage.*` and `adk.usage.cost_usd`). */
export function spanUsage(span: TraceSpan): { input?: number; output?: number; cost?: number } {
  const input = num(span.attributes, 'gen_ai.usage.input_tokens');
  const output = num(span.attributes, 'gen_ai.usage.output_tokens');
  const cost = num(span.attributes, 'adk.usage.cost_usd');
  return {
    ...(input !== undefined ? { input } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(cost !== undefined ? { cost } : {}),
  };
}
