export { geminiCapabilities, geminiVersion } from './capabilities.js';
export type { GeminiContextCacheOptions } from './context-cache.js';
export { GeminiEmbedder, type GeminiEmbedderOptions } from './embedder.js';
export { Gemini, type GeminiOptions, type VertexAiOptions } from './gemini.js';
export {
  GeminiInteractions,
  type GeminiInteractionsOptions,
  INTERACTIONS_API_REVISION,
} from './gemini-interactions.js';
export { INTERACTIONS_BUILT_IN_TOOLS } from './interactions/convert-request.js';
export type { LiveApiVersion } from './live/endpoint.js';
export { LiveProtocolError } from './live/errors.js';
export type { GeminiProviderOptions } from './provider-options.js';
export { GEMINI_MODEL_PATTERN, type RegisterGeminiOptions, registerGemini } from './register.js';
export { toGeminiParameters, toGeminiSchema } from './schema.js';
