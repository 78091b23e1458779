/**
 * The namespaces of `GenerateConfig.providerOptions`, one per provider. Each provider package adds
 * its own by declaration merging, so the options of an imported provider are typed:
 *
 * ```ts no-check
 * declare module '@adk/core' {
 *   interface ProviderOptionsNamespaces {
 *     acme: AcmeProviderOptions;
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by provider packages through declaration merging
export interface ProviderOptionsNamespaces {}

/**
 * Vendor request fields by provider namespace: `{ gemini: {…}, anthropic: {…}, openai: {…} }`. A
 * provider reads only its own namespace, so an agent that switches model never sends one vendor's
 * fields to another. Fields outside any namespace (the old, flat shape) still reach every provider
 * for one minor version, with a warning.
 */
export type ProviderOptions = { [K in keyof ProviderOptionsNamespaces]?: ProviderOptionsNamespaces[K] } & {
  [namespace: string]: unknown;
};

const NAMESPACES = new Set([
  // Our providers.
  'gemini',
  'anthropic',
  'openai',
  // Provider ids of AI SDK packages, passed through by @adk/models-ai-sdk.
  'google',
  'vertex',
  'azure',
  'bedrock',
  'mistral',
  'xai',
  'groq',
  'deepseek',
  'cohere',
  'ollama',
  'openaiCompatible',
  'togetherai',
  'fireworks',
  'perplexity',
  'cerebras',
  'deepinfra',
  'huggingface',
  'gateway',
]);

/** Declares another provider namespace (a provider outside this repository calls it once). */
export function registerProviderOptionsNamespace(namespace: string): void {
  NAMESPACES.add(namespace);
}

/** Whether `key` of `providerOptions` names a provider namespace rather than a flat (legacy) field. */
export function isProviderOptionsNamespace(key: string): boolean {
  return NAMESPACES.has(key);
}

const warned = new Set<string>();

/**
 * The vendor fields a provider sends: its own namespace of `options`, after the flat fields of the
 * deprecated un-namespaced shape (which warn once per field set). Undefined when there are none.
 */
export function providerOptionsFor(
  options: ProviderOptions | Record<string, unknown> | undefined,
  namespace: string,
): Record<string, unknown> | undefined {
  if (!options) return undefined;
  let flat: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(options)) {
    if (NAMESPACES.has(key)) continue;
    flat ??= {};
    flat[key] = value;
  }
  if (flat) {
    const keys = Object.keys(flat).sort().join(', ');
    if (!warned.has(keys)) {
      warned.add(keys);
      console.warn(
        `providerOptions: un-namespaced fields (${keys}) are deprecated and go to every provider; ` +
          `put them under the provider's namespace, e.g. { ${namespace}: { … } }.`,
      );
    }
  }
  const own = options[namespace];
  const mine =
    typeof own === 'object' && own !== null && !Array.isArray(own)
      ? (own as Record<string, unknown>)
      : undefined;
  if (!flat) return mine;
  return mine ? { ...flat, ...mine } : flat;
}
