/**
 * The chunks of the AI SDK's UI message stream (v1) that ADK sends, typed structurally so that
 * this package needs no runtime dependency on `ai` (its `UIMessageChunk` accepts every one of them;
 * the tests validate each chunk with the installed `ai`'s `uiMessageChunkSchema`).
 */
export type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

/** Per-part metadata: `{ adk: { author } }` says which agent wrote a text, a thought or a call. */
export type ProviderMetadata = Record<string, Record<string, JsonValue>>;

export type FinishReason =
  | 'stop'
  | 'length'
  | 'content-filter'
  | 'tool-calls'
  | 'error'
  | 'interrupted'
  | 'other';

/** What `start`, `message-metadata` and `finish` carry about the assistant message. */
export interface AdkMessageMetadata {
  /** The agent that spoke last (multi-agent apps: changes as agents take turns). */
  author?: string;
  /** Every agent that spoke in this message, in order of first appearance. */
  authors?: string[];
  /** The invocation the message belongs to (the first one, when answers continue it). */
  invocationId?: string;
  /** Token counts summed over the message's model calls. */
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; reasoningTokens?: number };
  [key: string]: JsonValue | undefined;
}

export type UIMessageChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: AdkMessageMetadata }
  | { type: 'finish'; finishReason?: FinishReason; messageMetadata?: AdkMessageMetadata }
  | { type: 'message-metadata'; messageMetadata: AdkMessageMetadata }
  | { type: 'abort'; reason?: string }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string; providerMetadata?: ProviderMetadata }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | {
      type: 'tool-input-available';
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerMetadata?: ProviderMetadata;
      title?: string;
    }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string; reason?: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'file'; url: string; mediaType: string }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean }
  | { type: 'error'; errorText: string };

/** The header that tells `useChat` the response is a UI message stream. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
});
