import type { Graph, GraphNode } from '../api/types.js';

/**
 * Turns whatever the graph route returns into nodes and edges: DOT text (`{dotSrc}` as ADK's
 * server sends it), `{nodes, edges}`, or an agent tree `{name, subAgents, tools}`.
 */
export function toGraph(raw: unknown): Graph | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw === 'string') return parseDot(raw);
  if (typeof raw !== 'object') return undefined;
  const o = raw as Record<string, unknown>;
  // Our server's build_graph carries the graph as JSON next to its DOT text: prefer the JSON.
  if (o.graph && typeof o.graph === 'object' && Array.isArray((o.graph as { nodes?: unknown }).nodes))
    return toGraph(o.graph);
  const dot = o.dotSrc ?? o.dot_src ?? o.dot;
  if (typeof dot === 'string') return parseDot(dot);
  if (Array.isArray(o.nodes)) {
    const nodes: GraphNode[] = o.nodes.map((n) => {
      const node = (typeof n === 'string' ? { id: n } : n) as Record<string, unknown>;
      const id = String(node.id ?? node.name ?? '');
      return {
        id,
        label: String(node.label ?? node.name ?? id),
        ...(typeof node.kind === 'string' || typeof node.type === 'string'
          ? { kind: String(node.kind ?? node.type) }
          : {}),
      };
    });
    const edges = Array.isArray(o.edges)
      ? o.edges.map((e) => {
          const edge = e as Record<string, unknown>;
          const label = routeLabel(edge.route);
          return {
            from: String(edge.from ?? edge.source ?? ''),
            to: String(edge.to ?? edge.target ?? ''),
            ...(label ? { label } : {}),
          };
        })
      : [];
    return { nodes, edges };
  }
  const tree = (o.rootAgent ?? o.root ?? o.agent ?? o) as Record<string, unknown>;
  if (typeof tree.name === 'string') {
    const graph: Graph = { nodes: [], edges: [] };
    walkTree(tree, undefined, graph);
    return graph;
  }
  return undefined;
}

/** A workflow edge's route as text: a value, `a | b` for a list, `default` for DEFAULT_ROUTE. */
export function routeLabel(route: unknown): string | undefined {
  if (route === undefined || route === null) return undefined;
  if (Array.isArray(route)) return route.map((r) => routeLabel(r) ?? '').join(' | ');
  return route === '__DEFAULT__' ? 'default' : String(route);
}

function walkTree(agent: Record<string, unknown>, parent: string | undefined, graph: Graph): void {
  const id = String(agent.name);
  graph.nodes.push({ id, label: id, kind: typeof agent.type === 'string' ? agent.type : 'agent' });
  if (parent) graph.edges.push({ from: parent, to: id });
  const tools = Array.isArray(agent.tools) ? agent.tools : [];
  for (const tool of tools) {
    const name = typeof tool === 'string' ? tool : String((tool as Record<string, unknown>).name ?? 'tool');
    const toolId = `${id}/${name}`;
    graph.nodes.push({ id: toolId, label: name, kind: 'tool' });
    graph.edges.push({ from: id, to: toolId });
  }
  const subs = agent.subAgents ?? agent.sub_agents;
  if (Array.isArray(subs)) for (const sub of subs) walkTree(sub as Record<string, unknown>, id, graph);
}

const ID = String.raw`"(?:[^"\\]|\\.)*"|[\w.\-/]+`;
const EDGE = new RegExp(`^\\s*(${ID})\\s*-[->]\\s*(${ID})`);
const NODE = new RegExp(`^\\s*(${ID})\\s*(\\[(.*)\\])?\\s*;?\\s*$`);

function unquote(id: string): string {
  return id.startsWith('"') ? id.slice(1, -1).replace(/\\"/g, '"') : id;
}

function attr(attrs: string | undefined, key: string): string | undefined {
  if (!attrs) return undefined;
  const match = new RegExp(`\\b${key}\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|[^,\\]\\s]+)`).exec(attrs);
  return match?.[1] ? unquote(match[1]) : undefined;
}

/** A small DOT reader: node statements with label/shape and `a -> b` edges; enough for agent trees. */
export function parseDot(source: string): Graph {
  const nodes = new Map<string, GraphNode>();
  const edges: Graph['edges'] = [];
  const ensure = (id: string) => {
    if (!nodes.has(id)) nodes.set(id, { id, label: id });
    return nodes.get(id) as GraphNode;
  };
  for (const statement of source.split(/[;\n]/)) {
    const line = statement.trim();
    if (!line || /^(digraph|graph|subgraph|node|edge|\{|\}|rankdir|bgcolor|label\s*=)/.test(line)) continue;
    const edge = EDGE.exec(line);
    if (edge?.[1] && edge[2]) {
      const from = unquote(edge[1]);
      const to = unquote(edge[2]);
      ensure(from);
      ensure(to);
      edges.push({ from, to });
      continue;
    }
    const node = NODE.exec(line);
    if (node?.[1]) {
      const n = ensure(unquote(node[1]));
      const label = attr(node[3], 'label');
      if (label) n.label = label.replace(/\\n/g, ' ');
      const shape = attr(node[3], 'shape');
      if (shape)
        n.kind = shape === 'ellipse' || shape === 'box' ? (shape === 'box' ? 'tool' : 'agent') : shape;
    }
  }
  return { nodes: [...nodes.values()], edges };
}

/** Places nodes in layers by depth from the roots (nodes nobody points to). */
export function layout(graph: Graph): {
  x: Map<string, number>;
  y: Map<string, number>;
  width: number;
  height: number;
} {
  const incoming = new Map<string, number>();
  for (const n of graph.nodes) incoming.set(n.id, 0);
  for (const e of graph.edges) incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
  const depth = new Map<string, number>();
  const queue = graph.nodes.filter((n) => (incoming.get(n.id) ?? 0) === 0).map((n) => n.id);
  if (queue.length === 0 && graph.nodes[0]) queue.push(graph.nodes[0].id);
  for (const id of queue) depth.set(id, 0);
  while (queue.length > 0) {
    const id = queue.shift() as string;
    for (const e of graph.edges) {
      if (e.from === id && !depth.has(e.to)) {
        depth.set(e.to, (depth.get(id) ?? 0) + 1);
        queue.push(e.to);
      }
    }
  }
  for (const n of graph.nodes) if (!depth.has(n.id)) depth.set(n.id, 0);
  // A workflow's END goes below everything, whichever terminal node reaches it first.
  const deepest = Math.max(
    0,
    ...graph.nodes.filter((n) => n.kind !== 'end').map((n) => depth.get(n.id) ?? 0),
  );
  for (const n of graph.nodes) if (n.kind === 'end') depth.set(n.id, deepest + 1);
  const layers = new Map<number, string[]>();
  for (const n of graph.nodes) {
    const d = depth.get(n.id) ?? 0;
    layers.set(d, [...(layers.get(d) ?? []), n.id]);
  }
  const x = new Map<string, number>();
  const y = new Map<string, number>();
  const colWidth = 170;
  const rowHeight = 80;
  let widest = 1;
  for (const [, ids] of layers) widest = Math.max(widest, ids.length);
  for (const [d, ids] of layers) {
    const offset = ((widest - ids.length) * colWidth) / 2;
    ids.forEach((id, i) => {
      x.set(id, offset + i * colWidth + colWidth / 2);
      y.set(id, d * rowHeight + 30);
    });
  }
  return { x, y, width: widest * colWidth, height: layers.size * rowHeight };
}
