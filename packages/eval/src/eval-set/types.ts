// The data model of adk-python's evaluation (EvalSet, EvalCase, Invocation, results), in the
// camelCase that adk-python's pydantic aliases produce. Files may be written in snake_case or
// camelCase; `parseEvalSet` and friends accept both and these types are what they return.
import type { Content, FunctionCall, FunctionResponse, Part, UsageMetadata } from '@adk/core';

/** Tool calls, tool responses and sub-agent messages of one invocation (adk-python's IntermediateData). */
export interface IntermediateData {
  toolUses: FunctionCall[];
  toolResponses: FunctionResponse[];
  /** `[author, parts]` pairs: what sub-agents said on the way to the final response. */
  intermediateResponses: [string, Part[]][];
}

/** One event of an invocation, as adk-python's InvocationEvent projects it. */
export interface InvocationEvent {
  author: string;
  content?: Content;
  groundingMetadata?: unknown;
  usageMetadata?: UsageMetadata;
  modelVersion?: string;
}

/** The other shape adk-python accepts for intermediate data: the events themselves. */
export interface InvocationEvents {
  invocationEvents: InvocationEvent[];
}

export type IntermediateDataType = IntermediateData | InvocationEvents;

export interface RubricContent {
  textProperty?: string | null;
}

export interface Rubric {
  rubricId: string;
  rubricContent: RubricContent;
  description?: string;
  /** Filters which rubrics a metric uses (e.g. `TOOL_USE_QUALITY`). */
  type?: string;
}

export interface RubricScore {
  rubricId: string;
  rationale?: string;
  score?: number | null;
}

/** One turn: what the user said, what the agent did on the way, and its final answer. */
export interface Invocation {
  invocationId: string;
  userContent: Content;
  finalResponse?: Content;
  intermediateData?: IntermediateDataType;
  creationTimestamp: number;
  rubrics?: Rubric[];
  /** Wall-clock seconds, set when this library ran the turn itself. */
  duration?: number;
  [extra: string]: unknown;
}

export interface SessionInput {
  appName: string;
  userId: string;
  sessionId?: string;
  state: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface UserPersona {
  id?: string;
  description?: string;
  [extra: string]: unknown;
}

/** A multi-turn case driven by a user simulator instead of fixed user turns. */
export interface ConversationScenario {
  startingPrompt: string;
  conversationPlan: string;
  /** A persona object, or the id of one (kept as given). */
  userPersona?: UserPersona | string;
}

export interface EvalCase {
  evalId: string;
  conversation?: Invocation[];
  conversationScenario?: ConversationScenario;
  sessionInput?: SessionInput;
  creationTimestamp: number;
  rubrics?: Rubric[];
  finalSessionState?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface EvalSet {
  evalSetId: string;
  name?: string;
  description?: string;
  evalCases: EvalCase[];
  creationTimestamp: number;
}

/** adk-python's EvalStatus enum, serialized as its integer value. */
export const EvalStatus = { PASSED: 1, FAILED: 2, NOT_EVALUATED: 3 } as const;
export type EvalStatus = (typeof EvalStatus)[keyof typeof EvalStatus];

export function evalStatusName(status: EvalStatus): 'PASSED' | 'FAILED' | 'NOT_EVALUATED' {
  return status === 1 ? 'PASSED' : status === 2 ? 'FAILED' : 'NOT_EVALUATED';
}

export interface JudgeModelOptions {
  /** A model name resolved through core's model registry (default `gemini-2.5-flash`, as ADK). */
  judgeModel: string;
  judgeModelConfig?: Record<string, unknown>;
  /** How many times each invocation is put to the judge (default 5, as ADK). */
  numSamples: number;
}

export type ToolTrajectoryMatchType = 'EXACT' | 'IN_ORDER' | 'ANY_ORDER';

/**
 * A metric's criterion (adk-python's BaseCriterion and subclasses, flattened): a threshold plus
 * whatever the metric reads. Unknown fields are kept.
 */
export interface Criterion {
  threshold: number;
  judgeModelOptions?: JudgeModelOptions;
  rubrics?: Rubric[];
  matchType?: ToolTrajectoryMatchType;
  evaluateIntermediateNlResponses?: boolean;
  [extra: string]: unknown;
}

export interface EvalMetric {
  metricName: string;
  threshold?: number;
  criterion?: Criterion;
  customFunctionPath?: string;
}

export interface EvalMetricResultDetails {
  rubricScores?: RubricScore[];
  [extra: string]: unknown;
}

export interface EvalMetricResult extends EvalMetric {
  score?: number | null;
  evalStatus: EvalStatus;
  details: EvalMetricResultDetails;
}

export interface EvalMetricResultPerInvocation {
  actualInvocation: Invocation;
  expectedInvocation?: Invocation;
  evalMetricResults: EvalMetricResult[];
}

/** A session as adk-python's EvalCaseResult carries it (`sessionDetails`). */
export interface SessionDetails {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events: unknown[];
  lastUpdateTime: number;
}

export interface EvalCaseResult {
  /** Deprecated in adk-python (use evalSetId) but still required there, so always written. */
  evalSetFile: string;
  evalSetId: string;
  evalId: string;
  finalEvalStatus: EvalStatus;
  /** Deprecated in adk-python; written as `[metric, result]` pairs for old readers. */
  evalMetricResults: [EvalMetric, EvalMetricResult][];
  overallEvalMetricResults: EvalMetricResult[];
  evalMetricResultPerInvocation: EvalMetricResultPerInvocation[];
  sessionId: string;
  sessionDetails?: SessionDetails;
  userId?: string;
  /** Ours, not adk-python's: which of `numRuns` runs this is (1-based); extra fields are allowed there. */
  runNumber?: number;
}

export interface EvalSetResult {
  evalSetResultId: string;
  evalSetResultName?: string;
  evalSetId: string;
  evalCaseResults: EvalCaseResult[];
  creationTimestamp: number;
}

/** A `test_config.json`: metric name → threshold or criterion. */
export interface EvalConfig {
  criteria: Record<string, number | Criterion>;
  customMetrics?: Record<
    string,
    { codeConfig: { name: string }; description?: string; [k: string]: unknown }
  >;
  userSimulatorConfig?: Record<string, unknown>;
}
