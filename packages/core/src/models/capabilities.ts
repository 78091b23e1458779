import type { Llm } from './llm.js';

/**
 * What a model can do, declared by its provider per model family. The flow reads these instead of
 * branching on model names; a model that declares nothing gets {@link DEFAULT_MODEL_CAPABILITIES}.
 */
export interface ModelCapabilities {
  /**
   * The model accepts a response schema together with function tools in one request. When false,
   * an agent with both an output schema and tools gets the `set_model_response` tool instead.
   */
  responseSchemaWithTools?: boolean;
  /**
   * How the model is asked to think: not at all, with a token budget, with effort levels, or
   * adaptively (the model decides; budgets are refused).
   */
  thinking?: 'none' | 'budget' | 'effort' | 'adaptive';
  /** The model may return several function calls in one response. */
  parallelToolCalls?: boolean;
  /** Vendor-run tools the model accepts (names as in `BuiltInToolSpec.type`). */
  builtInTools?: readonly string[];
}

/** Safe defaults for a model whose provider declares nothing. */
export const DEFAULT_MODEL_CAPABILITIES: Readonly<Required<ModelCapabilities>> =
  /* @__PURE__ */ Object.freeze({
    responseSchemaWithTools: false,
    thinking: 'none',
    parallelToolCalls: true,
    builtInTools: Object.freeze([]) as readonly string[],
  });

/** The capabilities of `llm`, with the defaults filled in. */
export function modelCapabilities(llm: Pick<Llm, 'capabilities'>): Required<ModelCapabilities> {
  return { ...DEFAULT_MODEL_CAPABILITIES, ...llm.capabilities };
}
