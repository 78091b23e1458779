import type { Content, FunctionCall, FunctionResponse } from '@adk/core';
import type { IntermediateDataType, Invocation } from '../eval-set/types.js';
import { EvalStatus } from '../eval-set/types.js';
import type { EvaluationResult, PerInvocationResult } from './metric.js';

/** The text parts of a content joined with newlines ('' when none), as adk-python reads them. */
export function textOf(content: Content | undefined): string {
  if (!content) return '';
  return content.parts
    .filter((p) => p.text)
    .map((p) => p.text)
    .join('\n');
}

export function toolCallsOf(data: IntermediateDataType | undefined): FunctionCall[] {
  if (!data) return [];
  if ('invocationEvents' in data) {
    return data.invocationEvents.flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) => (p.functionCall ? [p.functionCall] : [])),
    );
  }
  return data.toolUses ?? [];
}

export function toolResponsesOf(data: IntermediateDataType | undefined): FunctionResponse[] {
  if (!data) return [];
  if ('invocationEvents' in data) {
    return data.invocationEvents.flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) => (p.functionResponse ? [p.functionResponse] : [])),
    );
  }
  return data.toolResponses ?? [];
}

/** Each tool call with its response (matched by call id), as adk-python pairs them. */
export function toolCallsWithResponses(data: IntermediateDataType | undefined): {
  call: FunctionCall;
  response: FunctionResponse | undefined;
}[] {
  const byId = new Map(toolResponsesOf(data).map((r) => [r.id, r]));
  return toolCallsOf(data).map((call) => ({ call, response: byId.get(call.id) }));
}

/** Texts sub-agents produced on the way to the final response. */
export function intermediateTextsOf(invocation: Invocation): string[] {
  const data = invocation.intermediateData;
  if (!data) return [];
  if ('invocationEvents' in data) return data.invocationEvents.map((e) => textOf(e.content)).filter(Boolean);
  return (data.intermediateResponses ?? [])
    .map(([, parts]) => textOf({ role: 'model', parts }))
    .filter(Boolean);
}

/** Python's `==` on JSON values: deep, key order ignored, 1 == 1.0. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => k in bo && jsonEqual(ao[k], bo[k]));
}

export function statusFor(score: number | null | undefined, threshold: number): EvalStatus {
  if (score === null || score === undefined || Number.isNaN(score)) return EvalStatus.NOT_EVALUATED;
  return score >= threshold ? EvalStatus.PASSED : EvalStatus.FAILED;
}

export function mean(values: number[]): number | undefined {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : undefined;
}

/** Averages per-invocation scores (skipping unscored ones) into the overall result. */
export function averageResult(per: PerInvocationResult[], threshold: number): EvaluationResult {
  const scores = per.flatMap((p) => (typeof p.score === 'number' ? [p.score] : []));
  const overall = mean(scores);
  return {
    overallScore: overall ?? null,
    overallEvalStatus: statusFor(overall, threshold),
    perInvocationResults: per,
  };
}

/** Pairs actual and expected invocations (by position, stopping at the shorter list). */
export function pairs(
  actual: Invocation[],
  expected: Invocation[] | undefined,
): [Invocation, Invocation | undefined][] {
  if (!expected) return actual.map((a) => [a, undefined]);
  const n = Math.min(actual.length, expected.length);
  return actual.slice(0, n).map((a, i) => [a, expected[i]]);
}

export function notEvaluated(note: string, actual: Invocation[]): EvaluationResult {
  return {
    overallScore: null,
    overallEvalStatus: EvalStatus.NOT_EVALUATED,
    perInvocationResults: actual.map((a) => ({
      actualInvocation: a,
      score: null,
      evalStatus: EvalStatus.NOT_EVALUATED,
    })),
    note,
  };
}
