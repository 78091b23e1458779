import { firstResult } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { describeError, isAdkError } from '../errors/errors.js';
import type { FunctionCall, Part } from '../events/content.js';
import {
  createEvent,
  type Event,
  type EventActions,
  emptyActions,
  hasActions,
  type ToolConfirmation,
} from '../events/event.js';
import { GUARDRAILS_METADATA_KEY, type GuardrailRecord } from '../guardrails/guardrail.js';
import { checkToolResult } from '../guardrails/load.js';
import type { AgentHooks } from '../plugins/plugin.js';
import { endSpan, startSpan } from '../telemetry/tracing.js';
import type { BaseTool } from '../tools/base-tool.js';
import { ToolArgumentsError } from '../tools/function-tool.js';
import { ToolContext } from '../tools/tool-context.js';
import { isPlainObject } from '../utils/json.js';

export interface ToolHooks {
  beforeTool: NonNullable<AgentHooks['beforeTool']>[];
  afterTool: NonNullable<AgentHooks['afterTool']>[];
  onToolError: NonNullable<AgentHooks['onToolError']>[];
}

export interface CallOutcome {
  call: FunctionCall;
  /** undefined: a long-running tool with no response yet */
  response: Record<string, unknown> | undefined;
  actions: EventActions;
  /** What tool-output guardrails changed in the response. */
  guardrails?: GuardrailRecord[];
}

export function asResponse(result: unknown): Record<string, unknown> {
  if (result === undefined || result === null) return {};
  return isPlainObject(result) ? result : { result };
}

function errorResponse(message: string): Record<string, unknown> {
  return { error: message };
}

/**
 * Takes over a streaming tool's output in a live session (see BaseTool.run); returns the response
 * to give at once, or undefined for none (the chunks follow as responses of their own).
 */
export type ToolStreamHandler = (
  stream: AsyncIterable<unknown>,
  tool: BaseTool,
  context: ToolContext,
) => Record<string, unknown> | undefined;

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** Outside a live session a streaming tool's response is its last value. */
async function lastValue(stream: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of stream) last = value;
  return last;
}

/** Runs one call with its own context, hooks around it; failures become error responses. */
export async function runCall(
  ctx: InvocationContext,
  call: FunctionCall,
  tools: Map<string, BaseTool>,
  hooks: ToolHooks,
  confirmation: ToolConfirmation | undefined,
  onStream?: ToolStreamHandler,
): Promise<CallOutcome> {
  const toolContext = new ToolContext(ctx, call.id);
  const tool = tools.get(call.name);
  if (!tool) {
    const available = [...tools.keys()].join(', ') || 'none';
    return {
      call,
      response: errorResponse(`Tool "${call.name}" does not exist. Available tools: ${available}.`),
      actions: toolContext.actions,
    };
  }
  if (call.invalidArgs !== undefined) {
    return {
      call,
      response: errorResponse(`The arguments for "${call.name}" were not valid JSON: ${call.invalidArgs}`),
      actions: toolContext.actions,
    };
  }
  const trace = startSpan(`execute_tool ${tool.name}`, ctx.trace, () => ({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool.name,
    'gen_ai.tool.description': tool.description,
    'gen_ai.tool.call.id': call.id,
    'gen_ai.conversation.id': ctx.session.id,
    'gen_ai.agent.name': ctx.agent.name,
  }));
  const args = call.args;
  const toolCtx = new ToolContext(
    trace === ctx.trace ? ctx : ctx.with({ trace }),
    call.id,
    toolContext.actions,
    confirmation,
  );
  let failure: unknown;
  try {
    if (confirmation && !confirmation.confirmed) {
      return {
        call,
        response: errorResponse(`The user rejected this call of "${tool.name}".`),
        actions: toolCtx.actions,
      };
    }
    if (!confirmation && (await tool.requiresConfirmation(args, toolCtx))) {
      toolCtx.requestConfirmation(`Please confirm the call of ${tool.name} with ${JSON.stringify(args)}.`);
      return { call, response: undefined, actions: toolCtx.actions };
    }
    const hookArgs = { tool, args, context: toolCtx };
    let result =
      (await ctx.pluginManager.beforeTool(hookArgs)) ?? (await firstResult(hooks.beforeTool, hookArgs));
    if (toolCtx.actions.requestedToolConfirmations?.[call.id]) {
      // A hook asked the user to confirm this call: no response until the user answers.
      return { call, response: undefined, actions: toolCtx.actions };
    }
    if (result === undefined) {
      try {
        let raw = await tool.run(args, toolCtx);
        if (isAsyncIterable(raw)) {
          if (onStream) return { call, response: onStream(raw, tool, toolCtx), actions: toolCtx.actions };
          raw = await lastValue(raw);
        }
        // A long-running tool that returns nothing pauses; a value is an interim result
        // (docs/architecture.md §4.3) that the model sees at once.
        if ((raw === undefined || raw === null) && tool.isLongRunning)
          return { call, response: undefined, actions: toolCtx.actions };
        // The tool asked the client for a credential: no response until the client answers.
        if (toolCtx.actions.requestedAuthConfigs?.[call.id])
          return { call, response: undefined, actions: toolCtx.actions };
        result = asResponse(raw);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        if (isAdkError(error, 'PLUGIN')) throw error;
        failure = error;
        const errorArgs = { ...hookArgs, error };
        const recovered =
          (await ctx.pluginManager.onToolError(errorArgs)) ??
          (await firstResult(hooks.onToolError, errorArgs));
        if (recovered !== undefined) result = recovered;
        else {
          const message =
            error instanceof ToolArgumentsError
              ? `Invalid arguments for "${tool.name}": ${error.issues}`
              : `Tool "${tool.name}" failed: ${describeError(error)}`;
          return { call, response: errorResponse(message), actions: toolCtx.actions };
        }
      }
    }
    // Tool-output guardrails see the result before after-tool hooks, the trace and the model.
    const records: GuardrailRecord[] = [];
    result = await checkToolResult(ctx, toolCtx, tool.name, call.id, args, result, records);
    const afterArgs = { ...hookArgs, result };
    const replaced =
      (await ctx.pluginManager.afterTool(afterArgs)) ?? (await firstResult(hooks.afterTool, afterArgs));
    return {
      call,
      response: replaced ?? result,
      actions: toolCtx.actions,
      ...(records.length > 0 ? { guardrails: records } : {}),
    };
  } catch (error) {
    // A throwing confirmation predicate or agent tool callback fails this call only.
    if (ctx.signal.aborted || isAdkError(error, 'PLUGIN') || isAdkError(error, 'GUARDRAIL_TRIPPED'))
      throw error;
    failure = error;
    return {
      call,
      response: errorResponse(`Tool "${tool.name}" failed: ${describeError(error)}`),
      actions: toolCtx.actions,
    };
  } finally {
    endSpan(trace, failure);
  }
}

/** Merges the actions of several calls: state deltas in call order, any escalation, the last transfer. */
export function mergeActions(list: EventActions[]): EventActions {
  const merged = emptyActions();
  for (const a of list) {
    Object.assign(merged.stateDelta, a.stateDelta);
    Object.assign(merged.artifactDelta, a.artifactDelta);
    if (a.transferToAgent) merged.transferToAgent = a.transferToAgent;
    if (a.escalate) merged.escalate = true;
    if (a.skipSummarization) merged.skipSummarization = true;
    if (a.endOfAgent) merged.endOfAgent = true;
    if (a.setModelResponse !== undefined) merged.setModelResponse = a.setModelResponse;
    if (a.requestedToolConfirmations) {
      merged.requestedToolConfirmations = {
        ...merged.requestedToolConfirmations,
        ...a.requestedToolConfirmations,
      };
    }
    if (a.requestedAuthConfigs)
      merged.requestedAuthConfigs = { ...merged.requestedAuthConfigs, ...a.requestedAuthConfigs };
  }
  return merged;
}

/**
 * Runs the calls of one model turn concurrently and returns one function-response event (a user
 * turn) whose actions merge every call's, or undefined when no call produced a response yet.
 */
export async function executeFunctionCalls(
  ctx: InvocationContext,
  calls: FunctionCall[],
  tools: Map<string, BaseTool>,
  hooks: ToolHooks,
  confirmations?: Map<string, ToolConfirmation>,
): Promise<Event | undefined> {
  const outcomes: CallOutcome[] = [];
  const only = calls.length === 1 ? (calls[0] as FunctionCall) : undefined;
  if (only) {
    // The common turn: one call, nothing to wait for beside it.
    outcomes.push(await runCall(ctx, only, tools, hooks, confirmations?.get(only.id)));
  } else {
    // Every call settles before the turn goes on, even when one of them fails the invocation.
    const settled = await Promise.allSettled(
      calls.map((call) => runCall(ctx, call, tools, hooks, confirmations?.get(call.id))),
    );
    for (const r of settled) {
      if (r.status === 'rejected') throw r.reason;
      outcomes.push(r.value);
    }
  }
  const parts: Part[] = [];
  for (const o of outcomes) {
    if (o.response !== undefined) {
      parts.push({ functionResponse: { id: o.call.id, name: o.call.name, response: o.response } });
    }
  }
  const actions = mergeActions(outcomes.map((o) => o.actions));
  if (parts.length === 0 && !hasActions(actions)) return undefined;
  const records = outcomes.flatMap((o) => o.guardrails ?? []);
  return createEvent({
    invocationId: ctx.invocationId,
    author: ctx.agent.name,
    branch: ctx.branch,
    content: parts.length > 0 ? { role: 'user', parts } : undefined,
    actions,
    ...(records.length > 0 ? { customMetadata: { [GUARDRAILS_METADATA_KEY]: records } } : {}),
  });
}
