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
  /** Claude citations of a text block (from the block, or streamed as citations_delta). */
  citations?: Record<string, unknown>[];
}

/** One citation in `citationMetadata.citations`, with Gemini's offsets into the response text. */
export interface ClaudeCitation {
  startIndex: number;
  endIndex: number;
  /** Document title or web page title. */
  title?: string;
  /** The web page, for web search results. */
  uri?: string;
  /** The cited passage. */
  citedText?: string;
  /** Claude's citation object as sent (char/page/block location, document index). */
  source: Record<string, unknown>;
}

/** Folds a Claude message, or the events of a streamed one, into one aggregated LlmResponse. */
export class ClaudeAccumulator {
  private readonly blocks = new Map<number, BlockState>();
  private stopReason: string | undefined;
  private usage: ClaudeUsage = {};
  private model: string | undefined;
  private id: string | undefined;
  private contextManagement: unknown;
  stopped = false;

  constructor(private readonly jsonMode: boolean) {}

  addMessage(message: ClaudeMessage): void {
    this.id = message.id;
    this.model = message.model;
    this.stopReason = message.stop_reason ?? undefined;
    if (message.usage) this.usage = message.usage;
    if (message.context_management) this.contextManagement = message.context_management;
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
        if (delta.type === 'citations_delta' && isRecord(delta.citation))
          block.citations = [...(block.citations ?? []), delta.citation];
        return undefined;
      }
      case 'message_delta':
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        if (event.context_management) this.contextManagement = event.context_management;
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
    const citations: ClaudeCitation[] = [];
    let offset = 0;
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const block = this.blocks.get(index) as BlockState;
      const part = this.toPart(block);
      if (part) parts.push(part);
      if (block.type !== 'text') continue;
      for (const citation of block.citations ?? [])
        citations.push(toCitation(citation, offset, offset + block.text.length));
      offset += block.text.length;
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
    if (citations.length > 0) response.citationMetadata = { citations };
    response.customMetadata = {
      ...(this.contextManagement ? { contextManagement: this.contextManagement } : {}),
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

function toCitation(citation: Record<string, unknown>, startIndex: number, endIndex: number): ClaudeCitation {
  const title = citation.document_title ?? citation.title;
  return {
    startIndex,
    endIndex,
    ...(typeof title === 'string' ? { title } : {}),
    ...(typeof citation.url === 'string' ? { uri: citation.url } : {}),
    ...(typeof citation.cited_text === 'string' ? { citedText: citation.cited_text } : {}),
    source: citation,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fromBlock(block: ClaudeContentBlock, complete: boolean): BlockState {
  switch (block.type) {
    case 'text':
      return {
        type: 'text',
        text: block.text,
        json: '',
        ...(Array.isArray(block.citations) ? { citations: block.citations.filter(isRecord) } : {}),
      };
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
