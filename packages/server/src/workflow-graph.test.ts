import {
  DEFAULT_ROUTE,
  InMemorySessionService,
  JoinNode,
  LlmAgent,
  type NodeContext,
  node,
  START,
  Workflow,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';

// GET /dev/apps/{app}/build_graph of a workflow app: adk-python's graph JSON (`root_agent.graph`
// with nodes and routed edges), plus the drawn graph (with START and END) and its DOT text.

function triage(): Workflow {
  const classify = (ctx: NodeContext, text: unknown) => {
    ctx.route = String(text).includes('refund') ? 'refund' : 'other';
    return text;
  };
  const orders = (_ctx: NodeContext, text: unknown) => `order of ${text}`;
  const policy = (_ctx: NodeContext) => 'policy ok';
  const join = new JoinNode('join');
  const decide = (ctx: NodeContext, all: unknown) => {
    ctx.route = Object.keys(all as object).length === 2 ? 'done' : 'again';
    return all;
  };
  const answer = new LlmAgent({ name: 'answer', model: new ScriptedModel({ respond: () => 'hi' }) });
  const review = new Workflow({
    name: 'review',
    description: 'a nested workflow',
    edges: [START, node((_ctx, x) => x, { name: 'check' })],
  });
  return new Workflow({
    name: 'triage',
    description: 'routes, joins and loops',
    edges: [
      [START, classify, { refund: [orders, policy], [DEFAULT_ROUTE]: answer }],
      [orders, join],
      [policy, join],
      [join, decide, { again: classify, done: review }],
    ],
  });
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ apps: { triage: triage() }, sessionService: new InMemorySessionService() });
});
afterAll(async () => {
  await server?.close();
});

async function get<T>(path: string, status = 200): Promise<T> {
  const response = await fetch(`${server.url}${path}`);
  expect(response.status).toBe(status);
  return (await response.json()) as T;
}

type Node = { name: string; type: string; rerun_on_resume?: boolean; graph?: Graph };
type Graph = { nodes: Node[]; edges: { from_node: Node; to_node: Node; route?: string | string[] }[] };

describe('build_graph of a workflow', () => {
  it("answers adk-python's graph JSON: typed nodes from START, edges with their routes", async () => {
    const info = await get<{ name: string; root_agent: { name: string; type: string; graph: Graph } }>(
      '/dev/apps/triage/build_graph',
    );
    expect(info.name).toBe('triage');
    expect(info.root_agent.name).toBe('triage');
    expect(info.root_agent.type).toBe('workflow');
    const { nodes, edges } = info.root_agent.graph;
    expect(nodes.map((n) => [n.name, n.type])).toEqual([
      ['__START__', 'start'],
      ['classify', 'function'],
      ['orders', 'function'],
      ['policy', 'function'],
      ['answer', 'agent'],
      ['join', 'join'],
      ['decide', 'function'],
      ['review', 'workflow'],
    ]);
    expect(nodes[1]).toEqual({ name: 'classify', type: 'function', rerun_on_resume: false });
    const flat = edges.map((e) => [e.from_node.name, e.to_node.name, e.route ?? null]);
    expect(flat).toEqual([
      ['__START__', 'classify', null],
      ['classify', 'orders', 'refund'],
      ['classify', 'policy', 'refund'],
      ['classify', 'answer', '__DEFAULT__'],
      ['orders', 'join', null],
      ['policy', 'join', null],
      ['join', 'decide', null],
      // The loop: a routed back-edge.
      ['decide', 'classify', 'again'],
      ['decide', 'review', 'done'],
    ]);
    // Edge ends are whole serialized nodes, as adk-python writes them.
    expect(edges[0]?.from_node).toEqual({ name: '__START__', type: 'start', rerun_on_resume: false });
    // A nested workflow carries its own graph.
    const review = nodes.find((n) => n.name === 'review');
    expect(review?.graph?.edges.map((e) => [e.from_node.name, e.to_node.name])).toEqual([
      ['__START__', 'check'],
    ]);
  });

  it('adds the drawn graph with START, END after each terminal node, and DOT with route labels', async () => {
    const info = await get<{
      graph: {
        nodes: { id: string; type: string }[];
        edges: { from: string; to: string; route?: unknown }[];
      };
      dotSrc: string;
    }>('/dev/apps/triage/build_graph');
    expect(info.graph.nodes.at(0)).toEqual({ id: '__START__', name: 'START', type: 'start' });
    expect(info.graph.nodes.at(-1)).toEqual({ id: '__END__', name: 'END', type: 'end' });
    expect(info.graph.edges.filter((e) => e.to === '__END__').map((e) => e.from)).toEqual([
      'answer',
      'review',
    ]);
    expect(info.graph.edges).toContainEqual({ from: 'decide', to: 'classify', kind: 'edge', route: 'again' });
    expect(info.dotSrc).toContain('"classify" -> "orders" [label="refund"];');
    expect(info.dotSrc).toContain('"classify" -> "answer" [label="default"];');
    expect(info.dotSrc).toContain('"join" [label="join", shape=diamond];');
    const image = await get<Record<string, { dotSrc: string }>>('/dev/apps/triage/build_graph_image');
    expect(image['']?.dotSrc).toBe(info.dotSrc);
  });

  it('answers 404 for an unknown app', async () => {
    await get('/dev/apps/ghost/build_graph', 404);
  });
});
