import type { CallbackContext } from '../agents/callback-context.js';
import { AdkError, isAdkError } from '../errors/errors.js';
import type { Content } from '../events/content.js';
import type { LlmRequest, LlmResponse } from '../models/llm.js';
import type { MaybePromise, Plugin } from '../plugins/plugin.js';

/**
 * Where a guardrail looks (docs/decisions/0030-guardrails.md): the user's message before it is
 * committed, the model's answer before it is committed, a tool call's arguments before the tool
 * runs (and before the call is committed), and a tool's result before the model sees it.
 */
export type GuardrailPoint = 'input' | 'output' | 'toolInput' | 'toolOutput';

/** What one check looks at. A rewrite gives back a value of the same kind. */
export type GuardrailSubject =
  | { point: 'input'; content: Content }
  | { point: 'output'; content: Content; response: LlmResponse; request: LlmRequest }
  | { point: 'toolInput'; toolName: string; callId: string; args: Record<string, unknown> }
  | {
      point: 'toolOutput';
      toolName: string;
      callId: string;
      args: Record<string, unknown>;
      result: Record<string, unknown>;
    };

/** What a rewrite changed: kinds and counts only, never the original values. */
export interface GuardrailFinding {
  /** What was found (`email`, `payment_card`, `zero_width`, …). */
  entity: string;
  count: number;
}

export type GuardrailResult =
  | { action: 'pass' }
  | {
      action: 'rewrite';
      /** The replacement: content for input/output, arguments for toolInput, the result for toolOutput. */
      value: Content | Record<string, unknown>;
      findings?: GuardrailFinding[];
    }
  | { action: 'tripwire'; reason: string; details?: Record<string, unknown> };

/**
 * A check at one or more points. `check` returns pass (or nothing), a rewrite, or a tripwire that
 * ends the invocation. The context is the agent's callback context: a check may read state and
 * record state changes (they are committed with the event it checked).
 */
export interface Guardrail {
  readonly name: string;
  /** The points it checks (default: every point). */
  readonly points?: readonly GuardrailPoint[];
  /**
   * Input only: run beside the first model call instead of before it. The call is aborted when it
   * trips; such a guardrail may pass or trip, a rewrite from it counts as a trip (the model has
   * already seen the text).
   */
  readonly runInParallel?: boolean;
  check(
    subject: GuardrailSubject,
    context: CallbackContext,
  ): MaybePromise<GuardrailResult | undefined | void>;
}

/** What the framework records on an event a guardrail changed or stopped (`customMetadata.adkGuardrails`). */
export interface GuardrailRecord {
  guardrail: string;
  point: GuardrailPoint;
  action: 'rewrite' | 'tripwire';
  reason?: string;
  findings?: GuardrailFinding[];
  /** The tool call it concerned (tool points). */
  callId?: string;
}

/** `customMetadata` key of the records. */
export const GUARDRAILS_METADATA_KEY = 'adkGuardrails';
/**
 * `customMetadata` key set to `true` on an event that withdraws the partial (streamed) text before
 * it: a client drops what it showed of the streamed answer and shows this event instead.
 */
export const RETRACT_METADATA_KEY = 'adkRetract';

/**
 * A guardrail stopped the invocation. The run ends with an error event carrying this code
 * (`GUARDRAIL_TRIPPED`), the guardrail's name and its reason; nothing after it runs.
 */
export class GuardrailTripped extends AdkError {
  readonly guardrail: string;
  readonly point: GuardrailPoint;
  readonly reason: string;

  constructor(guardrail: string, point: GuardrailPoint, reason: string, details?: Record<string, unknown>) {
    super('GUARDRAIL_TRIPPED', `Guardrail "${guardrail}" tripped on ${point}: ${reason}`, {
      details: { guardrail, point, reason, ...details },
    });
    this.guardrail = guardrail;
    this.point = point;
    this.reason = reason;
  }
}

export function isGuardrailTripped(error: unknown): error is GuardrailTripped {
  return isAdkError(error, 'GUARDRAIL_TRIPPED');
}

const GUARDRAIL_PLUGIN = Symbol.for('@adk/core.guardrailPlugin');

export interface GuardrailPluginOptions {
  name?: string;
  /** Checks of the user's message (plus any point they list). */
  input?: Guardrail[];
  /** Checks of every model answer. */
  output?: Guardrail[];
  /** Checks of every tool call's arguments and result. */
  tool?: Guardrail[];
  /** Streamed answers: `buffer` (default) holds partial text until the answer is checked; `retract` streams it. */
  streaming?: GuardrailStreaming;
}

export type GuardrailStreaming = 'buffer' | 'retract';

/** The guardrails of a runner's plugin, for every agent it runs. */
export interface GuardrailPlugin extends Plugin {
  readonly guardrails: { input: Guardrail[]; output: Guardrail[]; tool: Guardrail[] };
  readonly streaming: GuardrailStreaming | undefined;
}

/** A plugin that applies guardrails to every agent of the runner it is registered with. */
export function guardrailPlugin(options: GuardrailPluginOptions): GuardrailPlugin {
  return {
    name: options.name ?? 'guardrails',
    guardrails: { input: options.input ?? [], output: options.output ?? [], tool: options.tool ?? [] },
    streaming: options.streaming,
    [GUARDRAIL_PLUGIN]: true,
  } as GuardrailPlugin;
}

export function isGuardrailPlugin(plugin: Plugin): plugin is GuardrailPlugin {
  return (plugin as unknown as Record<symbol, unknown>)[GUARDRAIL_PLUGIN] === true;
}

/**
 * `customMetadata` of the error event a tripwire ends the invocation with: the record (guardrail,
 * point, reason) and a retraction of any partial text streamed before it.
 */
export function trippedMetadata(error: GuardrailTripped): Record<string, unknown> {
  const callId = error.details?.callId;
  const record: GuardrailRecord = {
    guardrail: error.guardrail,
    point: error.point,
    action: 'tripwire',
    reason: error.reason,
    ...(typeof callId === 'string' ? { callId } : {}),
  };
  return { [GUARDRAILS_METADATA_KEY]: [record], [RETRACT_METADATA_KEY]: true };
}

/** The tripwire an event reports (an error event with `GUARDRAIL_TRIPPED`), as the typed error. */
export function guardrailTrippedFrom(event: {
  errorCode?: string | undefined;
  errorMessage?: string | undefined;
  customMetadata?: Record<string, unknown> | undefined;
}): GuardrailTripped | undefined {
  if (event.errorCode !== 'GUARDRAIL_TRIPPED') return undefined;
  const records = event.customMetadata?.[GUARDRAILS_METADATA_KEY];
  const record = Array.isArray(records)
    ? (records.find((r) => (r as GuardrailRecord | undefined)?.action === 'tripwire') as
        | GuardrailRecord
        | undefined)
    : undefined;
  return new GuardrailTripped(
    record?.guardrail ?? 'unknown',
    record?.point ?? 'input',
    record?.reason ?? event.errorMessage ?? 'tripped',
  );
}
