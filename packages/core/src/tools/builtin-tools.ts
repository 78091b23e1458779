import { z } from 'zod';
import type { ReadonlyContext } from '../agents/callback-context.js';
import { contentText, type Part } from '../events/content.js';
import type { LlmRequest } from '../models/llm.js';
import { FunctionTool } from './function-tool.js';

/** Ends the enclosing LoopAgent (escalates) — the model calls it when the loop's work is done. */
export const exitLoopTool = new FunctionTool({
  name: 'exit_loop',
  description: 'Exits the loop. Call this function only when you are instructed to do so.',
  parameters: z.object({}),
  execute: (_args, context) => {
    context.escalate();
    context.skipSummarization();
    return {};
  },
});

/** Searches the user's long-term memory. */
export const loadMemoryTool = new FunctionTool({
  name: 'load_memory',
  description: 'Loads memories of earlier conversations with the current user that match a query.',
  parameters: z.object({ query: z.string().describe('What to look for') }),
  execute: async ({ query }, context) => {
    const { memories } = await context.searchMemory(query);
    return {
      memories: memories.map((m) => ({
        author: m.author,
        timestamp: m.timestamp,
        text: contentText(m.content),
      })),
    };
  },
});

const LOAD_ARTIFACTS = 'load_artifacts';

class LoadArtifactsTool extends FunctionTool<z.ZodObject<{ artifact_names: z.ZodArray<z.ZodString> }>> {
  constructor() {
    super({
      name: LOAD_ARTIFACTS,
      description: 'Loads the artifacts (files) with the given names so that you can read them.',
      parameters: z.object({ artifact_names: z.array(z.string()) }),
      execute: async ({ artifact_names }, context) => {
        const available = await context.listArtifacts();
        return {
          artifact_names: artifact_names.filter((n) => available.includes(n)),
          missing: artifact_names.filter((n) => !available.includes(n)),
        };
      },
    });
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
export const loadArtifactsTool = new LoadArtifactsTool();
