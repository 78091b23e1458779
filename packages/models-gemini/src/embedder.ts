import type { Embedder, EmbedOptions } from '@adk/core';
import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import {
  ApiCallError,
  clientOptions,
  type HttpClientOptions,
  packageVersion,
  postJson,
  resolveApiKey,
} from '@adk/core/http';

export interface GeminiEmbedderOptions extends HttpClientOptions {
  /** Default 'gemini-embedding-001'. */
  model?: string;
  /**
   * Vector length (`outputDimensionality`; gemini-embedding-001 takes 128–3072). Default 3072, the
   * model's full size, and then not sent.
   */
  dimensions?: number;
  /** Gemini API key. Default: `GEMINI_API_KEY`, then `GOOGLE_API_KEY`. */
  apiKey?: string;
  /** Default: `https://generativelanguage.googleapis.com/v1beta`. */
  baseURL?: string;
  /** Texts per `batchEmbedContents` call. Default 100 (the API's limit). */
  maxBatchSize?: number;
}

const PACKAGE = '@adk/models-gemini';
const DEFAULT_DIMENSIONS = 3072;

const schemas = lazyZod((z) => ({
  batch: z.looseObject({ embeddings: z.array(z.looseObject({ values: z.array(z.number()) })) }),
}));
type Batch = { embeddings: { values: number[] }[] };
const batchSchema: SchemaLike<Batch> = deferredSchema(() => schemas().batch);

/**
 * Gemini embeddings over the Gemini API (`batchEmbedContents`, raw HTTP): task types and output
 * dimensionality, batches split at `maxBatchSize`, the HTTP layer's retries.
 */
export class GeminiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;

  constructor(private readonly options: GeminiEmbedderOptions = {}) {
    this.model = (options.model ?? 'gemini-embedding-001').replace(/^models\//, '');
    this.dimensions = options.dimensions ?? DEFAULT_DIMENSIONS;
    this.maxBatchSize = options.maxBatchSize ?? 100;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    const base = (this.options.baseURL ?? 'https://generativelanguage.googleapis.com/v1beta').replace(
      /\/+$/,
      '',
    );
    const url = `${base}/models/${encodeURIComponent(this.model)}:batchEmbedContents`;
    const key = resolveApiKey({
      apiKey: this.options.apiKey,
      envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
      description: 'Gemini API',
    });
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.maxBatchSize) {
      const batch = texts.slice(i, i + this.maxBatchSize);
      const { value } = await postJson({
        ...clientOptions(this.options),
        apiName: 'Gemini API',
        packageName: PACKAGE,
        packageVersion: packageVersion(new URL('../package.json', import.meta.url)),
        url,
        requestHeaders: { 'x-goog-api-key': key },
        body: {
          requests: batch.map((text) => ({
            model: `models/${this.model}`,
            content: { parts: [{ text }] },
            ...(options.taskType ? { taskType: options.taskType } : {}),
            ...(this.options.dimensions !== undefined
              ? { outputDimensionality: this.options.dimensions }
              : {}),
          })),
        },
        schema: batchSchema,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (value.embeddings.length !== batch.length)
        throw new ApiCallError(
          `Gemini API returned ${value.embeddings.length} embeddings for ${batch.length} texts`,
          { url, failure: 'invalid-response' },
        );
      for (const e of value.embeddings) out.push(e.values);
    }
    return out;
  }
}
