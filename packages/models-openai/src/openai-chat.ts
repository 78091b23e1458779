import type {
  ConnectOptions,
  GenerateOptions,
  Llm,
  LlmConnection,
  LlmRequest,
  LlmResponse,
  ModelCapabilities,
} from '@adk/core';
import { MissingApiKeyError } from '@adk/core';
import {
  ApiCallError,
  clientOptions,
  type HttpClientOptions,
  type HttpRequest,
  loadSetting,
  packageVersion,
  postJson,
  postJsonStreamBatches,
  userAgent,
} from '@adk/core/http';
import { OPENAI_REASONING_MODEL, openaiChatCapabilities } from './capabilities.js';
import { toOpenAIRequestBody } from './convert-request.js';
import { OpenAIAccumulator } from './convert-response.js';
import { openaiChunkSchema, openaiCompletionSchema } from './wire.js';

export interface OpenAIChatOptions extends HttpClientOptions {
  /**
   * Bearer token. Default: `OPENAI_API_KEY`. Required for api.openai.com; for other servers it is
   * sent when present. `null` sends no Authorization header (Ollama, local vLLM).
   */
  apiKey?: string | null;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  organization?: string;
  project?: string;
  /** Tools in strict mode: `strict: true` and schemas rewritten for Structured Outputs. */
  strictTools?: boolean;
  /** Response schemas in strict mode (`json_schema.strict: true`, rewritten schema). */
  strictJsonSchema?: boolean;
  /** Default: `max_completion_tokens` for api.openai.com, `max_tokens` for other servers. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Role of the system instruction. Default: 'developer' for OpenAI o-series/gpt-5, else 'system'. */
  systemRole?: 'system' | 'developer';
  /** Ask for usage in streams (`stream_options.include_usage`). Default true. */
  streamUsage?: boolean;
  /** Live sessions (`connect`): the Realtime model. Default: the model name given to the constructor. */
  realtimeModel?: string;
  /** Live sessions: the model transcribing the user's audio. Default 'gpt-4o-mini-transcribe'. */
  realtimeTranscriptionModel?: string;
  /** Overrides what {@link OpenAIChat.capabilities} declares (e.g. for a server you know supports more). */
  capabilities?: ModelCapabilities;
}

const PACKAGE = '@adk/models-openai';
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * A model behind an OpenAI-compatible Chat Completions endpoint: OpenAI, a LiteLLM proxy (send
 * `provider/model` names as they are), Ollama, vLLM, Groq, Together, OpenRouter, LM Studio, Azure.
 * The model name is sent exactly as given.
 */
export class OpenAIChat implements Llm {
  readonly model: string;
  private readonly options: OpenAIChatOptions;

  constructor(model: string, options: OpenAIChatOptions = {}) {
    this.model = model;
    this.options = options;
  }

  get baseURL(): string {
    return (loadSetting(this.options.baseURL, ['OPENAI_BASE_URL']) ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  }

  /** Throws `MissingApiKeyError` before a run when api.openai.com is used without a key. */
  validateConfiguration(): void {
    this.authHeaders();
  }

  /** What this model can do (see `openaiChatCapabilities`), with `options.capabilities` on top. */
  get capabilities(): ModelCapabilities {
    return { ...openaiChatCapabilities(this.model, { openai: this.isOpenAI }), ...this.options.capabilities };
  }

  private get isOpenAI(): boolean {
    return /^https:\/\/api\.openai\.com\//.test(`${this.baseURL}/`);
  }

  async *generate(request: LlmRequest, options: GenerateOptions = {}): AsyncGenerator<LlmResponse> {
    const reasoningModel = OPENAI_REASONING_MODEL.test(this.model);
    const body = toOpenAIRequestBody(
      { ...request, model: this.model },
      {
        strictTools: this.options.strictTools ?? false,
        strictJsonSchema: this.options.strictJsonSchema ?? false,
        maxTokensField:
          this.options.maxTokensField ?? (this.isOpenAI ? 'max_completion_tokens' : 'max_tokens'),
        systemRole: this.options.systemRole ?? (this.isOpenAI && reasoningModel ? 'developer' : 'system'),
      },
    );
    const stream = options.stream === true;
    if (stream) {
      body.stream = true;
      if (this.options.streamUsage !== false) body.stream_options = { include_usage: true };
    }
    const http: HttpRequest = {
      ...this.transport(),
      url: `${this.baseURL}/chat/completions`,
      requestHeaders: this.authHeaders(),
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const accumulator = new OpenAIAccumulator();
    if (!stream) {
      const { value } = await postJson({ ...http, schema: openaiCompletionSchema });
      accumulator.addCompletion(value);
      yield accumulator.result();
      return;
    }
    // One async step per network chunk, not per event: this loop is the streaming hot path.
    const { events } = await postJsonStreamBatches({ ...http, schema: openaiChunkSchema });
    for await (const batch of events) {
      for (const { value } of batch) {
        if (value.error) {
          throw new ApiCallError(
            `Chat Completions stream failed: ${value.error.message ?? 'unknown error'}`,
            {
              url: http.url,
              failure: 'http',
              ...(value.error.message ? { vendorMessage: value.error.message } : {}),
            },
          );
        }
        const deltas = accumulator.addChunk(value);
        if (deltas.length > 0) yield { content: { role: 'model', parts: deltas }, partial: true };
      }
    }
    if (!accumulator.finished) {
      throw new ApiCallError('Chat Completions stream ended before a finish_reason', {
        url: http.url,
        failure: 'network',
      });
    }
    yield accumulator.result();
  }

  /**
   * Opens a live session over the Realtime API (`{baseURL}/realtime?model=…` as a WebSocket, GA
   * interface); see the README.
   */
  async connect(request: LlmRequest, options: ConnectOptions = {}): Promise<LlmConnection> {
    const { connectOpenAIRealtime } = await import('./live/connection.js');
    const model = this.options.realtimeModel ?? this.model;
    const url = `${this.baseURL.replace(/^http/i, 'ws')}/realtime?model=${encodeURIComponent(model)}`;
    const headers: Record<string, string> = {
      'user-agent': userAgent(PACKAGE, packageVersion(new URL('../package.json', import.meta.url))),
    };
    for (const [name, value] of Object.entries(this.options.headers ?? {}))
      if (value !== undefined) headers[name.toLowerCase()] = value;
    Object.assign(headers, this.authHeaders());
    return connectOpenAIRealtime(
      request,
      {
        url,
        displayUrl: url,
        headers,
        apiName: this.isOpenAI ? 'OpenAI Realtime API' : `Realtime API at ${new URL(this.baseURL).host}`,
        handshakeTimeoutMs: this.options.timeouts?.connectMs,
        transcriptionModel: this.options.realtimeTranscriptionModel,
      },
      options,
    );
  }

  private authHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey !== null) {
      const key = loadSetting(this.options.apiKey, ['OPENAI_API_KEY']);
      if (key) headers.authorization = `Bearer ${key}`;
      else if (this.isOpenAI)
        throw new MissingApiKeyError(
          'OpenAI API key is missing. Pass it as the `apiKey` option or set `OPENAI_API_KEY`.',
          ['OPENAI_API_KEY'],
        );
    }
    if (this.options.organization) headers['openai-organization'] = this.options.organization;
    if (this.options.project) headers['openai-project'] = this.options.project;
    return headers;
  }

  private transport(): HttpClientOptions & Pick<HttpRequest, 'apiName' | 'packageName' | 'packageVersion'> {
    return {
      ...clientOptions(this.options),
      apiName: this.isOpenAI ? 'OpenAI API' : `Chat Completions API at ${new URL(this.baseURL).host}`,
      packageName: PACKAGE,
      packageVersion: packageVersion(new URL('../package.json', import.meta.url)),
    };
  }
}
