export { geminiCapabilities, geminiVersion } from './capabilities.js';
export type { GeminiContextCacheOptions } from './context-cache.js';
export { Gemini, type GeminiOptions, type VertexAiOptions } from './gemini.js';
export type { LiveApiVersion } from './live/endpoint.js';
export { LiveProtocolError } from './live/errors.js';
export type { GeminiProviderOptions } from './provider-options.js';
export { GEMINI_MODEL_PATTERN, registerGemini } from './register.js';
export { toGeminiParameters, toGeminiSchema } from './schema.js';
