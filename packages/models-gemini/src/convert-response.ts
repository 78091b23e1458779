import {
  type FinishReason,
  type LlmResponse,
  type ModelErrorCode,
  newFunctionCallId,
  type Part,
  type UsageMetadata,
} from '@adk/core';
import { StreamedCall } from './streamed-call.js';
import type { GeminiPart, GeminiResponse } from './wire.js';

/** Finish reasons that mean the answer was withheld or unusable; they become errorCode/errorMessage. */
const BLOCKING = new Set([
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
  'OTHER',
]);

/**
 * Folds one response (or the chunks of a stream) into one aggregated LlmResponse. Consecutive text
 * chunks are joined; a `thoughtSignature` stays on the part it arrived with.
 */
export class GeminiAccumulator {
  private readonly parts: Part[] = [];
  private finishReason: string | undefined;
  private finishMessage: string | undefined;
  private safetyRatings: unknown[] | undefined;
  private blockReason: string | undefined;
  private blockReasonMessage: string | undefined;
  private usage: UsageMetadata | undefined;
  private modelVersion: string | undefined;
  private groundingMetadata: unknown;
  private citationMetadata: unknown;
  private responseId: string | undefined;
  private urlContextMetadata: unknown;
  /** A function call whose arguments are still arriving (Gemini 3 `streamFunctionCallArguments`). */
  private streamedCall: StreamedCall | undefined;

  get finished(): boolean {
    return this.finishReason !== undefined || this.blockReason !== undefined;
  }

  /** Adds a response or chunk; returns its text and thought parts (for a partial event). */
  add(response: GeminiResponse): Part[] {
    const deltas: Part[] = [];
    if (response.usageMetadata) this.usage = usageOf(response.usageMetadata);
    if (response.modelVersion) this.modelVersion = response.modelVersion;
    if (response.responseId) this.responseId = response.responseId;
    if (response.promptFeedback?.blockReason) {
      this.blockReason = response.promptFeedback.blockReason;
      this.blockReasonMessage = response.promptFeedback.blockReasonMessage;
      this.safetyRatings = response.promptFeedback.safetyRatings;
    }
    const candidate = response.candidates?.[0];
    if (!candidate) return deltas;
    if (candidate.finishReason && candidate.finishReason !== 'FINISH_REASON_UNSPECIFIED')
      this.finishReason = candidate.finishReason;
    if (candidate.finishMessage) this.finishMessage = candidate.finishMessage;
    if (candidate.safetyRatings) this.safetyRatings = candidate.safetyRatings;
    if (candidate.groundingMetadata !== undefined) this.groundingMetadata = candidate.groundingMetadata;
    if (candidate.citationMetadata !== undefined) this.citationMetadata = candidate.citationMetadata;
    if (candidate.urlContextMetadata !== undefined) this.urlContextMetadata = candidate.urlContextMetadata;
    for (const wire of candidate.content?.parts ?? []) {
      const call = wire.functionCall;
      if (call && !this.streamedCall && isEmptyCall(call)) {
        // The `{}` that closes a streamed call, after a call that was already complete (one
        // without arguments, or one whose last piece said no `willContinue`): no call of its own.
        if (wire.thoughtSignature !== undefined)
          this.parts.push({ text: '', thoughtSignature: wire.thoughtSignature });
        continue;
      }
      if (call && (this.streamedCall || call.willContinue || call.partialArgs)) {
        this.streamedCall ??= new StreamedCall();
        this.streamedCall.add(call, wire.thoughtSignature);
        if (!call.willContinue) {
          this.parts.push(this.streamedCall.part(true));
          this.streamedCall = undefined;
        }
        continue;
      }
      const part = fromGeminiPart(wire);
      if (!part) continue;
      if (part.text !== undefined) {
        this.appendText(part);
        if (part.text !== '') deltas.push(part);
      } else this.parts.push(part);
    }
    return deltas;
  }

  private appendText(part: Part): void {
    const last = this.parts.at(-1);
    const sameKind = last?.text !== undefined && Boolean(last.thought) === Boolean(part.thought);
    if (last && sameKind && last.thoughtSignature === undefined) {
      last.text = (last.text ?? '') + (part.text ?? '');
      if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
      return;
    }
    this.parts.push({ ...part });
  }

  result(): LlmResponse {
    if (this.streamedCall) {
      this.parts.push(this.streamedCall.part(false));
      this.streamedCall = undefined;
    }
    const response: LlmResponse = { turnComplete: true };
    const parts = this.parts.filter((p) => p.text !== '' || p.thoughtSignature !== undefined);
    if (parts.length > 0) response.content = { role: 'model', parts };
    if (this.blockReason) {
      response.finishReason = this.blockReason as FinishReason;
      response.errorCode = this.blockReason as ModelErrorCode;
      response.errorMessage = `Gemini blocked the prompt (${this.blockReason})${
        this.blockReasonMessage ? `: ${this.blockReasonMessage}` : ''
      }${describeRatings(this.safetyRatings)}`;
    } else if (this.finishReason) {
      response.finishReason = this.finishReason as FinishReason;
      const hasCalls = parts.some((p) => p.functionCall);
      if (BLOCKING.has(this.finishReason) && !hasCalls) {
        response.errorCode = this.finishReason as ModelErrorCode;
        response.errorMessage = `Gemini stopped the response (${this.finishReason})${
          this.finishMessage ? `: ${this.finishMessage}` : ''
        }${describeRatings(this.safetyRatings)}`;
      }
    }
    if (this.usage) response.usageMetadata = this.usage;
    if (this.modelVersion) response.modelVersion = this.modelVersion;
    if (this.groundingMetadata !== undefined) response.groundingMetadata = this.groundingMetadata;
    if (this.citationMetadata !== undefined) response.citationMetadata = this.citationMetadata;
    if (this.responseId || this.urlContextMetadata !== undefined)
      response.customMetadata = {
        ...(this.responseId ? { responseId: this.responseId } : {}),
        ...(this.urlContextMetadata !== undefined ? { urlContextMetadata: this.urlContextMetadata } : {}),
      };
    return response;
  }
}

/** `functionCall: {}`: how Gemini closes a call whose arguments it streamed. */
function isEmptyCall(call: NonNullable<GeminiPart['functionCall']>): boolean {
  return (
    !call.name &&
    !call.id &&
    !call.willContinue &&
    !call.partialArgs?.length &&
    (call.args === undefined || Object.keys(call.args).length === 0)
  );
}

function fromGeminiPart(wire: GeminiPart): Part | undefined {
  const part: Part = {};
  if (wire.functionCall) {
    part.functionCall = {
      id: wire.functionCall.id ?? newFunctionCallId(),
      name: wire.functionCall.name ?? '',
      args: wire.functionCall.args ?? {},
    };
  } else if (wire.text !== undefined) {
    part.text = wire.text;
    if (wire.thought) part.thought = true;
  } else if (wire.inlineData) {
    part.inlineData = { mimeType: wire.inlineData.mimeType, data: wire.inlineData.data };
  } else if (wire.fileData) {
    part.fileData = {
      mimeType: wire.fileData.mimeType ?? 'application/octet-stream',
      fileUri: wire.fileData.fileUri,
    };
  } else if (wire.executableCode) {
    part.executableCode = { language: wire.executableCode.language, code: wire.executableCode.code };
  } else if (wire.codeExecutionResult) {
    part.codeExecutionResult = {
      outcome: wire.codeExecutionResult.outcome,
      ...(wire.codeExecutionResult.output !== undefined ? { output: wire.codeExecutionResult.output } : {}),
    };
  } else if (wire.thoughtSignature !== undefined) {
    // A signature on its own, sent at the end of a streamed answer.
    part.text = '';
  } else return undefined;
  if (wire.thoughtSignature !== undefined) part.thoughtSignature = wire.thoughtSignature;
  return part;
}

function usageOf(u: NonNullable<GeminiResponse['usageMetadata']>): UsageMetadata {
  const usage: UsageMetadata = {};
  if (u.promptTokenCount !== undefined) usage.promptTokenCount = u.promptTokenCount;
  if (u.candidatesTokenCount !== undefined) usage.candidatesTokenCount = u.candidatesTokenCount;
  if (u.totalTokenCount !== undefined) usage.totalTokenCount = u.totalTokenCount;
  if (u.cachedContentTokenCount !== undefined) usage.cachedContentTokenCount = u.cachedContentTokenCount;
  if (u.thoughtsTokenCount !== undefined) usage.thoughtsTokenCount = u.thoughtsTokenCount;
  if (u.toolUsePromptTokenCount !== undefined) usage.toolUsePromptTokenCount = u.toolUsePromptTokenCount;
  return usage;
}

function describeRatings(ratings: unknown[] | undefined): string {
  const flagged = (ratings ?? [])
    .map((r) => r as { category?: unknown; probability?: unknown; blocked?: unknown })
    .filter((r) => r.blocked === true || r.probability === 'HIGH' || r.probability === 'MEDIUM')
    .map((r) => `${String(r.category)}: ${String(r.probability)}`);
  return flagged.length > 0 ? ` [${flagged.join(', ')}]` : '';
}
