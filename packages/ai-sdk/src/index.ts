export { ActiveStream, ActiveStreams } from './active-streams.js';
export {
  type ChatHandler,
  type ChatHandlerOptions,
  type ChatRequestOptions,
  createChatHandler,
} from './chat-handler.js';
export {
  type AdkMessageMetadata,
  type FinishReason,
  type JsonValue,
  type ProviderMetadata,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageChunk,
} from './chunks.js';
export { applyChunk, toUIMessages, type UIMessage, type UIMessagePart, type UIToolPart } from './messages.js';
export {
  answersOf,
  type ChatRequestBody,
  ChatRequestError,
  type ChatRequestMessage,
  openQuestions,
  parseChatBody,
  userMessageContent,
} from './request.js';
export { toUIMessageStream, type UIMessageStreamOptions, UIMessageStreamTranslator } from './translate.js';
