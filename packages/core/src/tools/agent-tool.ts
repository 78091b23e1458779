import type { z } from 'zod';
import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { InMemoryArtifactService } from '../artifacts/in-memory-artifact-service.js';
import { contentText } from '../events/content.js';
import { type Event, isFinalResponse } from '../events/event.js';
import type { FunctionDeclaration } from '../models/llm.js';
import { Runner } from '../runner/runner.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { TEMP_PREFIX } from '../sessions/state.js';
import { isPlainObject, tryParseJson } from '../utils/json.js';
import { formatIssues, lazySchema, type SchemaLike } from '../utils/zod.js';
import { BaseTool } from './base-tool.js';
import { zodToJsonSchema } from './function-tool.js';
import type { ToolContext } from './tool-context.js';

export interface AgentToolOptions {
  agent: BaseAgent;
  /** Arguments schema (default `{ request: string }`); the arguments are sent to the agent as JSON. */
  inputSchema?: z.ZodType<Record<string, unknown>>;
  /** End the caller's turn with the agent's answer instead of letting the caller's model summarize it. */
  skipSummarization?: boolean;
  /** Stream the agent's inner events to the caller (also on with runConfig.streamAgentToolEvents). */
  streamEvents?: boolean;
}

const defaultInput = /* @__PURE__ */ lazySchema((z) => z.object({ request: z.string() }));

/** ADK's declaration of an agent tool without an input schema: one required string, `request`. */
const DEFAULT_PARAMETERS = {
  type: 'object',
  properties: { request: { type: 'string' } },
  required: ['request'],
};

/**
 * An agent used as a tool. It runs in its own in-memory session seeded with the caller's state;
 * its state changes and artifacts flow back to the caller's tool-response event.
 */
export class AgentTool extends BaseTool {
  readonly agent: BaseAgent;
  private readonly options: AgentToolOptions;

  constructor(options: AgentToolOptions) {
    super({ name: options.agent.name, description: options.agent.description });
    this.agent = options.agent;
    this.options = options;
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: this.options.inputSchema ? zodToJsonSchema(this.options.inputSchema) : DEFAULT_PARAMETERS,
    };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const schema: SchemaLike<Record<string, unknown>> = this.options.inputSchema ?? defaultInput;
    const parsed = schema.safeParse(args);
    if (!parsed.success) {
      return { error: `Invalid arguments for "${this.name}": ${formatIssues(parsed.error.issues)}` };
    }
    const text = this.options.inputSchema ? JSON.stringify(parsed.data) : String(parsed.data.request);
    if (this.options.skipSummarization) context.skipSummarization();

    const ctx = context.invocationContext;
    const sessionService = new InMemorySessionService();
    const artifactService = new InMemoryArtifactService();
    const runner = new Runner({
      appName: ctx.appName,
      agent: this.agent,
      sessionService,
      artifactService,
      ...(ctx.memoryService ? { memoryService: ctx.memoryService } : {}),
      plugins: ctx.pluginManager,
      models: ctx.models,
    });
    const seed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(context.state.toObject()))
      if (!k.startsWith(TEMP_PREFIX)) seed[k] = v;
    const session = await sessionService.createSession({
      appName: ctx.appName,
      userId: ctx.userId,
      state: seed,
    });
    const stream = this.options.streamEvents ?? ctx.runConfig.streamAgentToolEvents ?? false;
    let last: Event | undefined;
    let error: string | undefined;
    // A workflow's result is its output (the event that records its own run), not its last text.
    let output: unknown;
    const workflowRun = `${this.agent.name}@`;
    for await (const event of runner.run({
      userId: ctx.userId,
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text }] },
      runConfig: ctx.runConfig,
      signal: ctx.signal,
    })) {
      if (stream && event.author !== 'user') {
        ctx.emit?.({
          ...event,
          partial: true,
          customMetadata: { ...event.customMetadata, agentTool: this.name },
        });
      }
      if (event.author === 'user') continue;
      for (const [k, v] of Object.entries(event.actions.stateDelta))
        if (!k.startsWith(TEMP_PREFIX)) context.state.set(k, v);
      if (event.errorCode) error = `${event.errorCode}: ${event.errorMessage ?? ''}`;
      const info = event.nodeInfo;
      if (info?.outputFor?.some((path) => path.startsWith(workflowRun) && !path.includes('/')))
        output = event.output;
      if (!event.partial && isFinalResponse(event) && event.content) last = event;
    }
    for (const name of await artifactService.listArtifactKeys({
      appName: ctx.appName,
      userId: ctx.userId,
      sessionId: session.id,
    })) {
      const part = await artifactService.loadArtifact({
        appName: ctx.appName,
        userId: ctx.userId,
        sessionId: session.id,
        filename: name,
      });
      if (part && ctx.artifactService) await context.saveArtifact(name, part);
    }
    if (output !== undefined) return isPlainObject(output) ? output : { result: output };
    if (!last && error) return { error: `Agent "${this.name}" failed: ${error}` };
    const answer = contentText(last?.content);
    if (this.agent instanceof LlmAgent && this.agent.outputSchema) {
      const value = this.agent.outputSchema.safeParse(tryParseJson(answer));
      if (value.success) return value.data as Record<string, unknown>;
    }
    return { result: answer };
  }
}
