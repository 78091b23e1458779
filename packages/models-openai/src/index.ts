export { openaiChatCapabilities } from './capabilities.js';
export { FINISH_REASONS } from './convert-response.js';
export { LiveProtocolError } from './live/errors.js';
export { OpenAIChat, type OpenAIChatOptions } from './openai-chat.js';
export type { OpenAIProviderOptions } from './provider-options.js';
export { OPENAI_MODEL_PATTERN, type RegisterOpenAIOptions, registerOpenAI } from './register.js';
export { toStrictSchema } from './schema.js';
