import {
  BaseTool,
  createEvent,
  type FunctionDeclaration,
  type JsonSchema,
  type LlmRequest,
  type ReadonlyContext,
  type ToolContext,
} from '@adk/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpSession } from './mcp-session.js';
import { type McpCallResult, toFunctionResponse } from './result-mapping.js';

/** A progress notification of a running MCP tool call. */
export interface McpProgress {
  /** The server's name. */
  server: string;
  /** The tool's name on the server. */
  tool: string;
  /** The id of the model's function call. */
  functionCallId: string;
  progress: number;
  total?: number;
  message?: string;
}

/** A predicate over a tool call (the server's tool name and the model's arguments). */
export type McpCallPredicate = (
  toolName: string,
  args: Record<string, unknown>,
  context: ToolContext,
) => boolean | Promise<boolean>;

export interface McpToolCallOptions {
  /** Per-call timeout (ms); reset by every progress notification. */
  timeoutMs: number;
  onProgress?: ((progress: McpProgress) => void) | undefined;
  progressEvents?: boolean | undefined;
  requireConfirmation?: boolean | string[] | McpCallPredicate | undefined;
  /** Moves the toolset's media into inline data parts of a model request (once per request). */
  attachMedia: (request: LlmRequest) => void;
}

/** One tool of an MCP server, as an ADK tool. Created by McpToolset. */
export class McpTool extends BaseTool {
  /** The tool's name on the server (the ADK name may carry a prefix or have characters replaced). */
  readonly mcpName: string;
  /** The server's JSON Schema of the arguments, sent to the model as is. */
  readonly inputSchema: JsonSchema;
  readonly annotations: Tool['annotations'];

  constructor(
    name: string,
    tool: Tool,
    private readonly session: McpSession,
    private readonly options: McpToolCallOptions,
  ) {
    super({ name, description: tool.description ?? tool.title ?? tool.name });
    this.mcpName = tool.name;
    this.inputSchema = tool.inputSchema as JsonSchema;
    this.annotations = tool.annotations;
  }

  declaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parameters: this.inputSchema };
  }

  override async requiresConfirmation(args: Record<string, unknown>, context: ToolContext): Promise<boolean> {
    const rule = this.options.requireConfirmation;
    if (rule === undefined || typeof rule === 'boolean') return rule ?? false;
    if (Array.isArray(rule)) return rule.includes(this.mcpName);
    return rule(this.mcpName, args, context);
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<Record<string, unknown>> {
    const { timeoutMs } = this.options;
    const signal = context.signal;
    const onProgress = this.progressReporter(context);
    const result = await this.session.request(
      `tools/call "${this.mcpName}"`,
      (client, own) =>
        client.callTool({ name: this.mcpName, arguments: args }, undefined, {
          ...(own ? { signal: own } : {}),
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          // The SDK asks for progress (sends a progressToken) only when a callback is given.
          ...(onProgress ? { onprogress: onProgress } : {}),
        }),
      signal,
    );
    return toFunctionResponse(result as McpCallResult);
  }

  /** The SDK's progress callback: the toolset's callback and/or a partial event, or none. */
  private progressReporter(
    context: ToolContext,
  ): ((p: { progress: number; total?: number; message?: string }) => void) | undefined {
    const { onProgress, progressEvents } = this.options;
    const emit = progressEvents ? context.invocationContext.emit : undefined;
    if (!onProgress && !emit) return undefined;
    const ctx = context.invocationContext;
    return (p) => {
      const progress: McpProgress = {
        server: this.session.name,
        tool: this.mcpName,
        functionCallId: context.functionCallId,
        progress: p.progress,
        ...(p.total === undefined ? {} : { total: p.total }),
        ...(p.message === undefined ? {} : { message: p.message }),
      };
      onProgress?.(progress);
      // A partial event: shown to whoever iterates the run, never stored in the session.
      emit?.(
        createEvent({
          invocationId: ctx.invocationId,
          author: ctx.agent.name,
          ...(ctx.branch === undefined ? {} : { branch: ctx.branch }),
          partial: true,
          customMetadata: { mcpProgress: progress },
        }),
      );
    };
  }

  override processLlmRequest(_context: ReadonlyContext, request: LlmRequest): void {
    // Every tool of the toolset asks; the toolset's attacher acts once per request.
    this.options.attachMedia(request);
  }
}
