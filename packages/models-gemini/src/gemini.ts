import type {
  ConnectOptions,
  GenerateOptions,
  Llm,
  LlmConnection,
  LlmRequest,
  LlmResponse,
  ModelCapabilities,
} from '@adk/core';
import { ConfigError } from '@adk/core';
import {
  ApiCallError,
  clientOptions,
  type HttpClientOptions,
  type HttpRequest,
  loadSetting,
  packageVersion,
  postJson,
  postJsonStreamBatches,
  resolveApiKey,
  userAgent,
} from '@adk/core/http';
import { geminiCapabilities } from './capabilities.js';
import { GeminiContextCache, type GeminiContextCacheOptions } from './context-cache.js';
import { toGeminiRequestBody } from './convert-request.js';
import { GeminiAccumulator } from './convert-response.js';
import { geminiLiveEndpoint, type LiveApiVersion } from './live/endpoint.js';
import { geminiResponseSchema } from './wire.js';

export interface VertexAiOptions {
  /** Default: `GOOGLE_CLOUD_PROJECT`. */
  project?: string;
  /** Default: `GOOGLE_CLOUD_LOCATION`, else 'us-central1'. 'global' uses the global endpoint. */
  location?: string;
  /**
   * An OAuth2 access token, or a function returning one (called for every request, so it can
   * refresh), e.g. from google-auth-library's `getAccessToken()`.
   */
  accessToken?: string | (() => string | Promise<string>);
  /** Overrides `https://{location}-aiplatform.googleapis.com/v1`. */
  baseURL?: string;
}

export interface GeminiOptions extends HttpClientOptions {
  /** Gemini API key. Default: `GEMINI_API_KEY`, then `GOOGLE_API_KEY`. Not used with Vertex AI. */
  apiKey?: string;
  /** Default: `https://generativelanguage.googleapis.com/v1beta`. */
  baseURL?: string;
  /** Use Vertex AI instead of the Gemini API. `true` reads everything from the environment. */
  vertexai?: boolean | VertexAiOptions;
  /** Gemini `safetySettings`, sent as given. */
  safetySettings?: { category: string; threshold: string; method?: string }[];
  /**
   * Ask Gemini 3 to stream function-call arguments in pieces when streaming (Vertex AI's
   * `streamFunctionCallArguments`); the pieces are assembled into complete calls either way.
   */
  streamFunctionCallArguments?: boolean;
  /**
   * Explicit context caching: an agent's `staticInstruction` and tool declarations are stored as a
   * `cachedContents` resource and referenced from each request (`true`: one hour). Without it the
   * static instruction still leads the system instruction, the prefix Gemini caches implicitly.
   */
  contextCache?: boolean | GeminiContextCacheOptions;
  /**
   * Live sessions (`connect`): the WebSocket origin, e.g. `ws://127.0.0.1:8080` for a local server.
   * Default: `wss://generativelanguage.googleapis.com` (Gemini API) or
   * `wss://{location}-aiplatform.googleapis.com` (Vertex AI).
   */
  liveBaseURL?: string;
  /** Overrides what {@link Gemini.capabilities} declares for this model family. */
  capabilities?: ModelCapabilities;
  /** Gemini API version of live sessions. Default: v1beta, or v1alpha when affective dialog or proactivity is asked for. */
  liveApiVersion?: LiveApiVersion;
}

const PACKAGE = '@adk/models-gemini';
const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/** A Gemini model over the Gemini API or Vertex AI (raw HTTP, no SDK). */
export class Gemini implements Llm {
  readonly model: string;
  private readonly options: GeminiOptions;
  private contextCache: GeminiContextCache | undefined;

  constructor(model: string, options: GeminiOptions = {}) {
    this.model = model.replace(/^models\//, '');
    this.options = options;
  }

  get isVertex(): boolean {
    return Boolean(this.options.vertexai);
  }

  /** Throws `MissingApiKeyError` (no key) or `ConfigError` (Vertex AI without a project or token) before a run. */
  validateConfiguration(): void {
    if (!this.isVertex) {
      resolveApiKey({
        apiKey: this.options.apiKey,
        envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
        description: 'Gemini API',
      });
      return;
    }
    if (!this.vertex().accessToken)
      throw new ConfigError(
        'Vertex AI needs an access token: pass vertexai.accessToken (a string or a function returning one).',
      );
  }

  /** What this model can do (see `geminiCapabilities`), with `options.capabilities` on top. */
  get capabilities(): ModelCapabilities {
    return { ...geminiCapabilities(this.model, { vertex: this.isVertex }), ...this.options.capabilities };
  }

  async *generate(request: LlmRequest, options: GenerateOptions = {}): AsyncGenerator<LlmResponse> {
    const stream = options.stream === true;
    const body = toGeminiRequestBody(request, {
      ...(this.options.safetySettings ? { safetySettings: this.options.safetySettings } : {}),
      labels: this.isVertex,
      streamFunctionCallArguments: stream && this.options.streamFunctionCallArguments === true,
    });
    const requestHeaders = await this.authHeaders();
    if (this.options.contextCache && request.staticInstruction) {
      this.contextCache ??= new GeminiContextCache(
        this.options.contextCache === true ? {} : this.options.contextCache,
      );
      await this.contextCache.apply(body, request.staticInstruction, {
        ...this.cachedContentsTarget(),
        http: { ...this.transport(), requestHeaders, ...(options.signal ? { signal: options.signal } : {}) },
      });
    }
    const http: HttpRequest = {
      ...this.transport(),
      url: stream ? `${this.endpoint()}:streamGenerateContent?alt=sse` : `${this.endpoint()}:generateContent`,
      requestHeaders,
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const accumulator = new GeminiAccumulator();
    if (!stream) {
      const { value } = await postJson({ ...http, schema: geminiResponseSchema });
      accumulator.add(value);
      yield accumulator.result();
      return;
    }
    // Batches: one async step per network chunk instead of one per event.
    const { events } = await postJsonStreamBatches({ ...http, schema: geminiResponseSchema });
    for await (const batch of events) {
      for (const { value } of batch) {
        if (value.error) {
          throw new ApiCallError(`Gemini API stream failed: ${value.error.message ?? 'unknown error'}`, {
            url: http.url,
            failure: 'http',
            ...(value.error.code !== undefined ? { status: value.error.code } : {}),
            ...(value.error.message ? { vendorMessage: value.error.message } : {}),
          });
        }
        const deltas = accumulator.add(value);
        if (deltas.length > 0) yield { content: { role: 'model', parts: deltas }, partial: true };
      }
    }
    if (!accumulator.finished) {
      throw new ApiCallError('Gemini API stream ended before the response was finished', {
        url: http.url,
        failure: 'network',
      });
    }
    yield accumulator.result();
  }

  /** Opens a live session over the Live API (`BidiGenerateContent` over WebSocket); see the README. */
  async connect(request: LlmRequest, options: ConnectOptions = {}): Promise<LlmConnection> {
    const { connectGeminiLive } = await import('./live/connection.js');
    const vertex = this.isVertex ? this.vertex() : undefined;
    const endpoint = geminiLiveEndpoint(request, {
      model: this.model,
      userAgent: userAgent(PACKAGE, packageVersion(new URL('../package.json', import.meta.url))),
      headers: await this.authHeaders(),
      ...(this.options.headers ? { extraHeaders: this.options.headers } : {}),
      ...(this.options.liveBaseURL ? { baseURL: this.options.liveBaseURL } : {}),
      ...(this.options.liveApiVersion ? { apiVersion: this.options.liveApiVersion } : {}),
      ...(this.options.timeouts?.connectMs ? { handshakeTimeoutMs: this.options.timeouts.connectMs } : {}),
      ...(vertex ? { vertex: { project: vertex.project, location: vertex.location } } : {}),
    });
    return connectGeminiLive(request, endpoint, options);
  }

  /** Where cached contents are created, and the model name they refer to. */
  private cachedContentsTarget(): { url: string; model: string } {
    const endpoint = this.endpoint();
    const at = endpoint.lastIndexOf(this.isVertex ? '/publishers/' : '/models/');
    const model = this.isVertex ? endpoint.slice(endpoint.indexOf('projects/')) : `models/${this.model}`;
    return { url: `${endpoint.slice(0, at)}/cachedContents`, model };
  }

  private transport(): HttpClientOptions & Pick<HttpRequest, 'apiName' | 'packageName' | 'packageVersion'> {
    return {
      ...clientOptions(this.options),
      apiName: this.isVertex ? 'Vertex AI' : 'Gemini API',
      packageName: PACKAGE,
      packageVersion: packageVersion(new URL('../package.json', import.meta.url)),
    };
  }

  private vertex(): VertexAiOptions & { project: string; location: string } {
    const v = typeof this.options.vertexai === 'object' ? this.options.vertexai : {};
    const project = loadSetting(v.project, ['GOOGLE_CLOUD_PROJECT']);
    if (!project)
      throw new ConfigError(
        'Vertex AI needs a project: pass vertexai.project or set `GOOGLE_CLOUD_PROJECT`.',
      );
    const location = loadSetting(v.location, ['GOOGLE_CLOUD_LOCATION']) ?? 'us-central1';
    return { ...v, project, location };
  }

  private endpoint(): string {
    const model = encodeURIComponent(this.model);
    if (!this.isVertex) {
      const base = (this.options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
      return `${base}/models/${model}`;
    }
    const v = this.vertex();
    const host =
      v.location === 'global' ? 'aiplatform.googleapis.com' : `${v.location}-aiplatform.googleapis.com`;
    const base = (v.baseURL ?? `https://${host}/v1`).replace(/\/+$/, '');
    return `${base}/projects/${encodeURIComponent(v.project)}/locations/${encodeURIComponent(v.location)}/publishers/google/models/${model}`;
  }

  private async authHeaders(): Promise<Record<string, string>> {
    if (!this.isVertex) {
      const key = resolveApiKey({
        apiKey: this.options.apiKey,
        envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
        description: 'Gemini API',
      });
      return { 'x-goog-api-key': key };
    }
    const source = this.vertex().accessToken;
    const token = typeof source === 'function' ? await source() : source;
    if (!token) {
      throw new ConfigError(
        'Vertex AI needs an access token: pass vertexai.accessToken (a string or a function returning one).',
      );
    }
    return { authorization: `Bearer ${token}` };
  }
}
