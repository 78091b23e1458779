import {
  type BaseAgent,
  isToolset,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
  Workflow,
} from '@adk/core';
import { walkAgentTree } from './agent-tree.js';
import { serializeWorkflowGraph, workflowDot, workflowDrawing } from './workflow-graph.js';

export type GraphNodeType =
  | 'llm_agent'
  | 'sequential_agent'
  | 'parallel_agent'
  | 'loop_agent'
  | 'workflow'
  | 'agent'
  | 'tool'
  | 'toolset';

export interface GraphNode {
  id: string;
  name: string;
  type: GraphNodeType;
  description?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'sub_agent' | 'tool';
}

export interface AgentGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

function agentType(agent: BaseAgent): GraphNodeType {
  if (agent instanceof LlmAgent) return 'llm_agent';
  if (agent instanceof SequentialAgent) return 'sequential_agent';
  if (agent instanceof ParallelAgent) return 'parallel_agent';
  if (agent instanceof LoopAgent) return 'loop_agent';
  if (agent instanceof Workflow) return 'workflow';
  return 'agent';
}

function toolName(tool: LlmAgent['tools'][number]): string {
  return isToolset(tool) ? tool.constructor.name : tool.name;
}

/** The agent tree as nodes (agents, their tools) and edges (parent → sub-agent, agent → tool). */
export function agentGraph(root: BaseAgent): AgentGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const add = (node: GraphNode) => {
    if (seen.has(node.id)) return;
    seen.add(node.id);
    nodes.push(node);
  };
  walkAgentTree(root, {
    agent: (agent) =>
      add({
        id: agent.name,
        name: agent.name,
        type: agentType(agent),
        ...(agent.description ? { description: agent.description } : {}),
      }),
    tool: (owner, tool) => {
      const name = toolName(tool);
      add({ id: name, name, type: isToolset(tool) ? 'toolset' : 'tool' });
      edges.push({ from: owner.name, to: name, kind: 'tool' });
    },
    child: (parent, child, kind) => edges.push({ from: parent.name, to: child.name, kind }),
  });
  return { nodes, edges };
}

function quote(id: string): string {
  return `"${id.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface DotOptions {
  /** `[from, to]` pairs drawn highlighted (ADK's event graph: the call or response of an event). */
  highlights?: [string, string][];
  darkMode?: boolean;
}

/** Graphviz DOT of the graph, in the spirit of ADK's agent graph (agents as ellipses, tools as boxes). */
export function graphToDot(graph: AgentGraph, options: DotOptions = {}): string {
  const dark = options.darkMode === true;
  const fg = dark ? '#e8eaed' : '#202124';
  const highlight = '#0F5223';
  const marked = new Set<string>();
  const markedEdges = new Set<string>();
  for (const [from, to] of options.highlights ?? []) {
    if (from) marked.add(from);
    if (to) marked.add(to);
    markedEdges.add(`${from}\u0000${to}`);
    markedEdges.add(`${to}\u0000${from}`);
  }
  const lines = [
    'digraph AgentGraph {',
    `  graph [bgcolor="${dark ? '#333537' : 'transparent'}", rankdir=LR];`,
    `  node [fontcolor="${fg}", color="${fg}"];`,
    `  edge [color="${fg}"];`,
  ];
  for (const node of graph.nodes) {
    const tool = node.type === 'tool' || node.type === 'toolset';
    const attrs = [
      `label=${quote(tool ? `🔧 ${node.name}` : `🤖 ${node.name}`)}`,
      `shape=${tool ? 'box' : 'ellipse'}`,
    ];
    if (marked.has(node.name)) attrs.push('style=filled', `fillcolor="${highlight}"`, 'fontcolor="#ffffff"');
    lines.push(`  ${quote(node.id)} [${attrs.join(', ')}];`);
  }
  for (const edge of graph.edges) {
    const on = markedEdges.has(`${edge.from}\u0000${edge.to}`);
    const attrs = [edge.kind === 'tool' ? 'arrowhead=none' : 'arrowhead=normal'];
    if (on) attrs.push(`color="${highlight}"`, 'penwidth=2');
    lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)} [${attrs.join(', ')}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/**
 * The app as ADK's `build_graph` serializes it (`name`, `root_agent` with `sub_agents` and
 * `tools`, snake_case like ADK's pydantic field names), plus our `graph` (nodes, edges) and `dotSrc`.
 */
export function appInfo(appName: string, root: BaseAgent): Record<string, unknown> {
  const serialize = (agent: BaseAgent): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      name: agent.name,
      description: agent.description,
      type: agentType(agent),
    };
    if (agent instanceof LlmAgent) {
      if (typeof agent.model === 'string') out.model = agent.model;
      else if (agent.model) out.model = agent.model.model;
      if (typeof agent.instruction === 'string') out.instruction = agent.instruction;
      if (agent.outputKey) out.output_key = agent.outputKey;
      out.tools = agent.tools.map((t) => ({ name: toolName(t), type: 'tool' }));
    }
    if (agent instanceof LoopAgent && agent.maxIterations !== undefined)
      out.max_iterations = agent.maxIterations;
    // A workflow is described by its graph (adk-python's `graph`: nodes and routed edges), which
    // already holds the agents it runs.
    if (agent instanceof Workflow) {
      out.graph = serializeWorkflowGraph(agent);
      return out;
    }
    if (agent.subAgents.length > 0) out.sub_agents = agent.subAgents.map(serialize);
    return out;
  };
  if (root instanceof Workflow) {
    return {
      name: appName,
      root_agent: serialize(root),
      graph: workflowDrawing(root),
      dotSrc: workflowDot(root),
    };
  }
  const graph = agentGraph(root);
  return { name: appName, root_agent: serialize(root), graph, dotSrc: graphToDot(graph) };
}
