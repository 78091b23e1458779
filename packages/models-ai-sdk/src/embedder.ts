import type { Embedder, EmbedOptions } from '@adk/core';
import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { toAdkError } from './ai-sdk-model.js';

export interface AiSdkEmbedderOptions {
  /** Length of the vectors the model returns (ADK's Embedder declares it up front). */
  dimensions: number;
  /** Ask the model for this many dimensions (models that can shorten their vectors). Default: not sent. */
  requestDimensions?: boolean;
  /** Most texts per call. Default: the model's `maxEmbeddingsPerCall`, else 100. */
  maxBatchSize?: number;
}

/** An AI SDK embedding model (specification v4) as an ADK {@link Embedder}. */
export class AiSdkEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly maxBatchSize: number | undefined;

  constructor(
    private readonly embeddingModel: EmbeddingModelV4,
    private readonly options: AiSdkEmbedderOptions,
  ) {
    this.model = embeddingModel.modelId;
    this.dimensions = options.dimensions;
    this.maxBatchSize = options.maxBatchSize;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    const limit = this.maxBatchSize ?? (await this.embeddingModel.maxEmbeddingsPerCall) ?? 100;
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += limit) {
      try {
        const { embeddings } = await this.embeddingModel.doEmbed({
          values: texts.slice(i, i + limit),
          ...(this.options.requestDimensions ? { dimensions: this.dimensions } : {}),
          ...(options.signal ? { abortSignal: options.signal } : {}),
        });
        out.push(...embeddings);
      } catch (error) {
        throw toAdkError(error, options.signal);
      }
    }
    return out;
  }
}

export function aiSdkEmbedder(model: EmbeddingModelV4, options: AiSdkEmbedderOptions): AiSdkEmbedder {
  return new AiSdkEmbedder(model, options);
}
