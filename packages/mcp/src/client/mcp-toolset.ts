import {
  type BaseTool,
  BaseToolset,
  type Event,
  type LlmRequest,
  NotFoundError,
  type ReadonlyContext,
  type Runner,
} from '@adk/core';
import type { GetPromptResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { defaultServerName, type McpConnection } from './connection.js';
import type { McpElicitationHandler } from './elicitation.js';
import { McpSession } from './mcp-session.js';
import { type McpCallPredicate, type McpProgress, McpTool } from './mcp-tool.js';
import { ListResourcesTool, ReadResourceTool } from './resource-tools.js';
import { mediaAttacher } from './result-mapping.js';
import { type McpSamplingPolicy, registerSampling } from './sampling.js';
import { awaitTask, cancelTask, type McpTaskRecord, pendingTasks } from './tasks.js';

export interface McpTaskSessionParams {
  runner: Runner;
  userId: string;
  sessionId: string;
  signal?: AbortSignal;
}

export interface McpToolsetOptions {
  /** How to reach the server: a spawned process (stdio), Streamable HTTP, or legacy SSE. */
  connection: McpConnection;
  /** The server's name in error messages and progress (default: the command or the URL's host). */
  name?: string;
  /** Only these tools (server names), or those the predicate accepts. */
  toolFilter?: string[] | ((tool: McpTool, context: ReadonlyContext) => boolean);
  /** Prefix added to every tool name (`prefix_name`), to keep names unique across toolsets. */
  toolNamePrefix?: string;
  /** Tools whose calls the user must confirm first: all, these (server names), or those the predicate picks. */
  requireConfirmation?: boolean | string[] | McpCallPredicate;
  /** Time allowed to start/connect and initialize, and for tools/list (ms, default 15 000). */
  connectTimeoutMs?: number;
  /** Time allowed for one tool call (ms, default 60 000); every progress notification restarts it. */
  timeoutMs?: number;
  /** Receives the server's progress notifications of running calls. */
  onProgress?: (progress: McpProgress) => void;
  /**
   * Also yield each progress notification from the run as a partial event (not stored) whose
   * `customMetadata.mcpProgress` is the {@link McpProgress}.
   */
  progressEvents?: boolean;
  /** Also offer `list_resources` and `read_resource` tools (prefixed like the others). */
  resources?: boolean;
  /**
   * Declare elicitation (form and URL mode) to the server (default true). A server's request for
   * input pauses the run as a tool confirmation whose payload holds the question (`mcpElicitation`)
   * unless `elicitationHandler` answers it in code.
   */
  elicitation?: boolean;
  /** Answers elicitations in code; return undefined to leave one to the user. */
  elicitationHandler?: McpElicitationHandler;
  /** Lets the server ask a model (`sampling/createMessage`); off unless given. */
  sampling?: McpSamplingPolicy;
  /**
   * Tools that must run as MCP tasks (`execution.taskSupport: 'required'`) are offered as
   * long-running tools (default true); `false` leaves them out. `ttlMs`: how long the server keeps
   * a task (default 1 hour); `pollIntervalMs`: between status checks when the server names none.
   */
  tasks?: boolean | { ttlMs?: number; pollIntervalMs?: number };
}

/**
 * The tools of one MCP server as an ADK toolset. The connection is opened on first use and shared
 * by every run; a server that dies or forgets the session is reconnected on the next call, and
 * `notifications/tools/list_changed` makes the next model call list the tools again. Close it with
 * `close()`, or let `Runner.close()` do it.
 */
export class McpToolset extends BaseToolset {
  readonly name: string;
  private readonly options: McpToolsetOptions;
  private readonly session: McpSession;
  private listing: Promise<Tool[]> | undefined;
  private readonly tools = new Map<string, { tool: McpTool; definition: Tool }>();
  private readonly toolNames = new Set<string>();
  /** Shared by all the toolset's tools; acts once per model request, whichever tools it lists. */
  private readonly attachMedia: (request: LlmRequest) => void = mediaAttacher(this.toolNames);
  private resourceTools: BaseTool[] | undefined;

  constructor(options: McpToolsetOptions) {
    super();
    this.options = options;
    this.name = options.name ?? defaultServerName(options.connection);
    this.session = new McpSession({
      name: this.name,
      connection: options.connection,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      onToolsChanged: () => {
        this.listing = undefined;
      },
      onDisconnect: () => {
        this.listing = undefined;
      },
      capabilities: {
        ...(options.elicitation === false ? {} : { elicitation: { form: {}, url: {} } }),
        ...(options.sampling ? { sampling: {} } : {}),
      },
      ...(options.sampling
        ? { onClient: (client) => registerSampling(client, options.sampling as McpSamplingPolicy, this.name) }
        : {}),
    });
  }

  async getTools(context: ReadonlyContext): Promise<BaseTool[]> {
    const definitions = await this.listTools();
    const filter = this.options.toolFilter;
    const out: BaseTool[] = [];
    for (const definition of definitions) {
      // Tools that can only run as MCP tasks cannot be called with a plain tools/call.
      if (definition.execution?.taskSupport === 'required' && this.options.tasks === false) continue;
      const tool = this.toolFor(definition);
      if (Array.isArray(filter) ? !filter.includes(tool.mcpName) : filter && !filter(tool, context)) continue;
      out.push(tool);
    }
    if (this.options.resources) {
      this.resourceTools ??= this.makeResourceTools();
      out.push(...this.resourceTools);
    }
    return out;
  }

  /** The server's tool definitions (cached until the server says they changed or the connection is renewed). */
  async listTools(): Promise<Tool[]> {
    let listing = this.listing;
    if (!listing) {
      // Not tied to the signal of one run: other runs may share the listing.
      listing = this.session.listTools();
      this.listing = listing;
      listing.catch(() => {
        if (this.listing === listing) this.listing = undefined;
      });
    }
    return listing;
  }

  /** A prompt of the server (`prompts/get`); see also loadMcpPrompt. */
  getPrompt(name: string, args: Record<string, string> = {}, signal?: AbortSignal): Promise<GetPromptResult> {
    return this.session.request(
      `prompts/get "${name}"`,
      (client, own) =>
        client.getPrompt(
          { name, arguments: args },
          { timeout: this.options.timeoutMs ?? 60_000, ...(own ? { signal: own } : {}) },
        ),
      signal,
    );
  }

  /** The MCP tasks calls of this session started on this server and no response answered yet (from the log). */
  async pendingTasks(params: Omit<McpTaskSessionParams, 'signal'>): Promise<McpTaskRecord[]> {
    const { runner, userId, sessionId } = params;
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId, sessionId });
    if (!session) throw new NotFoundError(`Session ${sessionId} not found`);
    return pendingTasks(session, this.name);
  }

  /**
   * Waits for the session's pending MCP tasks (also those started before a restart: their ids are
   * in the log) and delivers each result as the function response of its call, which resumes the
   * paused invocation. Yields the events of those runs.
   */
  async *resumeTasks(params: McpTaskSessionParams): AsyncGenerator<Event, void, undefined> {
    const { runner, userId, sessionId, signal } = params;
    for (const record of await this.pendingTasks(params)) {
      const session = await this.sessionFor(record);
      let response: Awaited<ReturnType<typeof awaitTask>>;
      try {
        response = await awaitTask(session, record, {
          pollIntervalMs: this.taskOptions().pollIntervalMs,
          timeoutMs: this.options.timeoutMs ?? 60_000,
          ...(signal ? { signal } : {}),
        });
      } finally {
        if (session !== this.session) await session.close();
      }
      yield* runner.run({
        userId,
        sessionId,
        newMessage: { role: 'user', parts: [{ functionResponse: response }] },
        ...(signal ? { signal } : {}),
      });
    }
  }

  /** Cancels the session's pending MCP tasks on the server (`tasks/cancel`); `resumeTasks` then delivers their end. */
  async cancelTasks(params: Omit<McpTaskSessionParams, 'signal'>): Promise<McpTaskRecord[]> {
    const pending = await this.pendingTasks(params);
    for (const record of pending) {
      const session = await this.sessionFor(record);
      try {
        await cancelTask(session, record.taskId, this.options.timeoutMs ?? 60_000);
      } finally {
        if (session !== this.session) await session.close();
      }
    }
    return pending;
  }

  /** The MCP session a task lives in: ours, or (after a restart) the recorded one, resumed. */
  private async sessionFor(record: McpTaskRecord): Promise<McpSession> {
    if (!record.mcpSessionId) return this.session;
    await this.listTools().catch(() => undefined);
    return record.mcpSessionId === this.session.sessionId
      ? this.session
      : this.session.resumed(record.mcpSessionId);
  }

  private taskOptions(): { ttlMs: number; pollIntervalMs: number } {
    const tasks = typeof this.options.tasks === 'object' ? this.options.tasks : {};
    return { ttlMs: tasks.ttlMs ?? 3_600_000, pollIntervalMs: tasks.pollIntervalMs ?? 1_000 };
  }

  /** Closes the session (stops a stdio server). The toolset reconnects if used again. */
  override async close(): Promise<void> {
    this.listing = undefined;
    await this.session.close();
  }

  /** Same McpTool object for the same definition, so tools keep their identity across model calls. */
  private toolFor(definition: Tool): McpTool {
    const known = this.tools.get(definition.name);
    if (known && known.definition === definition) return known.tool;
    const { toolNamePrefix, timeoutMs, onProgress, progressEvents, requireConfirmation, elicitationHandler } =
      this.options;
    const name = adkToolName(definition.name, toolNamePrefix);
    this.toolNames.add(name);
    const tool = new McpTool(name, definition, this.session, {
      timeoutMs: timeoutMs ?? 60_000,
      onProgress,
      progressEvents,
      requireConfirmation,
      attachMedia: this.attachMedia,
      elicitationHandler,
      ...(definition.execution?.taskSupport === 'required'
        ? { task: { ttlMs: this.taskOptions().ttlMs } }
        : {}),
    });
    this.tools.set(definition.name, { tool, definition });
    return tool;
  }

  private makeResourceTools(): BaseTool[] {
    const timeout = this.options.timeoutMs ?? 60_000;
    const prefix = this.options.toolNamePrefix;
    const read = new ReadResourceTool(
      adkToolName('read_resource', prefix),
      this.session,
      timeout,
      this.attachMedia,
    );
    this.toolNames.add(read.name);
    const list = new ListResourcesTool(
      adkToolName('list_resources', prefix),
      this.session,
      timeout,
      this.attachMedia,
    );
    return [list, read];
  }
}

/**
 * The name the model sees: prefixed, and with characters other than letters, digits, `_` and `-`
 * replaced by `_` (OpenAI and Claude accept no others), at most 64 characters.
 */
function adkToolName(name: string, prefix: string | undefined): string {
  const full = prefix ? `${prefix}_${name}` : name;
  return full.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
