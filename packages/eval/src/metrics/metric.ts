import type { FunctionDeclaration, Llm } from '@adk/core';
import type {
  ConversationScenario,
  Criterion,
  EvalCase,
  EvalMetric,
  EvalStatus,
  Invocation,
  RubricScore,
} from '../eval-set/types.js';

/** What a metric sees for one run of one eval case. */
export interface MetricContext {
  metric: EvalMetric;
  /** The threshold from the criterion (or the metric's legacy `threshold`). */
  threshold: number;
  criterion: Criterion;
  /** What the agent did, one invocation per user turn. */
  actualInvocations: Invocation[];
  /** The eval case's conversation; undefined for a simulated (scenario) case. */
  expectedInvocations: Invocation[] | undefined;
  conversationScenario: ConversationScenario | undefined;
  evalCase: EvalCase;
  /** The session state after the run. */
  finalSessionState: Record<string, unknown>;
  /** Resolves a judge model name (from the criterion's `judge_model_options`) to a model. */
  judge: (modelName: string) => Llm;
  /** Instructions of the agents under test (for judges that need context), by agent name. */
  agentInstructions: Record<string, string>;
  /** Declarations of the agents' tools (toolsets, resolved per invocation, are not listed), by agent name. */
  toolDeclarations: Record<string, FunctionDeclaration[]>;
  signal?: AbortSignal | undefined;
}

export interface PerInvocationResult {
  actualInvocation: Invocation;
  expectedInvocation?: Invocation | undefined;
  score?: number | null | undefined;
  evalStatus: EvalStatus;
  rubricScores?: RubricScore[] | undefined;
}

export interface EvaluationResult {
  overallScore?: number | null | undefined;
  overallEvalStatus: EvalStatus;
  perInvocationResults: PerInvocationResult[];
  overallRubricScores?: RubricScore[] | undefined;
  /** Why a metric did not evaluate, or other notes for the report. */
  note?: string | undefined;
}

/**
 * A metric: a name and a function of the run. A custom metric may return just a number (the
 * overall score, compared with the threshold) or a full {@link EvaluationResult}.
 */
export interface Metric {
  name: string;
  description?: string;
  /** Range of the score, for `/eval_metrics` (default [0, 1]). */
  range?: { min: number; max: number };
  evaluate(context: MetricContext): Promise<EvaluationResult | number> | EvaluationResult | number;
}

export type MetricFunction = Metric['evaluate'];
