import { defaultModelRegistry, type ModelRegistry } from '@adk/core';
import { OpenAIChat, type OpenAIChatOptions } from './openai-chat.js';
import { OpenAIResponses, type OpenAIResponsesOptions } from './openai-responses.js';

export interface RegisterOpenAIOptions extends OpenAIChatOptions {
  /**
   * More OpenAI-compatible endpoints, by name prefix: `{ groq: { baseURL, apiKey } }` makes
   * 'groq/llama-3.1-8b-instant' resolve to model 'llama-3.1-8b-instant' on that endpoint, and
   * `{ litellm: { baseURL } }` sends 'litellm/anthropic/claude-3-5-sonnet' as 'anthropic/claude-3-5-sonnet'.
   * Built in: `openai` (these options) and `ollama` (`http://localhost:11434/v1`, no key).
   */
  endpoints?: Record<string, OpenAIChatOptions>;
  /** The registry to register in (default: the process-wide one). */
  registry?: ModelRegistry;
  /**
   * Options of the Responses API models, named `openai/responses/<model>` (transport and key
   * default to these options). With `api: 'responses'`, bare OpenAI names (`gpt-…`, `o…`) use it too.
   */
  responses?: OpenAIResponsesOptions;
  /** The API bare OpenAI names use. Default 'chat' (Chat Completions). */
  api?: 'chat' | 'responses';
}

/** OpenAI model names served without a prefix: `gpt-…`, `chatgpt-…`, `o1…`/`o3…`/`o4…`. */
export const OPENAI_MODEL_PATTERN = /^(gpt-|chatgpt-|o\d)/;

/**
 * Registers the OpenAI-compatible provider: `gpt-…`, `o…`, `openai/…` go to OpenAI (or the
 * configured base URL), `openai/responses/<model>` to OpenAI's Responses API, `ollama/…` to a local
 * Ollama, and `<name>/…` to each of `endpoints`.
 * Returns the registry.
 */
export function registerOpenAI(options?: RegisterOpenAIOptions): ModelRegistry;
/** @deprecated Pass one options object: `registerOpenAI({ registry, ...options })`. */
export function registerOpenAI(
  registry: ModelRegistry,
  options?: Omit<RegisterOpenAIOptions, 'registry'>,
): ModelRegistry;
export function registerOpenAI(
  first: RegisterOpenAIOptions | ModelRegistry = {},
  second: RegisterOpenAIOptions = {},
): ModelRegistry {
  const { registry = defaultModelRegistry, ...options }: RegisterOpenAIOptions = isRegistry(first)
    ? { ...second, registry: first }
    : first;
  const { endpoints = {}, responses, api = 'chat', ...base } = options;
  const responsesOptions: OpenAIResponsesOptions = {
    ...pickTransport(base),
    ...(base.apiKey !== undefined ? { apiKey: base.apiKey } : {}),
    ...(base.baseURL ? { baseURL: base.baseURL } : {}),
    ...(base.organization ? { organization: base.organization } : {}),
    ...(base.project ? { project: base.project } : {}),
    ...responses,
  };
  const responsesModel = (model: string): string | undefined => {
    if (model.startsWith('openai/responses/')) return model.slice('openai/responses/'.length);
    return api === 'responses' && OPENAI_MODEL_PATTERN.test(model) ? model : undefined;
  };
  const all: Record<string, OpenAIChatOptions> = {
    ollama: { apiKey: null, ...pickTransport(base), baseURL: 'http://localhost:11434/v1' },
    ...endpoints,
    openai: base,
  };
  const route = (model: string): { options: OpenAIChatOptions; model: string } | undefined => {
    const slash = model.indexOf('/');
    if (slash > 0) {
      const endpoint = all[model.slice(0, slash)];
      if (endpoint) return { options: endpoint, model: model.slice(slash + 1) };
    }
    return OPENAI_MODEL_PATTERN.test(model) ? { options: base, model } : undefined;
  };
  return registry.register({
    name: 'openai',
    matches: (model) => responsesModel(model) !== undefined || route(model) !== undefined,
    create: (model) => {
      const viaResponses = responsesModel(model);
      if (viaResponses !== undefined) return new OpenAIResponses(viaResponses, responsesOptions);
      const target = route(model) ?? { options: base, model };
      return new OpenAIChat(target.model, target.options);
    },
  });
}

function pickTransport(options: OpenAIChatOptions): OpenAIChatOptions {
  const { fetch, dispatcher, timeouts, retry } = options;
  return {
    ...(fetch ? { fetch } : {}),
    ...(dispatcher ? { dispatcher } : {}),
    ...(timeouts ? { timeouts } : {}),
    ...(retry !== undefined ? { retry } : {}),
  };
}

/** A registry (the old positional form) rather than options: it has `register` and `resolve`. */
function isRegistry(value: unknown): value is ModelRegistry {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ModelRegistry).register === 'function' &&
    typeof (value as ModelRegistry).resolve === 'function'
  );
}
