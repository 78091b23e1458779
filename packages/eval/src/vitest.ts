// `@adk/eval/vitest`: an eval set as a Vitest suite, one test per eval case.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, it } from 'vitest';
import { EvalFormatError } from './errors.js';
import { evalSetIdFromPath, parseEvalSetJson } from './eval-set/eval-set-io.js';
import { type EvalSet, EvalStatus, evalStatusName } from './eval-set/types.js';
import { type EvaluateOptions, type EvaluateResult, evaluate } from './runner/evaluate.js';

export interface DescribeEvalSetOptions extends Omit<EvaluateOptions, 'evalSets' | 'progress'> {
  /** Timeout of the run of the whole set, in ms (default 120 000). */
  timeout?: number;
}

function loadSync(evalSet: EvalSet | string): EvalSet {
  if (typeof evalSet !== 'string') return evalSet;
  try {
    return parseEvalSetJson(readFileSync(evalSet, 'utf8'), { evalSetId: evalSetIdFromPath(evalSet) });
  } catch (error) {
    if (error instanceof EvalFormatError)
      throw new EvalFormatError(`${evalSet}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Why a case failed: every metric of every run that fell below its threshold, and run errors. */
export function describeFailures(result: EvaluateResult, evalSetId: string, evalId: string): string[] {
  const lines: string[] = [];
  for (const set of result.evalSetResults.filter((s) => s.evalSetId === evalSetId)) {
    for (const run of set.evalCaseResults.filter((r) => r.evalId === evalId)) {
      for (const m of run.overallEvalMetricResults) {
        if (m.evalStatus === EvalStatus.PASSED) continue;
        const score = typeof m.score === 'number' ? m.score.toFixed(4) : 'no score';
        const why =
          (m.details as { error?: string; note?: string }).error ?? (m.details as { note?: string }).note;
        lines.push(
          `run ${run.runNumber ?? 1}: ${m.metricName} = ${score} ${
            m.evalStatus === EvalStatus.FAILED
              ? `is below its threshold ${m.threshold}`
              : `was ${evalStatusName(m.evalStatus)}`
          }${why ? ` (${why})` : ''}`,
        );
      }
      if (run.overallEvalMetricResults.length === 0 && run.finalEvalStatus !== EvalStatus.PASSED)
        lines.push(`run ${run.runNumber ?? 1}: the case could not run`);
    }
  }
  const summary = result.cases.find((c) => c.evalSetId === evalSetId && c.evalId === evalId);
  for (const e of summary?.errors ?? []) lines.push(`error: ${e}`);
  return lines;
}

/**
 * Declares a Vitest suite for an eval set: the agent runs every case once (in `beforeAll`), then
 * one test per case fails when a metric of the case falls below its threshold (or its pass rate
 * over `numRuns` is under `minPassRate`), with the scores in the message.
 */
export function describeEvalSet(evalSet: EvalSet | string, options: DescribeEvalSetOptions): void {
  const set = loadSync(evalSet);
  const { timeout = 120_000, ...evaluateOptions } = options;
  describe(`eval set ${set.evalSetId}`, () => {
    let result: EvaluateResult | undefined;
    beforeAll(async () => {
      result = await evaluate({ ...evaluateOptions, evalSets: [set], progress: false });
    }, timeout);
    for (const evalCase of set.evalCases) {
      it(evalCase.evalId, () => {
        if (!result) throw new Error('The eval set did not run');
        const summary = result.cases.find((c) => c.evalId === evalCase.evalId);
        if (summary?.passed) return;
        const rate = summary ? `${summary.passedRuns}/${summary.runs} runs passed` : 'not run';
        throw new Error(
          [
            `Eval case ${evalCase.evalId} failed (${rate}):`,
            ...describeFailures(result, set.evalSetId, evalCase.evalId),
          ].join('\n  '),
        );
      });
    }
  });
}
