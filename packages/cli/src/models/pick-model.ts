import { type BaseAgent, type Llm, LlmAgent, ModelRegistry } from '@adk/core';
import { registerClaude } from '@adk/models-claude';
import { registerGemini } from '@adk/models-gemini';
import { registerOpenAI } from '@adk/models-openai';
import { DemoModel, type DemoModelOptions } from './demo-model.js';

type Env = Record<string, string | undefined>;

/** The provider keys looked for, in order, with the model used for each (override: ADK_MODEL). */
export const PROVIDER_KEYS: readonly { envVar: string; provider: string; model: string }[] = [
  { envVar: 'GEMINI_API_KEY', provider: 'gemini', model: 'gemini-2.5-flash' },
  { envVar: 'GOOGLE_API_KEY', provider: 'gemini', model: 'gemini-2.5-flash' },
  { envVar: 'ANTHROPIC_API_KEY', provider: 'claude', model: 'claude-sonnet-4-5' },
  { envVar: 'OPENAI_API_KEY', provider: 'openai', model: 'gpt-4.1-mini' },
];

export interface ModelChoice {
  /** The model name (a registry name), or 'adk-demo' for the offline demo model. */
  model: string;
  /** The environment variable whose key is used; undefined for the demo model. */
  envVar: string | undefined;
  /** One line for a startup banner. */
  description: string;
}

/** Which model `pickModel` would use with this environment. */
export function describeModelChoice(env: Env = process.env): ModelChoice {
  for (const key of PROVIDER_KEYS) {
    if (env[key.envVar]) {
      const model = env.ADK_MODEL || key.model;
      return { model, envVar: key.envVar, description: `${model} (key from ${key.envVar})` };
    }
  }
  return {
    model: 'adk-demo',
    envVar: undefined,
    description:
      'offline demo model (no GEMINI_API_KEY, GOOGLE_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY set)',
  };
}

/** Registers the Gemini, Claude and OpenAI providers on a registry. */
export function registerProviders(registry: ModelRegistry): ModelRegistry {
  registerGemini(registry);
  registerClaude(registry);
  registerOpenAI(registry);
  return registry;
}

export interface PickModelOptions {
  env?: Env;
  demo?: DemoModelOptions;
}

/**
 * The model for an example or a scaffolded agent: a real provider when GEMINI_API_KEY /
 * GOOGLE_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY is set (first match wins; ADK_MODEL picks
 * the model name), otherwise the offline {@link DemoModel}.
 */
export function pickModel(options: PickModelOptions = {}): Llm {
  const choice = describeModelChoice(options.env);
  if (!choice.envVar) return new DemoModel(options.demo);
  return registerProviders(new ModelRegistry()).resolve(choice.model);
}

/** The name of the CLI's key-based providers on a registry (one entry for all three). */
export const KEYED_PROVIDERS_NAME = 'adk-cli-keyed';
/** The name of the CLI's offline demo model on a registry. */
export const DEMO_PROVIDER_NAME = 'adk-demo';

/**
 * Makes a registry serve agents that name their model (e.g. `model: 'gemini-2.5-flash'`): the
 * real providers when their key is set, and the offline demo model for every other name, so an
 * agent written for a real model still runs, plainly labelled, without a key. Used by `adk run`,
 * `adk web`, `adk api_server`, `adk eval`, `adk worker`, `adk mcp` and `adk conformance` on the
 * process-wide registry.
 *
 * Both go in the registry's fallback tier: a provider the app registers itself (a third party's
 * `registerAcme(defaultModelRegistry)`, or its own `registerGemini` with options), before or after
 * this call, is asked first; the keyed providers come next and the demo model answers only names
 * nothing else matches.
 */
export function registerModelsFromEnv(registry: ModelRegistry, env: Env = process.env): ModelRegistry {
  const demo = new DemoModel();
  // Within a tier later registrations win: the demo model first, the keyed providers over it.
  registry.register(
    { name: DEMO_PROVIDER_NAME, matches: () => true, create: () => demo },
    { tier: 'fallback' },
  );
  const keyedNames = new Set(PROVIDER_KEYS.filter((k) => env[k.envVar]).map((k) => k.provider));
  if (keyedNames.size === 0) {
    registry.unregister(KEYED_PROVIDERS_NAME);
    return registry;
  }
  const keyed = new ModelRegistry();
  if (keyedNames.has('gemini')) registerGemini(keyed);
  if (keyedNames.has('claude')) registerClaude(keyed);
  if (keyedNames.has('openai')) registerOpenAI(keyed);
  registry.register(
    {
      name: KEYED_PROVIDERS_NAME,
      matches: (model) => keyed.has(model),
      create: (model) => keyed.resolve(model),
    },
    { tier: 'fallback' },
  );
  return registry;
}

/** One line saying which model an agent tree will use (its first LlmAgent's), for banners. */
export function describeAgentModel(agent: BaseAgent, registry: ModelRegistry): string {
  const stack: BaseAgent[] = [agent];
  while (stack.length > 0) {
    const next = stack.shift() as BaseAgent;
    if (next instanceof LlmAgent && next.model !== undefined) {
      let llm: Llm;
      try {
        llm = typeof next.model === 'string' ? registry.resolve(next.model) : next.model;
      } catch {
        return `${String(next.model)} (no provider registered for it)`;
      }
      if (llm instanceof DemoModel) {
        return typeof next.model === 'string'
          ? `offline demo model (the agent asks for "${next.model}"; no key for it is set)`
          : describeModelChoice({}).description;
      }
      return llm.model;
    }
    stack.push(...next.subAgents);
  }
  return describeModelChoice().description;
}
