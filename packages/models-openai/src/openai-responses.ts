import {
  ConfigError,
  type Content,
  type GenerateOptions,
  type Llm,
  type LlmRequest,
  type LlmResponse,
  type ModelCapabilities,
} from '@adk/core';
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
  sleep,
} from '@adk/core/http';
import { evictOldest } from '@adk/core/internal';
import { OPENAI_REASONING_MODEL } from './capabilities.js';
import { toResponsesRequestBody } from './responses/convert-request.js';
import { ResponsesAccumulator } from './responses/convert-response.js';
import { RESPONSES_HOSTED_TOOLS } from './responses/hosted-tools.js';
import { type ResponseObject, responseObjectSchema, responsesEventSchema } from './responses/wire.js';

export interface OpenAIResponsesOptions extends HttpClientOptions {
  /** Bearer token. Default: `OPENAI_API_KEY`; `null` sends none (a local server). */
  apiKey?: string | null;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  organization?: string;
  project?: string;
  /** `strict` on every function tool, with schemas rewritten for strict mode. Default false (sent explicitly). */
  strictTools?: boolean;
  /** `text.format.strict` for response schemas. Default false (sent explicitly). */
  strictJsonSchema?: boolean;
  /**
   * Server-side state, opt-in. Default (false): `store: false`, the whole history is sent on every
   * turn and reasoning goes back encrypted. True: `store: true` and, when the history ends with a
   * response this model object produced, only what follows it is sent with `previous_response_id`.
   */
  previousResponseId?: boolean;
  /**
   * Background mode: the response is created with `background: true` (stored) and polled until it
   * ends; aborting the run's signal cancels it on OpenAI's side. Streams are not used.
   */
  background?: boolean | { pollIntervalMs?: number };
  /** Overrides what {@link OpenAIResponses.capabilities} declares. */
  capabilities?: ModelCapabilities;
}

const PACKAGE = '@adk/models-openai';
const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** How many response ids a model object remembers for `previous_response_id`. */
const REMEMBERED_RESPONSES = 256;

/**
 * An OpenAI model over the Responses API (`POST /responses`, raw HTTP): reasoning items carried
 * across turns, hosted tools (web and file search, code interpreter, image generation, remote MCP),
 * structured output together with tools, background mode. Stateless by default.
 */
export class OpenAIResponses implements Llm {
  readonly model: string;
  private readonly options: OpenAIResponsesOptions;
  /** Last model turn (as JSON) → the response that produced it, for `previous_response_id`. */
  private readonly responseIds = new Map<string, string>();

  constructor(model: string, options: OpenAIResponsesOptions = {}) {
    this.model = model.replace(/^openai\/responses\//, '');
    this.options = options;
  }

  get baseURL(): string {
    return (loadSetting(this.options.baseURL, ['OPENAI_BASE_URL']) ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  }

  /** Structured outputs with tools, reasoning effort on reasoning models, the hosted tools. */
  get capabilities(): ModelCapabilities {
    return {
      responseSchemaWithTools: true,
      thinking: OPENAI_REASONING_MODEL.test(this.model) ? 'effort' : 'none',
      parallelToolCalls: true,
      builtInTools: Object.keys(RESPONSES_HOSTED_TOOLS),
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
    const background = Boolean(this.options.background);
    const store = this.options.previousResponseId === true || background;
    let contents = request.contents;
    let previousResponseId: string | undefined;
    if (this.options.previousResponseId) {
      const at = contents.findLastIndex((c) => c.role === 'model');
      const id = at >= 0 ? this.responseIds.get(await historyKey(contents.slice(0, at + 1))) : undefined;
      if (id) {
        previousResponseId = id;
        contents = contents.slice(at + 1);
      }
    }
    const body = toResponsesRequestBody(
      { ...request, model: this.model, contents },
      {
        strictTools: this.options.strictTools ?? false,
        strictJsonSchema: this.options.strictJsonSchema ?? false,
        store,
        reasoning: OPENAI_REASONING_MODEL.test(this.model),
        ...(previousResponseId ? { previousResponseId } : {}),
      },
    );
    const stream = options.stream === true && !background;
    if (stream) body.stream = true;
    if (background) body.background = true;
    const http: HttpRequest = {
      ...this.transport(),
      url: `${this.baseURL}/responses`,
      requestHeaders: this.authHeaders(),
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const accumulator = new ResponsesAccumulator();
    if (!stream) {
      const { value } = await postJson({ ...http, schema: responseObjectSchema });
      accumulator.addResponse(background ? await this.poll(value, http, options.signal) : value);
      yield [await this.remember(request.contents, accumulator.result())];
      return;
    }
    const { events } = await postJsonStreamBatches({ ...http, schema: responsesEventSchema });
    for await (const batch of events) {
      const partials: LlmResponse[] = [];
      for (const { value } of batch) {
        const delta = accumulator.addEvent(value);
        if (delta) partials.push({ content: { role: 'model', parts: [delta] }, partial: true });
      }
      if (partials.length > 0) yield partials;
    }
    if (!accumulator.finished) {
      throw new ApiCallError('Responses API stream ended before the response was completed', {
        url: http.url,
        failure: 'network',
      });
    }
    // An `error` event or a failed response after HTTP 200 is the model's answer: an error event.
    yield [await this.remember(request.contents, accumulator.result())];
  }

  /** Polls a background response until it ends; an abort cancels it on OpenAI's side. */
  private async poll(
    created: ResponseObject,
    http: HttpRequest,
    signal?: AbortSignal,
  ): Promise<ResponseObject> {
    const interval =
      typeof this.options.background === 'object' ? (this.options.background.pollIntervalMs ?? 1000) : 1000;
    let current = created;
    const url = `${this.baseURL}/responses/${encodeURIComponent(created.id)}`;
    while (current.status === 'queued' || current.status === 'in_progress') {
      try {
        await sleep(interval, signal);
        const { value } = await postJson({
          ...http,
          url,
          method: 'GET',
          body: undefined,
          schema: responseObjectSchema,
        });
        current = value;
      } catch (error) {
        if (signal?.aborted) {
          const { signal: _s, ...rest } = http;
          await postJson({ ...rest, url: `${url}/cancel`, body: undefined, retry: false }).catch(
            () => undefined,
          );
        }
        throw error;
      }
    }
    return current;
  }

  private async remember(history: readonly Content[], response: LlmResponse): Promise<LlmResponse> {
    const id = response.customMetadata?.responseId;
    if (this.options.previousResponseId && typeof id === 'string' && response.content) {
      this.responseIds.set(await historyKey([...history, response.content]), id);
      evictOldest(this.responseIds, REMEMBERED_RESPONSES);
    }
    return response;
  }

  /** Endpoint, headers and transport for the `/responses/compact` call of `responsesCompaction`. */
  compactionRequest(): HttpRequest {
    return {
      ...this.transport(),
      url: `${this.baseURL}/responses/compact`,
      requestHeaders: this.authHeaders(),
    };
  }

  private get isOpenAI(): boolean {
    return /^https:\/\/api\.openai\.com\//.test(`${this.baseURL}/`);
  }

  private authHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey !== null) {
      const key = loadSetting(this.options.apiKey, ['OPENAI_API_KEY']);
      if (key) headers.authorization = `Bearer ${key}`;
      else if (this.isOpenAI)
        throw new ConfigError(
          'OpenAI API key is missing. Pass it as the `apiKey` option or set `OPENAI_API_KEY`.',
          {
            details: { envVars: ['OPENAI_API_KEY'] },
          },
        );
    }
    if (this.options.organization) headers['openai-organization'] = this.options.organization;
    if (this.options.project) headers['openai-project'] = this.options.project;
    return headers;
  }

  private transport(): HttpClientOptions & Pick<HttpRequest, 'apiName' | 'packageName' | 'packageVersion'> {
    return {
      ...clientOptions(this.options),
      apiName: this.isOpenAI ? 'OpenAI Responses API' : `Responses API at ${new URL(this.baseURL).host}`,
      packageName: PACKAGE,
      packageVersion: packageVersion(new URL('../package.json', import.meta.url)),
    };
  }
}

/** A model turn as a lookup key: what we produced is what comes back in the history. */
/**
 * The key of a remembered response: a digest of the whole history up to and including the model's
 * turn, so two sessions whose last answers are alike (or a rewound session) never chain onto
 * another conversation's server-side state.
 */
async function historyKey(contents: readonly Content[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(contents.map((c) => [c.role, c.parts])));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}
