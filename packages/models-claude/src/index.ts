export { ANTHROPIC_VERSION, Claude, type ClaudeOptions, defaultMaxTokens } from './claude.js';
export type { ClaudeBedrockOptions, ClaudeVertexOptions } from './cloud.js';
export {
  type ClaudeAppliedEdit,
  type ClaudeContextEditingOptions,
  type ClaudeContextEditRecord,
  claudeContextEditing,
  claudeContextEdits,
} from './context-editing.js';
export {
  type CacheControlOptions,
  type ClaudeContextEditing,
  CONTEXT_MANAGEMENT_BETA,
  JSON_TOOL_NAME,
  REDACTED_THINKING_PREFIX,
} from './convert-request.js';
export { type ClaudeCitation, FINISH_REASONS } from './convert-response.js';
export {
  CLAUDE_MODEL_PROFILES,
  type ClaudeEffort,
  type ClaudeModelProfile,
  claudeCapabilities,
  claudeModelId,
  claudeModelProfile,
} from './models.js';
export type { AnthropicProviderOptions } from './provider-options.js';
export { CLAUDE_MODEL_PATTERN, type RegisterClaudeOptions, registerClaude } from './register.js';
