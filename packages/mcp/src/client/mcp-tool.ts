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
import {
  elicitationReplay,
  elicitationRequestOf,
  MCP_ELICITATION,
  type McpElicitationAnswer,
  type McpElicitationHandler,
  type McpElicitationRequest,
  type StoredElicitation,
} from './elicitation.js';
import type { Elicitor, McpSession } from './mcp-session.js';
import { type McpCallResult, toFunctionResponse } from './result-mapping.js';
import { MCP_TASK_STATE_PREFIX, type McpTaskRecord, startTask } from './tasks.js';

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
  /** Answers elicitations in code; those it leaves (undefined) pause the run for the user. */
  elicitationHandler?: McpElicitationHandler | undefined;
  /** Run the tool as an MCP task (task-augmented call): a long-running call whose result comes later. */
  task?: { ttlMs: number } | undefined;
}

/** The MCP error a server answers with when the user must first complete a URL flow. */
const URL_ELICITATION_REQUIRED = -32042;

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
    super({
      name,
      description: tool.description ?? tool.title ?? tool.name,
      isLongRunning: options.task !== undefined,
    });
    this.mcpName = tool.name;
    this.inputSchema = tool.inputSchema as JsonSchema;
    this.annotations = tool.annotations;
    // MCP Apps: `_meta.ui.resourceUri` (and the older flat `ui/resourceUri` key).
    const meta = (tool._meta ?? {}) as Record<string, unknown>;
    const ui = meta.ui as { resourceUri?: unknown } | undefined;
    const uri = ui?.resourceUri ?? meta['ui/resourceUri'];
    this.uiResourceUri = typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
  }

  /** The tool's MCP Apps view (`ui://…`), if it has one. */
  readonly uiResourceUri: string | undefined;

  declaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parameters: this.inputSchema };
  }

  override async requiresConfirmation(args: Record<string, unknown>, context: ToolContext): Promise<boolean> {
    const rule = this.options.requireConfirmation;
    if (rule === undefined || typeof rule === 'boolean') return rule ?? false;
    if (Array.isArray(rule)) return rule.includes(this.mcpName);
    return rule(this.mcpName, args, context);
  }

  async run(
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<Record<string, unknown> | undefined> {
    if (this.options.task) return this.runAsTask(args, context, this.options.task.ttlMs);
    const { timeoutMs, elicitationHandler } = this.options;
    const signal = context.signal;
    const onProgress = this.progressReporter(context);
    // A call the user answered an elicitation of runs again: earlier answers are replayed in order.
    const replay = elicitationReplay(context);
    if (replay?.retry) return this.pause(context, replay.retry.stored, replay.retry.error);
    const answers: McpElicitationAnswer[] = [...(replay?.answers ?? [])];
    let asked = 0;
    let question: McpElicitationRequest | undefined;
    const elicitor: Elicitor = async (params) => {
      const index = asked++;
      const known = answers[index];
      if (known) return known;
      const request = elicitationRequestOf(params, this.session.name, this.mcpName);
      const handled = question ? undefined : await elicitationHandler?.(request, context);
      if (handled) {
        answers.push(handled);
        return handled;
      }
      // Left to the user: the server hears "cancel" now, the run pauses, and the call is made
      // again once the user has answered (the answer is in the session, so it survives restarts).
      question ??= request;
      return { action: 'cancel' };
    };
    let result: unknown;
    try {
      result = await this.session.request(
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
        elicitor,
      );
    } catch (error) {
      const urlQuestion = question
        ? undefined
        : urlElicitationRequired(error, this.session.name, this.mcpName);
      // Consent was given (an answer is recorded) but the server asks again: that is its error.
      if (!urlQuestion || answers.length > asked) throw error;
      question = urlQuestion;
    }
    if (question) return this.pause(context, { question, answers: answers.slice(0, asked) });
    const response = toFunctionResponse(result as McpCallResult);
    if (this.uiResourceUri && !(result as McpCallResult).isError) {
      const app = await this.saveUiResource(this.uiResourceUri, context);
      if (app) response.mcpApp = app;
    }
    return response;
  }

  /**
   * MCP Apps: the tool's `ui://` view is read from the server and saved as an artifact of the
   * session (HTML with its MIME type), so the dev UI and other clients can render it next to the
   * result; the response names it.
   */
  private async saveUiResource(
    uri: string,
    context: ToolContext,
  ): Promise<{ resourceUri: string; artifact: string; version: number; mimeType: string } | undefined> {
    const read = await this.session
      .request(`resources/read "${uri}"`, (client, own) =>
        client.readResource({ uri }, { timeout: this.options.timeoutMs, ...(own ? { signal: own } : {}) }),
      )
      .catch(() => undefined);
    const content = read?.contents.find((c) => c.uri === uri) ?? read?.contents[0];
    if (!content || !context.invocationContext.artifactService) return undefined;
    const mimeType = content.mimeType ?? 'text/html;profile=mcp-app';
    const data =
      'text' in content && typeof content.text === 'string'
        ? Buffer.from(content.text, 'utf8').toString('base64')
        : 'blob' in content && typeof content.blob === 'string'
          ? content.blob
          : undefined;
    if (data === undefined) return undefined;
    const artifact = `mcp-app_${this.session.name}_${uri.slice('ui://'.length)}`.replace(
      /[^A-Za-z0-9._-]/g,
      '_',
    );
    const version = await context.saveArtifact(
      artifact,
      { inlineData: { mimeType, data } },
      { mcpAppResourceUri: uri },
    );
    return { resourceUri: uri, artifact, version, mimeType };
  }

  /**
   * Starts the call as an MCP task and records it in the call's event (the task id is in the log):
   * no response yet, so the invocation pauses until `McpToolset.resumeTasks` delivers the result.
   */
  private async runAsTask(
    args: Record<string, unknown>,
    context: ToolContext,
    ttlMs: number,
  ): Promise<undefined> {
    const taskId = await startTask(
      this.session,
      this.mcpName,
      args,
      ttlMs,
      this.options.timeoutMs,
      context.signal,
    );
    const record: McpTaskRecord = {
      server: this.session.name,
      tool: this.name,
      mcpTool: this.mcpName,
      taskId,
      functionCallId: context.functionCallId,
      ...(this.session.sessionId ? { mcpSessionId: this.session.sessionId } : {}),
    };
    context.state.set(`${MCP_TASK_STATE_PREFIX}${context.functionCallId}`, record);
    return undefined;
  }

  /** Asks the user through the one pause mechanism: a confirmation whose payload is the elicitation. */
  private pause(context: ToolContext, stored: StoredElicitation, error?: string): Record<string, unknown> {
    const { question } = stored;
    const hint =
      question.mode === 'url' ? `${question.message} ${question.url ?? ''}`.trim() : question.message;
    context.requestConfirmation(error ? `${error}. ${hint}` : hint, { [MCP_ELICITATION]: stored });
    return { status: 'waiting for user input', elicitation: question.message };
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

/** The URL elicitation of a -32042 error (the server needs the user to open a URL first). */
function urlElicitationRequired(
  error: unknown,
  server: string,
  tool: string,
): McpElicitationRequest | undefined {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const { code, data } = cause as { code?: unknown; data?: unknown };
  if (code !== URL_ELICITATION_REQUIRED || typeof data !== 'object' || data === null) return undefined;
  const list = (data as { elicitations?: unknown }).elicitations;
  const first = Array.isArray(list) ? list[0] : undefined;
  if (typeof first !== 'object' || first === null) return undefined;
  return elicitationRequestOf({ mode: 'url', ...(first as object) } as never, server, tool);
}
