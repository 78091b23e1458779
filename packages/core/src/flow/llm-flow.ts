import type { BaseAgent } from '../agents/base-agent.js';
import { firstResult } from '../agents/base-agent.js';
import { CallbackContext, ReadonlyContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { type LlmAgent, LlmAgent as LlmAgentClass } from '../agents/llm-agent.js';
import { DEFAULT_MAX_LLM_CALLS } from '../agents/run-config.js';
import {
  CancelledError,
  ConfigError,
  describeError,
  errorCodeOf,
  isAdkError,
  LlmCallLimitError,
} from '../errors/errors.js';
import type { Content } from '../events/content.js';
import { contentText, type FunctionCall, type Part } from '../events/content.js';
import {
  createEvent,
  type Event,
  type EventActions,
  eventFunctionCalls,
  isFinalResponse,
  type ToolConfirmation,
} from '../events/event.js';
import { RETRACT_METADATA_KEY } from '../guardrails/guardrail.js';
import { buffersStream } from '../guardrails/guardrails-of.js';
import { checkModelResponse } from '../guardrails/load.js';
import { loadProfile } from '../memory/profile-tool.js';
import type { LlmRequest, LlmResponse } from '../models/llm.js';
import type { ProviderOptions } from '../models/provider-options.js';
import { resolveModel } from '../models/registry.js';
import { endSpan, type SpanAttributes, setSpanAttributes, startSpan } from '../telemetry/tracing.js';
import type { BaseTool } from '../tools/base-tool.js';
import { zodToJsonSchema } from '../tools/function-tool.js';
import type { SetModelResponseTool } from '../tools/set-model-response-tool.js';
import { isToolset } from '../tools/toolset.js';
import { newFunctionCallId } from '../utils/ids.js';
import { tryParseJson } from '../utils/json.js';
import {
  AGENT_NAME_LABEL,
  dynamicInstructionContent,
  INSTRUCTION_SEPARATOR,
  identityInstruction,
  insertBeforeLastUserRun,
} from './adk-prompts.js';
import type { CompressionResult, ContextCompressor } from './compression.js';
import { confirmationRequestEvent, pendingConfirmations } from './confirmation.js';
import { buildContents } from './contents.js';
import { authRequestEvent, hasAuthResponses, loadAuthAnswers } from './credential-requests.js';
import { executeFunctionCalls } from './functions.js';
import type { InstructionProvider } from './instructions.js';
import { resolveInstruction } from './instructions.js';
import { TransferToAgentTool, transferInstruction, transferTargets } from './transfer.js';

/** Whether ADK would use an instruction: a function, or a non-empty template. */
function hasInstruction(provider: InstructionProvider | undefined): provider is InstructionProvider {
  return typeof provider === 'function' || (typeof provider === 'string' && provider.length > 0);
}

/** Everything one step needs about the agent's tools. */
export interface ResolvedTools {
  list: BaseTool[];
  byName: Map<string, BaseTool>;
  transferTargets: BaseAgent[];
}

/**
 * The tools of agents without toolsets never change: resolved once per agent, not per step (again
 * when `agent.tools` is replaced, e.g. by a front-end handler that adds the browser's tools).
 */
const staticTools = new WeakMap<LlmAgent, ResolvedTools & { from: readonly unknown[] }>();

function cachedTools(agent: LlmAgent): ResolvedTools | undefined {
  const cached = staticTools.get(agent);
  return cached?.from === agent.tools ? cached : undefined;
}

export async function resolveTools(agent: LlmAgent, ctx: InvocationContext): Promise<ResolvedTools> {
  const cached = cachedTools(agent);
  if (cached) return cached;
  const list: BaseTool[] = [];
  let dynamic = false;
  for (const entry of agent.tools) {
    if (isToolset(entry)) {
      dynamic = true;
      list.push(...(await entry.getTools(new ReadonlyContext(ctx))));
    } else list.push(entry);
  }
  const targets = transferTargets(agent);
  // ADK declares transfer_to_agent before the agent's own tools.
  if (targets.length > 0) list.unshift(new TransferToAgentTool(targets));
  const byName = new Map<string, BaseTool>();
  for (const tool of list) {
    if (byName.has(tool.name))
      throw new ConfigError(`Agent "${agent.name}" has two tools named "${tool.name}"`);
    byName.set(tool.name, tool);
  }
  const resolved = { list, byName, transferTargets: targets };
  if (!dynamic) staticTools.set(agent, { ...resolved, from: agent.tools });
  return resolved;
}

export async function buildRequest(
  agent: LlmAgent,
  ctx: InvocationContext,
  tools: ResolvedTools,
  history: Content[],
): Promise<LlmRequest> {
  let contents = history;
  const readonly = new ReadonlyContext(ctx);
  const model = agent.canonicalModel;
  const llmName = typeof model === 'string' ? model : (model?.model ?? '');
  const config = { ...agent.generateConfig, ...ctx.runConfig.generateConfig };
  // ADK's order: global instruction, static instruction, the instruction (in `contents` when there
  // is a static one), identity, output schema, transfer; then what tools add (docs/decisions/0016).
  const sections: string[] = [];
  const root = ctx.rootAgent as Partial<LlmAgent>;
  if (root instanceof LlmAgentClass && hasInstruction(root.globalInstruction))
    sections.push((await resolveInstruction(root.globalInstruction, readonly)) ?? '');
  if (agent.staticInstruction) sections.push(agent.staticInstruction);
  if (agent.memory?.profile)
    sections.push((await loadProfile()).profileInstruction(agent.memory.profile, ctx.session.state));
  let dynamicInstruction: Content | undefined;
  if (hasInstruction(agent.instruction)) {
    const instruction = (await resolveInstruction(agent.instruction, readonly)) ?? '';
    if (agent.staticInstruction) dynamicInstruction = dynamicInstructionContent(instruction);
    else sections.push(instruction);
  }
  sections.push(identityInstruction(agent));
  if (agent.outputSchema) {
    // As adk-python 2.x: with the set_model_response tool (see output-schema.ts) its instruction,
    // else the schema in the config when there are no tools or the model takes both.
    const outputSchema = await loadOutputSchema();
    const setModelResponse = tools.byName.get(outputSchema.SET_MODEL_RESPONSE_TOOL_NAME);
    if (setModelResponse instanceof outputSchema.SetModelResponseTool)
      sections.push(outputSchema.setModelResponseInstruction(setModelResponse));
    else if (outputSchema.responseSchemaInConfig(agent, ctx)) {
      config.responseSchema = zodToJsonSchema(agent.outputSchema);
      config.responseMimeType = 'application/json';
    }
  }
  const transfer = transferInstruction(agent, tools.transferTargets);
  if (transfer) sections.push(transfer);

  if (dynamicInstruction) {
    contents = contents.slice();
    insertBeforeLastUserRun(contents, [dynamicInstruction]);
  }
  const request: LlmRequest = {
    model: llmName,
    systemInstruction: sections.join(INSTRUCTION_SEPARATOR),
    contents,
    config,
  };
  if (agent.staticInstruction) request.staticInstruction = agent.staticInstruction;
  const declarations = [];
  for (const tool of tools.list) {
    const d = tool.declaration();
    if (d) declarations.push(d);
  }
  if (declarations.length > 0) request.tools = declarations;
  for (const tool of tools.list) await tool.processLlmRequest?.(readonly, request);
  return request;
}

/** Gives every function call an id (vendors that send none get a generated unique one). */
export function withCallIds(response: LlmResponse): LlmResponse {
  const parts = response.content?.parts;
  if (!parts?.some((p) => p.functionCall && !p.functionCall.id)) return response;
  const fixed: Part[] = parts.map((p) =>
    p.functionCall && !p.functionCall.id
      ? { ...p, functionCall: { ...p.functionCall, id: newFunctionCallId() } }
      : p,
  );
  return { ...response, content: { role: response.content?.role ?? 'model', parts: fixed } };
}

function eventFromResponse(
  agent: LlmAgent,
  ctx: InvocationContext,
  response: LlmResponse,
  actions: EventActions | undefined,
): Event {
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    ...response,
    ...(actions ? { actions } : {}),
  });
}

function isErrorResponse(response: LlmResponse): boolean {
  return response.errorCode !== undefined && !response.content?.parts.length;
}

interface ModelOutcome {
  response: LlmResponse | undefined;
  error?: unknown;
}

/**
 * Calls the model with hooks around it, yielding partial events when streaming. Returns the final
 * response, or the error when no hook recovered from it.
 */
async function* callModel(
  agent: LlmAgent,
  ctx: InvocationContext,
  request: LlmRequest,
  callbackContext: CallbackContext,
  structured?: SetModelResponseTool,
): AsyncGenerator<Event, ModelOutcome, undefined> {
  const hooks = agent.callbacks;
  const beforeArgs = { context: callbackContext, request };
  const shortCircuit =
    (await ctx.pluginManager.beforeModel(beforeArgs)) ?? (await firstResult(hooks.beforeModel, beforeArgs));
  if (shortCircuit) return { response: shortCircuit };
  // As ADK: the agent's name as a label of the model call (Vertex AI bills per label).
  if (request.config.labels?.[AGENT_NAME_LABEL] === undefined)
    request.config.labels = { ...request.config.labels, [AGENT_NAME_LABEL]: agent.name };

  const trace = startSpan('call_llm', ctx.trace, () => ({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': request.model,
    'gen_ai.agent.name': agent.name,
    'gen_ai.conversation.id': ctx.session.id,
  }));
  let final: LlmResponse | undefined;
  let failure: unknown;
  const stream = ctx.runConfig.streaming ?? false;
  // Input guardrails running beside this call abort it when they trip (docs/decisions/0030-guardrails.md).
  const gate = ctx.shared.inputGate;
  try {
    const model = agent.canonicalModel;
    if (model === undefined)
      throw new ConfigError(`Agent "${agent.name}" has no model (and no ancestor gives one)`);
    const llm = resolveModel(model, ctx.models);
    if (!request.model) request.model = llm.model;
    // Under output guardrails a streamed answer is held back until checked, unless the agent retracts.
    const showPartials = stream && !buffersStream(ctx, agent);
    const signal = gate && !gate.signal.aborted ? AbortSignal.any([ctx.signal, gate.signal]) : ctx.signal;
    for (let attempt = 1; ; attempt++) {
      try {
        for await (const response of llm.generate(request, { stream, signal })) {
          if (gate?.tripped) throw gate.tripped;
          if (ctx.signal.aborted) throw new CancelledError();
          if (response.partial) {
            if (showPartials) yield eventFromResponse(agent, ctx, response, undefined);
            continue;
          }
          final = response;
        }
        break;
      } catch (error) {
        // The vendor is busy (429/503, even mid-stream): wait as asked within the run's budget,
        // and record it, instead of failing the run.
        // An on-model-error handler (a fallback plugin, a callback) owns retries when there is one.
        const owned = hooks.onModelError.length > 0 || ctx.pluginManager.implements('onModelError');
        const retry = ctx.signal.aborted || owned ? undefined : await loadModelRetry();
        const delay = retry?.modelRetryDelay(ctx, error, attempt);
        if (retry === undefined || delay === undefined) throw error;
        final = undefined;
        yield retry.modelRetryEvent(ctx, error, attempt, delay);
        await retry.waitForRetry(delay, ctx.signal);
      }
    }
    if (ctx.signal.aborted) throw new CancelledError();
    if (!final) throw new ConfigError(`Model "${request.model}" returned no response`);
    if (isErrorResponse(final))
      throw Object.assign(new Error(final.errorMessage ?? final.errorCode), { response: final });
    // Only the values present (an object built in place: this runs for every model call).
    setSpanAttributes(trace, () => {
      const usage = final?.usageMetadata;
      const attributes: SpanAttributes = {};
      if (usage?.promptTokenCount !== undefined)
        attributes['gen_ai.usage.input_tokens'] = usage.promptTokenCount;
      if (usage?.candidatesTokenCount !== undefined)
        attributes['gen_ai.usage.output_tokens'] = usage.candidatesTokenCount;
      if (final?.finishReason) attributes['gen_ai.response.finish_reasons'] = [final.finishReason];
      if (final?.modelVersion) attributes['gen_ai.response.model'] = final.modelVersion;
      // Priced differently: cached input tokens (part of the input) and reasoning tokens (billed as output).
      if (usage?.cachedContentTokenCount !== undefined)
        attributes['adk.usage.cached_input_tokens'] = usage.cachedContentTokenCount;
      if (usage?.thoughtsTokenCount !== undefined)
        attributes['adk.usage.reasoning_tokens'] = usage.thoughtsTokenCount;
      return attributes;
    });
  } catch (error) {
    if (gate?.tripped || isAdkError(error, 'GUARDRAIL_TRIPPED')) {
      endSpan(trace, gate?.tripped ?? error);
      throw gate?.tripped ?? error;
    }
    if (ctx.signal.aborted || isAdkError(error, 'CANCELLED')) {
      endSpan(trace, error);
      throw error instanceof CancelledError ? error : new CancelledError(undefined, { cause: error });
    }
    if (isAdkError(error, 'PLUGIN')) {
      endSpan(trace, error);
      throw error;
    }
    failure = error;
    // The span ends first, as on success before afterModel: error hooks then see the finished call
    // (a tracing plugin can annotate it), and recovery time is not model time.
    endSpan(trace, failure);
    const errorArgs = { context: callbackContext, request, error };
    const recovered =
      (await ctx.pluginManager.onModelError(errorArgs)) ?? (await firstResult(hooks.onModelError, errorArgs));
    if (recovered) return { response: recovered };
    const returned = (error as { response?: LlmResponse }).response;
    return { response: returned, error };
  }
  endSpan(trace);
  // Guardrails see the answer before any after-model hook (a trace recorder among them) or the log.
  const checked = await checkModelResponse(ctx, agent, callbackContext, request, final, structured);
  if (checked !== final && stream && !buffersStream(ctx, agent))
    checked.customMetadata = { ...checked.customMetadata, [RETRACT_METADATA_KEY]: true };
  final = checked;
  const afterArgs = { context: callbackContext, response: final, request };
  const replaced =
    (await ctx.pluginManager.afterModel(afterArgs)) ?? (await firstResult(hooks.afterModel, afterArgs));
  return { response: replaced ?? final };
}

/** Applies outputKey and outputSchema to a final model event. */
function applyOutput(agent: LlmAgent, event: Event): void {
  if (!agent.outputKey && !agent.outputSchema) return;
  if (event.partial || !event.content || eventFunctionCalls(event).length > 0) return;
  const text = contentText(event.content);
  if (!text) return;
  let value: unknown = text;
  if (agent.outputSchema) {
    const parsed = agent.outputSchema.safeParse(tryParseJson(stripFences(text)));
    if (!parsed.success) {
      event.errorCode = 'OUTPUT_SCHEMA';
      event.errorMessage = `The final response does not match the output schema: ${parsed.error.message}`;
      return;
    }
    value = parsed.data;
    // The final event carries the validated output (typed by the schema: `OutputEvent`).
    event.output = value;
  }
  if (agent.outputKey) event.actions.stateDelta[agent.outputKey] = value;
}

function stripFences(text: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return m ? (m[1] ?? '') : text;
}

/** Whether the loop should stop after this step. */
interface StepResult {
  done: boolean;
}

async function* step(
  agent: LlmAgent,
  ctx: InvocationContext,
  result: StepResult,
): AsyncGenerator<Event, void, undefined> {
  const tools = cachedTools(agent) ?? (await resolveTools(agent, ctx));
  // Observations a background pass finished are committed before the history is built.
  if (agent.memory?.observe)
    yield* (await loadObserve()).observeBeforeRequest(agent.memory.observe, ctx, agent.canonicalModel);
  // Without compressors there is nothing to yield: skip the generator (a per-step cost).
  const compression: CompressionExtras = {};
  const contents =
    (agent.contextCompression ?? ctx.contextCompression ?? []).length === 0
      ? buildContents(ctx, agent.name, agent.includeContents)
      : yield* compressedContents(agent, ctx, compression);
  const outputSchema = agent.outputSchema ? await loadOutputSchema() : undefined;
  const plan = outputSchema?.outputSchemaPlan(agent, ctx);
  if (plan?.kind === 'exceeded') {
    yield (outputSchema as OutputSchemaModule).toolRoundsExceededEvent(agent, ctx, plan.rounds);
    ctx.endInvocation();
    result.done = true;
    return;
  }
  // set_model_response is declared first: adk-python's output-schema processor adds it before
  // the transfer processor adds transfer_to_agent, and both before the agent's own tools.
  const active = plan?.kind === 'tool' ? withTool(tools, plan.tool) : tools;
  const request = await buildRequest(agent, ctx, active, contents);
  // The request's own provider options win over the compressors', field by field.
  if (compression.providerOptions)
    request.config.providerOptions = mergeProviderOptions(
      compression.providerOptions,
      request.config.providerOptions,
    );
  if (plan?.kind === 'tool' && plan.only) request.config.toolChoice = { name: plan.tool.name };
  const memory = agent.memory?.recall ? await loadAgentMemory() : undefined;
  const recalled =
    memory && agent.memory?.recall
      ? await memory.recallIntoRequest(agent.memory.recall, ctx, request)
      : undefined;

  const max = ctx.runConfig.maxLlmCalls ?? DEFAULT_MAX_LLM_CALLS;
  if (max > 0 && ++ctx.shared.llmCalls > max) {
    const error = new LlmCallLimitError(max);
    yield createEvent({
      invocationId: ctx.invocationId,
      author: agent.name,
      branch: ctx.branch,
      errorCode: error.code,
      errorMessage: error.message,
    });
    ctx.shared.ended = true;
    result.done = true;
    return;
  }

  const callbackContext = new CallbackContext(ctx);
  const outcome = yield* callModel(
    agent,
    ctx,
    request,
    callbackContext,
    plan?.kind === 'tool' ? plan.tool : undefined,
  );
  if (outcome.error !== undefined || !outcome.response) {
    const error = outcome.error;
    yield createEvent({
      invocationId: ctx.invocationId,
      author: agent.name,
      branch: ctx.branch,
      ...(outcome.response?.usageMetadata ? { usageMetadata: outcome.response.usageMetadata } : {}),
      errorCode: outcome.response?.errorCode ?? errorCodeOf(error),
      errorMessage: outcome.response?.errorMessage ?? `Model call failed: ${describeError(error)}`,
      actions: callbackContext.actions,
    });
    ctx.endInvocation();
    result.done = true;
    return;
  }

  const response = withCallIds(outcome.response);
  const modelEvent = eventFromResponse(agent, ctx, { ...response, partial: false }, callbackContext.actions);
  const calls = eventFunctionCalls(modelEvent);
  const longRunning = calls.filter((c) => active.byName.get(c.name)?.isLongRunning).map((c) => c.id);
  if (longRunning.length > 0) modelEvent.longRunningToolIds = longRunning;
  if (recalled && memory)
    modelEvent.customMetadata = { ...modelEvent.customMetadata, [memory.RECALL_METADATA_KEY]: recalled };
  applyOutput(agent, modelEvent);
  yield modelEvent;

  if (calls.length === 0) {
    result.done = true;
    return;
  }
  result.done = yield* runCallsAndFollowUp(agent, ctx, calls, active, longRunning);
}

/** The agent's tools with one more in front (a new map: the resolved tools may be shared). */
function withTool(tools: ResolvedTools, tool: BaseTool): ResolvedTools {
  return {
    list: [tool, ...tools.list],
    byName: new Map([[tool.name, tool], ...tools.byName]),
    transferTargets: tools.transferTargets,
  };
}

/** Whether a long-running call of the turn got no response yet (an interim result does not pause). */
function awaitsAnswer(longRunning: readonly string[], responseEvent: Event | undefined): boolean {
  if (longRunning.length === 0) return false;
  if (!responseEvent) return true;
  const answered = new Set<string>();
  for (const p of responseEvent.content?.parts ?? [])
    if (p.functionResponse) answered.add(p.functionResponse.id);
  return longRunning.some((id) => !answered.has(id));
}

/**
 * Runs a turn's calls and what follows them: a confirmation request, a transfer, or the end of
 * the turn. Returns whether the agent's loop should stop.
 */
async function* runCallsAndFollowUp(
  agent: LlmAgent,
  ctx: InvocationContext,
  calls: FunctionCall[],
  tools: ResolvedTools,
  longRunning: readonly string[],
  confirmations?: Map<string, ToolConfirmation>,
): AsyncGenerator<Event, boolean, undefined> {
  const responseEvent = yield* runCalls(ctx, calls, tools, agent, confirmations);
  const paused = awaitsAnswer(longRunning, responseEvent);
  if (responseEvent) yield responseEvent;
  const confirmation = responseEvent && confirmationRequestEvent(ctx, calls, responseEvent);
  const authRequest = responseEvent && authRequestEvent(ctx, calls, responseEvent);
  if (confirmation) yield confirmation;
  if (authRequest) yield authRequest;
  // set_model_response answered with a validated value: that value is the agent's final answer.
  const structured =
    responseEvent?.actions.setModelResponse !== undefined
      ? (await loadOutputSchema()).structuredResponseEvent(agent, ctx, responseEvent)
      : undefined;
  if (structured) {
    applyOutput(agent, structured);
    yield structured;
    return true;
  }
  if (confirmation || authRequest) return true;
  const transferTo = responseEvent?.actions.transferToAgent;
  if (transferTo) {
    // Only the targets this agent may hand over to (docs/architecture.md §7, item 8), whichever tool asked.
    const target = tools.transferTargets.find((t) => t.name === transferTo);
    if (!target) {
      yield createEvent({
        invocationId: ctx.invocationId,
        author: agent.name,
        branch: ctx.branch,
        errorCode: 'INVALID_TRANSFER',
        errorMessage: `Agent "${agent.name}" cannot transfer to "${transferTo}" (valid: ${tools.transferTargets.map((t) => t.name).join(', ') || 'none'})`,
      });
      return true;
    }
    yield* target.run(ctx);
    return true;
  }
  // A paused call, or a tool that ends the turn (skipSummarization, escalation).
  return (
    paused ||
    !responseEvent ||
    isFinalResponse(responseEvent) ||
    Boolean(
      responseEvent.actions.escalate ||
        responseEvent.actions.requestedToolConfirmations ||
        responseEvent.actions.requestedAuthConfigs,
    )
  );
}

/** Runs model calls and tool calls until a final response, an escalation, a transfer or a pause. */
export async function* runLlmFlow(
  agent: LlmAgent,
  ctx: InvocationContext,
): AsyncGenerator<Event, void, undefined> {
  if (ctx.shared.recovering) {
    const stop = yield* settleInterruptedCalls(agent, ctx);
    if (stop || ctx.ended) return;
  }
  const confirmed = pendingConfirmations(ctx);
  const authenticated = hasAuthResponses(ctx) ? (await loadAuthAnswers()).pendingAuthResponses(ctx) : [];
  if (confirmed.length > 0 || authenticated.length > 0) {
    // The user answered confirmation or credential requests: run (or reject) those calls, then continue.
    const tools = await resolveTools(agent, ctx);
    const confirmations = new Map(confirmed.map((c) => [c.call.id, c.confirmation]));
    ctx.shared.resumedAuth = new Map(authenticated.map((a) => [a.call.id, a.authResponse]));
    // A call only reaches the point of asking for a credential once it passed any confirmation.
    for (const a of authenticated)
      if (!confirmations.has(a.call.id)) confirmations.set(a.call.id, { confirmed: true });
    const calls = [...confirmed.map((c) => c.call), ...authenticated.map((a) => a.call)];
    const stop = yield* runCallsAndFollowUp(agent, ctx, calls, tools, [], confirmations);
    if (stop || ctx.ended) return;
  }
  while (!ctx.ended) {
    const result: StepResult = { done: false };
    yield* step(agent, ctx, result);
    if (result.done) return;
  }
}

/**
 * Crash recovery: the calls this agent started before its process stopped and that have no
 * response. Idempotent tools run again; the others are answered as interrupted (never re-run).
 */
async function* settleInterruptedCalls(
  agent: LlmAgent,
  ctx: InvocationContext,
): AsyncGenerator<Event, boolean, undefined> {
  ctx.shared.recovering = false;
  const { interruptedResponses, unansweredCalls } = await loadRecovery();
  const calls = unansweredCalls(ctx.session.events, ctx.invocationId, agent.name);
  if (calls.length === 0) return false;
  const tools = await resolveTools(agent, ctx);
  const again = calls.filter((c) => tools.byName.get(c.name)?.idempotent);
  const interrupted = calls.filter((c) => !tools.byName.get(c.name)?.idempotent);
  if (interrupted.length > 0)
    yield interruptedResponses(interrupted, {
      invocationId: ctx.invocationId,
      author: agent.name,
      branch: ctx.branch,
    });
  if (again.length === 0) return false;
  return yield* runCallsAndFollowUp(agent, ctx, again, tools, []);
}

/** Runs a model turn's calls concurrently, yielding events that tools emit meanwhile (AgentTool). */
async function* runCalls(
  ctx: InvocationContext,
  calls: FunctionCall[],
  tools: ResolvedTools,
  agent: LlmAgent,
  confirmations?: Map<string, ToolConfirmation>,
): AsyncGenerator<Event, Event | undefined, undefined> {
  const emitted: Event[] = [];
  let wake: (() => void) | undefined;
  const emit = (event: Event) => {
    emitted.push(event);
    wake?.();
  };
  let settled = false;
  const running = executeFunctionCalls(
    ctx.with({ emit }),
    calls,
    tools.byName,
    agent.callbacks,
    confirmations,
  ).finally(() => {
    settled = true;
    wake?.();
  });
  // An abort must not wait for a tool that ignores `ctx.signal` (docs/architecture.md §4.5).
  const onAbort = () => wake?.();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    while ((!settled || emitted.length > 0) && !ctx.signal.aborted) {
      const next = emitted.shift();
      if (next) {
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    // If the caller stopped early, the calls may still fail later (the run is being aborted):
    // observe that so it never surfaces as an unhandled rejection.
    if (!settled) running.catch(() => undefined);
  }
  if (ctx.signal.aborted) {
    // Every call of the turn is answered as cancelled so the history stays paired; whatever a
    // tool returns later is dropped with the promise.
    yield cancelledResponses(ctx, agent, calls);
    throw new CancelledError();
  }
  return await running;
}

/** One function-response event that answers every call of a cancelled turn with an error. */
function cancelledResponses(ctx: InvocationContext, agent: LlmAgent, calls: FunctionCall[]): Event {
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    content: {
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: {
          id: call.id,
          name: call.name,
          response: { error: `The call of "${call.name}" was cancelled: the run was aborted.` },
        },
      })),
    },
  });
}

/** What compressors add to the request besides its history. */
interface CompressionExtras {
  providerOptions?: ProviderOptions;
}

/** `over` on top of `base`, namespaces merged field by field. */
function mergeProviderOptions(
  base: ProviderOptions | undefined,
  over: ProviderOptions | undefined,
): ProviderOptions {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over ?? {})) {
    const earlier = merged[key];
    merged[key] = isPlainRecord(earlier) && isPlainRecord(value) ? { ...earlier, ...value } : value;
  }
  return merged as ProviderOptions;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The history for the next request, after the agent's (or the runner's) context compressors. */
async function* compressedContents(
  agent: LlmAgent,
  ctx: InvocationContext,
  extras: CompressionExtras = {},
): AsyncGenerator<Event, Content[], undefined> {
  let contents = buildContents(ctx, agent.name, agent.includeContents);
  const compressors: ContextCompressor[] = agent.contextCompression ?? ctx.contextCompression ?? [];
  for (const compressor of compressors) {
    const result: CompressionResult = await compressor.compress({
      contents,
      context: ctx,
      agentName: agent.name,
    });
    if (Array.isArray(result)) {
      contents = result;
      continue;
    }
    if (result.providerOptions)
      extras.providerOptions = mergeProviderOptions(extras.providerOptions, result.providerOptions);
    const events = result.events ?? [];
    for (const event of events) yield event;
    // A committed compaction changes the history: build it again from the session.
    contents = events.length > 0 ? buildContents(ctx, agent.name, agent.includeContents) : result.contents;
  }
  return contents;
}

// Per-turn recall is loaded by the first agent that has it configured.
let agentMemory: Promise<typeof import('../memory/agent-memory.js')> | undefined;
const loadAgentMemory = () => (agentMemory ??= import('../memory/agent-memory.js'));
let observeModule: Promise<typeof import('../memory/observe-flow.js')> | undefined;
const loadObserve = () => (observeModule ??= import('../memory/observe-flow.js'));

type OutputSchemaModule = typeof import('./output-schema.js');
let outputSchemaModule: Promise<OutputSchemaModule> | undefined;
/** Output schemas (set_model_response, the schema in the config), imported once by the first agent that has one. */
const loadOutputSchema = () => (outputSchemaModule ??= import('./output-schema.js'));

let modelRetry: Promise<typeof import('./model-retry.js')> | undefined;
/** Waiting out a busy vendor (429/503), imported once by the first model call that fails. */
const loadModelRetry = () => (modelRetry ??= import('./model-retry.js'));

let recovery: Promise<typeof import('../runs/recovery.js')> | undefined;
/** Crash recovery's view of unanswered calls, imported once by the first recovered invocation. */
const loadRecovery = () => (recovery ??= import('../runs/recovery.js'));
