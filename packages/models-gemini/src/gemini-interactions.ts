import type { Content, GenerateOptions, Llm, LlmRequest, LlmResponse, ModelCapabilities } from '@adk/core';
import {
  ApiCallError,
  clientOptions,
  flattenBatches,
  type HttpClientOptions,
  type HttpRequest,
  packageVersion,
  postJson,
  postJsonStreamBatches,
  resolveApiKey,
  sleep,
} from '@adk/core/http';
import { evictOldest } from '@adk/core/internal';
import { geminiCapabilities } from './capabilities.js';
import { INTERACTIONS_BUILT_IN_TOOLS, toInteractionBody } from './interactions/convert-request.js';
import { InteractionAccumulator } from './interactions/convert-response.js';
import { type InteractionObject, interactionEventSchema, interactionSchema } from './interactions/wire.js';

export interface GeminiInteractionsOptions extends HttpClientOptions {
  /** Gemini API key. Default: `GEMINI_API_KEY`, then `GOOGLE_API_KEY`. */
  apiKey?: string;
  /** Default: `https://generativelanguage.googleapis.com/v1beta`. */
  baseURL?: string;
  /** The `Api-Revision` header (the steps wire shape). Default '2026-05-20'. */
  apiRevision?: string;
  /**
   * Server-side state, opt-in. Default (false): `store: false` and the whole history as input
   * steps. True: `store: true` and, when the history ends with an interaction this model object
   * produced, only what follows it with `previous_interaction_id`.
   */
  previousInteractionId?: boolean;
  /** Background interactions, polled until they end; an abort cancels them. */
  background?: boolean | { pollIntervalMs?: number };
  /** Overrides what {@link GeminiInteractions.capabilities} declares. */
  capabilities?: ModelCapabilities;
}

const PACKAGE = '@adk/models-gemini';
export const INTERACTIONS_API_REVISION = '2026-05-20';
const REMEMBERED = 256;

/**
 * A Gemini model over the Interactions API (`POST /interactions`, steps wire shape, raw HTTP).
 * Stateless by default; `generateContent` (`Gemini`) stays the default provider.
 */
export class GeminiInteractions implements Llm {
  readonly model: string;
  private readonly options: GeminiInteractionsOptions;
  private readonly interactionIds = new Map<string, string>();

  constructor(model: string, options: GeminiInteractionsOptions = {}) {
    this.model = model.replace(/^(models\/|interactions\/)/, '');
    this.options = options;
  }

  get capabilities(): ModelCapabilities {
    return {
      ...geminiCapabilities(this.model, { vertex: false }),
      builtInTools: Object.keys(INTERACTIONS_BUILT_IN_TOOLS),
      ...this.options.capabilities,
    };
  }

  private get baseURL(): string {
    return (this.options.baseURL ?? 'https://generativelanguage.googleapis.com/v1beta').replace(/\/+$/, '');
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
    const store = this.options.previousInteractionId === true || background;
    let contents = request.contents;
    let previousInteractionId: string | undefined;
    if (this.options.previousInteractionId) {
      const at = contents.findLastIndex((c) => c.role === 'model');
      const id = at >= 0 ? this.interactionIds.get(turnKey(contents[at] as Content)) : undefined;
      if (id) {
        previousInteractionId = id;
        contents = contents.slice(at + 1);
      }
    }
    const body = toInteractionBody(
      { ...request, model: this.model, contents },
      { store, ...(previousInteractionId ? { previousInteractionId } : {}) },
    );
    const stream = options.stream === true && !background;
    if (stream) body.stream = true;
    if (background) body.background = true;
    const http: HttpRequest = {
      ...clientOptions(this.options),
      apiName: 'Gemini Interactions API',
      packageName: PACKAGE,
      packageVersion: packageVersion(new URL('../package.json', import.meta.url)),
      url: `${this.baseURL}/interactions`,
      requestHeaders: {
        'x-goog-api-key': resolveApiKey({
          apiKey: this.options.apiKey,
          envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
          description: 'Gemini API',
        }),
        'api-revision': this.options.apiRevision ?? INTERACTIONS_API_REVISION,
      },
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const accumulator = new InteractionAccumulator();
    if (!stream) {
      const { value } = await postJson({ ...http, schema: interactionSchema });
      accumulator.addInteraction(background ? await this.poll(value, http, options.signal) : value);
      yield [this.remember(accumulator.result())];
      return;
    }
    const { events } = await postJsonStreamBatches({ ...http, schema: interactionEventSchema });
    for await (const batch of events) {
      const partials: LlmResponse[] = [];
      for (const { value } of batch) {
        const delta = accumulator.addEvent(value);
        if (delta) partials.push({ content: { role: 'model', parts: [delta] }, partial: true });
      }
      if (partials.length > 0) yield partials;
    }
    if (!accumulator.finished) {
      throw new ApiCallError('Gemini Interactions stream ended before the interaction completed', {
        url: http.url,
        failure: 'network',
      });
    }
    yield [this.remember(accumulator.result())];
  }

  /** Polls a background interaction until it ends; an abort cancels it. */
  private async poll(
    created: InteractionObject,
    http: HttpRequest,
    signal?: AbortSignal,
  ): Promise<InteractionObject> {
    const interval =
      typeof this.options.background === 'object' ? (this.options.background.pollIntervalMs ?? 1000) : 1000;
    const url = `${this.baseURL}/interactions/${encodeURIComponent(created.id)}`;
    let current = created;
    while (current.status === 'in_progress' || current.status === 'queued') {
      try {
        await sleep(interval, signal);
        current = (
          await postJson({ ...http, url, method: 'GET', body: undefined, schema: interactionSchema })
        ).value;
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

  private remember(response: LlmResponse): LlmResponse {
    const id = response.customMetadata?.interactionId;
    if (this.options.previousInteractionId && typeof id === 'string' && response.content) {
      this.interactionIds.set(turnKey(response.content), id);
      evictOldest(this.interactionIds, REMEMBERED);
    }
    return response;
  }
}

function turnKey(content: Content): string {
  return JSON.stringify(content.parts);
}
