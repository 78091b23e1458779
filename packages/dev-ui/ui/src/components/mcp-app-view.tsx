import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.js';

/** What `@adk/mcp` puts on a tool's response when the tool has an MCP Apps view (`ui://…`). */
export interface McpAppRef {
  resourceUri: string;
  artifact: string;
  version: number;
  mimeType: string;
}

/** The MCP Apps view a function response names, if it names one. */
export function mcpAppOf(response: unknown): McpAppRef | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const ref = (response as { mcpApp?: unknown }).mcpApp;
  if (typeof ref !== 'object' || ref === null) return undefined;
  const { resourceUri, artifact, version, mimeType } = ref as Record<string, unknown>;
  if (typeof resourceUri !== 'string' || typeof artifact !== 'string' || typeof version !== 'number')
    return undefined;
  return { resourceUri, artifact, version, mimeType: typeof mimeType === 'string' ? mimeType : 'text/html' };
}

/** The MCP Apps protocol version this host speaks (the extension's, not MCP's). */
const APPS_PROTOCOL_VERSION = '2026-01-26';

interface JsonRpcMessage {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

/**
 * The tool result as MCP's `CallToolResult`, rebuilt from the function response `@adk/mcp` made of
 * it: text as a text block, `structuredContent` and other blocks as they were, errors flagged.
 */
function callToolResult(response: Record<string, unknown>): Record<string, unknown> {
  const content: unknown[] = [];
  const text = typeof response.result === 'string' ? response.result : response.error;
  if (typeof text === 'string') content.push({ type: 'text', text });
  if (Array.isArray(response.content)) content.push(...response.content);
  return {
    content,
    ...(response.structuredContent !== undefined ? { structuredContent: response.structuredContent } : {}),
    ...(typeof response.error === 'string' ? { isError: true } : {}),
  };
}

function decodeHtml(base64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
}

/**
 * An MCP Apps view, rendered as its host must: the server's HTML in an iframe sandboxed to scripts
 * only (an opaque origin: no access to this page, its storage or its token), talking JSON-RPC over
 * `postMessage`. The host answers `ui/initialize`, then sends the tool's input and result once the
 * view says it is initialized; it follows the view's size and opens http(s) links it asks for in a
 * new tab. Other requests (calling tools, sending messages) are refused: the dev UI only shows.
 */
export function McpAppView({
  target,
  app,
  toolName,
  args,
  response,
}: {
  target: { app: string; user: string; session: string };
  app: McpAppRef;
  toolName: string;
  args: Record<string, unknown> | undefined;
  response: Record<string, unknown>;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [html, setHtml] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [height, setHeight] = useState(160);

  useEffect(() => {
    let live = true;
    api
      .loadArtifact(target.app, target.user, target.session, app.artifact, app.version)
      .then((part) => {
        if (!live) return;
        const data = part.inlineData?.data;
        if (part.text !== undefined) setHtml(part.text);
        else if (data !== undefined) setHtml(decodeHtml(data));
        else setError('The view has no HTML.');
      })
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [target.app, target.user, target.session, app.artifact, app.version]);

  useEffect(() => {
    if (html === undefined) return;
    const send = (message: Record<string, unknown>) =>
      // The view's origin is opaque ("null"), so the target origin cannot be narrowed further.
      frame.current?.contentWindow?.postMessage({ jsonrpc: '2.0', ...message }, '*');
    const onMessage = (event: MessageEvent) => {
      if (!frame.current || event.source !== frame.current.contentWindow) return;
      const message = event.data as JsonRpcMessage;
      if (typeof message !== 'object' || message === null || typeof message.method !== 'string') return;
      const { id, method, params } = message;
      if (method === 'ui/initialize' && id !== undefined) {
        send({
          id,
          result: {
            protocolVersion: APPS_PROTOCOL_VERSION,
            hostInfo: { name: 'adk-dev-ui', version: '1.0.0' },
            hostCapabilities: { openLinks: {} },
            hostContext: {
              theme: document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light',
              displayMode: 'inline',
              availableDisplayModes: ['inline'],
              toolInfo: { tool: { name: toolName, inputSchema: { type: 'object' } } },
            },
          },
        });
      } else if (method === 'ui/notifications/initialized') {
        send({ method: 'ui/notifications/tool-input', params: { arguments: args ?? {} } });
        send({ method: 'ui/notifications/tool-result', params: callToolResult(response) });
      } else if (method === 'ui/notifications/size-changed') {
        const h = Number(params?.height);
        if (Number.isFinite(h) && h > 0) setHeight(Math.min(Math.ceil(h), 2000));
      } else if (method === 'ping' && id !== undefined) {
        send({ id, result: {} });
      } else if (method === 'ui/open-link' && id !== undefined) {
        const url = typeof params?.url === 'string' ? params.url : '';
        let ok = false;
        try {
          ok = ['http:', 'https:'].includes(new URL(url).protocol);
        } catch {
          ok = false;
        }
        if (ok) {
          window.open(url, '_blank', 'noopener,noreferrer');
          send({ id, result: {} });
        } else send({ id, error: { code: -32602, message: 'Only http(s) links are opened' } });
      } else if (id !== undefined) {
        send({ id, error: { code: -32601, message: `The ADK dev UI does not support ${method}` } });
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [html, toolName, args, response]);

  if (error)
    return (
      <p class="field-error small">
        MCP App view {app.resourceUri}: {error}
      </p>
    );
  if (html === undefined) return <p class="muted small">Loading the view {app.resourceUri}…</p>;
  return (
    <iframe
      ref={frame}
      class="mcp-app"
      title={`MCP App ${app.resourceUri}`}
      sandbox="allow-scripts"
      referrerpolicy="no-referrer"
      srcdoc={html}
      style={{ height: `${height}px` }}
    />
  );
}
