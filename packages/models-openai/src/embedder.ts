import type { Embedder, EmbedOptions } from '@adk/core';
import { ConfigError, deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import {
  ApiCallError,
  clientOptions,
  type HttpClientOptions,
  loadSetting,
  packageVersion,
  postJson,
} from '@adk/core/http';

export interface OpenAIEmbedderOptions extends HttpClientOptions {
  /** Default 'text-embedding-3-small'. */
  model?: string;
  /**
   * Vector length. Sent as `dimensions` when `sendDimensions` (text-embedding-3 models can shorten
   * their vectors). Default 1536 (text-embedding-3-small).
   */
  dimensions?: number;
  /** Send `dimensions` in the request. Default: true on api.openai.com when `dimensions` is given. */
  sendDimensions?: boolean;
  /** Bearer token. Default: `OPENAI_API_KEY`; `null` sends none (Ollama, local vLLM). */
  apiKey?: string | null;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. Ollama: `http://localhost:11434/v1`. */
  baseURL?: string;
  /** Inputs per call. Default 2048 (OpenAI's limit); lower it for servers with smaller limits. */
  maxBatchSize?: number;
}

const PACKAGE = '@adk/models-openai';

const schemas = lazyZod((z) => ({
  response: z.looseObject({
    data: z.array(z.looseObject({ index: z.number(), embedding: z.array(z.number()) })),
  }),
}));
type EmbeddingsResponse = { data: { index: number; embedding: number[] }[] };
const responseSchema: SchemaLike<EmbeddingsResponse> = deferredSchema(() => schemas().response);

/**
 * Embeddings over `POST {baseURL}/embeddings` (raw HTTP): OpenAI and OpenAI-compatible servers
 * (Ollama, vLLM, LiteLLM…). Batches split at `maxBatchSize`; the HTTP layer's retries apply.
 * Task types have no OpenAI counterpart and are ignored.
 */
export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;

  constructor(private readonly options: OpenAIEmbedderOptions = {}) {
    this.model = options.model ?? 'text-embedding-3-small';
    this.dimensions = options.dimensions ?? 1536;
    this.maxBatchSize = options.maxBatchSize ?? 2048;
  }

  private get baseURL(): string {
    return (loadSetting(this.options.baseURL, ['OPENAI_BASE_URL']) ?? 'https://api.openai.com/v1').replace(
      /\/+$/,
      '',
    );
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    const base = this.baseURL;
    const openai = /^https:\/\/api\.openai\.com\//.test(`${base}/`);
    const headers: Record<string, string> = {};
    if (this.options.apiKey !== null) {
      const key = loadSetting(this.options.apiKey, ['OPENAI_API_KEY']);
      if (key) headers.authorization = `Bearer ${key}`;
      else if (openai)
        throw new ConfigError(
          'OpenAI API key is missing. Pass it as the `apiKey` option or set `OPENAI_API_KEY`.',
          {
            details: { envVars: ['OPENAI_API_KEY'] },
          },
        );
    }
    const sendDimensions = this.options.sendDimensions ?? (openai && this.options.dimensions !== undefined);
    const url = `${base}/embeddings`;
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.maxBatchSize) {
      const batch = texts.slice(i, i + this.maxBatchSize);
      const { value } = await postJson({
        ...clientOptions(this.options),
        apiName: openai ? 'OpenAI API' : `Embeddings API at ${new URL(base).host}`,
        packageName: PACKAGE,
        packageVersion: packageVersion(new URL('../package.json', import.meta.url)),
        url,
        requestHeaders: headers,
        body: {
          model: this.model,
          input: batch,
          encoding_format: 'float',
          ...(sendDimensions ? { dimensions: this.dimensions } : {}),
        },
        schema: responseSchema,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (value.data.length !== batch.length)
        throw new ApiCallError(`${url} returned ${value.data.length} embeddings for ${batch.length} texts`, {
          url,
          failure: 'invalid-response',
        });
      // Results carry their input's index; servers need not keep the order.
      for (const item of [...value.data].sort((a, b) => a.index - b.index)) out.push(item.embedding);
    }
    return out;
  }
}
