import type { LlmRequest, ReadonlyContext, ToolContext } from '@adk/core';
import { BaseTool, type FunctionDeclaration } from '@adk/core';
import type { McpSession } from './mcp-session.js';

/** `list_resources`: the server's resources (paged through), as name, URI, type and description. */
export class ListResourcesTool extends BaseTool {
  constructor(
    name: string,
    private readonly session: McpSession,
    private readonly timeoutMs: number,
    private readonly attachMedia: (request: LlmRequest) => void,
  ) {
    super({
      name,
      description: `Lists the resources (files, documents, data) of the MCP server "${session.name}".`,
    });
  }

  declaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parameters: { type: 'object', properties: {} } };
  }

  override processLlmRequest(_context: ReadonlyContext, request: LlmRequest): void {
    // Any tool of the toolset in the request can attach its media (once per request).
    this.attachMedia(request);
  }

  async run(_args: Record<string, unknown>, context: ToolContext): Promise<Record<string, unknown>> {
    const signal = context.signal;
    const resources = await this.session.request(
      'resources/list',
      async (client, own) => {
        const out: Record<string, unknown>[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listResources(cursor === undefined ? {} : { cursor }, {
            ...(own ? { signal: own } : {}),
            timeout: this.timeoutMs,
          });
          for (const r of page.resources)
            out.push({
              uri: r.uri,
              name: r.name,
              ...(r.mimeType ? { mimeType: r.mimeType } : {}),
              ...(r.description ? { description: r.description } : {}),
            });
          cursor = page.nextCursor;
        } while (cursor);
        return out;
      },
      signal,
    );
    return { resources };
  }
}

/** `read_resource`: one resource by URI; text as text, binary contents as inline data for the model. */
export class ReadResourceTool extends BaseTool {
  constructor(
    name: string,
    private readonly session: McpSession,
    private readonly timeoutMs: number,
    private readonly attachMedia: (request: LlmRequest) => void,
  ) {
    super({ name, description: `Reads a resource of the MCP server "${session.name}" by its URI.` });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          uri: { type: 'string', description: 'The URI of the resource (from list_resources).' },
        },
        required: ['uri'],
      },
    };
  }

  override processLlmRequest(_context: ReadonlyContext, request: LlmRequest): void {
    // Binary contents read here reach the model as inline data even when no server tool is listed.
    this.attachMedia(request);
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<Record<string, unknown>> {
    const uri = args.uri;
    if (typeof uri !== 'string') return { error: 'The argument "uri" (a string) is required.' };
    const signal = context.signal;
    const result = await this.session.request(
      `resources/read "${uri}"`,
      (client, own) =>
        client.readResource({ uri }, { ...(own ? { signal: own } : {}), timeout: this.timeoutMs }),
      signal,
    );
    // Same shape as embedded resources in tool results, so media reach the model the same way.
    return {
      content: result.contents.map((c) => ({
        type: 'resource',
        uri: c.uri,
        ...(c.mimeType ? { mimeType: c.mimeType } : {}),
        ...('text' in c && typeof c.text === 'string' ? { text: c.text } : {}),
        ...('blob' in c && typeof c.blob === 'string' ? { blob: c.blob } : {}),
      })),
    };
  }
}
