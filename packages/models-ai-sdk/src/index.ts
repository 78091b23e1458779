export { AiSdkModel, type AiSdkModelOptions, aiSdkModel } from './ai-sdk-model.js';
export { METADATA_SIGNATURE_PREFIX } from './convert-request.js';
export { FINISH_REASONS } from './convert-response.js';
export { AiSdkEmbedder, type AiSdkEmbedderOptions, aiSdkEmbedder } from './embedder.js';
export { type AiSdkLanguageModelFactory, type RegisterAiSdkOptions, registerAiSdk } from './register.js';
