export { openaiChatCapabilities } from './capabilities.js';
export { FINISH_REASONS } from './convert-response.js';
export { OpenAIEmbedder, type OpenAIEmbedderOptions } from './embedder.js';
export { LiveProtocolError } from './live/errors.js';
export { OpenAIChat, type OpenAIChatOptions } from './openai-chat.js';
export { OpenAIResponses, type OpenAIResponsesOptions } from './openai-responses.js';
export type { OpenAIProviderOptions } from './provider-options.js';
export { OPENAI_MODEL_PATTERN, type RegisterOpenAIOptions, registerOpenAI } from './register.js';
export { type ResponsesCompactionOptions, responsesCompaction } from './responses/compaction.js';
export { REASONING_SIGNATURE_PREFIX } from './responses/convert-request.js';
export {
  codeInterpreter,
  fileSearch,
  imageGeneration,
  mcpServer,
  RESPONSES_HOSTED_TOOLS,
} from './responses/hosted-tools.js';
export { MCP_APPROVAL_TOOL, mcpApproval } from './responses/mcp-approval.js';
export { toStrictSchema } from './schema.js';
