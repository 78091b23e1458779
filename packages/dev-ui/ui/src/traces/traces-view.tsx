import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatCost, formatTokens } from '../lib/cost.js';
import { formatDuration, shortId } from '../lib/format.js';
import {
  NO_FILTERS,
  spanUsage,
  type TraceFilters,
  type TraceSpan,
  type TraceSummary,
  tracesApi,
} from './traces-api.js';
import { Waterfall } from './waterfall.js';
import './traces.css';

const nsToDate = (ns: number) => new Date(ns > 1e15 ? ns / 1e6 : ns);

function startedAt(trace: TraceSummary): string {
  return nsToDate(trace.start_time).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** The Traces view: every stored trace across sessions, filtered, and one trace's waterfall. */
export function TracesView({
  apps,
  app,
  onOpenSession,
}: {
  apps: string[];
  /** The app picked in the top bar: the list starts filtered on it. */
  app?: string;
  onOpenSession?: (app: string, user: string, session: string) => void;
}) {
  const [draft, setDraft] = useState<TraceFilters>({ ...NO_FILTERS, app: app ?? '' });
  const [filters, setFilters] = useState<TraceFilters>(draft);
  const [traces, setTraces] = useState<TraceSummary[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<TraceSummary | undefined>();
  const [spans, setSpans] = useState<TraceSpan[] | undefined>();
  const [spansError, setSpansError] = useState<string | undefined>();

  const load = useCallback(async (f: TraceFilters, after?: string) => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await tracesApi.list(f, after);
      setTraces((prev) => (after ? [...(prev ?? []), ...page.traces] : page.traces));
      setCursor(page.nextCursor);
    } catch (e) {
      setError((e as Error).message);
      if (!after) setTraces([]);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void load(filters);
  }, [filters, load]);

  useEffect(() => {
    setSpans(undefined);
    setSpansError(undefined);
    if (!selected) return;
    tracesApi
      .spans(selected.trace_id)
      .then(setSpans)
      .catch((e: Error) => setSpansError(e.message));
  }, [selected]);

  const field = (key: keyof TraceFilters) => ({
    value: draft[key],
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value }),
  });

  return (
    <main class="traces-view" aria-label="Traces">
      <form
        class="trace-filters"
        aria-label="Trace filters"
        onSubmit={(e) => {
          e.preventDefault();
          setSelected(undefined);
          setFilters({ ...draft });
        }}
      >
        <label>
          <span>App</span>
          <select aria-label="App" {...field('app')} onChange={field('app').onInput}>
            <option value="">All apps</option>
            {apps.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>User</span>
          <input type="text" {...field('user')} />
        </label>
        <label>
          <span>Session</span>
          <input type="text" {...field('session')} />
        </label>
        <label>
          <span>Status</span>
          <select aria-label="Status" {...field('status')} onChange={field('status').onInput}>
            <option value="">Any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
          </select>
        </label>
        <label>
          <span>Min duration (ms)</span>
          <input type="number" min="0" step="1" inputMode="numeric" {...field('minDurationMs')} />
        </label>
        <label>
          <span>From</span>
          <input type="datetime-local" step="1" {...field('from')} />
        </label>
        <label>
          <span>To</span>
          <input type="datetime-local" step="1" {...field('to')} />
        </label>
        <label class="wide">
          <span>Attribute (key=value)</span>
          <input type="text" placeholder="gen_ai.request.model=gemini-2.5-flash" {...field('attribute')} />
        </label>
        <div class="trace-filter-buttons">
          <button type="submit" class="btn primary">
            Apply filters
          </button>
          <button
            type="button"
            class="btn"
            onClick={() => {
              setDraft(NO_FILTERS);
              setSelected(undefined);
              setFilters(NO_FILTERS);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <div class="traces-columns">
        <section class="trace-list" aria-label="Trace list">
          {error ? (
            <p class="error-text" role="alert">
              Traces unavailable: {error}
            </p>
          ) : null}
          {!traces ? (
            <p class="muted">Loading…</p>
          ) : traces.length === 0 && !error ? (
            <p class="muted">No trace matches these filters.</p>
          ) : (
            <table class="traces-table">
              <thead>
                <tr>
                  <th scope="col">started</th>
                  <th scope="col">app</th>
                  <th scope="col">user</th>
                  <th scope="col">session</th>
                  <th scope="col">status</th>
                  <th scope="col">duration</th>
                  <th scope="col">spans</th>
                  <th scope="col">tokens in/out</th>
                  <th scope="col">cost</th>
                </tr>
              </thead>
              <tbody>
                {traces.map((t) => (
                  <tr
                    key={t.trace_id}
                    data-trace-id={t.trace_id}
                    class={selected?.trace_id === t.trace_id ? 'selected' : undefined}
                  >
                    <th scope="row">
                      <button
                        type="button"
                        class="link"
                        aria-pressed={selected?.trace_id === t.trace_id}
                        onClick={() => setSelected(t)}
                      >
                        {startedAt(t)}
                      </button>
                    </th>
                    <td>{t.app_name ?? '—'}</td>
                    <td>{t.user_id ?? '—'}</td>
                    <td class="mono" title={t.session_id ?? undefined}>
                      {t.session_id ? shortId(t.session_id) : '—'}
                    </td>
                    <td class={`trace-status ${t.status}`}>
                      {t.status}
                      {t.error_count > 0 ? ` (${t.error_count})` : ''}
                    </td>
                    <td class="num">{formatDuration(t.duration_ms)}</td>
                    <td class="num">{t.span_count}</td>
                    <td class="num">
                      {formatTokens(t.input_tokens)} / {formatTokens(t.output_tokens)}
                    </td>
                    <td class="num">{formatCost(t.cost_usd)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {cursor ? (
            <button type="button" class="btn" disabled={loading} onClick={() => void load(filters, cursor)}>
              Load more traces
            </button>
          ) : null}
        </section>
        <section class="trace-detail" aria-label="Trace detail">
          {!selected ? (
            <p class="muted">Pick a trace to see its spans.</p>
          ) : (
            <TraceDetail
              trace={selected}
              spans={spans}
              error={spansError}
              {...(onOpenSession ? { onOpenSession } : {})}
            />
          )}
        </section>
      </div>
    </main>
  );
}

function TraceDetail({
  trace,
  spans,
  error,
  onOpenSession,
}: {
  trace: TraceSummary;
  spans: TraceSpan[] | undefined;
  error: string | undefined;
  onOpenSession?: (app: string, user: string, session: string) => void;
}) {
  // Totals from the spans themselves (a trace listed before its last span was written has more now).
  const totals = (spans ?? []).reduce(
    (acc, s) => {
      const u = spanUsage(s);
      acc.input += u.input ?? 0;
      acc.output += u.output ?? 0;
      if (u.cost !== undefined) acc.cost = (acc.cost ?? 0) + u.cost;
      if (s.status === 'error') acc.errors += 1;
      return acc;
    },
    { input: 0, output: 0, cost: undefined as number | undefined, errors: 0 },
  );
  const { app_name: app, user_id: user, session_id: session } = trace;
  return (
    <div>
      <h3>
        {trace.name} <span class="muted mono small">{trace.trace_id}</span>
      </h3>
      <dl class="totals trace-totals" aria-label="Trace totals">
        <div>
          <dt>duration</dt>
          <dd>{formatDuration(trace.duration_ms)}</dd>
        </div>
        <div>
          <dt>spans</dt>
          <dd>{spans?.length ?? trace.span_count}</dd>
        </div>
        <div>
          <dt>errors</dt>
          <dd>{spans ? totals.errors : trace.error_count}</dd>
        </div>
        <div>
          <dt>tokens in/out</dt>
          <dd>
            {formatTokens(spans ? totals.input : trace.input_tokens)} /{' '}
            {formatTokens(spans ? totals.output : trace.output_tokens)}
          </dd>
        </div>
        <div>
          <dt>cost</dt>
          <dd>{formatCost(spans ? totals.cost : trace.cost_usd)}</dd>
        </div>
      </dl>
      {app && user && session && onOpenSession ? (
        <p>
          <button type="button" class="link" onClick={() => onOpenSession(app, user, session)}>
            Open session {shortId(session)}
          </button>
        </p>
      ) : null}
      {error ? (
        <p class="error-text" role="alert">
          Spans unavailable: {error}
        </p>
      ) : !spans ? (
        <p class="muted">Loading spans…</p>
      ) : (
        <Waterfall spans={spans} />
      )}
    </div>
  );
}
