import { BaseAgent } from '../agents/base-agent.js';
import { ConfigError } from '../errors/errors.js';
import { BaseTool } from '../tools/base-tool.js';
import { AgentNode } from './agent-node.js';
import { BaseNode, type BaseNodeOptions, isBaseNode, START } from './base-node.js';
import { FunctionNode, type FunctionNodeHandler } from './function-node.js';
import { ParallelWorker } from './parallel-worker.js';
import { ToolNode } from './tool-node.js';

/** Anything that can be a workflow node: a node, an agent (a workflow too), a tool or a function. */
export type NodeLike = BaseNode | BaseAgent | BaseTool | FunctionNodeHandler<never, unknown> | 'START';

export interface NodeOptions extends Partial<BaseNodeOptions> {
  /** Run the node once per item of its input list, concurrently; the output is the list of results. */
  parallelWorker?: boolean;
  /** With `parallelWorker`: how many items run at once. */
  maxParallelWorkers?: number;
}

/**
 * A Workflow used as a node wraps itself (its class has `asSubWorkflowNode`): asked of the value
 * rather than registered by workflow.ts at load, so that nothing runs at import and a bundle that
 * never uses workflows drops them.
 */
interface WorkflowAsNode {
  asSubWorkflowNode(options: Partial<BaseNodeOptions>): BaseNode;
}

function isWorkflowAsNode(value: object): value is WorkflowAsNode {
  return typeof (value as Partial<WorkflowAsNode>).asSubWorkflowNode === 'function';
}

/** The node an agent, tool or function becomes when it appears in edges without options. */
const implicit = new WeakMap<object, BaseNode>();

function build(value: unknown, options: Partial<BaseNodeOptions>): BaseNode {
  if (isBaseNode(value)) return value;
  if (value instanceof BaseAgent) {
    if (isWorkflowAsNode(value)) return value.asSubWorkflowNode(options);
    return new AgentNode(value, options);
  }
  if (value instanceof BaseTool) {
    return new ToolNode(value, options);
  }
  if (typeof value === 'function') {
    const name = options.name ?? value.name;
    if (!name) {
      throw new ConfigError('A function node needs a name: use a named function or node(fn, { name })');
    }
    const { name: _ignored, ...rest } = options;
    return new FunctionNode(name, value as FunctionNodeHandler, rest);
  }
  throw new ConfigError(`Not a node: ${describe(value)} (use a function, an agent, a tool or a BaseNode)`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? `an object (${Object.keys(value as object).join(', ')})` : typeof value;
}

/** @internal the node a value in `edges` stands for; the same value always gives the same node */
export function toNode(value: unknown): BaseNode {
  if (value === 'START' || value === START) return START;
  if (isBaseNode(value)) return value;
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
    const known = implicit.get(value as object);
    if (known) return known;
    const made = build(value, {});
    implicit.set(value as object, made);
    return made;
  }
  throw new ConfigError(`Not a node: ${describe(value)} (use a function, an agent, a tool or a BaseNode)`);
}

/**
 * Makes a node from a function, agent, tool or node, with options: its name, `rerunOnResume`,
 * `retryConfig`, `timeout` (seconds), `parallelWorker` and `maxParallelWorkers`.
 */
export function node(fnOrNode: NodeLike, options: NodeOptions = {}): BaseNode {
  const { parallelWorker, maxParallelWorkers, ...rest } = options;
  let inner: BaseNode;
  if (fnOrNode === 'START') return START;
  if (isBaseNode(fnOrNode)) {
    inner = Object.keys(rest).length === 0 ? fnOrNode : new OverriddenNode(fnOrNode, rest);
  } else {
    inner = build(fnOrNode, parallelWorker ? { ...(rest.name ? { name: rest.name } : {}) } : rest);
  }
  if (!parallelWorker) {
    if (maxParallelWorkers !== undefined)
      throw new ConfigError('maxParallelWorkers needs parallelWorker: true');
    return inner;
  }
  return new ParallelWorker(inner, {
    ...rest,
    ...(maxParallelWorkers !== undefined ? { maxParallelWorkers } : {}),
  });
}

/** A node with some options replaced (name, retries, timeout, …); runs the original. */
class OverriddenNode extends BaseNode {
  constructor(
    readonly original: BaseNode,
    options: Partial<BaseNodeOptions>,
  ) {
    super({
      name: original.name,
      description: original.description,
      rerunOnResume: original.rerunOnResume,
      ...(original.retryConfig ? { retryConfig: original.retryConfig } : {}),
      ...(original.timeout !== undefined ? { timeout: original.timeout } : {}),
      ...options,
    });
  }
  override get requiresAllPredecessors(): boolean {
    return this.original.requiresAllPredecessors;
  }
  runImpl(ctx: Parameters<BaseNode['runImpl']>[0], input: unknown) {
    return this.original.runImpl(ctx, input);
  }
}
