import type { FinishReason, LlmResponse, Part, UsageMetadata } from '@adk/core';
import { tryParseJson } from '@adk/core';
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import { isRecord, metadataSignature } from './convert-request.js';

/** AI SDK `finishReason.unified` → ours. */
export const FINISH_REASONS: Record<LanguageModelV4FinishReason['unified'], FinishReason> = {
  stop: 'STOP',
  'tool-calls': 'STOP',
  length: 'MAX_TOKENS',
  'content-filter': 'SAFETY',
  error: 'OTHER',
  interrupted: 'OTHER',
  other: 'OTHER',
};

type Block =
  | { kind: 'text' | 'reasoning'; text: string; metadata?: SharedV4ProviderMetadata }
  | {
      kind: 'call';
      id: string;
      name: string;
      input: string;
      metadata?: SharedV4ProviderMetadata;
      executed?: boolean;
    }
  | { kind: 'part'; part: Part };

/** Folds AI SDK content (generate) or stream parts into one aggregated LlmResponse. */
export class AiSdkAccumulator {
  private readonly blocks: Block[] = [];
  private readonly open = new Map<string, Block>();
  private usage: LanguageModelV4Usage | undefined;
  private finishReason: LanguageModelV4FinishReason | undefined;
  private modelId: string | undefined;
  private responseId: string | undefined;
  private error: unknown;
  finished = false;

  addContent(
    content: LanguageModelV4Content[],
    usage: LanguageModelV4Usage,
    finish: LanguageModelV4FinishReason,
  ): void {
    for (const c of content) {
      switch (c.type) {
        case 'text':
          this.blocks.push({
            kind: 'text',
            text: c.text,
            ...(c.providerMetadata ? { metadata: c.providerMetadata } : {}),
          });
          break;
        case 'reasoning':
          this.blocks.push({
            kind: 'reasoning',
            text: c.text,
            ...(c.providerMetadata ? { metadata: c.providerMetadata } : {}),
          });
          break;
        case 'tool-call':
          this.blocks.push(callBlock(c));
          break;
        default:
          this.addOther(c);
      }
    }
    this.usage = usage;
    this.finishReason = finish;
    this.finished = true;
  }

  /** Adds a stream part; returns the text or thought delta it carried, if any. */
  addPart(part: LanguageModelV4StreamPart): Part | undefined {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const block: Block = {
          kind: part.type === 'text-start' ? 'text' : 'reasoning',
          text: '',
          ...(part.providerMetadata ? { metadata: part.providerMetadata } : {}),
        };
        this.open.set(`${block.kind}:${part.id}`, block);
        this.blocks.push(block);
        return undefined;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        const block = this.open.get(`${kind}:${part.id}`);
        if (!block || block.kind === 'call' || block.kind === 'part' || part.delta === '') return undefined;
        block.text += part.delta;
        if (part.providerMetadata) block.metadata = { ...block.metadata, ...part.providerMetadata };
        return kind === 'text' ? { text: part.delta } : { text: part.delta, thought: true };
      }
      case 'text-end':
      case 'reasoning-end': {
        const kind = part.type === 'text-end' ? 'text' : 'reasoning';
        const block = this.open.get(`${kind}:${part.id}`);
        if (block && block.kind !== 'call' && block.kind !== 'part' && part.providerMetadata)
          block.metadata = { ...block.metadata, ...part.providerMetadata };
        this.open.delete(`${kind}:${part.id}`);
        return undefined;
      }
      case 'tool-input-start': {
        const block: Block = {
          kind: 'call',
          id: part.id,
          name: part.toolName,
          input: '',
          ...(part.providerExecuted ? { executed: true } : {}),
        };
        this.open.set(`call:${part.id}`, block);
        this.blocks.push(block);
        return undefined;
      }
      case 'tool-input-delta': {
        const block = this.open.get(`call:${part.id}`);
        if (block?.kind === 'call') block.input += part.delta;
        return undefined;
      }
      case 'tool-input-end':
        return undefined;
      case 'tool-call': {
        // The complete call: its input (a JSON string) is authoritative over the streamed deltas.
        const block = this.open.get(`call:${part.toolCallId}`);
        const done = callBlock(part);
        if (block?.kind === 'call') Object.assign(block, done);
        else this.blocks.push(done);
        this.open.delete(`call:${part.toolCallId}`);
        return undefined;
      }
      case 'response-metadata':
        if (part.modelId) this.modelId = part.modelId;
        if (part.id) this.responseId = part.id;
        return undefined;
      case 'finish':
        this.usage = part.usage;
        this.finishReason = part.finishReason;
        this.finished = true;
        return undefined;
      case 'error':
        this.error = part.error;
        this.finished = true;
        return undefined;
      case 'stream-start':
      case 'ping':
      case 'raw':
        return undefined;
      default:
        this.addOther(part);
        return undefined;
    }
  }

  private addOther(part: LanguageModelV4Content | LanguageModelV4StreamPart): void {
    if (part.type === 'tool-result') {
      this.blocks.push({
        kind: 'part',
        part: {
          serverToolResult: {
            toolUseId: part.toolCallId,
            type: `${part.toolName}_result`,
            content: part.result,
          },
        },
      });
    } else if (part.type === 'file' && part.data.type === 'data') {
      const data = part.data.data;
      this.blocks.push({
        kind: 'part',
        part: {
          inlineData: {
            mimeType: part.mediaType,
            data: typeof data === 'string' ? data : Buffer.from(data).toString('base64'),
          },
        },
      });
    }
  }

  result(): LlmResponse {
    const parts: Part[] = [];
    for (const block of this.blocks) {
      if (block.kind === 'part') {
        parts.push(block.part);
        continue;
      }
      const signature = metadataSignature(block.metadata);
      const sig = signature ? { thoughtSignature: signature } : {};
      if (block.kind !== 'call') {
        if (block.kind === 'reasoning') parts.push({ text: block.text, thought: true, ...sig });
        else if (block.text !== '' || signature) parts.push({ text: block.text, ...sig });
      } else if (block.executed) {
        const parsed = tryParseJson(block.input);
        parts.push({
          serverToolUse: { id: block.id, name: block.name, input: isRecord(parsed) ? parsed : {} },
        });
      } else {
        // Arguments that are not a JSON object go to invalidArgs (never `{}` in their place).
        const parsed = block.input.trim() === '' ? {} : tryParseJson(block.input);
        const valid = isRecord(parsed);
        parts.push({
          functionCall: {
            id: block.id,
            name: block.name,
            args: valid ? parsed : {},
            ...(valid ? {} : { invalidArgs: block.input }),
          },
          ...sig,
        });
      }
    }
    const response: LlmResponse = { turnComplete: true };
    if (parts.length > 0) response.content = { role: 'model', parts };
    if (this.error !== undefined) {
      response.errorCode = 'MODEL_ERROR';
      response.errorMessage = `The model's stream failed: ${describe(this.error)}`;
    } else if (this.finishReason) {
      response.finishReason = FINISH_REASONS[this.finishReason.unified] ?? 'OTHER';
      if (this.finishReason.unified === 'content-filter') {
        response.errorCode = 'SAFETY';
        response.errorMessage = 'The response was withheld by the content filter.';
      } else if (this.finishReason.unified === 'error') {
        response.errorCode = 'MODEL_ERROR';
        response.errorMessage = `The model stopped with an error (${this.finishReason.raw ?? 'no reason given'}).`;
      }
    }
    const usage = this.usage ? usageOf(this.usage) : undefined;
    if (usage) response.usageMetadata = usage;
    if (this.modelId) response.modelVersion = this.modelId;
    response.customMetadata = {
      ...(this.responseId ? { responseId: this.responseId } : {}),
      ...(this.finishReason?.raw ? { finishReason: this.finishReason.raw } : {}),
    };
    return response;
  }
}

function callBlock(c: {
  toolCallId: string;
  toolName: string;
  input: string;
  providerExecuted?: boolean;
  providerMetadata?: SharedV4ProviderMetadata;
}): Block {
  return {
    kind: 'call',
    id: c.toolCallId,
    name: c.toolName,
    input: c.input,
    ...(c.providerMetadata ? { metadata: c.providerMetadata } : {}),
    ...(c.providerExecuted ? { executed: true } : {}),
  };
}

/** The nested AI SDK token counts → ours (prompt includes cache reads and writes, as AI SDK's total). */
export function usageOf(u: LanguageModelV4Usage): UsageMetadata | undefined {
  const usage: UsageMetadata = {};
  const input = u.inputTokens.total;
  const output = u.outputTokens.total;
  if (input !== undefined) usage.promptTokenCount = input;
  if (output !== undefined) usage.candidatesTokenCount = output;
  if (input !== undefined || output !== undefined) usage.totalTokenCount = (input ?? 0) + (output ?? 0);
  if (u.inputTokens.cacheRead !== undefined) usage.cachedContentTokenCount = u.inputTokens.cacheRead;
  if (u.outputTokens.reasoning !== undefined) usage.thoughtsTokenCount = u.outputTokens.reasoning;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
