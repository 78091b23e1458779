import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type BaseAgent,
  type BaseTool,
  type Content,
  contentText,
  describeError,
  type Event,
  InMemorySessionService,
  InvocationContext,
  isAdkError,
  isFinalResponse,
  isPlainObject,
  isToolset,
  LlmAgent,
  newId,
  type Part,
  REQUEST_CONFIRMATION,
  ReadonlyContext,
  Runner,
  ToolContext,
  type TraceContext,
  userContent,
} from '@adk/core';
import { originalCallOf } from '@adk/core/internal';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitResult,
  Task,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_ELICITATION, type StoredElicitation } from '../client/elicitation.js';

export interface ServeAgentAsMcpOptions {
  /**
   * stdio (the process's stdin/stdout), or Streamable HTTP on `host:port` (default 127.0.0.1, a
   * free port; on a loopback host only loopback Host headers are accepted).
   */
  transport: 'stdio' | ServeAgentHttpOptions;
  /**
   * Also publish the root agent's own tools (all, or these names). They run outside any
   * conversation: no model, a throwaway session, no confirmations.
   */
  exposeTools?: boolean | string[];
  /** The name of the tool that talks to the agent (default: the agent's name). */
  toolName?: string;
  /** The user id of every run (default 'mcp'). */
  userId?: string;
  /** The server's name and version in the MCP handshake. */
  serverInfo?: { name: string; version: string };
  /**
   * Offer the agent's tool as an MCP task (`execution.taskSupport: 'optional'`): a task-augmented
   * `tools/call` returns a task at once while the run goes on; the client polls `tasks/get`, reads
   * `tasks/result`, and `tasks/cancel` aborts the run. A pause of the run (a confirmation, a
   * question) turns the task `input_required`; the elicitation waits for the client's
   * `tasks/result` and its answer sets the task working again. Tasks live in this process's memory
   * for `ttl` ms (the client's, or an hour). Default false.
   */
  tasks?: boolean;
  /**
   * Receives errors of the HTTP server once it listens (e.g. a failed accept when the process is
   * out of file descriptors); the server keeps running. Default: written to stderr.
   */
  onError?: (error: unknown) => void;
}

export interface ServeAgentHttpOptions {
  type: 'http';
  port?: number;
  host?: string;
  path?: string;
  /**
   * An MCP session that receives no request for this long (ms, default 600 000) is closed and
   * forgotten, so clients that vanish without closing their session do not pile up; its client
   * gets 404 and starts a new session. A request still being answered keeps its session open.
   * `0` keeps sessions until their client closes them.
   */
  sessionIdleTimeoutMs?: number;
}

/** How long an HTTP session may go without requests by default (ms). */
const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;
/** The longest delay setTimeout takes (ms); longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface McpAgentServer {
  /** The Streamable HTTP endpoint, for the http transport. */
  readonly url: string | undefined;
  /**
   * Stops the server (and for stdio, stops reading stdin). A runner given to serveAgentAsMcp stays
   * open (it is the caller's); one made for a given agent is closed.
   */
  close(): Promise<void>;
}

const AGENT_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'The message for the agent.' },
    sessionId: {
      type: 'string',
      description:
        'Continue this conversation (the sessionId of an earlier answer); omit to start a new one.',
    },
  },
  required: ['message'],
} as const;

const AGENT_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    response: { type: 'string' },
    sessionId: { type: 'string' },
  },
  required: ['response', 'sessionId'],
} as const;

/**
 * Publishes an ADK agent as an MCP server: one tool that sends a message to the agent and returns
 * its answer and the session id to continue with, and optionally the agent's own tools. Over stdio
 * (for Claude Desktop and IDEs that spawn the server) or Streamable HTTP.
 */
export async function serveAgentAsMcp(
  agentOrRunner: BaseAgent | Runner,
  options: ServeAgentAsMcpOptions,
): Promise<McpAgentServer> {
  const owned = !(agentOrRunner instanceof Runner);
  const runner =
    agentOrRunner instanceof Runner
      ? agentOrRunner
      : new Runner({
          appName: agentOrRunner.name,
          agent: agentOrRunner,
          sessionService: new InMemorySessionService(),
          autoCreateSession: true,
        });
  const handler = new AgentHandler(runner, options);
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const types = await import('@modelcontextprotocol/sdk/types.js');
  const taskStore = options.tasks ? await agentTaskStore() : undefined;
  const makeServer = (): Server => {
    const server = new Server(options.serverInfo ?? { name: runner.agent.name, version: '0.1.0' }, {
      capabilities: {
        tools: {},
        ...(taskStore ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      },
      ...(taskStore ? { taskStore, taskMessageQueue: taskStore.messages } : {}),
      ...(runner.agent.description ? { instructions: runner.agent.description } : {}),
    });
    server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
      tools: (await handler.listTools()).map((tool) =>
        taskStore && tool.name === handler.toolName
          ? { ...tool, execution: { taskSupport: 'optional' } }
          : tool,
      ),
    }));
    server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
      const taskParams = request.params.task;
      if (taskStore && extra.taskStore && taskParams && request.params.name === handler.toolName) {
        // A task-augmented call: the task is answered now, the run goes on in the background.
        const store = extra.taskStore;
        const task = await store.createTask({
          ttl: taskParams.ttl ?? DEFAULT_TASK_TTL_MS,
          pollInterval: 200,
        });
        const controller = new AbortController();
        taskStore.runs.set(task.taskId, controller);
        // A pause asks the client through the task: the task turns `input_required`, the question
        // waits in the task's queue until the client reads `tasks/result`, and the answer sets it
        // working again.
        const elicit = server.getClientCapabilities()?.elicitation
          ? async (params: ElicitRequestFormParams): Promise<ElicitResult> => {
              await store.updateTaskStatus(task.taskId, 'input_required');
              try {
                return await server.elicitInput(params, {
                  signal: controller.signal,
                  relatedTask: { taskId: task.taskId },
                });
              } finally {
                // A task cancelled meanwhile stays cancelled (a terminal status does not change).
                await store.updateTaskStatus(task.taskId, 'working').catch(() => undefined);
              }
            }
          : undefined;
        void handler
          .callTool(request.params.name, request.params.arguments ?? {}, {
            signal: controller.signal,
            elicit,
            progress: () => undefined,
          })
          .then((result) =>
            store.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result),
          )
          .catch(() => undefined) // cancelled meanwhile: the task is terminal already
          .finally(() => taskStore.runs.delete(task.taskId));
        return { task };
      }
      return handler.callTool(request.params.name, request.params.arguments ?? {}, {
        signal: extra.signal,
        elicit: server.getClientCapabilities()?.elicitation
          ? (params) =>
              server.elicitInput(params, { signal: extra.signal, relatedRequestId: extra.requestId })
          : undefined,
        progress: (progress, message) => {
          const token = request.params._meta?.progressToken;
          if (token === undefined) return;
          void extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress, ...(message ? { message } : {}) },
            })
            .catch(() => undefined);
        },
      });
    });
    return server;
  };

  // A runner made here is ours to close (its toolsets, e.g. MCP sessions); a given one is not.
  const release = () => (owned ? runner.close() : Promise.resolve());
  if (options.transport === 'stdio') {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const server = makeServer();
    await server.connect(new StdioServerTransport());
    return { url: undefined, close: () => server.close().finally(release) };
  }
  const onError =
    options.onError ??
    ((error: unknown) =>
      console.error(`[adk-mcp] MCP server "${runner.agent.name}": ${describeError(error)}`));
  const served = await serveHttp(makeServer, options.transport, onError);
  return { url: served.url, close: () => served.close().finally(release) };
}

const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;

/** The SDK's in-memory task store, which also aborts a task's run when the task is cancelled. */
async function agentTaskStore() {
  const { InMemoryTaskStore, InMemoryTaskMessageQueue } = await import(
    '@modelcontextprotocol/sdk/experimental/tasks'
  );
  class AgentTaskStore extends InMemoryTaskStore {
    /** The runs of tasks still working, by task id. */
    readonly runs = new Map<string, AbortController>();
    /** Requests of running tasks (elicitations) waiting for the client's `tasks/result`. */
    readonly messages = new InMemoryTaskMessageQueue();
    override async updateTaskStatus(
      taskId: string,
      status: Task['status'],
      statusMessage?: string,
      sessionId?: string,
    ): Promise<void> {
      await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
      if (status === 'cancelled') this.runs.get(taskId)?.abort();
    }
  }
  return new AgentTaskStore();
}

/** One MCP session of the HTTP transport. */
interface HttpSession {
  transport: { handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> };
  server: Server;
  /** Requests of the session still being answered (a GET stream does not count). */
  active: number;
  idle: ReturnType<typeof setTimeout> | undefined;
}

async function serveHttp(
  makeServer: () => Server,
  options: ServeAgentHttpOptions,
  onError: (error: unknown) => void,
): Promise<McpAgentServer> {
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  type Transport = InstanceType<typeof StreamableHTTPServerTransport>;
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const sessions = new Map<string, HttpSession>();
  const idleMs = Math.min(options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_MS, MAX_TIMER_MS);
  /** Closes and forgets a session once it has been idle for idleMs (restarted by every request). */
  const armIdle = (id: string, session: HttpSession) => {
    if (session.idle) clearTimeout(session.idle);
    session.idle = undefined;
    if (session.active > 0 || !(idleMs > 0)) return;
    session.idle = setTimeout(() => {
      if (sessions.get(id) !== session) return;
      sessions.delete(id);
      void session.server.close().catch(() => undefined);
    }, idleMs);
    // A forgotten session must not keep the process alive.
    session.idle.unref();
  };
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  // Host header values accepted on a loopback address (filled in once the port is known).
  const allowedHosts: string[] = [];

  const reply = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== path) return reply(res, 404, 'Not found');
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // 404 tells the client the session is gone and it should initialize a new one.
      if (!session) return reply(res, 404, 'Session not found');
      // A long request (an agent run streaming progress) keeps its session; an open GET stream
      // alone does not, so a client that vanished with its stream open still expires.
      if (req.method !== 'GET') {
        session.active++;
        armIdle(sessionId, session);
        res.once('close', () => {
          session.active--;
          armIdle(sessionId, session);
        });
      } else armIdle(sessionId, session);
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'No session: initialize with a POST first');
    const server = makeServer();
    const transport: Transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // On a loopback address, a web page must not reach the server through DNS rebinding.
      ...(loopback ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
      onsessioninitialized: (id) => {
        const session: HttpSession = { transport, server, active: 0, idle: undefined };
        sessions.set(id, session);
        armIdle(id, session);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      const session = id === undefined ? undefined : sessions.get(id);
      if (id === undefined || session?.transport !== transport) return;
      if (session.idle) clearTimeout(session.idle);
      sessions.delete(id);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `Internal error: ${describeError(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  // Without a listener, an 'error' event (a failed accept, say) would crash the process.
  http.on('error', (error) => {
    try {
      onError(error);
    } catch {
      // A failing error handler must not take the server down either.
    }
  });
  const { port } = http.address() as AddressInfo;
  allowedHosts.push(`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  return {
    url,
    close: async () => {
      const open = [...sessions.values()];
      for (const s of open) if (s.idle) clearTimeout(s.idle);
      sessions.clear();
      await Promise.all(open.map((s) => s.server.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

interface CallOptions {
  signal: AbortSignal;
  progress: (progress: number, message?: string) => void;
  /** Asks the MCP client's user (when the client declared elicitation). */
  elicit?: ((params: ElicitRequestFormParams) => Promise<ElicitResult>) | undefined;
}

const REQUEST_INPUT = 'adk_request_input';
/** Rounds of questions one agent call may ask before it returns paused. */
const MAX_ELICITATION_ROUNDS = 10;

/**
 * The question of a paused call as an MCP form elicitation, and how its answer becomes the
 * function response the agent waits for. Undefined for pauses an MCP form cannot answer.
 */
function elicitationFor(call: {
  name: string;
  args: Record<string, unknown>;
}):
  | { params: ElicitRequestFormParams; toResponse: (r: ElicitResult) => Record<string, unknown> }
  | undefined {
  if (call.name === REQUEST_CONFIRMATION) {
    const confirmation = (call.args.toolConfirmation ?? {}) as {
      hint?: string;
      payload?: Record<string, unknown>;
    };
    const original = originalCallOf(call);
    // A nested MCP server's elicitation: ask the same form, one level up.
    const nested = confirmation.payload?.[MCP_ELICITATION] as StoredElicitation | undefined;
    if (nested?.question.mode === 'form' && nested.question.requestedSchema) {
      return {
        params: {
          mode: 'form',
          message: nested.question.message,
          requestedSchema: nested.question.requestedSchema as ElicitRequestFormParams['requestedSchema'],
        },
        toResponse: (r) =>
          r.action === 'accept'
            ? { confirmed: true, payload: { content: r.content ?? {} } }
            : { confirmed: true, payload: { action: r.action } },
      };
    }
    return {
      params: {
        mode: 'form',
        message: confirmation.hint ?? `Allow the call of "${original?.name ?? 'a tool'}"?`,
        requestedSchema: {
          type: 'object',
          properties: { confirmed: { type: 'boolean', title: 'Confirm', description: 'Allow this action' } },
          required: ['confirmed'],
        },
      },
      toResponse: (r) => ({ confirmed: r.action === 'accept' && r.content?.confirmed === true }),
    };
  }
  if (call.name === REQUEST_INPUT) {
    const schema = call.args.response_schema as Record<string, unknown> | undefined;
    const message = typeof call.args.message === 'string' ? call.args.message : 'The agent needs your input.';
    const objectSchema = schema?.type === 'object' && typeof schema.properties === 'object';
    return {
      params: {
        mode: 'form',
        message,
        requestedSchema: (objectSchema
          ? schema
          : {
              type: 'object',
              properties: { answer: { type: 'string', title: 'Answer' } },
              required: ['answer'],
            }) as ElicitRequestFormParams['requestedSchema'],
      },
      toResponse: (r) => (objectSchema ? (r.content ?? {}) : { answer: r.content?.answer ?? '' }),
    };
  }
  return undefined;
}

/** The MCP tools of a served agent and how they run. */
class AgentHandler {
  readonly toolName: string;
  private readonly userId: string;

  constructor(
    private readonly runner: Runner,
    private readonly options: ServeAgentAsMcpOptions,
  ) {
    this.toolName = options.toolName ?? runner.agent.name;
    this.userId = options.userId ?? 'mcp';
  }

  async listTools(): Promise<Tool[]> {
    const agent = this.runner.agent;
    const tools: Tool[] = [
      {
        name: this.toolName,
        description: agent.description || `Talk to the agent "${agent.name}".`,
        inputSchema: AGENT_INPUT_SCHEMA as unknown as Tool['inputSchema'],
        outputSchema: AGENT_OUTPUT_SCHEMA as unknown as Tool['outputSchema'],
      },
    ];
    for (const tool of await this.exposedTools()) {
      const d = tool.declaration();
      if (!d || d.name === this.toolName) continue;
      tools.push({
        name: d.name,
        ...(d.description ? { description: d.description } : {}),
        inputSchema: (d.parameters ?? { type: 'object', properties: {} }) as Tool['inputSchema'],
      });
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, call: CallOptions): Promise<CallToolResult> {
    if (name === this.toolName) return this.askAgent(args, call);
    const tool = (await this.exposedTools()).find((t) => t.name === name);
    if (!tool) return errorResult(`Unknown tool "${name}".`);
    return this.runTool(tool, args, call.signal);
  }

  private async askAgent(args: Record<string, unknown>, call: CallOptions): Promise<CallToolResult> {
    const { message } = args;
    if (typeof message !== 'string' || message === '')
      return errorResult('The argument "message" (a non-empty string) is required.');
    const sessionId =
      typeof args.sessionId === 'string' && args.sessionId ? args.sessionId : `mcp-${newId()}`;
    const sessionService = this.runner.sessionService;
    const key = { appName: this.runner.appName, userId: this.userId, sessionId };
    if (!(await sessionService.getSession(key))) {
      try {
        await sessionService.createSession(key);
      } catch (error) {
        // Another call with the same new session id created it in between: it exists, go on.
        if (!isAdkError(error, 'ALREADY_EXISTS')) throw error;
      }
    }
    let text = '';
    let error: string | undefined;
    let step = 0;
    let newMessage: Content = userContent(message);
    // A pause (a confirmation, a question) is asked of the MCP client's user through elicitation,
    // and the run goes on with the answer, as long as the client can elicit.
    for (let round = 0; round <= MAX_ELICITATION_ROUNDS; round++) {
      const pending: { id: string; name: string; args: Record<string, unknown> }[] = [];
      const events: AsyncIterable<Event> = this.runner.run({
        userId: this.userId,
        sessionId,
        newMessage,
        signal: call.signal,
      });
      for await (const event of events) {
        if (event.partial || event.author === 'user') continue;
        step++;
        if (event.errorCode) error = `${event.errorCode}: ${event.errorMessage ?? 'the agent failed'}`;
        else if (isFinalResponse(event) && event.content) text = contentText(event.content);
        for (const part of event.content?.parts ?? []) {
          const fc = part.functionCall;
          if (
            fc &&
            event.longRunningToolIds?.includes(fc.id) &&
            (fc.name === REQUEST_CONFIRMATION || fc.name === REQUEST_INPUT)
          )
            pending.push(fc);
        }
        call.progress(step, `${event.author}: ${describeEvent(event)}`);
      }
      if (error || pending.length === 0 || !call.elicit || round === MAX_ELICITATION_ROUNDS) break;
      const parts: Part[] = [];
      for (const fc of pending) {
        const question = elicitationFor(fc);
        if (!question) continue;
        const answer = await call.elicit(question.params);
        parts.push({ functionResponse: { id: fc.id, name: fc.name, response: question.toResponse(answer) } });
      }
      if (parts.length === 0) break;
      newMessage = { role: 'user', parts };
    }
    if (error) return errorResult(`The agent "${this.runner.agent.name}" failed: ${error}`);
    return {
      content: [{ type: 'text', text }],
      structuredContent: { response: text, sessionId },
    };
  }

  /** The root agent's tools published beside it (toolsets resolved with a context of no run). */
  private async exposedTools(): Promise<BaseTool[]> {
    const expose = this.options.exposeTools;
    const agent = this.runner.agent;
    if (!expose || !(agent instanceof LlmAgent)) return [];
    const context = new ReadonlyContext(this.standaloneContext(new AbortController().signal));
    const tools: BaseTool[] = [];
    for (const entry of agent.tools) {
      if (isToolset(entry)) tools.push(...(await entry.getTools(context)));
      else tools.push(entry);
    }
    return Array.isArray(expose) ? tools.filter((t) => expose.includes(t.name)) : tools;
  }

  private async runTool(
    tool: BaseTool,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const context = new ToolContext(this.standaloneContext(signal), `mcp-${newId()}`);
    try {
      if (await tool.requiresConfirmation(args, context))
        return errorResult(`"${tool.name}" needs the user's confirmation; ask the agent instead.`);
      const raw = await tool.run(args, context);
      const result = raw === undefined || raw === null ? {} : isPlainObject(raw) ? raw : { result: raw };
      const isError = typeof result.error === 'string' && Object.keys(result).length === 1;
      return {
        content: [{ type: 'text', text: JSON.stringify(result) }],
        ...(isError ? { isError: true } : { structuredContent: result }),
      };
    } catch (error) {
      return errorResult(`Tool "${tool.name}" failed: ${describeError(error)}`);
    }
  }

  /** A context outside any conversation, for exposed tools: an empty in-memory session. */
  private standaloneContext(signal: AbortSignal): InvocationContext {
    const runner = this.runner;
    const now = Date.now();
    return new InvocationContext({
      invocationId: `e-${newId()}`,
      appName: runner.appName,
      userId: this.userId,
      session: {
        id: `mcp-tools-${newId()}`,
        appName: runner.appName,
        userId: this.userId,
        state: {},
        events: [],
        lastUpdateTime: now,
      },
      sessionService: new InMemorySessionService(),
      artifactService: runner.artifactService,
      memoryService: runner.memoryService,
      pluginManager: runner.pluginManager,
      models: runner.models,
      runConfig: {},
      signal,
      agent: runner.agent,
      rootAgent: runner.agent,
      shared: { llmCalls: 0, ended: false, tempState: {} },
      trace: { span: undefined, context: undefined } as TraceContext,
    });
  }
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A short description of an event for progress messages. */
function describeEvent(event: Event): string {
  const parts = event.content?.parts ?? [];
  const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall?.name);
  if (calls.length > 0) return `calling ${calls.join(', ')}`;
  if (parts.some((p) => p.functionResponse)) return 'tool results';
  const text = contentText(event.content);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text || 'step';
}
