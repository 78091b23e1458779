import { ValidationError } from '../errors/errors.js';
import type { BaseTool } from '../tools/base-tool.js';
import { ToolContext } from '../tools/tool-context.js';
import { isPlainObject } from '../utils/json.js';
import { BaseNode, type BaseNodeOptions } from './base-node.js';
import type { NodeContext } from './node-context.js';

/** A tool as a node: its input object is the call's arguments, its result the node's output. */
export class ToolNode extends BaseNode {
  readonly tool: BaseTool;

  constructor(tool: BaseTool, options: Partial<BaseNodeOptions> = {}) {
    super({ description: tool.description, ...options, name: options.name ?? tool.name });
    this.tool = tool;
  }

  async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<unknown, void, undefined> {
    const args = input === undefined || input === null ? {} : input;
    if (!isPlainObject(args)) {
      throw new ValidationError(
        `Tool node "${this.name}" needs an object of arguments as its input, got ${typeof input}`,
      );
    }
    const toolCtx = new ToolContext(
      ctx.invocationContext.with({ signal: ctx.abortSignal }),
      ctx.path,
      ctx.actions,
    );
    const result = await this.tool.run(args, toolCtx);
    if (result !== undefined) yield result;
  }
}
