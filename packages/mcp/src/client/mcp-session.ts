import { CancelledError, describeError } from '@adk/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  ClientCapabilities,
  ElicitRequest,
  ElicitResult,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { McpConnectionError, McpRequestError, McpTimeoutError } from '../errors.js';
import {
  connectionHint,
  describeConnection,
  type McpConnection,
  openTransport,
  scrubConnectionUrl,
} from './connection.js';

export interface McpSessionOptions {
  /** The server's name in error messages. */
  name: string;
  connection: McpConnection;
  /** How long connecting and initializing may take (ms). */
  connectTimeoutMs: number;
  /** Called when the server sends `notifications/tools/list_changed`. */
  onToolsChanged?: () => void;
  /** Called when a connection is dropped (the server died, the session expired, or close()). */
  onDisconnect?: () => void;
  /** Capabilities declared to the server (elicitation, sampling). */
  capabilities?: ClientCapabilities;
  /** Streamable HTTP: resume this MCP session instead of initializing a new one. */
  resumeSessionId?: string;
  /** Registers the handlers of server-to-client requests (sampling) on a new client. */
  onClient?: (client: Client) => Promise<void> | void;
}

/** Answers an elicitation the server sends while a request runs. */
export type Elicitor = (params: ElicitRequest['params']) => Promise<ElicitResult>;

interface Connected {
  client: Client;
  stderrTail: () => string;
  /** The Streamable HTTP session id, once the server gave one. */
  sessionId: () => string | undefined;
}

const CLIENT_INFO = { name: '@adk/mcp', version: '0.1.0' };
// JSON-RPC codes of the SDK's ErrorCode enum (not imported: the SDK is loaded on first use).
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/**
 * One lazily opened MCP client session, shared by every run of a toolset. A dead connection (the
 * process exited, the HTTP session expired) is replaced by a fresh one on the next request, and a
 * request that fails because of it is retried once on the fresh connection.
 */
export class McpSession {
  private current: Promise<Connected> | undefined;
  /** The connection `current` resolved to, once it has. */
  private live: Connected | undefined;
  /** Counts close() calls: a request cut off by close() is not retried on a new connection. */
  private closes = 0;
  /**
   * The elicitors of the requests in flight. A server's elicitation carries no link to the call it
   * belongs to on every transport, so it goes to the newest call that can answer one.
   */
  private readonly elicitors: Elicitor[] = [];

  constructor(private readonly options: McpSessionOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** The live connection's Streamable HTTP session id (undefined for other transports). */
  get sessionId(): string | undefined {
    return this.live?.sessionId();
  }

  /** A session like this one that resumes the MCP session `sessionId` (Streamable HTTP). */
  resumed(sessionId: string): McpSession {
    return new McpSession({
      ...this.options,
      resumeSessionId: sessionId,
      onDisconnect: () => {},
      onToolsChanged: () => {},
    });
  }

  /** Runs `request` on the session, connecting first if needed; retried once after a lost connection. */
  async request<T>(
    what: string,
    request: (client: Client, signal: AbortSignal | undefined) => Promise<T>,
    signal?: AbortSignal,
    elicitor?: Elicitor,
  ): Promise<T> {
    if (!elicitor) return this.requestOnce(what, request, signal);
    this.elicitors.push(elicitor);
    try {
      return await this.requestOnce(what, request, signal);
    } finally {
      this.elicitors.splice(this.elicitors.lastIndexOf(elicitor), 1);
    }
  }

  private async requestOnce<T>(
    what: string,
    request: (client: Client, signal: AbortSignal | undefined) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    // The SDK never removes its abort listener: give it a signal of this request only, so the end
    // of a run (which aborts the run's signal) does not cancel requests that already finished.
    const own = signal ? new AbortController() : undefined;
    const onAbort = () => own?.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const closes = this.closes;
    try {
      const first = await this.connect(signal);
      try {
        return await request(first.client, own?.signal);
      } catch (error) {
        if (signal?.aborted) throw cancelled(this.name, what, signal);
        if (!isConnectionFailure(error) || this.closes !== closes) throw this.translate(error, what);
        this.drop(first);
      }
      const second = await this.connect(signal);
      try {
        return await request(second.client, own?.signal);
      } catch (error) {
        if (signal?.aborted) throw cancelled(this.name, what, signal);
        if (isConnectionFailure(error)) this.drop(second);
        throw this.translate(error, what, second);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Every tool of the server, following `nextCursor` pages. */
  async listTools(signal?: AbortSignal): Promise<Tool[]> {
    return this.request(
      'tools/list',
      async (client, own) => {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
            timeout: this.options.connectTimeoutMs,
            ...(own ? { signal: own } : {}),
          });
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor);
        return tools;
      },
      signal,
    );
  }

  /** Closes the connection (stops a stdio server). A later request opens a new one. */
  async close(): Promise<void> {
    this.closes++;
    const current = this.current;
    this.current = undefined;
    this.live = undefined;
    if (!current) return;
    const connected = await current.catch(() => undefined);
    await connected?.client.close().catch(() => undefined);
    this.options.onDisconnect?.();
  }

  private connect(signal?: AbortSignal): Promise<Connected> {
    if (signal?.aborted) return Promise.reject(cancelled(this.name, 'connect', signal));
    this.current ??= this.open();
    const pending = this.current;
    pending.catch(() => {
      if (this.current === pending) this.current = undefined;
    });
    return pending;
  }

  private async open(): Promise<Connected> {
    const { connection, connectTimeoutMs, name } = this.options;
    let opened: Awaited<ReturnType<typeof openTransport>> | undefined;
    let client: Client | undefined;
    try {
      const [{ Client }, { ToolListChangedNotificationSchema, ElicitRequestSchema }, transport] =
        await Promise.all([
          import('@modelcontextprotocol/sdk/client/index.js'),
          import('@modelcontextprotocol/sdk/types.js'),
          openTransport(connection, this.options.resumeSessionId),
        ]);
      opened = transport;
      client = new Client(CLIENT_INFO, { capabilities: this.options.capabilities ?? {} });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.options.onToolsChanged?.());
      if (this.options.capabilities?.elicitation) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          const elicitor = this.elicitors.at(-1);
          // An elicitation outside any call of ours (no one to ask): refused.
          return elicitor ? elicitor(request.params) : { action: 'decline' };
        });
      }
      await this.options.onClient?.(client);
      const connected: Connected = {
        client,
        stderrTail: transport.stderrTail,
        sessionId: () => (transport.transport as { sessionId?: string }).sessionId,
      };
      // The SDK reports transport errors here too; a lost connection surfaces through onclose.
      client.onerror = () => undefined;
      client.onclose = () => this.drop(connected);
      await withTimeout(
        client.connect(transport.transport, { timeout: connectTimeoutMs }),
        connectTimeoutMs,
        () => new McpTimeoutError(`connect timed out after ${connectTimeoutMs} ms`),
      );
      this.live = connected;
      return connected;
    } catch (error) {
      // Not awaited: stopping a stuck process can take seconds, and the caller should learn now.
      void client?.close().catch(() => undefined);
      const stderr = opened?.stderrTail();
      throw new McpConnectionError(
        `MCP server "${name}" (${describeConnection(connection)}) could not be connected: ${this.why(error)}. ${connectionHint(connection)}${stderr ? ` Its stderr ended with: ${stderr}` : ''}`,
        { cause: error, details: { server: name } },
      );
    }
  }

  /** Forgets a dead connection (the next request opens a fresh one) and releases it. */
  private drop(connected: Connected): void {
    if (this.live !== connected) return;
    this.live = undefined;
    this.current = undefined;
    void connected.client.close().catch(() => undefined);
    this.options.onDisconnect?.();
  }

  /** The error's description for messages, without a credential of the connection's URL. */
  private why(error: unknown): string {
    return scrubConnectionUrl(this.options.connection, describeError(error));
  }

  private translate(error: unknown, what: string, connected?: Connected): Error {
    const code = (error as { code?: unknown }).code;
    const details = { server: this.name, request: what };
    if (code === REQUEST_TIMEOUT || error instanceof McpTimeoutError)
      return new McpTimeoutError(
        `MCP server "${this.name}" did not answer ${what} in time (${this.why(error)}); raise the timeout or check the server.`,
        { cause: error, details },
      );
    if (error instanceof McpConnectionError) return error;
    if (isConnectionFailure(error)) {
      const stderr = connected?.stderrTail();
      return new McpConnectionError(
        `MCP server "${this.name}" (${describeConnection(this.options.connection)}) lost the connection during ${what}: ${this.why(error)}. ${connectionHint(this.options.connection)}${stderr ? ` Its stderr ended with: ${stderr}` : ''}`,
        { cause: error, details },
      );
    }
    if (typeof code === 'number')
      return new McpRequestError(`MCP server "${this.name}" rejected ${what}: ${this.why(error)}`, {
        cause: error,
        details: { ...details, code },
      });
    return error instanceof Error ? error : new Error(this.why(error));
  }
}

function cancelled(name: string, what: string, signal: AbortSignal): CancelledError {
  return new CancelledError(`The call ${what} to MCP server "${name}" was cancelled`, {
    cause: signal.reason,
  });
}

/** Whether a request failed because the connection is gone (so a fresh one may succeed). */
function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (code === CONNECTION_CLOSED) return true;
  // Streamable HTTP: the server no longer knows the session (404 per the spec; some answer 400).
  if (String(message).startsWith('Streamable HTTP error') && (code === 404 || code === 400)) return true;
  if (name === 'TypeError' && String(message).includes('fetch failed')) return true;
  return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_DESTROYED'].includes(String(code));
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
