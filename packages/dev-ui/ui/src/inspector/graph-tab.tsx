import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Graph } from '../api/types.js';
import { layout, toGraph } from '../lib/graph.js';

export function GraphTab({ app, active }: { app?: string; active: Set<string> }) {
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
  return (
    <div class="pad graph">
      <svg
        role="img"
        aria-label={`Agent graph of ${app}: ${graph.nodes.map((n) => n.label).join(', ')}`}
        viewBox={`0 0 ${pos.width} ${pos.height}`}
        width={pos.width}
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
        {graph.edges.map((e) => (
          <line
            key={`${e.from}->${e.to}`}
            class="edge"
            x1={pos.x.get(e.from)}
            y1={(pos.y.get(e.from) ?? 0) + h / 2}
            x2={pos.x.get(e.to)}
            y2={(pos.y.get(e.to) ?? 0) - h / 2}
            marker-end="url(#arrow)"
          />
        ))}
        {graph.nodes.map((n) => (
          <g
            key={n.id}
            class={`node ${n.kind?.includes('tool') ? 'tool' : 'agent'}${active.has(n.label) ? ' active' : ''}`}
            transform={`translate(${(pos.x.get(n.id) ?? 0) - w / 2}, ${(pos.y.get(n.id) ?? 0) - h / 2})`}
          >
            <rect width={w} height={h} rx={n.kind?.includes('tool') ? 4 : 18} />
            <text x={w / 2} y={h / 2 + 4} text-anchor="middle">
              {n.label.length > 20 ? `${n.label.slice(0, 19)}…` : n.label}
            </text>
          </g>
        ))}
      </svg>
    </div>
  );
}
