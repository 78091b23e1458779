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
export { McpToolset, type McpToolsetOptions } from './client/mcp-toolset.js';
export { McpConnectionError, McpRequestError, McpTimeoutError } from './errors.js';
export {
  type McpAgentServer,
  type ServeAgentAsMcpOptions,
  type ServeAgentHttpOptions,
  serveAgentAsMcp,
} from './server/serve-agent.js';
