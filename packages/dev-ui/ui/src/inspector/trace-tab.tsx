import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Span } from '../api/types.js';
import { JsonView } from '../components/json-view.js';
import { formatDuration } from '../lib/format.js';

interface Node {
  span: Span;
  depth: number;
}

function flatten(spans: Span[]): Node[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, Span[]>();
  const roots: Span[] = [];
  for (const s of spans) {
    if (s.parentSpanId && ids.has(s.parentSpanId)) {
      children.set(s.parentSpanId, [...(children.get(s.parentSpanId) ?? []), s]);
    } else roots.push(s);
  }
  const out: Node[] = [];
  const visit = (s: Span, depth: number) => {
    out.push({ span: s, depth });
    for (const c of (children.get(s.spanId) ?? []).sort((a, b) => a.start - b.start)) visit(c, depth + 1);
  };
  for (const r of roots.sort((a, b) => a.start - b.start)) visit(r, 0);
  return out;
}

export function TraceTab({
  app,
  session,
  refreshKey,
}: {
  app?: string;
  session?: string;
  refreshKey: number;
}) {
  const [spans, setSpans] = useState<Span[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  useEffect(() => {
    setSpans(undefined);
    setError(undefined);
    if (!app || !session) return;
    api
      .sessionTrace(app, session)
      .then(setSpans)
      .catch((e: Error) => setError(e.message));
  }, [app, session, refreshKey]);
  if (!session) return <p class="muted pad">Open a session to see its trace.</p>;
  if (error)
    return (
      <p class="pad error-text" role="alert">
        Trace unavailable: {error}
      </p>
    );
  if (!spans) return <p class="muted pad">Loading…</p>;
  if (spans.length === 0) return <p class="muted pad">No spans recorded for this session yet.</p>;
  const nodes = flatten(spans);
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.end));
  const total = Math.max(end - start, 1e-6);
  return (
    <div class="pad">
      <p class="muted small">
        {spans.length} spans · {formatDuration(end - start)}
      </p>
      <ul class="trace" aria-label="Span tree">
        {nodes.map(({ span, depth }) => (
          <li key={span.spanId || `${span.name}-${span.start}`}>
            <button
              type="button"
              class="span-row"
              aria-expanded={open === span.spanId}
              onClick={() => setOpen(open === span.spanId ? undefined : span.spanId)}
            >
              <span class="span-name" style={{ paddingLeft: `${depth * 14}px` }}>
                {span.name}
              </span>
              <span class="span-bar" aria-hidden="true">
                <span
                  style={{
                    left: `${((span.start - start) / total) * 100}%`,
                    width: `${Math.max(((span.end - span.start) / total) * 100, 0.5)}%`,
                  }}
                />
              </span>
              <span class="span-dur">{formatDuration(span.end - span.start)}</span>
            </button>
            {open === span.spanId ? (
              <JsonView value={span.attributes} label={`Attributes of ${span.name}`} />
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
