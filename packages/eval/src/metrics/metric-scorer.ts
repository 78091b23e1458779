import {
  defineScorer,
  type Llm,
  type Scorer,
  type ScorerOptions,
  ScorerOutputError,
  type ScorerTurn,
  ValidationError,
} from '@adk/core';
import type { Criterion, EvalCase } from '../eval-set/types.js';
import { invocationFromEvents } from '../runner/inference.js';
import type { Metric, MetricContext, MetricFunction } from './metric.js';
import { metricTable } from './registry.js';

export interface MetricScorerOptions extends Partial<ScorerOptions> {
  /** The criterion the metric reads (threshold, rubrics, judge options); default threshold 0.5. */
  criterion?: Criterion;
  /** The judge of LLM-judged metrics: a model, or a function of the criterion's judge model name. */
  judge?: Llm | ((modelName: string) => Llm);
  /** Custom metrics by name, for a metric given by name. */
  customMetrics?: Record<string, Metric | MetricFunction>;
}

/**
 * An `@adk/eval` metric as a live-traffic scorer: the turn becomes one actual invocation (no
 * expected one), so reference-free metrics (`rubric_based_*`, `safety_v1`, `hallucinations_v1`,
 * custom ones) score it; a metric that needs an expected conversation does not evaluate, which is
 * a failed score (`SCORER_OUTPUT`) with the metric's note as the error.
 */
export function metricScorer(metric: Metric | string, options: MetricScorerOptions = {}): Scorer {
  const resolved = typeof metric === 'string' ? metricTable(options.customMetrics ?? {}).get(metric) : metric;
  if (!resolved) throw new ValidationError(`Unknown eval metric '${String(metric)}'`);
  const criterion: Criterion = options.criterion ?? { threshold: 0.5 };
  const judgeOption = options.judge;
  const judge = (name: string): Llm => {
    if (!judgeOption)
      throw new ValidationError(`Metric '${resolved.name}' needs a judge model (option judge)`);
    return typeof judgeOption === 'function' ? judgeOption(name) : judgeOption;
  };
  const { criterion: _c, judge: _j, customMetrics: _m, ...scorerOptions } = options;
  return defineScorer({
    ...scorerOptions,
    name: options.name ?? resolved.name,
    async score(turn: ScorerTurn, { signal }) {
      const userContent = turn.userContent ?? { role: 'user', parts: [] };
      const started = turn.events[0]?.timestamp ?? Date.now();
      const actual = invocationFromEvents(userContent, [...turn.events], started);
      delete actual.duration;
      const evalCase: EvalCase = {
        evalId: turn.invocationId,
        conversation: [actual],
        creationTimestamp: started / 1000,
      };
      const context: MetricContext = {
        metric: { metricName: resolved.name, threshold: criterion.threshold, criterion },
        threshold: criterion.threshold,
        criterion,
        actualInvocations: [actual],
        expectedInvocations: undefined,
        conversationScenario: undefined,
        evalCase,
        finalSessionState: {},
        judge,
        agentInstructions: {},
        toolDeclarations: {},
        signal,
      };
      const result = await resolved.evaluate(context);
      if (typeof result === 'number') return result;
      if (result.overallScore === null || result.overallScore === undefined)
        throw new ScorerOutputError(
          `Metric '${resolved.name}' did not evaluate: ${result.note ?? 'no score'}`,
        );
      return {
        score: result.overallScore,
        reason:
          result.note ?? `${resolved.name}: ${result.overallEvalStatus === 1 ? 'passed' : 'not passed'}`,
      };
    },
  });
}
