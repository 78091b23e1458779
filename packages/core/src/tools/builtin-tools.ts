import type { ReadonlyContext } from '../agents/callback-context.js';
import { ConfigError } from '../errors/errors.js';
import { contentText } from '../events/content.js';
import {
  EXIT_LOOP_DESCRIPTION,
  INSTRUCTION_SEPARATOR,
  LOAD_ARTIFACTS_DESCRIPTION,
  LOAD_ARTIFACTS_RESULT_STATUS,
  LOAD_MEMORY_DESCRIPTION,
  LOAD_MEMORY_INSTRUCTION,
  loadedArtifactHeading,
  preloadMemoryInstruction,
} from '../flow/adk-prompts.js';
import { pythonJsonDumps } from '../flow/python-json.js';
import type { FunctionDeclaration, JsonSchema, LlmRequest } from '../models/llm.js';
import { formatIssues, lazySchema, type SchemaLike } from '../utils/zod.js';
import { BaseTool } from './base-tool.js';
import { ToolArgumentsError } from './function-tool.js';
import type { ToolContext } from './tool-context.js';

/** Added to the system instruction when the session has artifacts (names as Python's json.dumps). */
function loadArtifactsInstruction(names: string[]): string {
  return `You have a list of artifacts:\n  ${pythonJsonDumps(names)}\n\n  When the user asks questions about any of the artifacts, you should call the\n  \`load_artifacts\` function to load the artifact. Always call load_artifacts\n  before answering questions related to the artifacts, regardless of whether the\n  artifacts have been loaded before. Do not depend on prior answers about the\n  artifacts.\n  `;
}

/** Appends to the system instruction as ADK's `append_instructions` does. */
function appendInstruction(request: LlmRequest, text: string): void {
  request.systemInstruction = request.systemInstruction
    ? `${request.systemInstruction}${INSTRUCTION_SEPARATOR}${text}`
    : text;
}

/**
 * A built-in tool: a JSON Schema declaration (so defining it loads nothing) and arguments
 * validated with a lazily built zod schema.
 */
abstract class BuiltinTool<A> extends BaseTool {
  constructor(
    name: string,
    description: string,
    private readonly parameters: JsonSchema | undefined,
    private readonly schema: SchemaLike<A>,
  ) {
    super({ name, description });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      ...(this.parameters ? { parameters: this.parameters } : {}),
    };
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
      EXIT_LOOP_DESCRIPTION,
      // A function without parameters: ADK declares none.
      undefined,
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
export const exitLoopTool: BaseTool = /* @__PURE__ */ new ExitLoopTool();

class LoadMemoryTool extends BuiltinTool<{ query: string }> {
  constructor() {
    super(
      'load_memory',
      LOAD_MEMORY_DESCRIPTION,
      { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      lazySchema((z) => z.object({ query: z.string() })),
    );
  }

  /** Tells the model it has memory, as ADK does. */
  override async processLlmRequest(_context: ReadonlyContext, request: LlmRequest): Promise<void> {
    appendInstruction(request, LOAD_MEMORY_INSTRUCTION);
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
export const loadMemoryTool: BaseTool = /* @__PURE__ */ new LoadMemoryTool();

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
      if (memory.timestamp !== undefined) lines.push(`Time: ${new Date(memory.timestamp).toISOString()}`);
      const text = contentText(memory.content);
      if (text) lines.push(memory.author ? `${memory.author}: ${text}` : text);
    }
    if (lines.length === 0) return;
    appendInstruction(request, preloadMemoryInstruction(lines));
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
export const preloadMemoryTool: BaseTool = /* @__PURE__ */ createPreloadMemoryTool();

const LOAD_ARTIFACTS = 'load_artifacts';

class LoadArtifactsTool extends BuiltinTool<{ artifact_names: string[] }> {
  constructor() {
    super(
      LOAD_ARTIFACTS,
      LOAD_ARTIFACTS_DESCRIPTION,
      { type: 'object', properties: { artifact_names: { type: 'array', items: { type: 'string' } } } },
      lazySchema((z) =>
        z.object({ artifact_names: z.array(z.string()).default([]) }).transform((a) => ({
          artifact_names: a.artifact_names,
        })),
      ),
    );
  }

  protected execute({ artifact_names }: { artifact_names: string[] }): unknown {
    // The contents are added to the next request only (below), as ADK does.
    return { artifact_names, status: LOAD_ARTIFACTS_RESULT_STATUS };
  }

  /** Lists the available artifacts, and adds the content of those just loaded to the request. */
  override async processLlmRequest(context: ReadonlyContext, request: LlmRequest): Promise<void> {
    const ctx = context.invocationContext;
    if (!ctx.artifactService) return;
    const scope = { appName: ctx.appName, userId: ctx.userId, sessionId: ctx.session.id };
    const names = await ctx.artifactService.listArtifactKeys(scope);
    if (names.length === 0) return;
    appendInstruction(request, loadArtifactsInstruction(names));
    // ADK looks at the first part of the last content only.
    const response = request.contents.at(-1)?.parts[0]?.functionResponse;
    if (response?.name !== LOAD_ARTIFACTS) return;
    const loaded = response.response.artifact_names;
    for (const name of Array.isArray(loaded) ? loaded : []) {
      if (typeof name !== 'string') continue;
      const artifact = await ctx.artifactService.loadArtifact({ ...scope, filename: name });
      if (!artifact) continue;
      request.contents.push({ role: 'user', parts: [{ text: loadedArtifactHeading(name) }, artifact] });
    }
  }
}

/** Lets the model read the session's artifacts. */
export const loadArtifactsTool: BaseTool = /* @__PURE__ */ new LoadArtifactsTool();
