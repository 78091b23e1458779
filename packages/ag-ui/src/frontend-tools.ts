import {
  type BaseAgent,
  BaseTool,
  BaseToolset,
  type FunctionDeclaration,
  isPlainObject,
  type JsonSchema,
  LlmAgent,
  type ReadonlyContext,
} from '@adk/core';

/** Where a run's client-side tools travel: `runConfig.custom[FRONTEND_TOOLS_KEY]`. */
export const FRONTEND_TOOLS_KEY = 'ag_ui_tools';

/** A tool the client declared in `RunAgentInput.tools`. */
export interface FrontendToolSpec {
  name: string;
  description: string;
  parameters?: unknown;
}

/** A tool executed by the client: the call stays open (long-running) until a tool message answers it. */
export class FrontendTool extends BaseTool {
  constructor(private readonly spec: FrontendToolSpec) {
    super({ name: spec.name, description: spec.description, isLongRunning: true });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.spec.name,
      description: this.spec.description,
      parameters: isPlainObject(this.spec.parameters)
        ? (this.spec.parameters as JsonSchema)
        : ({ type: 'object', properties: {} } as JsonSchema),
    };
  }

  async run(): Promise<unknown> {
    return undefined;
  }
}

/**
 * The client's tools of the current run (AG-UI `tools`), as the agent's tools. A name the agent
 * already has stays the agent's own.
 */
export class FrontendToolset extends BaseToolset {
  getTools(context: ReadonlyContext): BaseTool[] {
    const specs = context.invocationContext.runConfig.custom?.[FRONTEND_TOOLS_KEY];
    if (!Array.isArray(specs) || specs.length === 0) return [];
    const agent = context.invocationContext.agent;
    const own = new Set(
      agent instanceof LlmAgent ? agent.tools.flatMap((t) => (t instanceof BaseTool ? [t.name] : [])) : [],
    );
    return (specs as FrontendToolSpec[]).filter((s) => !own.has(s.name)).map((s) => new FrontendTool(s));
  }
}

/** Adds a {@link FrontendToolset} to every LlmAgent of the tree that has none (once). */
export function installFrontendTools(root: BaseAgent): void {
  for (const agent of root.descendantsAndSelf()) {
    if (!(agent instanceof LlmAgent)) continue;
    if (agent.tools.some((t) => t instanceof FrontendToolset)) continue;
    // A new array: the flow re-resolves the tools of an agent whose list was replaced.
    (agent as { tools: LlmAgent['tools'] }).tools = [...agent.tools, new FrontendToolset()];
  }
}
