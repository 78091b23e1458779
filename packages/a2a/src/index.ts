export * from './agent/define-agent.js';
export {
  ADK_AUTHOR_KEY,
  ADK_ERROR_CODE_KEY,
  ADK_GUARDRAILS_KEY,
  ADK_NODE_INFO_KEY,
  ADK_OUTPUT_KEY,
  ADK_ROUTE_KEY,
  AdkAgentExecutor,
  type AdkAgentExecutorOptions,
} from './bridge/adk-agent-executor.js';
export {
  ADK_LONG_RUNNING_KEY,
  ADK_THOUGHT_KEY,
  ADK_TYPE_KEY,
  a2aPartToAdk,
  adkPartToA2a,
  REQUEST_CREDENTIAL,
} from './bridge/part-conversion.js';
export {
  A2A_INPUT_REQUIRED,
  RemoteA2aAgent,
  type RemoteA2aAgentOptions,
  type RemoteA2aMetadata,
} from './bridge/remote-a2a-agent.js';
export { adkAgentCard, serveA2a, type ToA2aOptions, toA2a } from './bridge/to-a2a.js';
export { A2aClient, type A2aClientOptions, type Binding, normalizeAgentCard } from './client/a2a-client.js';
export { type AgentCardInput, agentCardToV03, buildAgentCard } from './protocol/agent-card.js';
export * from './protocol/errors.js';
export * from './protocol/types.js';
export { type A2aServer, type A2aServerOptions, createA2aServer } from './server/a2a-server.js';
export type { AgentExecutor, AgentUpdate, Caller, ExecutionContext } from './server/agent-executor.js';
export { type AuthHook, type AuthOptions, apiKeyAuth, bearerAuth, customAuth } from './server/auth.js';
export { type FetchHandler, type ListeningServer, listen, toNodeListener } from './server/node-adapter.js';
export {
  HttpPushNotificationSender,
  NOTIFICATION_TOKEN_HEADER,
  type PushNotificationOptions,
  type PushNotificationSender,
} from './server/push-sender.js';
export {
  A2aRequestHandler,
  type CallContext,
  type RequestHandlerOptions,
  trimHistory,
} from './server/request-handler.js';
export {
  assertPublicUrl,
  type CheckedUrl,
  checkWebhookUrl,
  isPrivateAddress,
  type ResolvedAddress,
  type SsrfGuardOptions,
} from './server/ssrf-guard.js';
export {
  type PgListenConnection,
  PostgresTaskEventBus,
  type PostgresTaskEventBusOptions,
  type TaskEventBus,
} from './server/task-event-bus.js';
export { InMemoryTaskStore } from './stores/in-memory-task-store.js';
export type { ListTasksPage, ListTasksQuery, TaskOwner, TaskStore } from './stores/task-store.js';
