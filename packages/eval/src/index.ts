export * from './errors.js';
export * from './eval-set/eval-config.js';
export * from './eval-set/eval-result-io.js';
export * from './eval-set/eval-set-io.js';
export * from './eval-set/from-session.js';
export * from './eval-set/keys.js';
export * from './eval-set/local-eval-sets-manager.js';
export * from './eval-set/types.js';
export * from './metrics/final-response-match-v2.js';
export * from './metrics/hallucinations.js';
export { textOf, toolCallsOf, toolResponsesOf } from './metrics/invocation-utils.js';
export { DEFAULT_JUDGE_MODEL_OPTIONS, majorityVote } from './metrics/judge.js';
export type * from './metrics/metric.js';
export * from './metrics/metric-scorer.js';
export * from './metrics/registry.js';
export * from './metrics/response-match.js';
export * from './metrics/rouge.js';
export * from './metrics/rubric-based.js';
export * from './metrics/safety.js';
export * from './metrics/tool-trajectory.js';
export * from './report/history.js';
export * from './report/html-report.js';
export * from './report/progress.js';
export * from './runner/evaluate.js';
export {
  type InferenceOptions,
  type InferenceResult,
  invocationFromEvents,
  runEvalCase,
} from './runner/inference.js';
export * from './runner/user-simulator.js';
