import type { z } from 'zod';
import { ConfigError } from '../errors/errors.js';
import type { Event } from '../events/event.js';
import type { ContextCompressor } from '../flow/compression.js';
import type { IncludeContents } from '../flow/contents.js';
import type { InstructionProvider } from '../flow/instructions.js';
import { runLlmFlow } from '../flow/llm-flow.js';
import type { Guardrail, GuardrailStreaming } from '../guardrails/guardrail.js';
import type { AgentMemoryOptions } from '../memory/agent-memory.js';
import { updateProfileTool } from '../memory/profile-tool.js';
import { recallTool } from '../memory/recall-tool.js';
import type { GenerateConfig, Llm } from '../models/llm.js';
import type { AgentHooks } from '../plugins/plugin.js';
import type { State } from '../sessions/state.js';
import type { StateSchema, TypedStateView } from '../sessions/typed-state.js';
import type { ToolUnion } from '../tools/toolset.js';
import { asArray, BaseAgent, type BaseAgentOptions, type Callbacks } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';

type Hook<K extends keyof AgentHooks> = NonNullable<AgentHooks[K]>;

/**
 * `TOutput`: the type of the agent's structured output, inferred from `outputSchema`. `TState`: the
 * type of the session state the agent reads and writes, inferred from `stateSchema`.
 */
export interface LlmAgentOptions<
  TOutput = unknown,
  TState extends Record<string, unknown> = Record<string, unknown>,
> extends BaseAgentOptions {
  /** A model object, or a name resolved through the model registry. Inherited from the nearest LlmAgent ancestor when omitted. */
  model?: string | Llm;
  /** Template (`{key}`, `{key?}`, `{app:key}`, `{user:key}`, `{artifact.name}`) or function. */
  instruction?: InstructionProvider;
  /** Instruction for every agent of the tree; only read from the root agent. */
  globalInstruction?: InstructionProvider;
  /**
   * Text that never changes between requests (not templated): sent first in the system
   * instruction, so providers can place it where their vendor caches prompts.
   */
  staticInstruction?: string;
  tools?: ToolUnion[];
  generateConfig?: GenerateConfig;
  /** @google/adk's name for `generateConfig` (used when `generateConfig` is not given). */
  generateContentConfig?: GenerateConfig;
  /** Store the final response text (or parsed output) in state under this key. */
  outputKey?: string;
  /**
   * Sent as the response schema; the final text is validated against it. Its output type is the
   * agent's (`runAgent(agent, …).output`).
   */
  outputSchema?: z.ZodType<TOutput>;
  /**
   * The state this agent uses (`defineState(z.object({…}))`): types `runAgent(agent, …).state` and
   * `agent.state(ctx.state)` in tools and callbacks. Values are validated when read or written
   * through the typed view and when `runAgent` returns the state; plain `ctx.state.set` is not checked.
   */
  stateSchema?: StateSchema<TState>;
  /** 'none': send only the current turn, not the session history. */
  includeContents?: IncludeContents;
  disallowTransferToParent?: boolean;
  disallowTransferToPeers?: boolean;
  /** Shrinks the history sent to the model (overrides the Runner's setting). */
  contextCompression?: ContextCompressor | ContextCompressor[];
  beforeModelCallback?: Callbacks<Hook<'beforeModel'>>;
  afterModelCallback?: Callbacks<Hook<'afterModel'>>;
  onModelErrorCallback?: Callbacks<Hook<'onModelError'>>;
  beforeToolCallback?: Callbacks<Hook<'beforeTool'>>;
  afterToolCallback?: Callbacks<Hook<'afterTool'>>;
  onToolErrorCallback?: Callbacks<Hook<'onToolError'>>;
  /** Checks of the user's message before it is committed (docs/decisions/0030-guardrails.md). */
  inputGuardrails?: Guardrail[];
  /** Checks of every answer of this agent's model before it is committed. */
  outputGuardrails?: Guardrail[];
  /** Checks of this agent's tool calls: arguments before the tool runs, results before the model sees them. */
  toolGuardrails?: Guardrail[];
  /** Streamed answers under output guardrails: `buffer` (default) or `retract`. */
  guardrailStreaming?: GuardrailStreaming;
  /** Memory features (per-turn recall, …), each off unless given (docs/decisions/0037-agent-memory-prompt-position.md). */
  memory?: AgentMemoryOptions;
}

/** An agent driven by a model: docs/architecture.md §4.2 "The LlmAgent step", repeated until a final response. */
export class LlmAgent<
  TOutput = unknown,
  TState extends Record<string, unknown> = Record<string, unknown>,
> extends BaseAgent {
  readonly model: string | Llm | undefined;
  readonly instruction: InstructionProvider | undefined;
  readonly staticInstruction: string | undefined;
  readonly globalInstruction: InstructionProvider | undefined;
  readonly tools: readonly ToolUnion[];
  readonly generateConfig: GenerateConfig | undefined;
  readonly outputKey: string | undefined;
  readonly outputSchema: z.ZodType<TOutput> | undefined;
  readonly stateSchema: StateSchema<TState> | undefined;
  readonly includeContents: IncludeContents;
  readonly disallowTransferToParent: boolean;
  readonly disallowTransferToPeers: boolean;
  readonly contextCompression: ContextCompressor[] | undefined;
  readonly inputGuardrails: readonly Guardrail[];
  readonly outputGuardrails: readonly Guardrail[];
  readonly toolGuardrails: readonly Guardrail[];
  readonly guardrailStreaming: GuardrailStreaming | undefined;
  readonly memory: AgentMemoryOptions | undefined;
  readonly callbacks: {
    beforeModel: Hook<'beforeModel'>[];
    afterModel: Hook<'afterModel'>[];
    onModelError: Hook<'onModelError'>[];
    beforeTool: Hook<'beforeTool'>[];
    afterTool: Hook<'afterTool'>[];
    onToolError: Hook<'onToolError'>[];
  };

  constructor(options: LlmAgentOptions<TOutput, TState>) {
    super(options);
    this.model = options.model;
    this.instruction = options.instruction;
    this.staticInstruction = options.staticInstruction;
    this.globalInstruction = options.globalInstruction;
    this.tools = options.tools ?? [];
    if (options.memory?.profile && options.memory.profile.update !== 'background')
      this.tools = [...this.tools, updateProfileTool(options.memory.profile)];
    if (options.memory?.observe) this.tools = [...this.tools, recallTool()];
    this.generateConfig = options.generateConfig ?? options.generateContentConfig;
    this.outputKey = options.outputKey;
    this.outputSchema = options.outputSchema;
    this.stateSchema = options.stateSchema;
    this.includeContents = options.includeContents ?? 'default';
    this.disallowTransferToParent = options.disallowTransferToParent ?? false;
    this.disallowTransferToPeers = options.disallowTransferToPeers ?? false;
    this.contextCompression =
      options.contextCompression === undefined ? undefined : asArray(options.contextCompression);
    this.inputGuardrails = options.inputGuardrails ?? [];
    this.outputGuardrails = options.outputGuardrails ?? [];
    this.toolGuardrails = options.toolGuardrails ?? [];
    this.guardrailStreaming = options.guardrailStreaming;
    this.memory = options.memory;
    this.callbacks = {
      beforeModel: asArray(options.beforeModelCallback),
      afterModel: asArray(options.afterModelCallback),
      onModelError: asArray(options.onModelErrorCallback),
      beforeTool: asArray(options.beforeToolCallback),
      afterTool: asArray(options.afterToolCallback),
      onToolError: asArray(options.onToolErrorCallback),
    };
  }

  /**
   * A typed view of `state` (a tool's or callback's `ctx.state`) through the agent's `stateSchema`:
   * `get` and `set` are typed and validated. Throws a `ConfigError` when the agent has no schema.
   */
  state(state: State): TypedStateView<TState> {
    if (!this.stateSchema) throw new ConfigError(`Agent "${this.name}" has no stateSchema`);
    return this.stateSchema.view(state);
  }

  /** The model to call: this agent's, else the nearest LlmAgent ancestor's. */
  get canonicalModel(): string | Llm | undefined {
    let agent: BaseAgent | undefined = this;
    while (agent) {
      if (agent instanceof LlmAgent && agent.model !== undefined) return agent.model;
      agent = agent.parentAgent;
    }
    return undefined;
  }

  protected runImpl(context: InvocationContext): AsyncGenerator<Event, void, undefined> {
    return runLlmFlow(this, context);
  }

  // The live flow is loaded on the first live session (an app without live sessions never loads it).
  protected override async *runLiveImpl(context: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const { runLiveFlow } = await loadLiveFlow();
    yield* runLiveFlow(this, context);
  }
}

let liveFlow: Promise<typeof import('../flow/live-flow.js')> | undefined;
const loadLiveFlow = () => (liveFlow ??= import('../flow/live-flow.js'));
