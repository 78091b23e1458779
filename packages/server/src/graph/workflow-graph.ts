import {
  AgentNode,
  agentOfNode,
  type BaseNode,
  DEFAULT_ROUTE,
  FunctionNode,
  JoinNode,
  LlmAgent,
  ParallelWorker,
  START,
  SubWorkflowNode,
  ToolNode,
  Workflow,
  type GraphEdge as WorkflowEdge,
} from '@adk/core';

/** The name adk-python gives the node where every graph begins. */
export const START_NAME = START.name;
/** Our end marker: every terminal node (no outgoing edge) leads to it in the drawn graph. */
export const END_NAME = '__END__';

/** A node as adk-python's `build_graph` serializes it (`name`, `type`, `rerun_on_resume`). */
export interface SerializedNode {
  name: string;
  type: string;
  rerun_on_resume?: boolean;
  description?: string;
  model?: string;
  /** A nested workflow's own graph. */
  graph?: SerializedGraph;
}

/** An edge as adk-python serializes it: both ends, and the route when the edge has one. */
export interface SerializedEdge {
  from_node: SerializedNode;
  to_node: SerializedNode;
  /** One value, a list of values, or `DEFAULT_ROUTE` (`'__DEFAULT__'`); absent on unrouted edges. */
  route?: string | string[];
}

export interface SerializedGraph {
  nodes: SerializedNode[];
  edges: SerializedEdge[];
}

/** adk-python's node types (`function`, `tool`, `join`, `workflow`, `agent`, `node`, `start`). */
export function nodeType(node: BaseNode): string {
  if (node === START) return 'start';
  const agent = agentOfNode(node);
  if (node instanceof ParallelWorker) return nodeType(node.inner);
  if (node instanceof SubWorkflowNode || agent instanceof Workflow) return 'workflow';
  if (node instanceof JoinNode) return 'join';
  if (node instanceof FunctionNode) return 'function';
  if (node instanceof ToolNode) return 'tool';
  if (node instanceof AgentNode || agent) return 'agent';
  // A node built by node(x, options) wraps the original: describe what it runs.
  const original = (node as { original?: unknown }).original;
  if (original && typeof original === 'object' && 'runImpl' in original)
    return nodeType(original as BaseNode);
  return 'node';
}

export function serializeNode(node: BaseNode): SerializedNode {
  if (node === START) return { name: START_NAME, type: 'start', rerun_on_resume: node.rerunOnResume };
  const out: SerializedNode = {
    name: node.name,
    type: nodeType(node),
    rerun_on_resume: node.rerunOnResume,
  };
  if (node.description) out.description = node.description;
  const agent = agentOfNode(node);
  if (agent instanceof LlmAgent) {
    if (typeof agent.model === 'string') out.model = agent.model;
    else if (agent.model) out.model = agent.model.model;
  }
  if (agent instanceof Workflow) out.graph = serializeWorkflowGraph(agent);
  return out;
}

function edgeRoute(edge: WorkflowEdge): string | string[] | undefined {
  if (edge.isDefault) return DEFAULT_ROUTE;
  if (!edge.routes) return undefined;
  return edge.routes.length === 1 ? edge.routes[0] : [...edge.routes];
}

/** A workflow's graph in adk-python's `build_graph` shape: START first, then nodes in edge order. */
export function serializeWorkflowGraph(workflow: Workflow): SerializedGraph {
  const nodes = [serializeNode(START), ...[...workflow.graph.nodes.values()].map(serializeNode)];
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const ref = (node: BaseNode) => byName.get(node === START ? START_NAME : node.name) ?? serializeNode(node);
  const edges = workflow.graph.edges.map((edge) => {
    const out: SerializedEdge = { from_node: ref(edge.from), to_node: ref(edge.to) };
    const route = edgeRoute(edge);
    if (route !== undefined) out.route = route;
    return out;
  });
  return { nodes, edges };
}

/** One node of the drawn graph (our `graph` field, which the dev UI reads). */
export interface WorkflowGraphNode {
  id: string;
  name: string;
  type: string;
  description?: string;
}

/** One edge of the drawn graph; `route` says which route values take it. */
export interface WorkflowGraphEdge {
  from: string;
  to: string;
  kind: 'edge';
  route?: string | string[];
}

/**
 * The drawn graph of a workflow: START, its nodes, END after every terminal node, and the edges
 * with their routes. Nested workflows are one node (their own graph is in `root_agent`).
 */
export function workflowDrawing(workflow: Workflow): {
  nodes: WorkflowGraphNode[];
  edges: WorkflowGraphEdge[];
} {
  const nodes: WorkflowGraphNode[] = [{ id: START_NAME, name: 'START', type: 'start' }];
  const edges: WorkflowGraphEdge[] = [];
  for (const node of workflow.graph.nodes.values()) {
    nodes.push({
      id: node.name,
      name: node.name,
      type: nodeType(node),
      ...(node.description ? { description: node.description } : {}),
    });
  }
  for (const edge of workflow.graph.edges) {
    const route = edgeRoute(edge);
    edges.push({
      from: edge.from === START ? START_NAME : edge.from.name,
      to: edge.to.name,
      kind: 'edge',
      ...(route !== undefined ? { route } : {}),
    });
  }
  const terminals = [...workflow.graph.nodes.keys()].filter((name) => workflow.graph.isTerminal(name));
  if (terminals.length > 0) {
    nodes.push({ id: END_NAME, name: 'END', type: 'end' });
    for (const name of terminals) edges.push({ from: name, to: END_NAME, kind: 'edge' });
  }
  return { nodes, edges };
}

function quote(id: string): string {
  return `"${id.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Graphviz DOT of a workflow: START/END as circles, joins as diamonds, routes as edge labels. */
export function workflowDot(workflow: Workflow, options: { darkMode?: boolean } = {}): string {
  const dark = options.darkMode === true;
  const fg = dark ? '#e8eaed' : '#202124';
  const { nodes, edges } = workflowDrawing(workflow);
  const lines = [
    'digraph Workflow {',
    `  graph [bgcolor="${dark ? '#333537' : 'transparent'}", rankdir=TB];`,
    `  node [fontcolor="${fg}", color="${fg}"];`,
    `  edge [color="${fg}", fontcolor="${fg}"];`,
  ];
  const shapes: Record<string, string> = {
    start: 'circle',
    end: 'doublecircle',
    join: 'diamond',
    function: 'box',
    tool: 'box',
    agent: 'ellipse',
    workflow: 'box3d',
  };
  for (const node of nodes) {
    lines.push(`  ${quote(node.id)} [label=${quote(node.name)}, shape=${shapes[node.type] ?? 'box'}];`);
  }
  for (const edge of edges) {
    const label =
      edge.route === undefined
        ? ''
        : ` [label=${quote(Array.isArray(edge.route) ? edge.route.join(' | ') : edge.route === DEFAULT_ROUTE ? 'default' : edge.route)}]`;
    lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)}${label};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
