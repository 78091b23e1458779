import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Graph } from '../api/types.js';
import { layout, toGraph } from '../lib/graph.js';
import type { NodeStatus } from '../lib/workflow.js';
import '../components/workflow.css';

const STATUS_TEXT: Record<NodeStatus, string> = {
  active: 'running or last run',
  waiting: 'waiting for input',
  done: 'done',
};

/** Where an edge leaves and enters: down the layers, or around the side for a loop back up. */
function edgePath(x1: number, y1: number, x2: number, y2: number, h: number, w: number) {
  if (y2 > y1) {
    const d = `M${x1},${y1 + h / 2} L${x2},${y2 - h / 2}`;
    return { d, lx: (x1 + x2) / 2, ly: (y1 + h / 2 + y2 - h / 2) / 2 };
  }
  const side = Math.max(x1, x2) + w / 2 + 30;
  const d = `M${x1 + w / 2},${y1} C${side},${y1} ${side},${y2} ${x2 + w / 2},${y2}`;
  return { d, lx: side - 8, ly: (y1 + y2) / 2 };
}

export function GraphTab({
  app,
  active,
  status,
}: {
  app?: string;
  active: Set<string>;
  /** Workflows: each node's state in the session (see `workflowStatus`). */
  status?: Map<string, NodeStatus>;
}) {
  const [graph, setGraph] = useState<Graph | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setGraph(undefined);
    setError(undefined);
    if (!app) return;
    api
      .buildGraph(app)
      .then((raw) => {
        const g = toGraph(raw);
        if (g && g.nodes.length > 0) setGraph(g);
        else setError('The server returned no graph for this app.');
      })
      .catch((e: Error) => setError(e.message));
  }, [app]);
  if (!app) return <p class="muted pad">Pick an app to see its agent graph.</p>;
  if (error)
    return (
      <p class="pad error-text" role="alert">
        Graph unavailable: {error}
      </p>
    );
  if (!graph) return <p class="muted pad">Loading…</p>;
  const pos = layout(graph);
  const w = 150;
  const h = 36;
  const width = pos.width + 60;
  const classOf = (kind: string | undefined) =>
    kind === 'start' || kind === 'end' || kind === 'join' ? kind : kind?.includes('tool') ? 'tool' : 'agent';
  return (
    <div class={`pad graph${graph.nodes.some((n) => n.kind === 'start') ? ' workflow' : ''}`}>
      <svg
        role="img"
        aria-label={`Agent graph of ${app}: ${graph.nodes.map((n) => n.label).join(', ')}`}
        viewBox={`0 0 ${width} ${pos.height}`}
        width={width}
        height={pos.height}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" class="edge-head" />
          </marker>
        </defs>
        {graph.edges.map((e) => {
          const path = edgePath(
            pos.x.get(e.from) ?? 0,
            pos.y.get(e.from) ?? 0,
            pos.x.get(e.to) ?? 0,
            pos.y.get(e.to) ?? 0,
            h,
            w,
          );
          return (
            <g key={`${e.from}->${e.to}:${e.label ?? ''}`} data-edge={`${e.from}->${e.to}`}>
              <path class="edge" d={path.d} fill="none" marker-end="url(#arrow)" />
              {e.label ? (
                <text class="edge-label" x={path.lx} y={path.ly} text-anchor="middle">
                  {e.label}
                </text>
              ) : null}
            </g>
          );
        })}
        {graph.nodes.map((n) => {
          const state = status?.get(n.id);
          const kind = classOf(n.kind);
          const round =
            kind === 'tool' ? 4 : kind === 'start' || kind === 'end' ? h / 2 : kind === 'join' ? 2 : 18;
          return (
            <g
              key={n.id}
              class={`node ${kind}${active.has(n.label) && !status?.size ? ' active' : ''}${state ? ` ${state}` : ''}`}
              data-node={n.id}
              transform={`translate(${(pos.x.get(n.id) ?? 0) - w / 2}, ${(pos.y.get(n.id) ?? 0) - h / 2})`}
            >
              <title>{state ? `${n.label}: ${STATUS_TEXT[state]}` : n.label}</title>
              <rect width={w} height={h} rx={round} />
              <text x={w / 2} y={h / 2 + 4} text-anchor="middle">
                {kind === 'join' ? '⋈ ' : ''}
                {n.label.length > 20 ? `${n.label.slice(0, 19)}…` : n.label}
              </text>
            </g>
          );
        })}
      </svg>
      {status && status.size > 0 ? (
        <p class="graph-legend small muted">
          <span class="swatch active" /> running or last run <span class="swatch waiting" /> waiting for input{' '}
          <span class="swatch done" /> done
        </p>
      ) : null}
    </div>
  );
}
