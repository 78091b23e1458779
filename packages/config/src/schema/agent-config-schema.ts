// The Agent Config schema as JSON Schema (draft 2020-12). This object is the single definition:
// the loader validates against it and `AgentConfig.json` is written from it
// (`pnpm --filter @adk/config schema`). Names of `$defs` and fields follow adk-python's
// `AgentConfig.json` so a file written for one validates against the other.
// Self-contained on purpose (no imports): the writer script loads it with plain Node.

type Json = Record<string, unknown>;

const nullable = (schema: Json): Json => {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
};
const ref = (name: string): Json => ({ $ref: `#/$defs/${name}` });
const listOf = (name: string, description: string): Json => ({
  type: ['array', 'null'],
  items: ref(name),
  default: null,
  description,
});

const codeRefDescription = (field: string) =>
  `Optional. ${field}: code references (\`name\` is a dotted name: \`my_app.callbacks.check\` is the export \`check\` of \`my_app/callbacks.ts\`, or a name given to registerConfigReferences).`;

const baseAgentProperties: Json = {
  agent_class: {
    type: 'string',
    default: 'BaseAgent',
    description:
      'Required. The class of the agent: LlmAgent (the default), SequentialAgent, ParallelAgent, LoopAgent, or the dotted name of a custom class.',
    title: 'Agent Class',
  },
  name: { type: 'string', description: 'Required. The name of the agent.', title: 'Name' },
  description: {
    type: 'string',
    default: '',
    description: 'Optional. The description of the agent.',
    title: 'Description',
  },
  sub_agents: listOf('AgentRefConfig', 'Optional. The sub-agents of the agent.'),
  scorers: listOf(
    'ScorerConfig',
    'Optional. Scorers on live traffic for the turns this agent runs as the root agent (ScorersPlugin of @adk/core; docs/decisions/0057-scorers-on-live-traffic.md).',
  ),
  before_agent_callbacks: listOf('CodeConfig', codeRefDescription('before_agent_callbacks')),
  after_agent_callbacks: listOf('CodeConfig', codeRefDescription('after_agent_callbacks')),
};

const agentClass = (name: string, description: string): Json => ({
  type: 'string',
  default: name,
  description,
  title: 'Agent Class',
});

const memoryConfig: Json = {
  type: 'object',
  additionalProperties: false,
  description:
    'Optional. LlmAgent.memory: memory features, each off unless given (docs/decisions/0037-agent-memory-prompt-position.md).',
  properties: {
    recall: {
      description:
        "Per-turn recall of the user's earlier turns before each model call: true for the defaults, or its settings.",
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            top_k: { type: 'integer', minimum: 0, description: 'Hits kept (default 5).' },
            neighbours: {
              type: 'integer',
              minimum: 0,
              description: 'Neighbouring turns shown before and after each hit (default 1).',
            },
            min_score: { type: 'number', description: 'Hits scoring below this are dropped.' },
            kinds: {
              type: 'array',
              items: { enum: ['turn', 'observation', 'fact'] },
              description: 'Kinds searched (default: all); facts come first.',
            },
          },
        },
      ],
    },
    profile: {
      type: 'object',
      additionalProperties: false,
      description:
        'Working memory: a profile kept in state and shown in the system instruction. Give template or schema.',
      properties: {
        template: { type: 'string', description: 'A Markdown document of "## Section" headings.' },
        schema: { ...ref('CodeConfig'), description: 'A code reference to a zod object schema.' },
        scope: { enum: ['user', 'session'], description: 'Default user (a user: state key).' },
        state_key: {
          type: 'string',
          minLength: 1,
          description: 'State key without prefix (default profile).',
        },
        update: {
          enum: ['tool', 'background'],
          description: 'update_profile tool (default) or the profile job.',
        },
      },
    },
    observe: {
      description:
        "Observations: older history replaced by dated, prioritised bullets written by an observer model (adds the recall tool). true for the defaults (the agent's model), or its settings.",
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            model: { type: 'string', minLength: 1, description: "Observer model (default: the agent's)." },
            observe_at_tokens: {
              type: 'integer',
              minimum: 1,
              description: 'Observe once the unobserved history holds this many tokens (default 30000).',
            },
            keep_recent_tokens: {
              type: 'integer',
              minimum: 0,
              description: 'Newest history kept as it is (default a fifth of observe_at_tokens).',
            },
            reflect_at_tokens: {
              type: 'integer',
              minimum: 1,
              description: 'Reflect once the observations hold this many tokens (default 40000).',
            },
            min_chars: {
              type: 'integer',
              minimum: 1,
              description: 'Shorter output is refused (default 20).',
            },
            max_attempts: {
              type: 'integer',
              minimum: 1,
              description: 'Model calls per observation or reflection (default 3).',
            },
            backoff_ms: { type: 'integer', minimum: 0, description: 'Back-off base in ms (default 1000).' },
            max_backoff_ms: {
              type: 'integer',
              minimum: 0,
              description: 'Back-off cap in ms (default 600000).',
            },
            instruction: { type: 'string', description: 'System instruction of the observer.' },
            reflect_instruction: { type: 'string', description: 'System instruction of the reflector.' },
          },
        },
      ],
    },
    facts: {
      description:
        "Facts extracted after each turn by the 'facts' memory job (one model call a turn). true for the defaults, or its settings.",
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            model: { type: 'string', minLength: 1, description: 'Extraction model.' },
            context_facts: {
              type: 'integer',
              minimum: 0,
              description: 'Current facts shown to the extractor (default 20).',
            },
            instruction: { type: 'string', description: 'System instruction of the extractor.' },
          },
        },
      ],
    },
  },
};
const generateContentConfig: Json = {
  type: 'object',
  additionalProperties: false,
  description:
    'Optional. LlmAgent.generate_content_config. Keys in camelCase (as in the Gemini API) or snake_case.',
  properties: Object.fromEntries(
    (
      [
        ['temperature', { type: 'number' }],
        ['topP', { type: 'number' }],
        ['topK', { type: 'number' }],
        ['maxOutputTokens', { type: 'integer', minimum: 1 }],
        ['stopSequences', { type: 'array', items: { type: 'string' } }],
        ['presencePenalty', { type: 'number' }],
        ['frequencyPenalty', { type: 'number' }],
        ['seed', { type: 'integer' }],
        ['responseMimeType', { type: 'string' }],
        ['responseSchema', { type: 'object' }],
        ['responseJsonSchema', { type: 'object' }],
        [
          'thinkingConfig',
          {
            type: 'object',
            additionalProperties: false,
            properties: {
              includeThoughts: { type: 'boolean' },
              include_thoughts: { type: 'boolean' },
              thinkingBudget: { type: 'integer' },
              thinking_budget: { type: 'integer' },
              thinkingLevel: {
                enum: ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH', 'minimal', 'low', 'medium', 'high'],
              },
              thinking_level: {
                enum: ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH', 'minimal', 'low', 'medium', 'high'],
              },
            },
          },
        ],
        ['labels', { type: 'object', additionalProperties: { type: 'string' } }],
        ['safetySettings', { type: 'array', items: { type: 'object' } }],
      ] as [string, Json][]
    ).flatMap(([camel, schema]) => {
      const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      return snake === camel
        ? [[camel, nullable(schema)]]
        : [
            [camel, nullable(schema)],
            [snake, nullable(schema)],
          ];
    }),
  ),
};

const content: Json = {
  type: 'object',
  description: 'A content: `role` and `parts` (each part a `text`, `inline_data`, ...).',
  required: ['parts'],
  properties: {
    role: { type: 'string' },
    parts: { type: 'array', items: { type: 'object' } },
  },
};

const mcpStdioParams: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['command'],
  properties: {
    command: { type: 'string' },
    args: { type: 'array', items: { type: 'string' } },
    env: nullable({ type: 'object', additionalProperties: { type: 'string' } }),
    cwd: nullable({ type: 'string' }),
  },
};

const mcpHttpParams: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string' },
    headers: nullable({ type: 'object', additionalProperties: { type: 'string' } }),
    timeout: nullable({ type: 'number', exclusiveMinimum: 0 }),
    sse_read_timeout: nullable({ type: 'number', exclusiveMinimum: 0 }),
    terminate_on_close: nullable({ type: 'boolean' }),
  },
};

// Where the published file can be fetched once the package is on npm (editors may use it as $schema).
export const AGENT_CONFIG_SCHEMA_ID = 'https://unpkg.com/@adk/config/AgentConfig.json';

/** The JSON Schema of a `root_agent.yaml` (and of every agent file it references). */
export const agentConfigJsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: AGENT_CONFIG_SCHEMA_ID,
  title: 'AgentConfig',
  description: 'The config for the YAML schema to create an agent.',
  anyOf: [
    ref('LlmAgentConfig'),
    ref('LoopAgentConfig'),
    ref('ParallelAgentConfig'),
    ref('SequentialAgentConfig'),
    ref('WorkflowConfig'),
    ref('BaseAgentConfig'),
  ],
  $defs: {
    ArgumentConfig: {
      type: 'object',
      additionalProperties: false,
      description: "An argument passed to a function or a class's constructor.",
      properties: { name: nullable({ type: 'string' }), value: { title: 'Value' } },
      required: ['value'],
      title: 'ArgumentConfig',
    },
    ScorerConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'A scorer: exactly one of `code` (a function of the turn, or a Scorer), `metric` (an @adk/eval metric by name) or `rubric` (an LLM judge).',
      properties: {
        name: {
          type: 'string',
          pattern: '^[A-Za-z0-9_.:-]{1,128}$',
          description: 'The scorer name (default: the metric name).',
        },
        version: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: "Stored with each result (default '1').",
        },
        sample_rate: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          description: 'Share of turns scored (default 1).',
        },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          description: 'A longer run is a failed score (default 30000).',
        },
        filter: {
          ...ref('CodeConfig'),
          description: 'A function of the turn: only turns it returns true for are scored.',
        },
        code: {
          ...ref('CodeConfig'),
          description: 'A score function `(turn) => number | { score, reason }`, or a Scorer.',
        },
        metric: {
          type: 'string',
          minLength: 1,
          description: 'An @adk/eval metric by name (e.g. safety_v1).',
        },
        threshold: { type: 'number', description: "The metric's criterion threshold (default 0.5)." },
        rubric: {
          type: 'string',
          minLength: 1,
          description: 'An LLM judge grades each turn against this rubric.',
        },
        judge_model: {
          type: 'string',
          minLength: 1,
          description: 'The judge model name (rubric and judged metrics).',
        },
        scale: {
          type: 'object',
          additionalProperties: false,
          properties: { min: { type: 'number' }, max: { type: 'number' } },
          required: ['min', 'max'],
          description: "The judge's score scale (default 0..1).",
        },
      },
      title: 'ScorerConfig',
    },
    CodeConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'A reference to code: `name` is a dotted name (the last segment is the export, the rest the module path under the agents folder) or a registered name; with `args`, the export is called with them.',
      properties: {
        name: { type: 'string', title: 'Name' },
        args: listOf('ArgumentConfig', 'Optional. Arguments the export is called with.'),
      },
      required: ['name'],
      title: 'CodeConfig',
    },
    AgentRefConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'A reference to another agent: `config_path` (a YAML file, relative to this one, inside the app folder) or `code` (a dotted name of an agent instance).',
      properties: {
        config_path: { type: ['string', 'null'], default: null, title: 'Config Path' },
        code: { type: ['string', 'null'], default: null, title: 'Code' },
      },
      title: 'AgentRefConfig',
    },
    ToolArgsConfig: {
      type: 'object',
      additionalProperties: true,
      description: 'The arguments of a tool: passed to its class or factory.',
      title: 'ToolArgsConfig',
    },
    ToolConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'A tool: a built-in by its bare name (google_search, url_context, google_maps_grounding, exit_loop, load_memory, preload_memory, load_artifacts, AgentTool, LongRunningFunctionTool, ExampleTool, McpToolset, OpenAPIToolset, SkillToolset) or a dotted name of a tool, toolset, tool class or tool factory.',
      properties: {
        name: { type: 'string', title: 'Name' },
        args: nullable(ref('ToolArgsConfig')),
      },
      required: ['name'],
      title: 'ToolConfig',
    },
    AgentToolConfig: {
      type: 'object',
      additionalProperties: false,
      description: 'The args of AgentTool.',
      properties: {
        agent: { anyOf: [ref('AgentRefConfig'), { type: 'string' }] },
        skip_summarization: { type: 'boolean', default: false },
      },
      required: ['agent'],
      title: 'AgentToolConfig',
    },
    LongRunningFunctionToolConfig: {
      type: 'object',
      additionalProperties: false,
      description: 'The args of LongRunningFunctionTool: `func` names a FunctionTool (or any tool).',
      properties: { func: { anyOf: [{ type: 'string' }, ref('CodeConfig')] } },
      required: ['func'],
      title: 'LongRunningFunctionToolConfig',
    },
    ExampleToolConfig: {
      type: 'object',
      additionalProperties: false,
      description: 'The args of ExampleTool: the examples, or a dotted name of a list of them.',
      properties: {
        examples: {
          anyOf: [
            { type: 'string' },
            {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['input'],
                properties: { input: content, output: { type: 'array', items: content } },
              },
            },
          ],
        },
      },
      required: ['examples'],
      title: 'ExampleToolConfig',
    },
    McpToolsetConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'The args of McpToolset: exactly one of the connection params, and optionally a tool_filter and tool_name_prefix.',
      properties: {
        stdio_server_params: nullable(mcpStdioParams),
        stdio_connection_params: nullable({
          type: 'object',
          additionalProperties: false,
          required: ['server_params'],
          properties: {
            server_params: mcpStdioParams,
            timeout: nullable({ type: 'number', exclusiveMinimum: 0 }),
          },
        }),
        sse_connection_params: nullable(mcpHttpParams),
        streamable_http_connection_params: nullable(mcpHttpParams),
        tool_filter: nullable({ type: 'array', items: { type: 'string' } }),
        tool_name_prefix: nullable({ type: 'string' }),
        require_confirmation: nullable({ type: 'boolean' }),
      },
      title: 'McpToolsetConfig',
    },
    OpenAPIToolsetConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'The args of OpenAPIToolset: the document as text (spec_str, spec_str_type), as a file beside the YAML (spec_path), or by URL (spec_url).',
      properties: {
        spec_str: nullable({ type: 'string' }),
        spec_str_type: nullable({ enum: ['json', 'yaml'] }),
        spec_path: nullable({ type: 'string' }),
        spec_url: nullable({ type: 'string' }),
        base_url: nullable({ type: 'string' }),
        tool_filter: nullable({ type: 'array', items: { type: 'string' } }),
        tool_name_prefix: nullable({ type: 'string' }),
        headers: nullable({ type: 'object', additionalProperties: { type: 'string' } }),
      },
      title: 'OpenAPIToolsetConfig',
    },
    SkillToolsetConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'The args of SkillToolset: a folder of Agent Skills beside the YAML (skills_dir), the cap on skills loaded at once, and where skill scripts run (sandbox: bubblewrap; unsafe_local: a plain child process; omitted: no scripts).',
      properties: {
        skills_dir: { type: 'string' },
        max_active_skills: nullable({ type: 'integer', minimum: 1 }),
        environment: nullable({ enum: ['sandbox', 'unsafe_local'] }),
      },
      required: ['skills_dir'],
      title: 'SkillToolsetConfig',
    },
    WorkflowConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'The config of a Workflow (a graph of nodes). A node is START, an agent YAML file (relative to this one), or a dotted name of a function, agent, tool or node.',
      properties: {
        agent_class: agentClass('Workflow', 'Workflow.'),
        name: baseAgentProperties.name,
        description: baseAgentProperties.description,
        before_agent_callbacks: baseAgentProperties.before_agent_callbacks,
        after_agent_callbacks: baseAgentProperties.after_agent_callbacks,
        max_concurrency: nullable({
          type: 'integer',
          minimum: 1,
          description: 'Optional. How many nodes run at once.',
        }),
        edges: {
          type: 'array',
          description:
            'Required. Chains (`[START, a, [b, c], { route: d, __DEFAULT__: e }]`) and explicit edges (`{ from_node, to_node, route }`).',
          items: { anyOf: [{ type: 'array', items: ref('ChainElementConfig') }, ref('EdgeConfig')] },
        },
      },
      required: ['name', 'edges'],
      title: 'WorkflowConfig',
    },
    ChainElementConfig: {
      description:
        'A node (a string), a fan-out group (a list of nodes) or a routing map (route value → node or list of nodes; __DEFAULT__ for the rest).',
      anyOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' } },
        {
          type: 'object',
          additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        },
      ],
      title: 'ChainElementConfig',
    },
    EdgeConfig: {
      type: 'object',
      additionalProperties: false,
      description:
        'One edge: from_node to to_node, taken when the route (a value or a list of values) matches.',
      properties: {
        from_node: { type: 'string' },
        to_node: { type: 'string' },
        route: {
          anyOf: [
            { type: ['string', 'number', 'boolean', 'null'] },
            { type: 'array', items: { type: ['string', 'number', 'boolean'] } },
          ],
        },
      },
      required: ['from_node', 'to_node'],
      title: 'EdgeConfig',
    },
    BaseAgentConfig: {
      type: 'object',
      additionalProperties: true,
      description:
        'The fields every agent has. A custom agent class (agent_class is a dotted name) may take more.',
      properties: baseAgentProperties,
      required: ['name'],
      title: 'BaseAgentConfig',
    },
    LlmAgentConfig: {
      type: 'object',
      additionalProperties: false,
      description: 'The config for the YAML schema of a LlmAgent.',
      properties: {
        ...baseAgentProperties,
        agent_class: agentClass('LlmAgent', 'LlmAgent (the default when agent_class is absent).'),
        model: nullable({
          type: 'string',
          description:
            'Optional. LlmAgent.model: a model name (e.g. "gemini-2.5-flash"); inherited when absent.',
        }),
        model_code: nullable({
          ...ref('CodeConfig'),
          description:
            'Optional. A code reference to a model instance (or a factory, with args). Not with `model`.',
        }),
        instruction: { type: 'string', description: 'Required. LlmAgent.instruction, with {placeholders}.' },
        static_instruction: {
          anyOf: [{ type: 'string' }, content, { type: 'null' }],
          default: null,
          description: 'Optional. LlmAgent.static_instruction: sent literally, before the instruction.',
        },
        disallow_transfer_to_parent: nullable({ type: 'boolean' }),
        disallow_transfer_to_peers: nullable({ type: 'boolean' }),
        input_schema: nullable({
          ...ref('CodeConfig'),
          description: 'Optional. A code reference to a zod schema.',
        }),
        output_schema: nullable({
          ...ref('CodeConfig'),
          description: 'Optional. A code reference to a zod schema.',
        }),
        output_key: nullable({ type: 'string', description: 'Optional. LlmAgent.output_key.' }),
        include_contents: { enum: ['default', 'none'], default: 'default' },
        tools: listOf('ToolConfig', 'Optional. LlmAgent.tools.'),
        before_model_callbacks: listOf('CodeConfig', codeRefDescription('before_model_callbacks')),
        after_model_callbacks: listOf('CodeConfig', codeRefDescription('after_model_callbacks')),
        before_tool_callbacks: listOf('CodeConfig', codeRefDescription('before_tool_callbacks')),
        after_tool_callbacks: listOf('CodeConfig', codeRefDescription('after_tool_callbacks')),
        input_guardrails: listOf(
          'CodeConfig',
          'Optional. LlmAgent.inputGuardrails: code references to guardrails (or factories called with args, e.g. piiGuardrail of @adk/guardrails re-exported beside the YAML).',
        ),
        output_guardrails: listOf('CodeConfig', 'Optional. LlmAgent.outputGuardrails, as input_guardrails.'),
        tool_guardrails: listOf('CodeConfig', 'Optional. LlmAgent.toolGuardrails, as input_guardrails.'),
        generate_content_config: nullable(generateContentConfig),
        memory: nullable(memoryConfig),
      },
      required: ['name', 'instruction'],
      title: 'LlmAgentConfig',
    },
    LoopAgentConfig: {
      type: 'object',
      additionalProperties: false,
      description: 'The config for the YAML schema of a LoopAgent.',
      properties: {
        ...baseAgentProperties,
        agent_class: agentClass('LoopAgent', 'LoopAgent.'),
        max_iterations: nullable({
          type: 'integer',
          minimum: 1,
          description: 'Optional. LoopAgent.max_iterations.',
        }),
      },
      required: ['name'],
      title: 'LoopAgentConfig',
    },
    ParallelAgentConfig: {
      type: 'object',
      additionalProperties: false,
      description: 'The config for the YAML schema of a ParallelAgent.',
      properties: { ...baseAgentProperties, agent_class: agentClass('ParallelAgent', 'ParallelAgent.') },
      required: ['name'],
      title: 'ParallelAgentConfig',
    },
    SequentialAgentConfig: {
      type: 'object',
      additionalProperties: false,
      description: 'The config for the YAML schema of a SequentialAgent.',
      properties: { ...baseAgentProperties, agent_class: agentClass('SequentialAgent', 'SequentialAgent.') },
      required: ['name'],
      title: 'SequentialAgentConfig',
    },
  },
} as const;
