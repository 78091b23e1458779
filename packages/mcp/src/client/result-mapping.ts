import type { Content, LlmRequest, Part } from '@adk/core';

/** An MCP content block, as far as the mapping needs it (the SDK validated the result). */
interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
  annotations?: unknown;
}

export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Marks a media item whose bytes are sent to the model as an inline data part, not as JSON. */
const ATTACHED = 'attached after this response as inline data';

/**
 * The function response for a tools/call result:
 * - text blocks joined into `result` (or `error` when the result is an error),
 * - other blocks in `content`: images and audio as `{ type, mimeType, data }`, embedded resources as
 *   `{ type: 'resource', uri, mimeType, text | blob }`, resource links as they came,
 * - `structuredContent` as given.
 * Base64 payloads stay in the stored response (the session keeps them); {@link attachMedia} moves
 * them into inline data parts when the request for the model is built.
 */
export function toFunctionResponse(result: McpCallResult): Record<string, unknown> {
  const texts: string[] = [];
  const others: Record<string, unknown>[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        texts.push(block.text ?? '');
        break;
      case 'image':
      case 'audio':
        others.push({
          type: block.type,
          mimeType: block.mimeType ?? 'application/octet-stream',
          data: block.data ?? '',
        });
        break;
      case 'resource': {
        const r = block.resource;
        if (!r) break;
        others.push({
          type: 'resource',
          uri: r.uri,
          ...(r.mimeType ? { mimeType: r.mimeType } : {}),
          ...(r.text === undefined ? {} : { text: r.text }),
          ...(r.blob === undefined ? {} : { blob: r.blob }),
        });
        break;
      }
      default: {
        // resource_link and any block type newer than this mapping: passed on as given.
        const { annotations: _a, ...rest } = block;
        others.push(rest as Record<string, unknown>);
      }
    }
  }
  const text = texts.join('\n');
  const response: Record<string, unknown> = {};
  if (result.isError) response.error = text || 'The tool reported an error.';
  else if (texts.length > 0) response.result = text;
  if (others.length > 0) response.content = others;
  if (result.structuredContent !== undefined) response.structuredContent = result.structuredContent;
  return response;
}

/** The inline data (mime type, base64) of a media item of a mapped response, if it has one. */
function mediaOf(item: unknown): { mimeType: string; data: string; key: 'data' | 'blob' } | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const i = item as Record<string, unknown>;
  const mimeType = typeof i.mimeType === 'string' ? i.mimeType : 'application/octet-stream';
  if ((i.type === 'image' || i.type === 'audio') && typeof i.data === 'string' && i.data !== ATTACHED)
    return { mimeType, data: i.data, key: 'data' };
  if (i.type === 'resource' && typeof i.blob === 'string' && i.blob !== ATTACHED)
    return { mimeType, data: i.blob, key: 'blob' };
  return undefined;
}

/**
 * The media attachment of one toolset, given to each of its tools: every tool of the toolset in a
 * model request may call it (whichever filter chose them), and the first call for a request does
 * {@link attachMedia} for all the toolset's tool names; later calls for the same request do nothing.
 */
export function mediaAttacher(toolNames: ReadonlySet<string>): (request: LlmRequest) => void {
  const done = new WeakSet<LlmRequest>();
  return (request) => {
    if (done.has(request)) return;
    done.add(request);
    attachMedia(request, toolNames);
  };
}

/**
 * Core's function responses are JSON objects; a model sees images and audio only as inline data
 * parts. For every function response of the named tools in the request, the media bytes are moved
 * out of the JSON (replaced by a note) into inline data parts that follow the function responses in
 * the same user turn. The session's events are not changed: new content objects replace them in
 * the request only.
 */
function attachMedia(request: LlmRequest, toolNames: ReadonlySet<string>): void {
  for (let i = 0; i < request.contents.length; i++) {
    const content = request.contents[i] as Content;
    if (content.role !== 'user') continue;
    let changed = false;
    const media: Part[] = [];
    const parts = content.parts.map((part) => {
      const fr = part.functionResponse;
      if (!fr || !toolNames.has(fr.name) || !Array.isArray(fr.response.content)) return part;
      const items = fr.response.content as unknown[];
      if (!items.some((item) => mediaOf(item))) return part;
      changed = true;
      const replaced = items.map((item) => {
        const m = mediaOf(item);
        if (!m) return item;
        media.push({ inlineData: { mimeType: m.mimeType, data: m.data } });
        return { ...(item as Record<string, unknown>), [m.key]: ATTACHED };
      });
      return { ...part, functionResponse: { ...fr, response: { ...fr.response, content: replaced } } };
    });
    if (changed) request.contents[i] = { ...content, parts: [...parts, ...media] };
  }
}
