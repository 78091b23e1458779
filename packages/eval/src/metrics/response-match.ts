import { averageResult, notEvaluated, pairs, statusFor, textOf } from './invocation-utils.js';
import type { Metric, PerInvocationResult } from './metric.js';
import { isLatinScript, rouge1 } from './rouge.js';

/**
 * `response_match_score`: ROUGE-1 F-measure between the final response and the expected one,
 * stemmed when both texts are mostly Latin script (as adk-python), averaged over invocations.
 */
export const responseMatchScore: Metric = {
  name: 'response_match_score',
  description: "ROUGE-1 F-measure between the agent's final response and the expected final response.",
  evaluate(ctx) {
    if (!ctx.expectedInvocations)
      return notEvaluated('needs expected invocations (a static conversation)', ctx.actualInvocations);
    const per: PerInvocationResult[] = pairs(ctx.actualInvocations, ctx.expectedInvocations).map(([a, e]) => {
      const response = textOf(a.finalResponse);
      const reference = textOf(e?.finalResponse);
      const useStemmer = isLatinScript(response) && isLatinScript(reference);
      const score = rouge1(response, reference, { useStemmer }).fmeasure;
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
