import type { CompressionInput, CompressionResult, ContextCompressor, Event } from '@adk/core';
import { type ClaudeContextEditing, toContextManagement } from './convert-request.js';

/** One edit Claude reports having applied to a request (`context_management.applied_edits[]`). */
export interface ClaudeAppliedEdit {
  type: string;
  /** `clear_tool_uses_*`: tool results (and inputs, when asked) replaced by a placeholder. */
  cleared_tool_uses?: number;
  /** `clear_thinking_*`: earlier assistant turns whose thinking blocks were dropped. */
  cleared_thinking_turns?: number;
  cleared_input_tokens?: number;
  [field: string]: unknown;
}

/** What Claude cleared on its side in one response, as recorded on that response's event. */
export interface ClaudeContextEditRecord {
  /** The id of the event (the model response) that carries the record. */
  eventId: string;
  invocationId: string;
  edits: ClaudeAppliedEdit[];
}

export interface ClaudeContextEditingOptions extends ClaudeContextEditing {}

/**
 * Claude's context editing as a {@link ContextCompressor}. The history is sent whole: Claude clears
 * old tool results (`clear_tool_uses_20250919`) and earlier thinking (`clear_thinking_20251015`)
 * on its side, on every request that passes the trigger, and the compressor only asks for that
 * (`providerOptions.anthropic.context_management`, which `Claude` sends with the
 * `context-management-2025-06-27` beta header). The edits Claude applied come back on each model
 * response's event as `customMetadata.contextManagement`; {@link claudeContextEdits} reads them
 * from a session. Other providers ignore the `anthropic` namespace, so the compressor is harmless
 * in a chain shared with non-Claude models.
 */
export function claudeContextEditing(
  options: ClaudeContextEditingOptions = { clearToolUses: true },
): ContextCompressor {
  const contextManagement = toContextManagement(options);
  return {
    name: 'claude_context_editing',
    compress({ contents }: CompressionInput): CompressionResult {
      return { contents, providerOptions: { anthropic: { context_management: contextManagement } } };
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The context edits Claude reported in a session's events, oldest first. */
export function claudeContextEdits(events: readonly Event[]): ClaudeContextEditRecord[] {
  const out: ClaudeContextEditRecord[] = [];
  for (const event of events) {
    if (event.partial) continue;
    const record = event.customMetadata?.contextManagement;
    if (!isRecord(record) || !Array.isArray(record.applied_edits)) continue;
    const edits = record.applied_edits.filter(
      (e): e is ClaudeAppliedEdit => isRecord(e) && typeof e.type === 'string',
    );
    if (edits.length > 0) out.push({ eventId: event.id, invocationId: event.invocationId, edits });
  }
  return out;
}
