/**
 * Which guardrails apply where: synchronous look-ups the plain agent loop asks on every turn. The
 * checks themselves (`run-guardrails.ts`) are imported only when one applies (`load.ts`).
 */
import type { BaseAgent } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import {
  type Guardrail,
  type GuardrailPoint,
  type GuardrailStreaming,
  isGuardrailPlugin,
} from './guardrail.js';

/** The guardrail options an LlmAgent carries (read structurally: no import cycle with the agent). */
interface GuardedAgent {
  inputGuardrails?: readonly Guardrail[];
  outputGuardrails?: readonly Guardrail[];
  toolGuardrails?: readonly Guardrail[];
  guardrailStreaming?: GuardrailStreaming;
}

interface PluginGuardrails {
  /** The plugins these were collected from. */
  plugins?: readonly unknown[];
  count: number;
  input: Guardrail[];
  output: Guardrail[];
  tool: Guardrail[];
  streaming: GuardrailStreaming | undefined;
}

const EMPTY: PluginGuardrails = { count: 0, input: [], output: [], tool: [], streaming: undefined };
const byManager = new WeakMap<PluginManager, PluginGuardrails>();

export function pluginGuardrails(manager: PluginManager): PluginGuardrails {
  if (manager.isEmpty) return EMPTY;
  const plugins = manager.list();
  const cached = byManager.get(manager);
  // The same plugins (not just as many): a plugin swapped for another is seen.
  if (
    cached?.plugins &&
    cached.plugins.length === plugins.length &&
    cached.plugins.every((p, i) => p === plugins[i])
  )
    return cached;
  const found: PluginGuardrails = {
    plugins: [...plugins],
    count: plugins.length,
    input: [],
    output: [],
    tool: [],
    streaming: undefined,
  };
  for (const plugin of plugins) {
    if (!isGuardrailPlugin(plugin)) continue;
    found.input.push(...plugin.guardrails.input);
    found.output.push(...plugin.guardrails.output);
    found.tool.push(...plugin.guardrails.tool);
    found.streaming ??= plugin.streaming;
  }
  byManager.set(manager, found);
  return found;
}

export function applies(guardrail: Guardrail, point: GuardrailPoint): boolean {
  return guardrail.points === undefined || guardrail.points.includes(point);
}

/** The guardrails of `agent` (plus the runner's plugin) at `point`. */
export function guardrailsAt(ctx: InvocationContext, agent: BaseAgent, point: GuardrailPoint): Guardrail[] {
  const fromPlugins = pluginGuardrails(ctx.pluginManager);
  const own = agent as unknown as GuardedAgent;
  let list: readonly Guardrail[];
  let mine: readonly Guardrail[] | undefined;
  if (point === 'input') {
    list = fromPlugins.input;
    mine = own.inputGuardrails;
  } else if (point === 'output') {
    list = fromPlugins.output;
    mine = own.outputGuardrails;
  } else {
    list = fromPlugins.tool;
    mine = own.toolGuardrails;
  }
  if (list.length === 0 && (!mine || mine.length === 0)) return [];
  return [...list, ...(mine ?? [])].filter((g) => applies(g, point));
}

/** Whether a streamed answer of `agent` is held back until checked. */
export function buffersStream(ctx: InvocationContext, agent: BaseAgent): boolean {
  const mode =
    (agent as unknown as GuardedAgent).guardrailStreaming ?? pluginGuardrails(ctx.pluginManager).streaming;
  if (mode === 'retract') return false;
  return guardrailsAt(ctx, agent, 'output').length > 0 || guardrailsAt(ctx, agent, 'toolInput').length > 0;
}

/** Every agent's input guardrails in the tree (the message is committed once, before any agent sees it). */
const treeInput = new WeakMap<BaseAgent, Guardrail[]>();

export function inputGuardrailsOfTree(root: BaseAgent): Guardrail[] {
  const cached = treeInput.get(root);
  if (cached) return cached;
  const found: Guardrail[] = [];
  const walk = (agent: BaseAgent) => {
    for (const g of (agent as unknown as GuardedAgent).inputGuardrails ?? [])
      if (!found.includes(g)) found.push(g);
    for (const child of agent.subAgents) walk(child);
  };
  walk(root);
  treeInput.set(root, found);
  return found;
}

/** Whether any input guardrail applies to messages for this agent tree. */
export function hasInputGuardrails(manager: PluginManager, root: BaseAgent): boolean {
  return pluginGuardrails(manager).input.length > 0 || inputGuardrailsOfTree(root).length > 0;
}
