import { BaseNode, type BaseNodeOptions } from './base-node.js';
import type { NodeContext } from './node-context.js';

/**
 * Fan-in: runs once every predecessor has completed, with `{ predecessorName: output }` as its
 * input, which is also its output.
 */
export class JoinNode extends BaseNode {
  constructor(options: BaseNodeOptions | string) {
    super(typeof options === 'string' ? { name: options } : options);
  }

  override get requiresAllPredecessors(): boolean {
    return true;
  }

  async *runImpl(_ctx: NodeContext, input: unknown): AsyncGenerator<unknown, void, undefined> {
    yield input;
  }
}
