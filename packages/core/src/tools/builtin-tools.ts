import type { ReadonlyContext } from '../agents/callback-context.js';
import { ConfigError } from '../errors/errors.js';
import { contentText, type Part } from '../events/content.js';
import type { FunctionDeclaration, JsonSchema, LlmRequest } from '../models/llm.js';
import { formatIssues, lazySchema, type SchemaLike } from '../utils/zod.js';
import { BaseTool } from './base-tool.js';
import { ToolArgumentsError } from './function-tool.js';
import type { ToolContext } from './tool-context.js';

/**
 * A built-in tool: a JSON Schema declaration (so defining it loads nothing) and arguments
 * validated with a lazily built zod schema.
 */
abstract class BuiltinTool<A> extends BaseTool {
  constructor(
    name: string,
    description: string,
    private readonly parameters: JsonSchema,
    private readonly schema: SchemaLike<A>,
  ) {
    super({ name, description });
  }

  declaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parameters: this.parameters };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const parsed = this.schema.safeParse(args);
    if (!parsed.success) throw new ToolArgumentsError(formatIssues(parsed.error.issues));
    return this.execute(parsed.data, context);
  }

  protected abstract execute(args: A, context: ToolContext): Promise<unknown> | unknown;
}

class ExitLoopTool extends BuiltinTool<Record<string, never>> {
  constructor() {
    super(
      'exit_loop',
      'Exits the loop. Call this function only when you are instructed to do so.',
      { type: 'object', properties: {} },
      lazySchema((z) => z.object({}).transform(() => ({}) as Record<string, never>)),
    );
  }

  protected execute(_args: Record<string, never>, context: ToolContext): unknown {
    context.escalate();
    context.skipSummarization();
    return {};
  }
}

/** Ends the enclosing LoopAgent (escalates) — the model calls it when the loop's work is done. */
export const exitLoopTool: BaseTool = new ExitLoopTool();

class LoadMemoryTool extends BuiltinTool<{ query: string }> {
  constructor() {
    super(
      'load_memory',
      'Loads memories of earlier conversations with the current user that match a query.',
      {
        type: 'object',
        properties: { query: { type: 'string', description: 'What to look for' } },
        required: ['query'],
      },
      lazySchema((z) => z.object({ query: z.string() })),
    );
  }

  protected async execute({ query }: { query: string }, context: ToolContext): Promise<unknown> {
    const { memories } = await context.searchMemory(query);
    return {
      memories: memories.map((m) => ({
        author: m.author,
        timestamp: m.timestamp,
        text: contentText(m.content),
      })),
    };
  }
}

/** Searches the user's long-term memory. */
export const loadMemoryTool: BaseTool = new LoadMemoryTool();

/**
 * Adds what the user's long-term memory holds about their current message to the instruction,
 * before every model call; the model calls nothing.
 */
class PreloadMemoryTool extends BaseTool {
  constructor(private readonly limit: number) {
    super({
      name: 'preload_memory',
      description: 'Adds memories relevant to the user’s message to the instructions.',
    });
  }

  declaration(): undefined {
    return undefined;
  }

  async run(): Promise<unknown> {
    return {};
  }

  override async processLlmRequest(context: ReadonlyContext, request: LlmRequest): Promise<void> {
    const ctx = context.invocationContext;
    const query = contentText(ctx.userContent).trim();
    if (!query) return;
    if (!ctx.memoryService) throw new ConfigError('preload_memory needs a memoryService on the Runner');
    const { memories } = await ctx.memoryService.searchMemory({
      appName: ctx.appName,
      userId: ctx.userId,
      query,
      limit: this.limit,
    });
    const lines: string[] = [];
    for (const memory of memories) {
      const text = contentText(memory.content).trim();
      if (!text) continue;
      const when = memory.timestamp === undefined ? '' : `[${new Date(memory.timestamp).toISOString()}] `;
      lines.push(`${when}${memory.author ?? 'unknown'}: ${text}`);
    }
    if (lines.length === 0) return;
    const note = `Earlier conversations with this user that may help with the current message:\n<PAST_CONVERSATIONS>\n${lines.join('\n')}\n</PAST_CONVERSATIONS>`;
    request.systemInstruction = request.systemInstruction ? `${request.systemInstruction}\n\n${note}` : note;
  }
}

/**
 * ADK's PreloadMemoryTool: memories relevant to the user's message (up to `limit`, default 5) are
 * added to the instruction of every model call of the invocation.
 */
export function createPreloadMemoryTool(options: { limit?: number } = {}): BaseTool {
  return new PreloadMemoryTool(options.limit ?? 5);
}

/** `preload_memory` with the default limit of 5 memories. */
export const preloadMemoryTool: BaseTool = createPreloadMemoryTool();

const LOAD_ARTIFACTS = 'load_artifacts';

class LoadArtifactsTool extends BuiltinTool<{ artifact_names: string[] }> {
  constructor() {
    super(
      LOAD_ARTIFACTS,
      'Loads the artifacts (files) with the given names so that you can read them.',
      {
        type: 'object',
        properties: { artifact_names: { type: 'array', items: { type: 'string' } } },
        required: ['artifact_names'],
      },
      lazySchema((z) => z.object({ artifact_names: z.array(z.string()) })),
    );
  }

  protected async execute(
    { artifact_names }: { artifact_names: string[] },
    context: ToolContext,
  ): Promise<unknown> {
    const available = await context.listArtifacts();
    return {
      artifact_names: artifact_names.filter((n) => available.includes(n)),
      missing: artifact_names.filter((n) => !available.includes(n)),
    };
  }

  /** Lists the available artifacts, and adds the content of those just loaded to the request. */
  override async processLlmRequest(context: ReadonlyContext, request: LlmRequest): Promise<void> {
    const ctx = context.invocationContext;
    if (!ctx.artifactService) return;
    const scope = { appName: ctx.appName, userId: ctx.userId, sessionId: ctx.session.id };
    const names = await ctx.artifactService.listArtifactKeys(scope);
    if (names.length === 0) return;
    const note = `You have these artifacts: ${JSON.stringify(names)}. Call ${LOAD_ARTIFACTS} to read any of them.`;
    request.systemInstruction = request.systemInstruction ? `${request.systemInstruction}\n\n${note}` : note;
    const last = request.contents.at(-1);
    for (const part of last?.parts ?? []) {
      const response = part.functionResponse;
      if (response?.name !== LOAD_ARTIFACTS) continue;
      const loaded = (response.response.artifact_names as string[] | undefined) ?? [];
      const parts: Part[] = [];
      for (const name of loaded) {
        const artifact = await ctx.artifactService.loadArtifact({ ...scope, filename: name });
        if (artifact) parts.push({ text: `Artifact ${name}:` }, artifact);
      }
      if (parts.length > 0) request.contents.push({ role: 'user', parts });
    }
  }
}

/** Lets the model read the session's artifacts. */
export const loadArtifactsTool: BaseTool = new LoadArtifactsTool();
