import type { RouteValue } from '../events/event.js';
import { type BaseNode, START } from './base-node.js';
import { WorkflowValidationError } from './errors.js';
import { type NodeLike, toNode } from './node.js';

/** The routing-map key (and `Edge` route) of the edge taken when no other route matched. */
export const DEFAULT_ROUTE = '__DEFAULT__';

/** `{ routeValue: nodeOrGroup, [DEFAULT_ROUTE]: … }`: edges taken by the route the node before sets. */
export type RoutingMap = { [route: string]: NodeLike | readonly NodeLike[] };
/** One element of a chain: a node, a fan-out group (an array) or a routing map. */
export type ChainElement = NodeLike | readonly NodeLike[] | RoutingMap;

/** One edge, given explicitly (`route`: a value, a list of values, `DEFAULT_ROUTE` or none). */
export class Edge {
  constructor(
    readonly fromNode: NodeLike,
    readonly toNode: NodeLike,
    readonly route: RouteValue | RouteValue[] | null = null,
  ) {}
}

/** A chain (`[START, a, [b, c], join, { yes: d, no: e }]`) or an explicit edge. */
export type EdgeItem = readonly ChainElement[] | Edge;

export interface GraphEdge {
  from: BaseNode;
  to: BaseNode;
  /** Route values (as text) that take this edge; null for an unrouted edge. */
  routes: string[] | null;
  isDefault: boolean;
}

/** A routing map is an object literal; agents, tools and nodes are class instances. */
function isRoutingMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isNodeValue(value: unknown): boolean {
  return (
    value === 'START' ||
    typeof value === 'function' ||
    (typeof value === 'object' && value !== null && !Array.isArray(value) && !isRoutingMap(value))
  );
}

/** The validated graph of a workflow. */
export class Graph {
  readonly nodes = new Map<string, BaseNode>();
  readonly edges: GraphEdge[] = [];
  private readonly outgoing = new Map<string, GraphEdge[]>();
  private readonly predecessors = new Map<string, string[]>();

  constructor(items: readonly EdgeItem[] | readonly ChainElement[]) {
    const list = items as readonly unknown[];
    const chains =
      list.length > 0 && list.every((i) => Array.isArray(i) || i instanceof Edge) ? list : [list];
    for (const item of chains) {
      if (item instanceof Edge) this.addExplicit(item);
      else this.addChain(item as readonly unknown[]);
    }
    this.validate();
  }

  private register(node: BaseNode): BaseNode {
    if (node === START) return node;
    const known = this.nodes.get(node.name);
    if (known && known !== node) {
      throw new WorkflowValidationError(
        'duplicate-name',
        `two different nodes are named "${node.name}" (give one another name with node(x, { name }))`,
        { node: node.name },
      );
    }
    this.nodes.set(node.name, node);
    return node;
  }

  private add(from: BaseNode, to: BaseNode, routes: RouteValue[] | null): void {
    let isDefault = false;
    let texts: string[] | null = null;
    if (routes) {
      texts = [];
      for (const r of routes) {
        if (r === DEFAULT_ROUTE) isDefault = true;
        else texts.push(String(r));
      }
      if (isDefault && texts.length > 0) {
        throw new WorkflowValidationError(
          'invalid-edge',
          `an edge from "${from.name}" mixes DEFAULT_ROUTE with other routes`,
        );
      }
    }
    if (to === START) {
      throw new WorkflowValidationError('edge-into-start', `an edge from "${from.name}" leads into START`);
    }
    if (from === START && routes) {
      throw new WorkflowValidationError(
        'routed-edge-from-start',
        `an edge from START to "${to.name}" has a route; START's edges are unconditional`,
      );
    }
    const key = (e: GraphEdge) =>
      `${e.isDefault ? '\u0000default' : (e.routes?.join('\u0001') ?? '\u0000none')}`;
    const edge: GraphEdge = { from, to, routes: isDefault ? null : texts, isDefault };
    const out = this.outgoing.get(from.name) ?? [];
    for (const other of out) {
      if (other.to === to && key(other) === key(edge)) {
        throw new WorkflowValidationError(
          'duplicate-edge',
          `the edge from "${from.name}" to "${to.name}" is given twice`,
          {
            from: from.name,
            to: to.name,
          },
        );
      }
    }
    if (isDefault && out.some((e) => e.isDefault)) {
      throw new WorkflowValidationError(
        'multiple-default-routes',
        `node "${from.name}" has more than one DEFAULT_ROUTE edge`,
        {
          node: from.name,
        },
      );
    }
    out.push(edge);
    this.outgoing.set(from.name, out);
    this.edges.push(edge);
    const preds = this.predecessors.get(to.name) ?? [];
    if (!preds.includes(from.name)) preds.push(from.name);
    this.predecessors.set(to.name, preds);
  }

  private addExplicit(edge: Edge): void {
    const from = this.register(toNode(edge.fromNode));
    const to = this.register(toNode(edge.toNode));
    const routes =
      edge.route === null || edge.route === undefined
        ? null
        : Array.isArray(edge.route)
          ? edge.route
          : [edge.route];
    if (routes && routes.length === 0)
      throw new WorkflowValidationError(
        'invalid-edge',
        `the edge from "${from.name}" has an empty route list`,
      );
    this.add(from, to, routes);
  }

  /** Nodes of a group or a single element, in order. */
  private members(element: unknown, where: string): BaseNode[] {
    if (Array.isArray(element)) {
      if (element.length === 0)
        throw new WorkflowValidationError('invalid-edge', `an empty group in ${where}`);
      return element.map((e) => {
        if (!isNodeValue(e))
          throw new WorkflowValidationError('invalid-edge', `a group in ${where} may only hold nodes`);
        return this.register(toNode(e));
      });
    }
    return [this.register(toNode(element))];
  }

  private addChain(chain: readonly unknown[]): void {
    let exits: BaseNode[] = [];
    chain.forEach((element, index) => {
      const where = `chain element ${index + 1}`;
      if (isRoutingMap(element)) {
        const entries = Object.entries(element);
        if (entries.length === 0)
          throw new WorkflowValidationError('empty-routing-map', `the routing map at ${where} is empty`);
        if (exits.length === 0)
          throw new WorkflowValidationError(
            'invalid-edge',
            `a chain cannot start with a routing map (${where})`,
          );
        const next: BaseNode[] = [];
        for (const [key, target] of entries) {
          const route: RouteValue = key;
          for (const to of this.members(target, where)) {
            for (const from of exits) this.add(from, to, [route]);
            if (!next.includes(to)) next.push(to);
          }
        }
        exits = next;
        return;
      }
      const targets = this.members(element, where);
      for (const to of targets) for (const from of exits) this.add(from, to, null);
      exits = targets;
    });
  }

  private validate(): void {
    if (!this.outgoing.has(START.name)) {
      throw new WorkflowValidationError(
        'unreachable-node',
        'no edge starts at START (begin a chain with START or "START")',
      );
    }
    const reached = new Set<string>();
    const stack = [START.name];
    while (stack.length > 0) {
      const name = stack.pop() as string;
      for (const e of this.outgoing.get(name) ?? []) {
        if (reached.has(e.to.name)) continue;
        reached.add(e.to.name);
        stack.push(e.to.name);
      }
    }
    for (const name of this.nodes.keys()) {
      if (!reached.has(name)) {
        throw new WorkflowValidationError('unreachable-node', `node "${name}" cannot be reached from START`, {
          node: name,
        });
      }
    }
    // A cycle must pass through a routed edge, or it would never end.
    const state = new Map<string, 1 | 2>();
    const visit = (name: string, trail: string[]): void => {
      state.set(name, 1);
      for (const e of this.outgoing.get(name) ?? []) {
        if (e.routes !== null || e.isDefault) continue;
        const s = state.get(e.to.name);
        if (s === 1) {
          const cycle = [...trail.slice(trail.indexOf(e.to.name)), e.to.name];
          throw new WorkflowValidationError(
            'unconditional-cycle',
            `the cycle ${cycle.join(' → ')} has no routed edge, so it would never end`,
            { cycle },
          );
        }
        if (s === undefined) visit(e.to.name, [...trail, e.to.name]);
      }
      state.set(name, 2);
    };
    for (const name of this.nodes.keys()) if (!state.has(name)) visit(name, [name]);
  }

  /** Nodes with no outgoing edge: their output is the workflow's. */
  isTerminal(name: string): boolean {
    return !this.outgoing.has(name);
  }

  predecessorsOf(name: string): readonly string[] {
    return this.predecessors.get(name) ?? [];
  }

  outgoingOf(name: string): readonly GraphEdge[] {
    return this.outgoing.get(name) ?? [];
  }

  /** The nodes a completed node triggers: matching routed edges (else the default), and every unrouted edge. */
  next(name: string, route: RouteValue | RouteValue[] | undefined): BaseNode[] {
    const edges = this.outgoing.get(name);
    if (!edges) return [];
    const wanted = route === undefined ? [] : (Array.isArray(route) ? route : [route]).map(String);
    const out: BaseNode[] = [];
    let matched = false;
    for (const e of edges) {
      if (e.routes === null) {
        if (!e.isDefault && !out.includes(e.to)) out.push(e.to);
        continue;
      }
      if (e.routes.some((r) => wanted.includes(r))) {
        matched = true;
        if (!out.includes(e.to)) out.push(e.to);
      }
    }
    if (!matched) for (const e of edges) if (e.isDefault && !out.includes(e.to)) out.push(e.to);
    return out;
  }
}
