/**
 * `providerOptions.gemini`: fields merged into the `generateContent` request body. Objects such as
 * `generationConfig` are merged one level deep into ours; `tools` entries are added to ours.
 */
export interface GeminiProviderOptions {
  safetySettings?: { category: string; threshold: string; method?: string }[];
  /** Merged into ours, e.g. `{ candidateCount, responseModalities, mediaResolution }`. */
  generationConfig?: Record<string, unknown>;
  /** Merged into ours, e.g. `{ retrievalConfig }`. */
  toolConfig?: Record<string, unknown>;
  /** Added after the declared function and built-in tools. */
  tools?: Record<string, unknown>[];
  /** A `cachedContents/…` resource name. */
  cachedContent?: string;
  /** Vertex AI billing labels. */
  labels?: Record<string, string>;
  [field: string]: unknown;
}

declare module '@adk/core' {
  interface ProviderOptionsNamespaces {
    gemini: GeminiProviderOptions;
  }
}
