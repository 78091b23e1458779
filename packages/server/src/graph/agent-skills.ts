import { type BaseAgent, LlmAgent, type ToolUnion } from '@adk/core';
import { isToolset } from '@adk/core/internal';
import { walkAgentTree } from './agent-tree.js';

/** A skill as the dev UI lists it. */
export interface SkillSummary {
  name: string;
  description: string;
}

/** The skills an agent of the app can load, and the state key that marks one loaded. */
export interface AgentSkills {
  agent: string;
  skills: SkillSummary[];
  /** `<statePrefix><skill>` is `true` in the session state while the skill is loaded. */
  statePrefix: string;
}

/** What a toolset must offer to be listed: `@adk/skills`' `SkillToolset` has it. */
interface SkillSource {
  skills(): Promise<ReadonlyMap<string, { name: string; description: string }>>;
}

function isSkillSource(value: ToolUnion): value is ToolUnion & SkillSource {
  return isToolset(value) && typeof (value as { skills?: unknown }).skills === 'function';
}

/**
 * The skills of every LLM agent of the app (sub-agents and agents used as tools included), read from
 * their toolsets that list skills — without depending on `@adk/skills`. A toolset whose skills fail
 * to load is listed with none rather than failing the whole answer.
 */
export async function agentSkills(root: BaseAgent): Promise<AgentSkills[]> {
  const sources = new Map<LlmAgent, SkillSource[]>();
  walkAgentTree(root, {
    agent: (agent) => {
      if (agent instanceof LlmAgent) sources.set(agent, []);
    },
    tool: (owner, tool) => {
      if (isSkillSource(tool)) sources.get(owner)?.push(tool);
    },
  });
  const out: AgentSkills[] = [];
  for (const [{ name: agent }, toolsets] of sources) {
    const skills: SkillSummary[] = [];
    for (const toolset of toolsets) {
      const map = await toolset.skills().catch(() => new Map<string, SkillSummary>());
      for (const skill of map.values()) skills.push({ name: skill.name, description: skill.description });
    }
    if (skills.length > 0) out.push({ agent, skills, statePrefix: `_adk_skill:${agent}:` });
  }
  return out;
}
