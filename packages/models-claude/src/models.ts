import type { ModelCapabilities } from '@adk/core';

/** Claude `output_config.effort` levels. */
export type ClaudeEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * What one Claude model family accepts in a request. The request mapping reads this instead of
 * sending fields a model answers with a 400.
 */
export interface ClaudeModelProfile {
  /** Accepts `thinking: {type: 'enabled', budget_tokens}` and `{type: 'disabled'}`. */
  budgetThinking: boolean;
  /** Accepts `thinking: {type: 'adaptive'}` (the model decides how much to think). */
  adaptiveThinking: boolean;
  /** `output_config.effort` levels the model accepts (empty: none). */
  effort: readonly ClaudeEffort[];
  /**
   * Sampling parameters: 'all' (temperature, top_p, top_k), 'one' (temperature and top_p not
   * together), 'none' (temperature, top_p and top_k are refused).
   */
  sampling: 'all' | 'one' | 'none';
  /** GA structured outputs (`output_config.format`). */
  structuredOutputs: boolean;
}

const LEGACY: ClaudeModelProfile = {
  budgetThinking: false,
  adaptiveThinking: false,
  effort: [],
  sampling: 'all',
  structuredOutputs: false,
};
const BUDGET: ClaudeModelProfile = { ...LEGACY, budgetThinking: true };
const BUDGET_STRUCTURED: ClaudeModelProfile = { ...BUDGET, sampling: 'one', structuredOutputs: true };
const LATEST: ClaudeModelProfile = {
  budgetThinking: false,
  adaptiveThinking: true,
  effort: ['low', 'medium', 'high', 'xhigh', 'max'],
  sampling: 'none',
  structuredOutputs: true,
};

/**
 * Model families, newest first; the first pattern that matches the bare model id wins. A Claude
 * name matching none (a model newer than this table) gets the newest profile, since new models
 * keep the newest request shape.
 */
export const CLAUDE_MODEL_PROFILES: readonly (readonly [RegExp, ClaudeModelProfile])[] = [
  [/^claude-(opus-4-7|mythos)/, LATEST],
  [
    /^claude-opus-4-6/,
    {
      budgetThinking: true,
      adaptiveThinking: true,
      effort: ['low', 'medium', 'high', 'max'],
      sampling: 'one',
      structuredOutputs: true,
    },
  ],
  [
    /^claude-sonnet-4-6/,
    {
      budgetThinking: true,
      adaptiveThinking: true,
      effort: ['low', 'medium', 'high'],
      sampling: 'one',
      structuredOutputs: true,
    },
  ],
  [/^claude-opus-4-5/, { ...BUDGET_STRUCTURED, effort: ['low', 'medium', 'high'] }],
  [/^claude-(sonnet-4-5|haiku-4-5|opus-4-1)/, BUDGET_STRUCTURED],
  [/^claude-(sonnet-4|opus-4|3-7-sonnet)/, BUDGET],
  [/^claude-(3|instant|2)/, LEGACY],
];

/**
 * The bare model id of a name as the three endpoints spell it: 'anthropic/claude-…' (registry),
 * 'anthropic.claude-…-v1:0' and regional 'us.anthropic.…' (Bedrock), 'claude-…@20250929' (Vertex AI).
 */
export function claudeModelId(model: string): string {
  return model
    .replace(/^(anthropic\/|([a-z]{2,4}\.)?anthropic\.)/, '')
    .replace(/@.*$/, '')
    .replace(/-v\d+(:\d+)?$/, '');
}

/** The request profile of `model` (see {@link CLAUDE_MODEL_PROFILES}). */
export function claudeModelProfile(model: string): ClaudeModelProfile {
  const id = claudeModelId(model);
  for (const [pattern, profile] of CLAUDE_MODEL_PROFILES) if (pattern.test(id)) return profile;
  return LATEST;
}

/**
 * What a Claude model can do. `responseSchemaWithTools` is false as in adk-python (an agent with
 * tools and an output schema gets `set_model_response`); server tools are those this package sends.
 */
export function claudeCapabilities(model: string, builtInTools: readonly string[]): ModelCapabilities {
  const profile = claudeModelProfile(model);
  return {
    responseSchemaWithTools: false,
    thinking: profile.adaptiveThinking ? 'adaptive' : profile.budgetThinking ? 'budget' : 'none',
    parallelToolCalls: true,
    builtInTools,
  };
}
