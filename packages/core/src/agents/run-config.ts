import type { GenerateConfig } from '../models/llm.js';

export interface RunConfig {
  /** Stream partial text/thought chunks as partial events before each aggregated event. */
  streaming?: boolean;
  /** Model calls allowed per invocation (default 500); exceeding it ends the run with an error event. */
  maxLlmCalls?: number;
  /** Overrides merged over each agent's generateConfig. */
  generateConfig?: GenerateConfig;
  /** Stream AgentTool's inner events to the caller. */
  streamAgentToolEvents?: boolean;
  /** Free-form values for plugins and custom agents. */
  custom?: Record<string, unknown>;
}

export const DEFAULT_MAX_LLM_CALLS = 500;
