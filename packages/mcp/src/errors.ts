import { AdkError, type AdkErrorOptions } from '@adk/core';

/** An MCP server could not be started, reached or initialized, or its connection was lost. */
export class McpConnectionError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('MCP_CONNECTION', message, options);
  }
}

/** An MCP server did not answer a request within its timeout. */
export class McpTimeoutError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('MCP_TIMEOUT', message, options);
  }
}

/** An MCP server answered a request with a JSON-RPC error (unknown tool, invalid arguments, ...). */
export class McpRequestError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('MCP_REQUEST', message, options);
  }
}
