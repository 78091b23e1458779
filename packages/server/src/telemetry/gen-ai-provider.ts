/** The provider of each model name seen (null: cannot be told); bounded, names are the app's own. */
const providers = new Map<string, string | null>();

/**
 * The OpenTelemetry GenAI `gen_ai.provider.name` for a model name as ADK agents spell it (a bare
 * vendor model name, or a `provider/model` registry name). Undefined when it cannot be told.
 */
export function genAiProviderName(model: string): string | undefined {
  // Every model call asks, for the same few models: each name is worked out once.
  let known = providers.get(model);
  if (known === undefined) {
    known = providerOf(model) ?? null;
    if (providers.size < 1000) providers.set(model, known);
  }
  return known ?? undefined;
}

function providerOf(model: string): string | undefined {
  const m = model.trim().toLowerCase();
  const slash = m.indexOf('/');
  if (slash > 0) {
    const prefix = m.slice(0, slash);
    const known: Record<string, string> = {
      openai: 'openai',
      azure: 'azure.ai.openai',
      anthropic: 'anthropic',
      gemini: 'gcp.gemini',
      google: 'gcp.gemini',
      vertex: 'gcp.vertex_ai',
      vertex_ai: 'gcp.vertex_ai',
      groq: 'groq',
      mistral: 'mistral_ai',
      deepseek: 'deepseek',
      ollama: 'ollama',
      openrouter: 'openrouter',
      together: 'together',
    };
    return known[prefix] ?? prefix;
  }
  if (m.startsWith('gemini') || m.startsWith('gemma')) return 'gcp.gemini';
  if (m.startsWith('claude')) return 'anthropic';
  if (/^(gpt-|o\d|chatgpt|text-embedding|davinci)/.test(m)) return 'openai';
  if (m.startsWith('mistral') || m.startsWith('codestral')) return 'mistral_ai';
  return undefined;
}
