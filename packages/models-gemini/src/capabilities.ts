import type { ModelCapabilities } from '@adk/core';
import { GEMINI_BUILT_IN_TOOLS } from './convert-request.js';

/**
 * The Gemini version a model name carries ('gemini-2.5-flash' → 2.5), or undefined for names
 * without one ('gemini-exp-1206', 'gemini-early-exp'), which ADK treats as current models.
 */
export function geminiVersion(model: string): number | undefined {
  const match = /^(?:models\/)?gemini-(\d+(?:\.\d+)?)/.exec(model);
  return match ? Number(match[1]) : undefined;
}

/**
 * What a Gemini model can do, per model family.
 *
 * - `responseSchemaWithTools`: as adk-python decides it (`can_use_output_schema_with_tools`): a
 *   Gemini 2 or later model on Vertex AI; never on the Gemini API, never Gemma.
 * - `thinking`: Gemini 3 takes `thinkingLevel` (effort), Gemini 2.5 a `thinkingBudget`, older
 *   models and Gemma do not think.
 */
export function geminiCapabilities(model: string, options: { vertex: boolean }): ModelCapabilities {
  const name = model.replace(/^models\//, '');
  if (!name.startsWith('gemini-')) {
    // Gemma and LearnLM: function calling, no server tools, no schema with tools, no thinking.
    return { responseSchemaWithTools: false, thinking: 'none', parallelToolCalls: true, builtInTools: [] };
  }
  const version = geminiVersion(name);
  const current = version === undefined || version >= 2;
  return {
    responseSchemaWithTools: options.vertex && current,
    thinking: version === undefined || version >= 3 ? 'effort' : version >= 2.5 ? 'budget' : 'none',
    parallelToolCalls: true,
    builtInTools: current ? GEMINI_BUILT_IN_TOOLS : ['googleSearch'],
  };
}
