import { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { Llm } from '../models/llm.js';
import type { ModelRegistry } from '../models/registry.js';

/**
 * The configuration checks a run makes before it starts (docs/decisions/0022-loud-configuration-errors.md):
 * every model of the agent tree (agents wrapped as tools included) resolves through the registry,
 * and each says its configuration is complete (`Llm.validateConfiguration`: an API key…). Throws
 * the first typed error: `ProviderNotRegisteredError`, `ModelNotFoundError`, `MissingApiKeyError`.
 * Reads no session and calls no model.
 */
export function checkRunConfiguration(root: BaseAgent, models: ModelRegistry): void {
  const checked = new Set<Llm>();
  const seen = new Set<BaseAgent>();
  const visit = (agent: BaseAgent): void => {
    for (const a of agent.descendantsAndSelf()) {
      if (seen.has(a)) continue;
      seen.add(a);
      if (!(a instanceof LlmAgent)) continue;
      const model = a.canonicalModel;
      if (model !== undefined) {
        const llm = typeof model === 'string' ? models.resolve(model) : model;
        if (!checked.has(llm)) {
          checked.add(llm);
          llm.validateConfiguration?.();
        }
      }
      for (const entry of a.tools) {
        // An AgentTool (not imported here: it imports the Runner) carries its own agent tree.
        const inner = (entry as { agent?: unknown }).agent;
        if (inner instanceof BaseAgent) visit(inner);
      }
    }
  };
  visit(root);
}
