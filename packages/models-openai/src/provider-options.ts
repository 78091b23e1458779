/**
 * `providerOptions.openai`: fields copied into the request body of the Chat Completions and
 * Responses APIs (and of OpenAI-compatible servers, e.g. `top_k` for vLLM).
 */
export interface OpenAIProviderOptions {
  user?: string;
  /** A stable id for abuse monitoring (replaces `user`). */
  safety_identifier?: string;
  prompt_cache_key?: string;
  service_tier?: 'auto' | 'default' | 'flex' | 'priority' | 'scale';
  parallel_tool_calls?: boolean;
  metadata?: Record<string, string>;
  store?: boolean;
  logit_bias?: Record<string, number>;
  [field: string]: unknown;
}

declare module '@adk/core' {
  interface ProviderOptionsNamespaces {
    openai: OpenAIProviderOptions;
  }
}
