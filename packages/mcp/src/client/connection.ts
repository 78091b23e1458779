import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** A server started as a child process, speaking MCP on its stdin/stdout. */
export interface StdioConnection {
  type: 'stdio';
  command: string;
  args?: string[];
  /** Added to a minimal safe environment (PATH, HOME, ...), not to the whole of `process.env`. */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * The server's stderr: 'pipe' (default) keeps its last lines for error messages, 'inherit'
   * prints it, 'ignore' drops it.
   */
  stderr?: 'pipe' | 'inherit' | 'ignore';
}

/** Returns a bearer token per request (called before every HTTP request; may refresh it). */
export type TokenProvider = () => string | undefined | Promise<string | undefined>;

interface HttpOptions {
  url: string | URL;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer <token>` with every request. */
  token?: TokenProvider;
  /** The SDK's OAuth client provider, for servers that run the MCP authorization flow. */
  authProvider?: OAuthClientProvider;
}

/** A server reached over Streamable HTTP (the current MCP HTTP transport). */
export interface StreamableHttpConnection extends HttpOptions {
  type: 'http';
}

/** A server reached over the legacy HTTP+SSE transport (MCP 2024-11-05). */
export interface SseConnection extends HttpOptions {
  type: 'sse';
}

export type McpConnection = StdioConnection | StreamableHttpConnection | SseConnection;

/** How the connection is described in error messages. */
export function describeConnection(connection: McpConnection): string {
  if (connection.type === 'stdio')
    return `stdio: ${[connection.command, ...(connection.args ?? [])].join(' ')}`;
  return `${connection.type === 'http' ? 'Streamable HTTP' : 'SSE'}: ${redactUrl(connection.url)}`;
}

/** `text` (e.g. an error of the transport) with the connection's URL in it redacted like {@link describeConnection}. */
export function scrubConnectionUrl(connection: McpConnection, text: string): string {
  if (connection.type === 'stdio') return text;
  const raw = String(connection.url);
  let href = raw;
  try {
    href = new URL(raw).href;
  } catch {
    // Not a URL: only the raw text is replaced.
  }
  const redacted = redactUrl(connection.url);
  return text.replaceAll(raw, redacted).replaceAll(href, redacted);
}

/**
 * The URL for messages (which reach error events and sessions): without the password of its user
 * info and with the values of its query parameters hidden, since either may carry a credential.
 */
function redactUrl(value: string | URL): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return '(an invalid URL)';
  }
  if (url.password) url.password = '***';
  for (const key of new Set(url.searchParams.keys())) url.searchParams.set(key, '***');
  return url.toString().replaceAll('%2A%2A%2A', '***');
}

/** What to check when the connection fails. */
export function connectionHint(connection: McpConnection): string {
  if (connection.type === 'stdio')
    return 'Check that the command is installed, starts an MCP server on stdin/stdout, and that its arguments and environment are right.';
  return 'Check the URL, that the server is running and reachable, and its credentials (headers, token).';
}

/** A name for the server when none is given: the command's base name or the URL's host. */
export function defaultServerName(connection: McpConnection): string {
  if (connection.type === 'stdio') {
    const last = [connection.command, ...(connection.args ?? [])].at(-1) ?? connection.command;
    return last.split(/[\\/]/).at(-1) || connection.command;
  }
  try {
    return new URL(String(connection.url)).host;
  } catch {
    return String(connection.url);
  }
}

export interface OpenedTransport {
  transport: Transport;
  /** The last lines the server wrote to stderr (stdio with stderr 'pipe'). */
  stderrTail: () => string;
}

const STDERR_TAIL_CHARS = 2000;

/** Creates the SDK transport for a connection (the SDK is loaded here, on first use). */
export async function openTransport(
  connection: McpConnection,
  resumeSessionId?: string,
): Promise<OpenedTransport> {
  if (connection.type === 'stdio') {
    const { StdioClientTransport, getDefaultEnvironment } = await import(
      '@modelcontextprotocol/sdk/client/stdio.js'
    );
    const mode = connection.stderr ?? 'pipe';
    const transport = new StdioClientTransport({
      command: connection.command,
      args: connection.args ?? [],
      env: { ...getDefaultEnvironment(), ...connection.env },
      ...(connection.cwd === undefined ? {} : { cwd: connection.cwd }),
      stderr: mode,
    });
    let tail = '';
    if (mode === 'pipe') {
      transport.stderr?.on('data', (chunk: Buffer | string) => {
        tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
      });
    }
    return { transport, stderrTail: () => tail.trim() };
  }
  const url = new URL(String(connection.url));
  const fetchWithToken = tokenFetch(connection.token);
  const common = {
    ...(connection.headers ? { requestInit: { headers: connection.headers } } : {}),
    ...(connection.authProvider ? { authProvider: connection.authProvider } : {}),
    ...(fetchWithToken ? { fetch: fetchWithToken } : {}),
  };
  if (connection.type === 'http') {
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    // A known session id resumes that session (the SDK's client then skips initialize).
    return {
      transport: new StreamableHTTPClientTransport(url, {
        ...common,
        ...(resumeSessionId === undefined ? {} : { sessionId: resumeSessionId }),
      }),
      stderrTail: () => '',
    };
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const sseInit =
    fetchWithToken || connection.headers ? { eventSourceInit: { fetch: sseFetch(common) } } : {};
  return { transport: new SSEClientTransport(url, { ...common, ...sseInit }), stderrTail: () => '' };
}

/** A fetch that adds the bearer token of the provider to every request. */
function tokenFetch(token: TokenProvider | undefined): typeof fetch | undefined {
  if (!token) return undefined;
  return async (input, init) => {
    const value = await token();
    const headers = new Headers(init?.headers);
    if (value) headers.set('Authorization', `Bearer ${value}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SSE stream (GET) is opened by EventSource, which needs the same headers and token. */
function sseFetch(common: { requestInit?: { headers: Record<string, string> }; fetch?: typeof fetch }) {
  const base = common.fetch ?? fetch;
  return (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(common.requestInit?.headers ?? {})) headers.set(k, v);
    return base(input, { ...init, headers });
  };
}
