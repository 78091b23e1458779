import {
  BaseTool,
  type FunctionDeclaration,
  type LlmRequest,
  type ReadonlyContext,
  type ToolContext,
  withLongRunningNote,
} from '@adk/core';

/**
 * A tool marked long-running: the call starts work that finishes later, and the invocation pauses
 * until the function response arrives (ADK's LongRunningFunctionTool). Wraps an existing tool,
 * usually a FunctionTool, keeping its name, declaration and behaviour.
 */
export class LongRunningFunctionTool extends BaseTool {
  readonly tool: BaseTool;

  constructor(tool: BaseTool) {
    super({
      name: tool.name,
      description: tool.description,
      isLongRunning: true,
      ...(tool.behavior ? { behavior: tool.behavior } : {}),
      ...(tool.scheduling ? { scheduling: tool.scheduling } : {}),
    });
    this.tool = tool;
  }

  /** The wrapped tool's declaration with ADK's long-running note, as the code class has it. */
  declaration(): FunctionDeclaration | undefined {
    const declaration = this.tool.declaration();
    // A tool already long-running carries the note in its own declaration.
    if (!declaration || this.tool.isLongRunning) return declaration;
    return { ...declaration, description: withLongRunningNote(declaration.description) };
  }

  run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    return this.tool.run(args, context);
  }

  override requiresConfirmation(
    args: Record<string, unknown>,
    context: ToolContext,
  ): boolean | Promise<boolean> {
    return this.tool.requiresConfirmation(args, context);
  }

  override async processLlmRequest(context: ReadonlyContext, request: LlmRequest): Promise<void> {
    await this.tool.processLlmRequest?.(context, request);
  }
}
