export {
  type AgentGraph,
  agentGraph,
  appInfo,
  type GraphEdge,
  type GraphNode,
  graphToDot,
} from './graph/agent-graph.js';
export { hostAllowed } from './http/guard.js';
export type { AdkServerUi } from './routes/ui.js';
export type { AdkAppLoader, AdkApps } from './server/apps.js';
export { type AdkServer, type AdkServerOptions, createAdkServer } from './server/create-adk-server.js';
export { AppLoadError, ServerError, type ServerErrorCode } from './server/errors.js';
export { type ListeningAdkServer, type ListenOptions, listenAdkServer } from './server/listen.js';
export { type AdkServerLogger, defaultLogger } from './server/logger.js';
export type { ServerRunWorkerOptions } from './server/run-worker.js';
export type { ServerScoringOptions } from './server/scoring.js';
export { normalizeDatabaseUrl } from './server/stores.js';
export {
  emitsLegacyGenAiNames,
  GEN_AI_SEMCONV_VERSION,
  GenAiMetricNames,
  GenAiMetricsProcessor,
} from './telemetry/gen-ai-metrics.js';
export {
  builtInRedactor,
  type TextRedactor,
  type TraceContentCapture,
  traceContentFromEnv,
} from './telemetry/redaction.js';
export { type ModelSpanNaming, modelSpanNaming } from './telemetry/span-names.js';
export {
  InMemorySpanStore,
  type InMemorySpanStoreOptions,
  type SpanListener,
  type SpanRecord,
} from './telemetry/span-store.js';
export { TraceWriter, type TraceWriterOptions } from './telemetry/trace-writer.js';
export { adkSpanStore } from './telemetry/tracing.js';
export {
  type AdkEventActionsJson,
  type AdkEventJson,
  type AdkSessionJson,
  eventFromAdkJson,
  eventToAdkJson,
  sessionToAdkJson,
} from './wire/adk-json.js';
