export * from './agents/base-agent.js';
export * from './agents/callback-context.js';
export * from './agents/invocation-context.js';
export * from './agents/live-config.js';
export * from './agents/live-request-queue.js';
export * from './agents/llm-agent.js';
export * from './agents/parse-live-request.js';
export * from './agents/run-config.js';
export * from './agents/workflow-agents.js';
export * from './artifacts/artifact-service.js';
export * from './artifacts/in-memory-artifact-service.js';
export * from './auth/apply-credential.js';
export * from './auth/auth-credential.js';
export * from './auth/auth-error.js';
export * from './auth/credential-service.js';
export * from './auth/in-memory-credential-service.js';
export { authorizationUri, createPkce, type OAuthEndpoints, oauthEndpoints } from './auth/oauth2.js';
export * from './compat/google-adk.js';
export * from './errors/errors.js';
export * from './errors/live-errors.js';
export * from './events/content.js';
export * from './events/event.js';
export * from './events/narrowing.js';
export * from './events/schemas.js';
export {
  DYNAMIC_INSTRUCTION_PREAMBLE,
  type FewShotExample,
  fewShotInstruction,
  isDynamicInstructionContent,
  isOtherAgentContext,
  LONG_RUNNING_NOTE,
  OTHER_AGENT_CONTEXT_PREAMBLE,
  presentOtherAgentTurn,
  withLongRunningNote,
} from './flow/adk-prompts.js';
export { authRequestEvent, pendingAuthResponses } from './flow/auth-request.js';
export * from './flow/compression.js';
export * from './flow/confirmation.js';
export * from './flow/contents.js';
export * from './flow/instructions.js';
export { isStoredLiveEvent, LIVE_RESUMPTION_HANDLE_KEY, latestResumptionHandle } from './flow/live-flow.js';
export { MODEL_RETRY_METADATA_KEY, type ModelRetryConfig } from './flow/model-retry.js';
export {
  DEFAULT_MAX_TOOL_ROUNDS,
  MAX_TOOL_ROUNDS_EXCEEDED,
  SET_MODEL_RESPONSE_FIELDS_INSTRUCTION,
  SET_MODEL_RESPONSE_VALUE_INSTRUCTION,
} from './flow/output-schema.js';
export { PauseSignatureError } from './flow/pause-signatures.js';
export {
  PAUSE_SIGNATURES_KEY,
  PauseSigner,
  type PauseSigningOptions,
} from './flow/pause-signing.js';
export * from './flow/transfer.js';
export {
  GUARDRAILS_METADATA_KEY,
  type Guardrail,
  type GuardrailFinding,
  type GuardrailPlugin,
  type GuardrailPluginOptions,
  type GuardrailPoint,
  type GuardrailRecord,
  type GuardrailResult,
  type GuardrailStreaming,
  type GuardrailSubject,
  GuardrailTripped,
  guardrailPlugin,
  guardrailTrippedFrom,
  isGuardrailPlugin,
  isGuardrailTripped,
  RETRACT_METADATA_KEY,
} from './guardrails/guardrail.js';
export * from './memory/agent-jobs.js';
export * from './memory/agent-memory.js';
export * from './memory/facts.js';
export * from './memory/in-memory-memory-service.js';
export * from './memory/job-host.js';
export { MemoryJobWorker } from './memory/job-worker.js';
export * from './memory/jobs.js';
export * from './memory/keywords.js';
export * from './memory/memory-inspect.js';
export * from './memory/memory-service.js';
export {
  checkObservations,
  needsObservation,
  OBSERVATION_ERROR_METADATA_KEY,
  OBSERVATION_METADATA_KEY,
  OBSERVATION_REFUSED,
  OBSERVER_AUTHOR,
  type ObservationFailure,
  type ObservationOutcome,
  type ObservationRecord,
  type ObservationRefusal,
  type ObserveEventsInput,
  type ObserveOptions,
  observationOf,
  observeEvents,
  observeMemoryJobHandler,
  RECALL_TOOL_NAME,
  recallTool,
  transcriptLines,
} from './memory/observe.js';
export { observationsSettled } from './memory/observe-flow.js';
export * from './memory/profile.js';
export * from './models/capabilities.js';
export * from './models/embedder.js';
export * from './models/hashing-embedder.js';
export * from './models/llm.js';
export * from './models/llm-connection.js';
export * from './models/provider-options.js';
export * from './models/registry.js';
export * from './plugins/plugin.js';
export * from './plugins/plugin-manager.js';
export * from './runner/facade.js';
export * from './runner/in-memory-runner.js';
export * from './runner/runner.js';
export * from './runner/time-travel.js';
export * from './runs/in-memory-run-store.js';
export { INTERRUPTED_CALL_ERROR } from './runs/recovery.js';
export {
  DEFAULT_ORPHAN_AFTER_MS,
  type RunEventsOptions,
  RunManager,
  type RunTiming,
  type RunWorker,
  type WorkerOptions,
} from './runs/run-manager.js';
export * from './runs/run-store.js';
export * from './runs/run-usage.js';
export * from './scorers/score-alerts.js';
export * from './scorers/score-store.js';
export * from './scorers/scorer.js';
export * from './scorers/scorers-plugin.js';
export * from './sessions/apply-event.js';
export * from './sessions/in-memory-session-service.js';
export * from './sessions/session.js';
export * from './sessions/state.js';
export * from './sessions/time-travel.js';
export * from './sessions/typed-state.js';
export * from './sessions/visible-events.js';
export {
  DEFAULT_MODEL_PRICES,
  type ModelTokenPrice,
  type PriceTable,
  priceTable,
  type TokenCounts,
} from './telemetry/pricing.js';
export {
  EVENT_ID_ATTRIBUTE,
  type StoredSpan,
  spanSessionId,
  type TraceListResult,
  type TraceQuery,
  type TraceRetention,
  type TraceStore,
  TraceSummarizer,
  type TraceSummary,
  traceMatches,
} from './telemetry/trace-store.js';
export { GenAi, type TraceContext } from './telemetry/tracing.js';
export * from './tools/agent-tool.js';
export * from './tools/base-tool.js';
export * from './tools/builtin-tools.js';
export * from './tools/function-tool.js';
export * from './tools/model-built-in-tools.js';
export * from './tools/set-model-response-tool.js';
export * from './tools/stop-streaming-tool.js';
export * from './tools/tool-context.js';
export * from './tools/toolset.js';
export { newFunctionCallId, newId } from './utils/ids.js';
export { getOrCreate, isPlainObject, parseJson, tryParseJson } from './utils/json.js';
export {
  deferredSchema,
  formatIssues,
  type LazySchema,
  lazySchema,
  lazyZod,
  loadZod,
  type SafeParseResult,
  type SchemaIssue,
  type SchemaLike,
  type ZodModule,
} from './utils/zod.js';
export { AgentNode, inputText } from './workflow/agent-node.js';
export {
  BaseNode,
  type BaseNodeConfig,
  type BaseNodeOptions,
  isBaseNode,
  START,
} from './workflow/base-node.js';
export * from './workflow/errors.js';
export * from './workflow/function-node.js';
export {
  type ChainElement,
  DEFAULT_ROUTE,
  Edge,
  type EdgeItem,
  Graph,
  type GraphEdge,
  type RoutingMap,
} from './workflow/graph.js';
export { JoinNode } from './workflow/join-node.js';
export { type NodeLike, type NodeOptions, node } from './workflow/node.js';
export { NodeContext, type NodeResult, type RunNodeOptions } from './workflow/node-context.js';
export { ParallelWorker, type ParallelWorkerOptions } from './workflow/parallel-worker.js';
export {
  isRequestInput,
  REQUEST_INPUT,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  RequestInput,
  type RequestInputParams,
  type ResponseSchema,
} from './workflow/request-input.js';
export type { ErrorClass, RetryConfig } from './workflow/retry-config.js';
export { ToolNode } from './workflow/tool-node.js';
export {
  agentOfNode,
  isWorkflow,
  type OutputSchema,
  SubWorkflowNode,
  Workflow,
  type WorkflowConfig,
  type WorkflowOptions,
} from './workflow/workflow.js';
