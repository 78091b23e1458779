export type {
  McpConnection,
  SseConnection,
  StdioConnection,
  StreamableHttpConnection,
  TokenProvider,
} from './client/connection.js';
export {
  checkContent as checkElicitationContent,
  MCP_ELICITATION,
  type McpElicitationAnswer,
  type McpElicitationHandler,
  type McpElicitationRequest,
  type StoredElicitation,
} from './client/elicitation.js';
export { loadMcpPrompt, mcpPromptInstruction } from './client/load-prompt.js';
export { type McpCallPredicate, type McpProgress, McpTool } from './client/mcp-tool.js';
export { type McpTaskSessionParams, McpToolset, type McpToolsetOptions } from './client/mcp-toolset.js';
export type { McpSamplingPolicy } from './client/sampling.js';
export { MCP_TASK_STATE_PREFIX, type McpTaskRecord } from './client/tasks.js';
export { McpConnectionError, McpRequestError, McpTimeoutError } from './errors.js';
export {
  type McpAgentServer,
  type ServeAgentAsMcpOptions,
  type ServeAgentHttpOptions,
  serveAgentAsMcp,
} from './server/serve-agent.js';
