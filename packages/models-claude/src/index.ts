export { ANTHROPIC_VERSION, Claude, type ClaudeOptions, defaultMaxTokens } from './claude.js';
export type { ClaudeBedrockOptions, ClaudeVertexOptions } from './cloud.js';
export { type CacheControlOptions, JSON_TOOL_NAME, REDACTED_THINKING_PREFIX } from './convert-request.js';
export { FINISH_REASONS } from './convert-response.js';
export { CLAUDE_MODEL_PATTERN, type RegisterClaudeOptions, registerClaude } from './register.js';
