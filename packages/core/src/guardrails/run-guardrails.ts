import type { BaseAgent } from '../agents/base-agent.js';
import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content, Part } from '../events/content.js';
import { pythonJsonDumps } from '../flow/python-json.js';
import type { LlmRequest, LlmResponse } from '../models/llm.js';
import { withoutTempKeys } from '../sessions/state.js';
import type { SetModelResponseShape } from '../tools/set-model-response-tool.js';
import {
  GUARDRAILS_METADATA_KEY,
  type Guardrail,
  type GuardrailRecord,
  type GuardrailSubject,
  GuardrailTripped,
  isGuardrailTripped,
} from './guardrail.js';
import { applies, guardrailsAt, inputGuardrailsOfTree, pluginGuardrails } from './guardrails-of.js';

export { buffersStream, guardrailsAt, hasInputGuardrails } from './guardrails-of.js';

/** Runs checks in order; each sees the value the previous one left. Throws GuardrailTripped. */
async function runChecks<T>(
  guardrails: readonly Guardrail[],
  subjectOf: (value: T) => GuardrailSubject,
  value: T,
  context: CallbackContext,
  records: GuardrailRecord[],
  callId?: string,
): Promise<T> {
  let current = value;
  for (const guardrail of guardrails) {
    const subject = subjectOf(current);
    const result = await guardrail.check(subject, context);
    if (!result || result.action === 'pass') continue;
    if (result.action === 'tripwire') {
      const tripped = new GuardrailTripped(guardrail.name, subject.point, result.reason, {
        ...result.details,
        ...(callId ? { callId } : {}),
      });
      tripped.stateDelta = withoutTempKeys(context.actions.stateDelta);
      if (subject.point === 'output' && subject.response.usageMetadata)
        tripped.usageMetadata = subject.response.usageMetadata;
      throw tripped;
    }
    current = result.value as T;
    records.push({
      guardrail: guardrail.name,
      point: subject.point,
      action: 'rewrite',
      ...(result.findings ? { findings: result.findings } : {}),
      ...(callId ? { callId } : {}),
    });
  }
  return current;
}

export interface CheckedInput {
  message: Content;
  records: GuardrailRecord[];
  /** Guardrails to run beside the first model call. */
  parallel: Guardrail[];
  /** The checks' context: state they recorded goes into the user event. */
  context: CallbackContext;
}

/** The user's message through the blocking input guardrails (before it is committed). */
export async function checkInput(
  ctx: InvocationContext,
  root: BaseAgent,
  message: Content,
): Promise<CheckedInput | undefined> {
  const fromPlugins = pluginGuardrails(ctx.pluginManager).input;
  const fromTree = inputGuardrailsOfTree(root);
  if (fromPlugins.length === 0 && fromTree.length === 0) return undefined;
  const all = [...fromPlugins, ...fromTree].filter((g) => applies(g, 'input'));
  const blocking = all.filter((g) => !g.runInParallel);
  const parallel = all.filter((g) => g.runInParallel);
  const records: GuardrailRecord[] = [];
  const context = new CallbackContext(ctx);
  const checked = await runChecks<Content>(
    blocking,
    (content) => ({ point: 'input', content }),
    message,
    context,
    records,
  );
  return { message: checked, records, parallel, context };
}

/**
 * Guardrails running beside the first model call (OpenAI Agents' `runInParallel`). `signal` aborts
 * the call when one trips; `done` settles with the trip, if any.
 */
export interface InputGate {
  readonly signal: AbortSignal;
  tripped: GuardrailTripped | undefined;
  readonly done: Promise<GuardrailTripped | undefined>;
}

export function startInputGate(
  parallel: readonly Guardrail[],
  message: Content,
  context: CallbackContext,
): InputGate {
  const controller = new AbortController();
  const gate: {
    signal: AbortSignal;
    tripped: GuardrailTripped | undefined;
    done?: Promise<GuardrailTripped | undefined>;
  } = { signal: controller.signal, tripped: undefined };
  const trip = (error: GuardrailTripped) => {
    gate.tripped ??= error;
    controller.abort(error);
  };
  gate.done = Promise.all(
    parallel.map(async (guardrail) => {
      try {
        const result = await guardrail.check({ point: 'input', content: message }, context);
        if (!result || result.action === 'pass') return;
        trip(
          new GuardrailTripped(
            guardrail.name,
            'input',
            result.action === 'tripwire'
              ? result.reason
              : 'a parallel input guardrail may not rewrite the message',
            result.action === 'tripwire' ? result.details : undefined,
          ),
        );
      } catch (error) {
        trip(
          isGuardrailTripped(error)
            ? error
            : new GuardrailTripped(
                guardrail.name,
                'input',
                `the check failed: ${String((error as Error)?.message ?? error)}`,
              ),
        );
      }
    }),
  ).then(() => gate.tripped);
  return gate as InputGate;
}

function withRecords<T extends { customMetadata?: Record<string, unknown> }>(
  target: T,
  records: GuardrailRecord[],
): T {
  if (records.length === 0) return target;
  const previous = target.customMetadata?.[GUARDRAILS_METADATA_KEY];
  return {
    ...target,
    customMetadata: {
      ...target.customMetadata,
      [GUARDRAILS_METADATA_KEY]: [...(Array.isArray(previous) ? previous : []), ...records],
    },
  };
}

/**
 * A model answer through the agent's output guardrails (its content) and tool-input guardrails
 * (each call's arguments), before any after-model hook, trace or commit sees it.
 */
export async function checkModelResponse(
  ctx: InvocationContext,
  agent: BaseAgent,
  context: CallbackContext,
  request: LlmRequest,
  response: LlmResponse,
  structured?: StructuredAnswerTool,
): Promise<LlmResponse> {
  const content = response.content;
  if (!content || content.parts.length === 0) return response;
  const output = guardrailsAt(ctx, agent, 'output');
  const toolInput = guardrailsAt(ctx, agent, 'toolInput');
  if (output.length === 0 && toolInput.length === 0) return response;
  const records: GuardrailRecord[] = [];
  let checked = content;
  if (output.length > 0)
    checked = await runChecks<Content>(
      output,
      (c) => ({ point: 'output', content: c, response, request }),
      content,
      context,
      records,
    );
  if (output.length > 0 && structured && checked.parts.some((p) => p.functionCall?.name === structured.name))
    checked = await checkStructuredCalls(output, structured, checked, context, records, response, request);
  if (toolInput.length > 0 && checked.parts.some((p) => p.functionCall)) {
    const parts: Part[] = [];
    for (const part of checked.parts) {
      const call = part.functionCall;
      if (!call) {
        parts.push(part);
        continue;
      }
      const args = await runChecks<Record<string, unknown>>(
        toolInput,
        (a) => ({ point: 'toolInput', toolName: call.name, callId: call.id, args: a }),
        call.args,
        context,
        records,
        call.id,
      );
      parts.push(args === call.args ? part : { ...part, functionCall: { ...call, args } });
    }
    checked = { ...checked, parts };
  }
  if (records.length === 0) return response;
  return withRecords({ ...response, content: checked }, records);
}

/** The agent's set_model_response tool, when its answer arrives as that call (output schema with tools). */
export interface StructuredAnswerTool {
  readonly name: string;
  readonly shape: SetModelResponseShape;
}

/**
 * A set_model_response call is the agent's final answer: its value goes through the output
 * guardrails as the JSON text the final event will hold, before the call is committed or run. A
 * rewrite becomes the call's arguments (so the tool, the final event, `output` and the output key
 * all get the rewritten value); a rewrite that is no longer JSON trips.
 */
async function checkStructuredCalls(
  output: readonly Guardrail[],
  structured: StructuredAnswerTool,
  content: Content,
  context: CallbackContext,
  records: GuardrailRecord[],
  response: LlmResponse,
  request: LlmRequest,
): Promise<Content> {
  // The answer's usage was seen with its content: a budget must not count it twice.
  const { usageMetadata: _counted, ...answer } = response;
  const parts: Part[] = [];
  let changed = false;
  for (const part of content.parts) {
    const call = part.functionCall;
    if (call?.name !== structured.name) {
      parts.push(part);
      continue;
    }
    const value = structured.shape === 'fields' ? call.args : call.args[structured.shape];
    const text: Content = {
      role: 'model',
      parts: [{ text: pythonJsonDumps(value, { ensureAscii: false }) }],
    };
    const checked = await runChecks<Content>(
      output,
      (c) => ({ point: 'output', content: c, response: answer, request }),
      text,
      context,
      records,
    );
    if (checked === text) {
      parts.push(part);
      continue;
    }
    const rewritten = parseJsonText(checked);
    if (rewritten === NOT_JSON) {
      const tripped = new GuardrailTripped(
        records.at(-1)?.guardrail ?? 'output',
        'output',
        'the rewritten structured answer is not JSON',
      );
      tripped.stateDelta = withoutTempKeys(context.actions.stateDelta);
      if (response.usageMetadata) tripped.usageMetadata = response.usageMetadata;
      throw tripped;
    }
    const args =
      structured.shape === 'fields'
        ? (rewritten as Record<string, unknown>)
        : { ...call.args, [structured.shape]: rewritten };
    parts.push({ ...part, functionCall: { ...call, args } });
    changed = true;
  }
  return changed ? { ...content, parts } : content;
}

const NOT_JSON = Symbol('not JSON');

function parseJsonText(content: Content): unknown {
  const text = content.parts.map((p) => p.text ?? '').join('');
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return NOT_JSON;
  }
}

/** A tool's result through the tool-output guardrails, before after-tool hooks and the model see it. */
export async function checkToolResult(
  ctx: InvocationContext,
  context: CallbackContext,
  toolName: string,
  callId: string,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
  records: GuardrailRecord[],
): Promise<Record<string, unknown>> {
  const guardrails = guardrailsAt(ctx, ctx.agent, 'toolOutput');
  if (guardrails.length === 0) return result;
  return runChecks<Record<string, unknown>>(
    guardrails,
    (r) => ({ point: 'toolOutput', toolName, callId, args, result: r }),
    result,
    context,
    records,
    callId,
  );
}

export { withRecords as withGuardrailRecords };

/**
 * Text a live session commits (typed or transcribed user speech, the model's text or speech
 * transcript) through the input or output guardrails before it is stored. Returns the content to
 * store and the records, or undefined when nothing applies.
 */
export async function checkLiveContent(
  ctx: InvocationContext,
  root: BaseAgent,
  author: string,
  content: Content,
): Promise<{ content: Content; records: GuardrailRecord[]; context: CallbackContext } | undefined> {
  if (author === 'user') {
    const checked = await checkInput(ctx, root, content);
    if (!checked) return undefined;
    // Speech the model has already heard: the checks that would run beside a model call run now,
    // before the transcript is stored (a rewrite from one trips, as beside a call).
    if (checked.parallel.length > 0) {
      const tripped = await startInputGate(checked.parallel, checked.message, checked.context).done;
      if (tripped) {
        tripped.stateDelta = withoutTempKeys(checked.context.actions.stateDelta);
        throw tripped;
      }
    }
    return { content: checked.message, records: checked.records, context: checked.context };
  }
  const agent = root.findAgent(author) ?? ctx.agent;
  const output = guardrailsAt(ctx, agent, 'output');
  if (output.length === 0) return undefined;
  const records: GuardrailRecord[] = [];
  const context = new CallbackContext(ctx);
  const response: LlmResponse = { content };
  const request: LlmRequest = { model: '', contents: [], config: {} };
  const checked = await runChecks<Content>(
    output,
    (c) => ({ point: 'output', content: c, response, request }),
    content,
    context,
    records,
  );
  return { content: checked, records, context };
}
