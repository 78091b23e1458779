import type { GenerateOptions, Llm, LlmRequest, LlmResponse, ModelCapabilities } from '@adk/core';
import {
  ApiCallError,
  clientOptions,
  flattenBatches,
  type HttpClientOptions,
  type HttpRequest,
  loadSetting,
  packageVersion,
  postJson,
  postJsonStreamBatches,
  resolveApiKey,
} from '@adk/core/http';
import {
  bedrockTarget,
  type ClaudeBedrockOptions,
  type ClaudeVertexOptions,
  type CloudTarget,
  vertexTarget,
} from './cloud.js';
import {
  type CacheControlOptions,
  CLAUDE_SERVER_TOOLS,
  type ClaudeContextEditing,
  CONTEXT_MANAGEMENT_BETA,
  toClaudeRequestBody,
} from './convert-request.js';
import { ClaudeAccumulator } from './convert-response.js';
import { claudeCapabilities, claudeModelProfile } from './models.js';
import { claudeMessageSchema, claudeStreamEventSchema } from './wire.js';

export interface ClaudeOptions extends HttpClientOptions {
  /** Default: `ANTHROPIC_API_KEY`. */
  apiKey?: string;
  /** Default: `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com/v1`. */
  baseURL?: string;
  /** The `anthropic-version` header (default '2023-06-01'). */
  anthropicVersion?: string;
  /** `anthropic-beta` flags. */
  betas?: string[];
  /** `max_tokens` when the request sets no maxOutputTokens; see {@link defaultMaxTokens}. */
  maxTokens?: number;
  /** Prompt caching: `cache_control` breakpoints on system prompt, last tool and last message. */
  cache?: boolean | CacheControlOptions;
  /** Claude on Google Cloud Vertex AI (`true`: everything from the environment). */
  vertex?: boolean | ClaudeVertexOptions;
  /** Claude on Amazon Bedrock, SigV4-signed (`true`: region and credentials from the environment). */
  bedrock?: boolean | ClaudeBedrockOptions;
  /**
   * Send documents (PDF and text parts) with citations on; Claude's citations come back as the
   * response's `citationMetadata`.
   */
  citations?: boolean;
  /**
   * Context editing on Claude's side (`context_management`: clear old tool results and thinking),
   * with its beta header. The edits applied come back in `customMetadata.contextManagement`.
   */
  contextEditing?: ClaudeContextEditing;
  /** Overrides what {@link Claude.capabilities} declares for this model family. */
  capabilities?: ModelCapabilities;
}

const PACKAGE = '@adk/models-claude';
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * `max_tokens` is required by the Messages API. Default: 4096 for the Claude 3 generation (its
 * limit), 8192 for newer models; with a thinking budget, at least budget + 4096 so the answer
 * still has room.
 */
export function defaultMaxTokens(model: string, thinkingBudget?: number): number {
  const base = /^claude-3-(opus|sonnet|haiku)/.test(model) ? 4096 : 8192;
  return thinkingBudget ? Math.max(base, thinkingBudget + 4096) : base;
}

/** An Anthropic Claude model over the Messages API (raw HTTP, no SDK). */
export class Claude implements Llm {
  readonly model: string;
  private readonly options: ClaudeOptions;

  constructor(model: string, options: ClaudeOptions = {}) {
    this.model = model.replace(/^anthropic\//, '');
    this.options = options;
  }

  /** Throws `MissingApiKeyError` before a run when the Anthropic API is used without a key. */
  validateConfiguration(): void {
    if (this.options.vertex || this.options.bedrock) return;
    resolveApiKey({
      apiKey: this.options.apiKey,
      envVars: ['ANTHROPIC_API_KEY'],
      description: 'Anthropic API',
    });
  }

  /** What this model can do (see `claudeCapabilities`), with `options.capabilities` on top. */
  get capabilities(): ModelCapabilities {
    return {
      ...claudeCapabilities(this.model, Object.keys(CLAUDE_SERVER_TOOLS)),
      ...this.options.capabilities,
    };
  }

  generate(request: LlmRequest, options: GenerateOptions = {}): AsyncGenerator<LlmResponse, void, undefined> {
    return flattenBatches(this.generateBatches(request, options));
  }

  /** The responses of {@link generate}, one array per network chunk of the stream. */
  private async *generateBatches(
    request: LlmRequest,
    options: GenerateOptions,
  ): AsyncGenerator<LlmResponse[], void, undefined> {
    const config = request.config;
    const profile = claudeModelProfile(this.model);
    const jsonMode = Boolean(config.responseSchema) && !request.tools?.length && !profile.structuredOutputs;
    const body = toClaudeRequestBody(
      { ...request, model: this.model },
      {
        profile,
        ...(this.options.citations ? { citations: true } : {}),
        ...(this.options.contextEditing ? { contextEditing: this.options.contextEditing } : {}),
        maxTokens:
          config.maxOutputTokens ??
          this.options.maxTokens ??
          defaultMaxTokens(this.model, config.thinking?.budgetTokens),
        ...(this.options.cache !== undefined ? { cache: this.options.cache } : {}),
      },
    );
    const stream = options.stream === true;
    if (stream) body.stream = true;
    const base = (
      loadSetting(this.options.baseURL, ['ANTHROPIC_BASE_URL']) ?? 'https://api.anthropic.com/v1'
    ).replace(/\/+$/, '');
    const betas = [...(this.options.betas ?? [])];
    if (body.context_management !== undefined && !betas.includes(CONTEXT_MANAGEMENT_BETA))
      betas.push(CONTEXT_MANAGEMENT_BETA);
    const cloud = await this.cloudTarget(body, stream, betas);
    const http: HttpRequest = cloud
      ? {
          ...this.transport(),
          apiName: this.options.vertex ? 'Claude on Vertex AI' : 'Claude on Amazon Bedrock',
          url: cloud.url,
          requestHeaders: cloud.headers,
          body: cloud.body,
          ...(cloud.fetch ? { fetch: cloud.fetch } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        }
      : {
          ...this.transport(),
          url: `${base}/messages`,
          requestHeaders: {
            'x-api-key': resolveApiKey({
              apiKey: this.options.apiKey,
              envVars: ['ANTHROPIC_API_KEY'],
              description: 'Anthropic API',
            }),
            'anthropic-version': this.options.anthropicVersion ?? ANTHROPIC_VERSION,
            ...(betas.length ? { 'anthropic-beta': betas.join(',') } : {}),
          },
          body,
          ...(options.signal ? { signal: options.signal } : {}),
        };
    const accumulator = new ClaudeAccumulator(jsonMode);
    if (!stream) {
      const { value } = await postJson({ ...http, schema: claudeMessageSchema });
      accumulator.addMessage(value);
      yield [accumulator.result()];
      return;
    }
    // Batches: one async step per network chunk instead of one per event.
    const { events } = await postJsonStreamBatches({ ...http, schema: claudeStreamEventSchema });
    for await (const batch of events) {
      const partials: LlmResponse[] = [];
      for (const { value } of batch) {
        if (value.type === 'error') {
          // What streamed before the error still reaches the caller, then the error.
          if (partials.length > 0) yield partials;
          const retryable = value.error.type === 'overloaded_error' || value.error.type === 'api_error';
          throw new ApiCallError(
            `Anthropic API stream failed: ${value.error.message} (${value.error.type})`,
            { url: http.url, failure: 'http', vendorMessage: value.error.message, isRetryable: retryable },
          );
        }
        const delta = accumulator.addEvent(value);
        if (delta) partials.push({ content: { role: 'model', parts: [delta] }, partial: true });
      }
      if (partials.length > 0) yield partials;
    }
    if (!accumulator.stopped) {
      throw new ApiCallError('Anthropic API stream ended before message_stop', {
        url: http.url,
        failure: 'network',
      });
    }
    yield [accumulator.result()];
  }

  /** The Vertex AI or Bedrock endpoint, when the model runs there. */
  private async cloudTarget(
    body: Record<string, unknown>,
    stream: boolean,
    betas: string[],
  ): Promise<CloudTarget | undefined> {
    const { vertex, bedrock } = this.options;
    if (vertex) return vertexTarget(this.model, vertex === true ? {} : vertex, body, stream, betas);
    if (bedrock) return bedrockTarget(this.model, bedrock === true ? {} : bedrock, body, stream, betas);
    return undefined;
  }

  private transport(): HttpClientOptions & Pick<HttpRequest, 'apiName' | 'packageName' | 'packageVersion'> {
    return {
      ...clientOptions(this.options),
      apiName: 'Anthropic API',
      packageName: PACKAGE,
      packageVersion: packageVersion(new URL('../package.json', import.meta.url)),
    };
  }
}
