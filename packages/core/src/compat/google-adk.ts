// Names of @google/adk (adk-js) kept beside ours, so code written for it ports with its imports
// changed. docs/migrating-from-google-adk.md lists them and every difference that remains.
import type { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import { REQUEST_CONFIRMATION, REQUEST_CREDENTIAL } from '../flow/confirmation.js';
import type { Llm, LlmRequest, LlmResponse } from '../models/llm.js';
import { defaultModelRegistry, type ModelProvider } from '../models/registry.js';
import type { AgentHooks, Plugin } from '../plugins/plugin.js';
import type { BaseTool } from '../tools/base-tool.js';
import { googleSearch } from '../tools/model-built-in-tools.js';
import type { ToolContext } from '../tools/tool-context.js';

/** @google/adk's name for {@link REQUEST_CONFIRMATION}: the function call asking to confirm a tool call. */
export const REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = REQUEST_CONFIRMATION;

/** @google/adk's name for {@link REQUEST_CREDENTIAL}: the function call asking for credentials. */
export const REQUEST_EUC_FUNCTION_CALL_NAME = REQUEST_CREDENTIAL;

/** @google/adk's `GOOGLE_SEARCH`: Gemini's Google Search tool (our `googleSearch()`). */
export const GOOGLE_SEARCH = /* @__PURE__ */ googleSearch();

/**
 * @google/adk's static `LLMRegistry`, over the process-wide {@link defaultModelRegistry}:
 * `LLMRegistry.newLlm('gemini-2.5-flash')` resolves a name as a run would.
 */
export const LLMRegistry = {
  newLlm(model: string): Llm {
    return defaultModelRegistry.resolve(model);
  },
  resolve(model: string): Llm {
    return defaultModelRegistry.resolve(model);
  },
  register(provider: ModelProvider): void {
    defaultModelRegistry.register(provider);
  },
} as const;

type Maybe<T> = Promise<T | undefined>;
type ToolArgsRecord = Record<string, unknown>;

const ADK_CALLBACKS = {
  onUserMessageCallback: 'onUserMessage',
  beforeRunCallback: 'beforeRun',
  afterRunCallback: 'afterRun',
  onEventCallback: 'onEvent',
  beforeAgentCallback: 'beforeAgent',
  afterAgentCallback: 'afterAgent',
  beforeModelCallback: 'beforeModel',
  afterModelCallback: 'afterModel',
  onModelErrorCallback: 'onModelError',
  beforeToolCallback: 'beforeTool',
  afterToolCallback: 'afterTool',
  onToolErrorCallback: 'onToolError',
} as const;

/**
 * @google/adk's `BasePlugin`: override its `…Callback({ callbackContext, llmRequest })` methods;
 * each is wired to our hook of the same moment (`beforeModel({ context, request })`…). Only the
 * callbacks a subclass overrides become hooks, so a plugin that does not handle model errors does
 * not take model retries over.
 */
export abstract class BasePlugin implements Plugin {
  readonly name: string;
  declare onUserMessage?: Plugin['onUserMessage'];
  declare beforeRun?: Plugin['beforeRun'];
  declare afterRun?: Plugin['afterRun'];
  declare onEvent?: Plugin['onEvent'];
  declare beforeAgent?: AgentHooks['beforeAgent'];
  declare afterAgent?: AgentHooks['afterAgent'];
  declare beforeModel?: AgentHooks['beforeModel'];
  declare afterModel?: AgentHooks['afterModel'];
  declare onModelError?: AgentHooks['onModelError'];
  declare beforeTool?: AgentHooks['beforeTool'];
  declare afterTool?: AgentHooks['afterTool'];
  declare onToolError?: AgentHooks['onToolError'];

  constructor(name: string) {
    this.name = name;
    const self = this as unknown as Record<string, unknown>;
    for (const [adk, ours] of Object.entries(ADK_CALLBACKS)) {
      if (self[adk] === (BasePlugin.prototype as unknown as Record<string, unknown>)[adk]) continue;
      self[ours] = hookFor(this, adk as keyof typeof ADK_CALLBACKS);
    }
  }

  async onUserMessageCallback(_: {
    invocationContext: InvocationContext;
    userMessage: Content;
  }): Maybe<Content> {
    return undefined;
  }
  async beforeRunCallback(_: { invocationContext: InvocationContext }): Maybe<Content> {
    return undefined;
  }
  async afterRunCallback(_: { invocationContext: InvocationContext }): Promise<void> {}
  async onEventCallback(_: { invocationContext: InvocationContext; event: Event }): Maybe<Event> {
    return undefined;
  }
  async beforeAgentCallback(_: {
    agent: { readonly name: string };
    callbackContext: CallbackContext;
  }): Maybe<Content> {
    return undefined;
  }
  async afterAgentCallback(_: {
    agent: { readonly name: string };
    callbackContext: CallbackContext;
  }): Maybe<Content> {
    return undefined;
  }
  async beforeModelCallback(_: {
    callbackContext: CallbackContext;
    llmRequest: LlmRequest;
  }): Maybe<LlmResponse> {
    return undefined;
  }
  async afterModelCallback(_: {
    callbackContext: CallbackContext;
    llmResponse: LlmResponse;
    llmRequest: LlmRequest;
  }): Maybe<LlmResponse> {
    return undefined;
  }
  async onModelErrorCallback(_: {
    callbackContext: CallbackContext;
    llmRequest: LlmRequest;
    error: unknown;
  }): Maybe<LlmResponse> {
    return undefined;
  }
  async beforeToolCallback(_: {
    tool: BaseTool;
    toolArgs: ToolArgsRecord;
    toolContext: ToolContext;
  }): Maybe<ToolArgsRecord> {
    return undefined;
  }
  async afterToolCallback(_: {
    tool: BaseTool;
    toolArgs: ToolArgsRecord;
    toolContext: ToolContext;
    result: ToolArgsRecord;
  }): Maybe<ToolArgsRecord> {
    return undefined;
  }
  async onToolErrorCallback(_: {
    tool: BaseTool;
    toolArgs: ToolArgsRecord;
    toolContext: ToolContext;
    error: unknown;
  }): Maybe<ToolArgsRecord> {
    return undefined;
  }
}

function hookFor(plugin: BasePlugin, adk: keyof typeof ADK_CALLBACKS): (args: never) => unknown {
  switch (adk) {
    case 'onUserMessageCallback':
      return (a: { context: InvocationContext; message: Content }) =>
        plugin.onUserMessageCallback({ invocationContext: a.context, userMessage: a.message });
    case 'beforeRunCallback':
      return (a: { context: InvocationContext }) =>
        plugin.beforeRunCallback({ invocationContext: a.context });
    case 'afterRunCallback':
      return (a: { context: InvocationContext }) => plugin.afterRunCallback({ invocationContext: a.context });
    case 'onEventCallback':
      return (a: { context: InvocationContext; event: Event }) =>
        plugin.onEventCallback({ invocationContext: a.context, event: a.event });
    case 'beforeAgentCallback':
      return (a: { agent: { readonly name: string }; context: CallbackContext }) =>
        plugin.beforeAgentCallback({ agent: a.agent, callbackContext: a.context });
    case 'afterAgentCallback':
      return (a: { agent: { readonly name: string }; context: CallbackContext }) =>
        plugin.afterAgentCallback({ agent: a.agent, callbackContext: a.context });
    case 'beforeModelCallback':
      return (a: { context: CallbackContext; request: LlmRequest }) =>
        plugin.beforeModelCallback({ callbackContext: a.context, llmRequest: a.request });
    case 'afterModelCallback':
      return (a: { context: CallbackContext; request: LlmRequest; response: LlmResponse }) =>
        plugin.afterModelCallback({
          callbackContext: a.context,
          llmRequest: a.request,
          llmResponse: a.response,
        });
    case 'onModelErrorCallback':
      return (a: { context: CallbackContext; request: LlmRequest; error: unknown }) =>
        plugin.onModelErrorCallback({ callbackContext: a.context, llmRequest: a.request, error: a.error });
    case 'beforeToolCallback':
      return (a: { tool: BaseTool; args: ToolArgsRecord; context: ToolContext }) =>
        plugin.beforeToolCallback({ tool: a.tool, toolArgs: a.args, toolContext: a.context });
    case 'afterToolCallback':
      return (a: { tool: BaseTool; args: ToolArgsRecord; context: ToolContext; result: ToolArgsRecord }) =>
        plugin.afterToolCallback({
          tool: a.tool,
          toolArgs: a.args,
          toolContext: a.context,
          result: a.result,
        });
    case 'onToolErrorCallback':
      return (a: { tool: BaseTool; args: ToolArgsRecord; context: ToolContext; error: unknown }) =>
        plugin.onToolErrorCallback({
          tool: a.tool,
          toolArgs: a.args,
          toolContext: a.context,
          error: a.error,
        });
  }
}
