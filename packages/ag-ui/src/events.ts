import type { Interrupt, Message, TokenUsage } from '@ag-ui/core';

/** An RFC 6902 operation, as STATE_DELTA carries them. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/**
 * The AG-UI events ADK sends (the `@ag-ui/core` shapes, with the `type` as its string value so
 * that no runtime import of the enum is needed). Optional fields are left out, never `null`.
 */
export type AgUiEvent =
  | { type: 'RUN_STARTED'; threadId: string; runId: string; protocolVersion?: string }
  | {
      type: 'RUN_FINISHED';
      threadId: string;
      runId: string;
      outcome?:
        | { type: 'success'; pendingToolCallIds?: string[] }
        | { type: 'interrupt'; interrupts: Interrupt[] }
        | { type: 'cancelled' };
      usage?: TokenUsage[];
    }
  | { type: 'RUN_ERROR'; message: string; code?: string }
  | { type: 'STEP_STARTED'; stepName: string }
  | { type: 'STEP_FINISHED'; stepName: string }
  | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant'; name?: string }
  | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'TEXT_MESSAGE_END'; messageId: string }
  | { type: 'REASONING_START'; messageId: string }
  | { type: 'REASONING_MESSAGE_START'; messageId: string; role: 'reasoning' }
  | { type: 'REASONING_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'REASONING_MESSAGE_END'; messageId: string }
  | { type: 'REASONING_END'; messageId: string }
  | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string; parentMessageId?: string }
  | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
  | { type: 'TOOL_CALL_END'; toolCallId: string }
  | { type: 'TOOL_CALL_RESULT'; messageId: string; toolCallId: string; content: string; role: 'tool' }
  | { type: 'STATE_SNAPSHOT'; snapshot: Record<string, unknown> }
  | { type: 'STATE_DELTA'; delta: JsonPatchOperation[] }
  | { type: 'MESSAGES_SNAPSHOT'; messages: Message[] }
  | { type: 'CUSTOM'; name: string; value: unknown };

export type AgUiEventType = AgUiEvent['type'];
