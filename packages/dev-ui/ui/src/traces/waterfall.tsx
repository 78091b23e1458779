import { useState } from 'preact/hooks';
import { JsonView } from '../components/json-view.js';
import { formatCost, formatTokens } from '../lib/cost.js';
import { formatDuration } from '../lib/format.js';
import { spanUsage, type TraceSpan } from './traces-api.js';

interface Row {
  span: TraceSpan;
  depth: number;
}

/** Spans in tree order (parents before children, siblings by start time), with their depth. */
export function spanTree(spans: TraceSpan[]): Row[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, TraceSpan[]>();
  const roots: TraceSpan[] = [];
  for (const s of spans) {
    if (s.parentSpanId && ids.has(s.parentSpanId)) {
      const list = children.get(s.parentSpanId) ?? [];
      list.push(s);
      children.set(s.parentSpanId, list);
    } else roots.push(s);
  }
  const out: Row[] = [];
  const visit = (s: TraceSpan, depth: number) => {
    out.push({ span: s, depth });
    for (const c of (children.get(s.spanId) ?? []).sort((a, b) => a.start - b.start)) visit(c, depth + 1);
  };
  for (const r of roots.sort((a, b) => a.start - b.start)) visit(r, 0);
  return out;
}

/** One trace's spans as a waterfall: a bar per span on the trace's time axis, tokens and cost per span. */
export function Waterfall({ spans }: { spans: TraceSpan[] }) {
  const [open, setOpen] = useState<string | undefined>();
  if (spans.length === 0) return <p class="muted">This trace has no spans.</p>;
  const rows = spanTree(spans);
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.end));
  const total = Math.max(end - start, 1e-6);
  return (
    <section class="waterfall" aria-label="Waterfall">
      <div class="wf-row wf-head" aria-hidden="true">
        <span>span</span>
        <span>timeline</span>
        <span>duration</span>
        <span>tokens in/out</span>
        <span>cost</span>
      </div>
      {rows.map(({ span, depth }) => {
        const usage = spanUsage(span);
        const failed = span.status === 'error';
        const expanded = open === span.spanId;
        return (
          <div key={span.spanId} class="wf-item" data-span-name={span.name} data-status={span.status}>
            <button
              type="button"
              class={failed ? 'wf-row error' : 'wf-row'}
              aria-expanded={expanded}
              onClick={() => setOpen(expanded ? undefined : span.spanId)}
            >
              <span class="wf-name" style={{ paddingLeft: `${depth * 14}px` }}>
                {failed ? (
                  <span class="wf-error-mark">
                    <span aria-hidden="true">✕ </span>
                    <span class="sr-only">failed: </span>
                  </span>
                ) : null}
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
              <span class="num">{formatDuration(span.end - span.start)}</span>
              <span class="num">
                {usage.input !== undefined || usage.output !== undefined
                  ? `${formatTokens(usage.input)} / ${formatTokens(usage.output)}`
                  : ''}
              </span>
              <span class="num">{usage.cost !== undefined ? formatCost(usage.cost) : ''}</span>
            </button>
            {expanded ? (
              <div class="wf-detail">
                {span.statusMessage ? (
                  <p class="error-text" role="alert">
                    {span.statusMessage}
                  </p>
                ) : null}
                <JsonView value={span.attributes} label={`Attributes of ${span.name}`} />
              </div>
            ) : null}
          </div>
        );
      })}
    </section>
  );
}
