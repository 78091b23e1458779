import type { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { LlmRequest, LlmResponse } from '../models/llm.js';
import type { BaseTool } from '../tools/base-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { BaseNode } from '../workflow/base-node.js';
import type { NodeContext } from '../workflow/node-context.js';

type Maybe<T> = T | undefined | void;
export type MaybePromise<T> = T | Promise<T>;

export interface AgentHookArgs {
  agent: { readonly name: string };
  context: CallbackContext;
}
export interface BeforeModelArgs {
  context: CallbackContext;
  request: LlmRequest;
}
export interface AfterModelArgs {
  context: CallbackContext;
  response: LlmResponse;
  request: LlmRequest;
}
export interface ModelErrorArgs {
  context: CallbackContext;
  request: LlmRequest;
  error: unknown;
}
export interface BeforeToolArgs {
  tool: BaseTool;
  args: Record<string, unknown>;
  context: ToolContext;
}
export interface AfterToolArgs extends BeforeToolArgs {
  result: Record<string, unknown>;
}
export interface ToolErrorArgs extends BeforeToolArgs {
  error: unknown;
}
export interface BeforeNodeArgs {
  node: BaseNode;
  context: NodeContext;
  input: unknown;
}
export interface AfterNodeArgs extends BeforeNodeArgs {
  output: unknown;
}

/**
 * Agent-level hooks. A before-hook that returns a value short-circuits (skips the agent, the model
 * call or the tool and uses that value); an after-hook that returns a value replaces the result;
 * an error hook that returns a value recovers with it.
 */
export interface AgentHooks {
  beforeAgent?(args: AgentHookArgs): MaybePromise<Maybe<Content>>;
  afterAgent?(args: AgentHookArgs): MaybePromise<Maybe<Content>>;
  beforeModel?(args: BeforeModelArgs): MaybePromise<Maybe<LlmResponse>>;
  afterModel?(args: AfterModelArgs): MaybePromise<Maybe<LlmResponse>>;
  onModelError?(args: ModelErrorArgs): MaybePromise<Maybe<LlmResponse>>;
  beforeTool?(args: BeforeToolArgs): MaybePromise<Maybe<Record<string, unknown>>>;
  afterTool?(args: AfterToolArgs): MaybePromise<Maybe<Record<string, unknown>>>;
  onToolError?(args: ToolErrorArgs): MaybePromise<Maybe<Record<string, unknown>>>;
  /** Before a workflow node runs: a value returned becomes the node's output and the node does not run. */
  beforeNode?(args: BeforeNodeArgs): MaybePromise<unknown>;
  /** After a workflow node completed: a value returned replaces its output. */
  afterNode?(args: AfterNodeArgs): MaybePromise<unknown>;
}

export interface RunHookArgs {
  context: InvocationContext;
}
export interface AgentErrorArgs extends AgentHookArgs {
  error: unknown;
}
export interface RunErrorArgs extends RunHookArgs {
  error: unknown;
}

/**
 * A plugin: run-level hooks plus every agent-level hook, applied to every agent of a Runner.
 * Plugins run before agent callbacks at each hook, in registration order; the first that returns a
 * value wins. Names are unique per runner.
 *
 * A plugin is an object with hooks, so both styles are natural: a stateless object of hooks, or a
 * class whose `init` builds its state and whose `beforeRun` returns `{ halt: content }` to stop a
 * run with a reply (returning content directly does the same).
 */
export interface Plugin extends AgentHooks {
  readonly name: string;
  /** Called once before the first run (or when registered with a started manager). */
  init?(): MaybePromise<void>;
  /** Called when the runner closes. */
  close?(): MaybePromise<void>;
  /** May replace the user's message before it is committed. */
  onUserMessage?(args: RunHookArgs & { message: Content }): MaybePromise<Maybe<Content>>;
  /** Returning content (or `{ halt: content }`) ends the run with that reply; `{ continue: true }` or nothing goes on. */
  beforeRun?(args: RunHookArgs): MaybePromise<Maybe<Content | BeforeRunDecision>>;
  afterRun?(args: RunHookArgs): MaybePromise<void>;
  /** May replace each event before it is committed and yielded. */
  onEvent?(args: RunHookArgs & { event: Event }): MaybePromise<Maybe<Event>>;
  /**
   * An agent's run threw (not a cancellation); called for the agent where the error arose. Returning
   * content recovers: it becomes that agent's reply and the invocation goes on (a workflow parent
   * continues with its next step). Otherwise the error ends the invocation.
   */
  onAgentError?(args: AgentErrorArgs): MaybePromise<Maybe<Content>>;
  /**
   * The invocation failed (an error or a cancellation); called once, before its error event is
   * committed, for logging and alerts. Every plugin is called; a throwing one is ignored.
   */
  onRunError?(args: RunErrorArgs): MaybePromise<void>;
}

export type BeforeRunDecision = { continue: true } | { halt: Content };
