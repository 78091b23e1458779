import type { FinishReason, LlmResponse, Part, UsageMetadata } from '@adk/core';
import { tryParseJson } from '@adk/core';
import { JSON_TOOL_NAME, REDACTED_THINKING_PREFIX } from './convert-request.js';
import {
  type ClaudeContentBlock,
  type ClaudeMessage,
  type ClaudeStreamEvent,
  type ClaudeUsage,
  SERVER_TOOL_RESULT_TYPES,
} from './wire.js';

/** Claude `stop_reason` → our finish reason. */
export const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'STOP',
  stop_sequence: 'STOP',
  tool_use: 'STOP',
  pause_turn: 'STOP',
  max_tokens: 'MAX_TOKENS',
  model_context_window_exceeded: 'MAX_TOKENS',
  refusal: 'REFUSAL',
};

interface BlockState {
  type: string;
  text: string;
  signature?: string;
  id?: string;
  name?: string;
  input?: unknown;
  json: string;
  /** The verbatim content of a server tool result block. */
  content?: unknown;
}

/** Folds a Claude message, or the events of a streamed one, into one aggregated LlmResponse. */
export class ClaudeAccumulator {
  private readonly blocks = new Map<number, BlockState>();
  private stopReason: string | undefined;
  private usage: ClaudeUsage = {};
  private model: string | undefined;
  private id: string | undefined;
  stopped = false;

  constructor(private readonly jsonMode: boolean) {}

  addMessage(message: ClaudeMessage): void {
    this.id = message.id;
    this.model = message.model;
    this.stopReason = message.stop_reason ?? undefined;
    if (message.usage) this.usage = message.usage;
    message.content.forEach((block, index) => {
      this.blocks.set(index, fromBlock(block, true));
    });
    this.stopped = true;
  }

  /** Adds a stream event; returns the text/thought delta it carried, if any. */
  addEvent(event: ClaudeStreamEvent): Part | undefined {
    switch (event.type) {
      case 'message_start':
        this.id = event.message.id;
        this.model = event.message.model;
        if (event.message.usage) this.usage = { ...event.message.usage };
        return undefined;
      case 'content_block_start':
        this.blocks.set(event.index, fromBlock(event.content_block, false));
        return undefined;
      case 'content_block_delta': {
        const block = this.blocks.get(event.index);
        if (!block) return undefined;
        const delta = event.delta;
        if (delta.type === 'text_delta') {
          block.text += delta.text;
          return delta.text && !this.isJsonTool(block) ? { text: delta.text } : undefined;
        }
        if (delta.type === 'thinking_delta') {
          block.text += delta.thinking;
          return delta.thinking ? { text: delta.thinking, thought: true } : undefined;
        }
        if (delta.type === 'signature_delta') block.signature = (block.signature ?? '') + delta.signature;
        if (delta.type === 'input_json_delta') block.json += delta.partial_json;
        return undefined;
      }
      case 'message_delta':
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        if (event.usage) {
          for (const [key, value] of Object.entries(event.usage)) {
            if (typeof value === 'number') (this.usage as Record<string, unknown>)[key] = value;
          }
        }
        return undefined;
      case 'message_stop':
        this.stopped = true;
        return undefined;
      default:
        return undefined;
    }
  }

  private isJsonTool(block: BlockState): boolean {
    return this.jsonMode && block.type === 'tool_use' && block.name === JSON_TOOL_NAME;
  }

  result(): LlmResponse {
    const parts: Part[] = [];
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const block = this.blocks.get(index) as BlockState;
      const part = this.toPart(block);
      if (part) parts.push(part);
    }
    const response: LlmResponse = { turnComplete: true };
    if (parts.length > 0) response.content = { role: 'model', parts };
    if (this.stopReason) {
      response.finishReason = FINISH_REASONS[this.stopReason] ?? 'OTHER';
      if (this.stopReason === 'refusal') {
        response.errorCode = 'REFUSAL';
        response.errorMessage = 'Claude declined to answer (stop_reason: refusal).';
      }
    }
    const usage = usageOf(this.usage);
    if (usage) response.usageMetadata = usage;
    if (this.model) response.modelVersion = this.model;
    response.customMetadata = {
      ...(this.id ? { messageId: this.id } : {}),
      ...(this.stopReason ? { stopReason: this.stopReason } : {}),
    };
    return response;
  }

  private toPart(block: BlockState): Part | undefined {
    switch (block.type) {
      case 'text':
        return block.text ? { text: block.text } : undefined;
      case 'thinking':
        return {
          text: block.text,
          thought: true,
          ...(block.signature ? { thoughtSignature: block.signature } : {}),
        };
      case 'redacted_thinking':
        return { text: '', thought: true, thoughtSignature: `${REDACTED_THINKING_PREFIX}${block.text}` };
      case 'server_tool_use': {
        const parsed = block.json.trim() ? tryParseJson(block.json) : block.input;
        const input = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
        return {
          serverToolUse: {
            id: block.id ?? '',
            name: block.name ?? '',
            input: input as Record<string, unknown>,
          },
        };
      }
      case 'tool_use': {
        const raw = block.json.trim();
        let args: unknown = block.input ?? {};
        let invalid: string | undefined;
        if (raw !== '') {
          args = tryParseJson(raw);
          if (args === undefined) invalid = block.json;
        }
        if (invalid === undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
          invalid = raw || JSON.stringify(args);
        }
        if (this.isJsonTool(block) && invalid === undefined) return { text: JSON.stringify(args) };
        return {
          functionCall: {
            id: block.id ?? '',
            name: block.name ?? '',
            args: invalid === undefined ? (args as Record<string, unknown>) : {},
            ...(invalid !== undefined ? { invalidArgs: invalid } : {}),
          },
        };
      }
      default:
        if ((SERVER_TOOL_RESULT_TYPES as readonly string[]).includes(block.type) && block.id)
          return { serverToolResult: { toolUseId: block.id, type: block.type, content: block.content } };
        return undefined;
    }
  }
}

function fromBlock(block: ClaudeContentBlock, complete: boolean): BlockState {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, json: '' };
    case 'thinking':
      return {
        type: 'thinking',
        text: block.thinking,
        json: '',
        ...(block.signature ? { signature: block.signature } : {}),
      };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', text: block.data, json: '' };
    case 'server_tool_use':
    case 'tool_use':
      // When streaming, `input` at block start is {} and the real input arrives as JSON deltas.
      return {
        type: block.type,
        text: '',
        id: block.id,
        name: block.name,
        json: '',
        ...(complete || isNonEmpty(block.input) ? { input: block.input } : {}),
      };
    default:
      // A server tool's result: kept verbatim.
      return { type: block.type, text: '', json: '', id: block.tool_use_id, content: block.content };
  }
}

function isNonEmpty(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}

function usageOf(u: ClaudeUsage): UsageMetadata | undefined {
  if (u.input_tokens == null && u.output_tokens == null) return undefined;
  const cacheRead = u.cache_read_input_tokens ?? 0;
  const prompt = (u.input_tokens ?? 0) + cacheRead + (u.cache_creation_input_tokens ?? 0);
  const output = u.output_tokens ?? 0;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: output,
    totalTokenCount: prompt + output,
    ...(cacheRead > 0 ? { cachedContentTokenCount: cacheRead } : {}),
  };
}
