import { AgentTool, type BaseAgent, LlmAgent, type ToolUnion } from '@adk/core';

/** What the walk reports, in order: an agent, then each of its tools and sub-agents. */
export interface AgentTreeVisitor {
  /** An agent, once, when first reached. */
  agent?(agent: BaseAgent): void;
  /** A tool (or toolset) of an LLM agent; `AgentTool`s are reported as `child` instead. */
  tool?(owner: LlmAgent, tool: ToolUnion): void;
  /** A sub-agent or an agent used as a tool, after its own subtree was walked. */
  child?(parent: BaseAgent, child: BaseAgent, kind: 'sub_agent' | 'tool'): void;
}

/**
 * Walks the agent tree from `root`: LLM agents' tools, agents used as tools (`AgentTool`) and
 * sub-agents, each agent's subtree once even when it is reached twice.
 */
export function walkAgentTree(root: BaseAgent, visitor: AgentTreeVisitor): void {
  const seen = new Set<BaseAgent>();
  const visit = (agent: BaseAgent): void => {
    if (seen.has(agent)) return;
    seen.add(agent);
    visitor.agent?.(agent);
    if (agent instanceof LlmAgent)
      for (const tool of agent.tools) {
        if (tool instanceof AgentTool) {
          visit(tool.agent);
          visitor.child?.(agent, tool.agent, 'tool');
        } else visitor.tool?.(agent, tool);
      }
    for (const sub of agent.subAgents) {
      visit(sub);
      visitor.child?.(agent, sub, 'sub_agent');
    }
  };
  visit(root);
}
