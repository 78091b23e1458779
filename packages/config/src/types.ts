// The shapes of Agent Config files (snake_case, as written in YAML). Validated against
// AgentConfig.json before they are built.

export interface ArgumentConfig {
  name?: string | null;
  value: unknown;
}

/** A reference to code: a dotted name (module path + export) or a registered name, with optional args. */
export interface CodeConfig {
  name: string;
  args?: ArgumentConfig[] | null;
}

/** Another agent: a YAML file relative to this one, or a dotted name of an agent instance. */
export interface AgentRefConfig {
  config_path?: string | null;
  code?: string | null;
}

/** A scorer on live traffic: exactly one of `code`, `metric` or `rubric`. */
export interface ScorerConfig {
  name?: string;
  version?: string;
  sample_rate?: number;
  timeout_ms?: number;
  filter?: CodeConfig;
  code?: CodeConfig;
  metric?: string;
  threshold?: number;
  rubric?: string;
  judge_model?: string;
  scale?: { min: number; max: number };
}

export interface ToolConfig {
  name: string;
  args?: Record<string, unknown> | null;
}

export interface BaseAgentConfig {
  agent_class?: string;
  name: string;
  description?: string;
  sub_agents?: AgentRefConfig[] | null;
  scorers?: ScorerConfig[] | null;
  before_agent_callbacks?: CodeConfig[] | null;
  after_agent_callbacks?: CodeConfig[] | null;
  /** Custom agent classes may take more keys. */
  [key: string]: unknown;
}

export interface ContentConfig {
  role?: string;
  parts: Record<string, unknown>[];
}

export interface LlmAgentConfig extends BaseAgentConfig {
  model?: string | null;
  model_code?: CodeConfig | null;
  instruction: string;
  static_instruction?: string | ContentConfig | null;
  disallow_transfer_to_parent?: boolean | null;
  disallow_transfer_to_peers?: boolean | null;
  input_schema?: CodeConfig | null;
  output_schema?: CodeConfig | null;
  output_key?: string | null;
  include_contents?: 'default' | 'none';
  tools?: ToolConfig[] | null;
  before_model_callbacks?: CodeConfig[] | null;
  after_model_callbacks?: CodeConfig[] | null;
  before_tool_callbacks?: CodeConfig[] | null;
  after_tool_callbacks?: CodeConfig[] | null;
  /** Guardrails (docs/decisions/0030-guardrails.md): code references to `Guardrail` objects or factories called with `args`. */
  input_guardrails?: CodeConfig[] | null;
  output_guardrails?: CodeConfig[] | null;
  tool_guardrails?: CodeConfig[] | null;
  generate_content_config?: Record<string, unknown> | null;
  /** LlmAgent.memory (docs/decisions/0037-agent-memory-prompt-position.md). */
  memory?: MemoryConfig | null;
}

/** `memory:` of an LlmAgent config; every feature is off unless given. */
export interface MemoryConfig {
  recall?:
    | boolean
    | {
        top_k?: number;
        neighbours?: number;
        min_score?: number;
        kinds?: ('turn' | 'observation' | 'fact')[];
      };
  profile?: {
    template?: string;
    schema?: CodeConfig;
    scope?: 'user' | 'session';
    state_key?: string;
    update?: 'tool' | 'background';
  };
  observe?:
    | boolean
    | {
        model?: string;
        observe_at_tokens?: number;
        keep_recent_tokens?: number;
        reflect_at_tokens?: number;
        min_chars?: number;
        max_attempts?: number;
        backoff_ms?: number;
        max_backoff_ms?: number;
        instruction?: string;
        reflect_instruction?: string;
      };
  facts?: boolean | { model?: string; context_facts?: number; instruction?: string };
}

export interface LoopAgentConfig extends BaseAgentConfig {
  max_iterations?: number | null;
}

export type AgentConfig = LlmAgentConfig | LoopAgentConfig | WorkflowConfig | BaseAgentConfig;

/** One element of a workflow chain: a node, a fan-out group, or a routing map. */
export type ChainElementConfig = string | string[] | Record<string, string | string[]>;

export interface EdgeConfig {
  from_node: string;
  to_node: string;
  route?: string | number | boolean | (string | number | boolean)[] | null;
}

export interface WorkflowConfig extends BaseAgentConfig {
  max_concurrency?: number | null;
  edges: (ChainElementConfig[] | EdgeConfig)[];
}
