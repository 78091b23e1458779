import type { ModelCapabilities } from '@adk/core';

/** OpenAI reasoning models: o-series and gpt-5 (they take `reasoning_effort`). */
export const OPENAI_REASONING_MODEL = /^(o\d|gpt-5)/;

/**
 * What an OpenAI model can do through Chat Completions, per model family. Structured Outputs with
 * tools needs a model that supports `json_schema` response formats (gpt-4o and later, o-series
 * except o1-mini/o1-preview, gpt-5); other servers behind the same API (Ollama, vLLM, LiteLLM…) get
 * the safe defaults, since many implement response formats by constrained decoding that rules out
 * tool calls. `builtInTools` lists nothing: Chat Completions has no vendor-run tools.
 */
export function openaiChatCapabilities(model: string, options: { openai: boolean }): ModelCapabilities {
  if (!options.openai) return { responseSchemaWithTools: false, thinking: 'none', builtInTools: [] };
  const reasoning = OPENAI_REASONING_MODEL.test(model);
  return {
    responseSchemaWithTools: supportsJsonSchema(model),
    thinking: reasoning ? 'effort' : 'none',
    parallelToolCalls: !/^o1-(mini|preview)/.test(model),
    builtInTools: [],
  };
}

function supportsJsonSchema(model: string): boolean {
  if (/^o1-(mini|preview)/.test(model)) return false;
  if (/^gpt-4o-2024-05-13$/.test(model)) return false;
  return /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o\d)/.test(model);
}
