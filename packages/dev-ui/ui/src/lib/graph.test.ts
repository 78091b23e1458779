import { describe, expect, it } from 'vitest';
import { layout, parseDot, toGraph } from './graph.js';

const DOT = `digraph AgentGraph {
  graph [bgcolor="transparent", rankdir=LR];
  node [fontcolor="#202124", color="#202124"];
  "router" [label="🤖 router", shape=ellipse];
  "billing" [label="🤖 billing", shape=ellipse];
  "lookup" [label="🔧 lookup", shape=box];
  "router" -> "billing" [arrowhead=normal];
  "billing" -> "lookup" [arrowhead=none];
}
`;

describe('agent graph', () => {
  it('reads the DOT the server writes: nodes with labels and kinds, and edges', () => {
    const g = parseDot(DOT);
    expect(g.nodes).toEqual([
      { id: 'router', label: '🤖 router', kind: 'agent' },
      { id: 'billing', label: '🤖 billing', kind: 'agent' },
      { id: 'lookup', label: '🔧 lookup', kind: 'tool' },
    ]);
    expect(g.edges).toEqual([
      { from: 'router', to: 'billing' },
      { from: 'billing', to: 'lookup' },
    ]);
  });

  it("prefers build_graph's JSON graph, and reads an agent tree", () => {
    const fromJson = toGraph({
      name: 'app',
      dotSrc: 'digraph { a -> b }',
      graph: {
        nodes: [
          { id: 'a', name: 'a', type: 'llm_agent' },
          { id: 't', name: 't', type: 'tool' },
        ],
        edges: [{ from: 'a', to: 't', kind: 'tool' }],
      },
    });
    expect(fromJson).toEqual({
      nodes: [
        { id: 'a', label: 'a', kind: 'llm_agent' },
        { id: 't', label: 't', kind: 'tool' },
      ],
      edges: [{ from: 'a', to: 't' }],
    });
    const tree = toGraph({ name: 'root', tools: [{ name: 'x' }], subAgents: [{ name: 'child' }] });
    expect(tree?.nodes.map((n) => n.id)).toEqual(['root', 'root/x', 'child']);
    expect(tree?.edges).toEqual([
      { from: 'root', to: 'root/x' },
      { from: 'root', to: 'child' },
    ]);
  });

  it('lays nodes out in layers by depth', () => {
    const pos = layout(parseDot(DOT));
    expect(pos.y.get('router')).toBeLessThan(pos.y.get('billing') as number);
    expect(pos.y.get('billing')).toBeLessThan(pos.y.get('lookup') as number);
  });
});
