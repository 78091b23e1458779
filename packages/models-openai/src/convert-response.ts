import {
  type FinishReason,
  type LlmResponse,
  newFunctionCallId,
  type Part,
  tryParseJson,
  type UsageMetadata,
} from '@adk/core';
import type { OpenAIChunk, OpenAICompletion, OpenAIUsage } from './wire.js';

/** Chat Completions `finish_reason` → our finish reason. */
export const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  function_call: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
};

interface CallState {
  id: string;
  name: string;
  arguments: string;
}

/** Folds a completion, or the chunks of a streamed one, into one aggregated LlmResponse. */
export class OpenAIAccumulator {
  private reasoning = '';
  private text = '';
  private refusal = '';
  private readonly calls: CallState[] = [];
  private readonly callsByIndex = new Map<number, CallState>();
  private finishReason: string | undefined;
  private usage: OpenAIUsage | undefined;
  private model: string | undefined;
  private id: string | undefined;

  get finished(): boolean {
    return this.finishReason !== undefined;
  }

  addCompletion(completion: OpenAICompletion): void {
    this.model = completion.model;
    this.id = completion.id;
    if (completion.usage) this.usage = completion.usage;
    const choice = completion.choices[0];
    if (!choice) return;
    const m = choice.message;
    this.reasoning = m.reasoning_content ?? m.reasoning ?? '';
    this.text = m.content ?? '';
    this.refusal = m.refusal ?? '';
    for (const call of m.tool_calls ?? [])
      this.calls.push({
        id: call.id ?? newFunctionCallId(),
        name: call.function?.name ?? '',
        arguments: call.function?.arguments ?? '',
      });
    this.finishReason = choice.finish_reason ?? 'stop';
  }

  /** Adds a stream chunk; returns its text/thought deltas. */
  addChunk(chunk: OpenAIChunk): Part[] {
    if (chunk.model) this.model = chunk.model;
    if (chunk.id) this.id = chunk.id;
    if (chunk.usage) this.usage = chunk.usage;
    const deltas: Part[] = [];
    const choice = chunk.choices?.[0];
    if (!choice) return deltas;
    const d = choice.delta;
    if (d) {
      const reasoning = d.reasoning_content ?? d.reasoning;
      if (reasoning) {
        this.reasoning += reasoning;
        deltas.push({ text: reasoning, thought: true });
      }
      if (d.content) {
        this.text += d.content;
        deltas.push({ text: d.content });
      }
      if (d.refusal) this.refusal += d.refusal;
      (d.tool_calls ?? []).forEach((delta, position) => {
        const index = delta.index ?? position;
        let call = this.callsByIndex.get(index);
        // A new id at a known index means a server that does not send indexes: start a new call.
        if (call && delta.id && call.id !== delta.id && call.arguments !== '') call = undefined;
        if (!call) {
          call = { id: delta.id ?? newFunctionCallId(), name: '', arguments: '' };
          this.callsByIndex.set(index, call);
          this.calls.push(call);
        }
        if (delta.function?.name) call.name += delta.function.name;
        if (delta.function?.arguments) call.arguments += delta.function.arguments;
      });
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return deltas;
  }

  result(): LlmResponse {
    const parts: Part[] = [];
    if (this.reasoning) parts.push({ text: this.reasoning, thought: true });
    if (this.text) parts.push({ text: this.text });
    for (const call of this.calls) {
      const raw = call.arguments.trim();
      const parsed = raw === '' ? {} : tryParseJson(raw);
      const valid = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      parts.push({
        functionCall: {
          id: call.id,
          name: call.name,
          args: valid ? (parsed as Record<string, unknown>) : {},
          ...(valid ? {} : { invalidArgs: call.arguments }),
        },
      });
    }
    const response: LlmResponse = { turnComplete: true };
    if (parts.length > 0) response.content = { role: 'model', parts };
    if (this.refusal) {
      response.finishReason = 'REFUSAL';
      response.errorCode = 'REFUSAL';
      response.errorMessage = `The model refused: ${this.refusal}`;
    } else if (this.finishReason) {
      response.finishReason = FINISH_REASONS[this.finishReason] ?? 'OTHER';
      if (this.finishReason === 'content_filter') {
        response.errorCode = 'SAFETY';
        response.errorMessage =
          'The response was withheld by the content filter (finish_reason: content_filter).';
      }
    }
    const usage = this.usage ? usageOf(this.usage) : undefined;
    if (usage) response.usageMetadata = usage;
    if (this.model) response.modelVersion = this.model;
    response.customMetadata = {
      ...(this.id ? { completionId: this.id } : {}),
      ...(this.finishReason ? { finishReason: this.finishReason } : {}),
    };
    return response;
  }
}

function usageOf(u: OpenAIUsage): UsageMetadata {
  const usage: UsageMetadata = {};
  if (u.prompt_tokens != null) usage.promptTokenCount = u.prompt_tokens;
  if (u.completion_tokens != null) usage.candidatesTokenCount = u.completion_tokens;
  if (u.total_tokens != null) usage.totalTokenCount = u.total_tokens;
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (cached != null) usage.cachedContentTokenCount = cached;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (reasoning != null) usage.thoughtsTokenCount = reasoning;
  return usage;
}
