import { AgentTool, type BaseAgent, LlmAgent, type ToolUnion } from '@adk/core';
import { isToolset } from '@adk/core/internal';

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
  const out: AgentSkills[] = [];
  const seen = new Set<BaseAgent>();
  const visit = async (agent: BaseAgent): Promise<void> => {
    if (seen.has(agent)) return;
    seen.add(agent);
    if (agent instanceof LlmAgent) {
      const skills: SkillSummary[] = [];
      for (const tool of agent.tools) {
        if (tool instanceof AgentTool) await visit(tool.agent);
        else if (isSkillSource(tool)) {
          const map = await tool.skills().catch(() => new Map<string, SkillSummary>());
          for (const skill of map.values()) skills.push({ name: skill.name, description: skill.description });
        }
      }
      if (skills.length > 0)
        out.push({ agent: agent.name, skills, statePrefix: `_adk_skill:${agent.name}:` });
    }
    for (const sub of agent.subAgents) await visit(sub);
  };
  await visit(root);
  return out;
}
