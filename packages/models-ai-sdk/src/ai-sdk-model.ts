import {
  CancelledError,
  type GenerateOptions,
  type Llm,
  type LlmRequest,
  type LlmResponse,
  type ModelCapabilities,
} from '@adk/core';
import { ApiCallError, extractErrorMessage, RateLimitError } from '@adk/core/http';
import { APICallError, type LanguageModelV4 } from '@ai-sdk/provider';
import { toCallOptions } from './convert-request.js';
import { AiSdkAccumulator } from './convert-response.js';

export interface AiSdkModelOptions {
  /** The name the model goes by in ADK (events, traces). Default: `<provider>/<modelId>`. */
  name?: string;
  /**
   * What the model can do; the adapter cannot know, so it declares the safe defaults unless told
   * (e.g. `{ responseSchemaWithTools: true, thinking: 'effort' }` for a model you know).
   */
  capabilities?: ModelCapabilities;
}

/**
 * Any AI SDK language model (specification v4, AI SDK 7) as an ADK model: `aiSdkModel(mistral('mistral-large-latest'))`.
 * Streaming text, reasoning and tool calls, usage and finish reasons are mapped; provider metadata
 * on the model's parts comes back as provider options on the next request, so reasoning
 * signatures and item ids survive multi-turn through the adapter.
 */
export class AiSdkModel implements Llm {
  readonly model: string;
  readonly capabilities: ModelCapabilities | undefined;

  constructor(
    readonly languageModel: LanguageModelV4,
    options: AiSdkModelOptions = {},
  ) {
    this.model = options.name ?? `${languageModel.provider}/${languageModel.modelId}`;
    this.capabilities = options.capabilities;
  }

  async *generate(request: LlmRequest, options: GenerateOptions = {}): AsyncGenerator<LlmResponse> {
    const call = toCallOptions(request, options.signal);
    const accumulator = new AiSdkAccumulator();
    try {
      if (options.stream !== true) {
        const result = await this.languageModel.doGenerate(call);
        accumulator.addContent(result.content, result.usage, result.finishReason);
        yield accumulator.result();
        return;
      }
      const { stream } = await this.languageModel.doStream(call);
      const reader = stream.getReader();
      let ended = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            ended = true;
            break;
          }
          const delta = accumulator.addPart(value);
          if (delta) yield { content: { role: 'model', parts: [delta] }, partial: true };
        }
      } finally {
        // A consumer that stops early (or a failure) cancels the provider's stream, closing its
        // HTTP response, instead of leaving it open until it drains.
        if (!ended) await reader.cancel().catch(() => undefined);
        reader.releaseLock();
      }
    } catch (error) {
      throw toAdkError(error, options.signal);
    }
    if (!accumulator.finished) {
      throw new ApiCallError(`${this.model}: the stream ended before its finish part`, {
        url: this.languageModel.provider,
        failure: 'network',
      });
    }
    yield accumulator.result();
  }
}

/** Wraps an AI SDK language model as an ADK model (see {@link AiSdkModel}). */
export function aiSdkModel(model: LanguageModelV4, options?: AiSdkModelOptions): AiSdkModel {
  return new AiSdkModel(model, options);
}

/** AI SDK errors as ours: API call failures keep status, message and retryability; aborts cancel. */
export function toAdkError(error: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError'))
    return new CancelledError('The model call was cancelled', { cause: error });
  if (APICallError.isInstance(error)) {
    const vendorMessage =
      (error.responseBody ? extractErrorMessage(safeJson(error.responseBody)) : undefined) ?? error.message;
    const options = {
      url: error.url,
      ...(error.statusCode !== undefined ? { status: error.statusCode } : {}),
      vendorMessage,
      ...(error.responseHeaders ? { responseHeaders: error.responseHeaders } : {}),
      ...(error.responseBody ? { responseBody: error.responseBody } : {}),
      cause: error,
    };
    if (error.statusCode === 429) return new RateLimitError(`Rate limited: ${vendorMessage}`, options);
    return new ApiCallError(
      `Model API call failed${error.statusCode ? ` (HTTP ${error.statusCode})` : ''}: ${vendorMessage}`,
      { ...options, failure: error.statusCode ? 'http' : 'network', isRetryable: error.isRetryable },
    );
  }
  return error;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
