import { type GenerateConfig, type LlmResponse, tryParseJson } from '@adk/core';
import type { JudgeModelOptions } from '../eval-set/types.js';
import { EvalStatus, type Invocation } from '../eval-set/types.js';
import { statusFor, textOf } from './invocation-utils.js';
import type { MetricContext, PerInvocationResult } from './metric.js';

/** adk-python's defaults for `judge_model_options`. */
export const DEFAULT_JUDGE_MODEL_OPTIONS: JudgeModelOptions = {
  judgeModel: 'gemini-2.5-flash',
  numSamples: 5,
};

export function judgeOptions(ctx: MetricContext): JudgeModelOptions {
  return { ...DEFAULT_JUDGE_MODEL_OPTIONS, ...ctx.criterion.judgeModelOptions };
}

/** Sends one prompt to the judge model and returns the text of its final response. */
export async function askJudge(
  ctx: MetricContext,
  prompt: string,
  options = judgeOptions(ctx),
): Promise<string> {
  const llm = ctx.judge(options.judgeModel);
  let last: LlmResponse | undefined;
  for await (const response of llm.generate(
    {
      model: options.judgeModel,
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      config: (options.judgeModelConfig ?? {}) as GenerateConfig,
    },
    ctx.signal ? { signal: ctx.signal } : {},
  )) {
    if (!response.partial) last = response;
  }
  if (!last) throw new Error('The judge model returned no response');
  if (last.errorCode)
    throw new Error(`The judge model failed: ${last.errorCode} ${last.errorMessage ?? ''}`.trim());
  return textOf(
    last.content ? { role: 'model', parts: last.content.parts.filter((p) => !p.thought) } : undefined,
  );
}

/**
 * Puts the same prompt to the judge `numSamples` times (judges are noisy, so adk-python samples
 * them repeatedly). A failed sample is returned as its Error.
 */
export async function sampleJudge(ctx: MetricContext, prompt: string): Promise<(string | Error)[]> {
  const options = judgeOptions(ctx);
  const settled = await Promise.allSettled(
    Array.from({ length: options.numSamples }, () => askJudge(ctx, prompt, options)),
  );
  return settled.map((s) =>
    s.status === 'fulfilled' ? s.value : s.reason instanceof Error ? s.reason : new Error(String(s.reason)),
  );
}

/**
 * One invocation judged `numSamples` times, its score the majority vote of `verdict` (1/0 per
 * reply); NOT_EVALUATED when a sample failed, as in adk-python.
 */
export async function judgeByMajority(
  ctx: MetricContext,
  actual: Invocation,
  expected: Invocation | undefined,
  prompt: string,
  verdict: (reply: string) => number | undefined,
): Promise<PerInvocationResult> {
  const samples = await sampleJudge(ctx, prompt);
  if (samples.some((s) => s instanceof Error))
    return {
      actualInvocation: actual,
      expectedInvocation: expected,
      score: null,
      evalStatus: EvalStatus.NOT_EVALUATED,
    };
  const score = majorityVote(samples.map((s) => verdict(s as string)));
  return {
    actualInvocation: actual,
    expectedInvocation: expected,
    score: score ?? null,
    evalStatus: statusFor(score, ctx.threshold),
  };
}

/**
 * Majority vote over 1/0 sample scores (adk-python's rule: more positives than negatives wins,
 * a tie is negative); undefined when no sample produced a score.
 */
export function majorityVote(scores: (number | undefined)[]): number | undefined {
  const positives = scores.filter((s) => s === 1).length;
  const negatives = scores.filter((s) => s !== undefined && s !== 1).length;
  if (positives === 0 && negatives === 0) return undefined;
  return positives > negatives ? 1 : 0;
}

export function notEvaluatedStatus(): EvalStatus {
  return EvalStatus.NOT_EVALUATED;
}

/** Reads a JSON object from a judge's reply, inside a ```json fence or bare; undefined if none. */
export function judgeJson(text: string): Record<string, unknown> | undefined {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text);
  const candidates = [fenced?.[1], text, /\{[\s\S]*\}/.exec(text)?.[0]];
  for (const c of candidates) {
    if (!c) continue;
    const value = tryParseJson(c);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  return undefined;
}
