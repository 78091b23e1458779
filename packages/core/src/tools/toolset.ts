import type { ReadonlyContext } from '../agents/callback-context.js';
import type { BaseTool } from './base-tool.js';

/** A provider of tools, asked once per model call (tools may depend on state or the user). */
export abstract class BaseToolset {
  abstract getTools(context: ReadonlyContext): Promise<BaseTool[]> | BaseTool[];
  /** Releases connections and other resources. */
  close?(): Promise<void>;
}

export type ToolFilter = string[] | ((tool: BaseTool, context: ReadonlyContext) => boolean);

export interface ToolsetOptions {
  tools: BaseTool[] | ((context: ReadonlyContext) => Promise<BaseTool[]> | BaseTool[]);
  /** Only these tools (by name), or those the predicate accepts. */
  filter?: ToolFilter;
  /** Prefix added to every tool name (`prefix_name`), to keep names unique across toolsets. */
  namePrefix?: string;
}

/** A toolset from a list or function of tools, with an optional filter and name prefix. */
export class Toolset extends BaseToolset {
  constructor(private readonly options: ToolsetOptions) {
    super();
  }

  async getTools(context: ReadonlyContext): Promise<BaseTool[]> {
    const { tools, filter, namePrefix } = this.options;
    let list = typeof tools === 'function' ? await tools(context) : tools;
    if (filter) {
      list = Array.isArray(filter)
        ? list.filter((t) => filter.includes(t.name))
        : list.filter((t) => filter(t, context));
    }
    return namePrefix ? list.map((t) => prefixed(t, `${namePrefix}_${t.name}`)) : list;
  }
}

/** The same tool under another name. */
function prefixed(tool: BaseTool, name: string): BaseTool {
  const renamed = Object.create(tool) as BaseTool;
  Object.defineProperty(renamed, 'name', { value: name });
  Object.defineProperty(renamed, 'declaration', {
    value: () => {
      const d = tool.declaration();
      return d && { ...d, name };
    },
  });
  return renamed;
}

export type ToolUnion = BaseTool | BaseToolset;

export function isToolset(value: ToolUnion): value is BaseToolset {
  return typeof (value as BaseToolset).getTools === 'function';
}
