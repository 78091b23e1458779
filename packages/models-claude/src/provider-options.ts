/**
 * `providerOptions.anthropic`: fields copied into the Messages API request body (`tools` entries
 * are added to ours, `output_config` is merged into ours).
 */
export interface AnthropicProviderOptions {
  metadata?: { user_id?: string };
  service_tier?: 'auto' | 'standard_only';
  /** Overrides the thinking block derived from `config.thinking`. */
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | { type: 'adaptive' };
  /** Merged into ours (`effort`, `format`). */
  output_config?: { effort?: string; format?: Record<string, unknown>; [field: string]: unknown };
  /** Added after the function and server tools. */
  tools?: Record<string, unknown>[];
  container?: string | Record<string, unknown>;
  context_management?: Record<string, unknown>;
  [field: string]: unknown;
}

declare module '@adk/core' {
  interface ProviderOptionsNamespaces {
    anthropic: AnthropicProviderOptions;
  }
}
