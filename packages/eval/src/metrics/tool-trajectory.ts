import type { FunctionCall } from '@adk/core';
import type { ToolTrajectoryMatchType } from '../eval-set/types.js';
import { averageResult, jsonEqual, notEvaluated, pairs, statusFor, toolCallsOf } from './invocation-utils.js';
import type { Metric, PerInvocationResult } from './metric.js';

function same(a: FunctionCall, b: FunctionCall, ignoreArgs: boolean): boolean {
  return a.name === b.name && (ignoreArgs || jsonEqual(a.args ?? {}, b.args ?? {}));
}

/** Whether the actual tool calls match the expected ones under a match type (adk-python's rules). */
export function toolCallsMatch(
  actual: FunctionCall[],
  expected: FunctionCall[],
  matchType: ToolTrajectoryMatchType = 'EXACT',
  ignoreArgs = false,
): boolean {
  if (matchType === 'EXACT') {
    return (
      actual.length === expected.length &&
      actual.every((a, i) => same(a, expected[i] as FunctionCall, ignoreArgs))
    );
  }
  if (expected.length === 0) return true;
  if (matchType === 'IN_ORDER') {
    let next = 0;
    for (const a of actual) {
      if (same(a, expected[next] as FunctionCall, ignoreArgs)) next++;
      if (next === expected.length) return true;
    }
    return false;
  }
  const left = [...actual];
  for (const e of expected) {
    const i = left.findIndex((a) => same(a, e, ignoreArgs));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

/**
 * `tool_trajectory_avg_score`: per invocation 1.0 when the tool calls match the expected ones
 * (EXACT by default; IN_ORDER and ANY_ORDER allow extra calls), else 0.0; averaged over invocations.
 */
export const toolTrajectoryAvgScore: Metric = {
  name: 'tool_trajectory_avg_score',
  description:
    "Compares the agent's tool calls with the expected trajectory (EXACT, IN_ORDER or ANY_ORDER) and averages 1/0 per invocation.",
  evaluate(ctx) {
    if (!ctx.expectedInvocations)
      return notEvaluated('needs expected invocations (a static conversation)', ctx.actualInvocations);
    const matchType = ctx.criterion.matchType ?? 'EXACT';
    const ignoreArgs = ctx.criterion.ignoreArgs === true;
    const per: PerInvocationResult[] = pairs(ctx.actualInvocations, ctx.expectedInvocations).map(([a, e]) => {
      const score = toolCallsMatch(
        toolCallsOf(a.intermediateData),
        toolCallsOf(e?.intermediateData),
        matchType,
        ignoreArgs,
      )
        ? 1
        : 0;
      return {
        actualInvocation: a,
        expectedInvocation: e,
        score,
        evalStatus: statusFor(score, ctx.threshold),
      };
    });
    return averageResult(per, ctx.threshold);
  },
};
