import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  AgentTool,
  attachScorers,
  BaseAgent,
  type BaseAgentOptions,
  BaseTool,
  type Content,
  DEFAULT_ROUTE,
  defineScorer,
  describeError,
  Edge,
  type EdgeItem,
  exitLoopTool,
  type GenerateConfig,
  type Guardrail,
  googleSearch,
  isAdkError,
  isBaseNode,
  LlmAgent,
  type LlmAgentOptions,
  LoopAgent,
  llmJudgeScorer,
  loadArtifactsTool,
  loadMemoryTool,
  ModelBuiltInTool,
  ParallelAgent,
  type Part,
  preloadMemoryTool,
  resolveModel,
  type ScoreFunction,
  type Scorer,
  type ScorerTurn,
  SequentialAgent,
  type ToolUnion,
  urlContext,
  Workflow,
} from '@adk/core';
import type { z } from 'zod';
import { AgentConfigError, AgentConfigNotSupportedError, describeValue } from './errors.js';
import {
  agentConfigDefinition,
  BUILT_IN_AGENT_CLASSES,
  BUILT_IN_TOOL_NAMES,
  canonicalAgentClass,
  type YamlPathSegment,
} from './names.js';
import {
  applyArguments,
  CodeResolver,
  canonical,
  defaultImporter,
  isClass,
  isInside,
  type ModuleImporter,
} from './resolve-code.js';
import { type ConfigDefinition, validateAgainst } from './schema/validate.js';
import { type Example, ExampleTool } from './tools/example-tool.js';
import { LongRunningFunctionTool } from './tools/long-running-function-tool.js';
import type {
  AgentConfig,
  AgentRefConfig,
  BaseAgentConfig,
  CodeConfig,
  LlmAgentConfig,
  LoopAgentConfig,
  MemoryConfig,
  ScorerConfig,
  ToolConfig,
  WorkflowConfig,
} from './types.js';
import { YamlSource } from './yaml-source.js';

/** The file name of an app's root agent in an app folder. */
export const ROOT_AGENT_FILE = 'root_agent.yaml';

export interface AgentConfigOptions {
  /**
   * The app folder: config_path references and code modules must stay inside it (default: the
   * folder of the file loaded).
   */
  appRoot?: string;
  /**
   * Where dotted module names start (default: the parent of the app folder, as in adk-python, so
   * `my_app.tools.get_weather` is the export `get_weather` of `my_app/tools.ts`). Names relative to
   * the app folder itself (`tools.get_weather`) work too.
   */
  agentsRoot?: string;
  /** Names for code references, looked up before those of `registerConfigReferences` and modules. */
  references?: Record<string, unknown>;
  /** Imports a module file (default: `import()`; the CLI passes one that loads TypeScript too). */
  importModule?: ModuleImporter;
}

/** What a custom agent class's static `fromConfig` receives besides its config. */
export interface CustomAgentConfigContext {
  /** The YAML file of this agent. */
  file: string;
  /** The base options already built: name, description, sub-agents and agent callbacks. */
  options: BaseAgentOptions;
  /** Resolves a code reference the way the loader does (registered names, modules beside the YAML). */
  resolve(name: string): Promise<unknown>;
}

// Valid agent classes this version cannot build yet.
const NOT_YET_CLASSES = new Set<string>([]);

// input_schema has no field on LlmAgent: it matters when the agent is used as an AgentTool.
const inputSchemas = new WeakMap<BaseAgent, z.ZodType<Record<string, unknown>>>();

function isAgent(value: unknown): value is BaseAgent {
  if (value instanceof BaseAgent) return true;
  const v = value as { name?: unknown; run?: unknown; subAgents?: unknown } | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    typeof v.run === 'function' &&
    Array.isArray(v.subAgents)
  );
}

function isTool(value: unknown): value is ToolUnion {
  if (value instanceof BaseTool) return true;
  const v = value as { name?: unknown; run?: unknown; declaration?: unknown; getTools?: unknown } | null;
  if (typeof v !== 'object' || v === null) return false;
  return (
    (typeof v.name === 'string' && typeof v.run === 'function' && typeof v.declaration === 'function') ||
    typeof v.getTools === 'function'
  );
}

function isZodSchema(value: unknown): value is z.ZodType<Record<string, unknown>> {
  const v = value as { safeParse?: unknown; parse?: unknown } | null;
  return (
    typeof v === 'object' && v !== null && typeof v.safeParse === 'function' && typeof v.parse === 'function'
  );
}

/** Reads and validates one agent config file (without building it or reading the files it references). */
export function readAgentConfig(file: string): AgentConfig {
  const { config } = readSource(resolve(file));
  return config;
}

/** Parses and validates agent config text; `file` names it in errors. */
export function parseAgentConfig(text: string, file = '<agent config>'): AgentConfig {
  const source = new YamlSource(file, text);
  return validateConfig(source);
}

function readSource(file: string): { source: YamlSource; config: AgentConfig } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AgentConfigError(
      { file, yamlPath: '$', expected: 'a readable agent config file', found: describeError(error) },
      { cause: error },
    );
  }
  const source = new YamlSource(file, text);
  return { source, config: validateConfig(source) };
}

function validateConfig(source: YamlSource): AgentConfig {
  const data = source.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw source.error(
      [],
      'a mapping of agent fields (name, instruction, ...)',
      describeValue(data ?? undefined),
    );
  }
  const record = data as Record<string, unknown>;
  if (record.agent_class !== undefined && typeof record.agent_class !== 'string') {
    throw source.error(['agent_class'], 'a string', describeValue(record.agent_class));
  }
  const agentClass = canonicalAgentClass(record.agent_class as string | undefined);
  if (NOT_YET_CLASSES.has(agentClass)) {
    throw new AgentConfigNotSupportedError({
      file: source.file,
      yamlPath: 'agent_class',
      expected: `one of ${BUILT_IN_AGENT_CLASSES.join(', ')} or a dotted name of a custom agent class (${agentClass} in YAML is not supported yet)`,
      found: describeValue(record.agent_class),
      ...source.position(['agent_class']),
    });
  }
  const definition: ConfigDefinition = agentConfigDefinition(agentClass);
  // A bare unknown class name may still be registered: it is resolved (or refused) when building.
  validateAgainst(definition, data, source);
  return data as AgentConfig;
}

/**
 * Builds the agent a YAML file describes (ADK's Agent Config), with its sub-agents, tools and
 * callbacks. Errors are {@link AgentConfigError}s naming the file, the YAML path, what was
 * expected and what was found.
 */
export async function loadAgentFromConfig(
  file: string,
  options: AgentConfigOptions = {},
): Promise<BaseAgent> {
  const path = resolve(file);
  const appRoot = resolve(options.appRoot ?? dirname(path));
  if (!isInside(canonical(appRoot), canonical(path))) {
    throw new AgentConfigError({
      file: path,
      yamlPath: '$',
      expected: `a file inside the app folder ${appRoot}`,
      found: 'a file outside it',
    });
  }
  const builder = new ConfigBuilder(appRoot, {
    appRoot,
    agentsRoot: resolve(options.agentsRoot ?? dirname(appRoot)),
    references: options.references,
    importModule: options.importModule ?? defaultImporter,
  });
  return builder.agentFromFile(path, []);
}

class ConfigBuilder {
  private readonly code: CodeResolver;

  constructor(
    private readonly appRoot: string,
    resolverOptions: ConstructorParameters<typeof CodeResolver>[0],
  ) {
    this.code = new CodeResolver(resolverOptions);
  }

  async agentFromFile(file: string, loading: readonly string[]): Promise<BaseAgent> {
    const { source, config } = readSource(file);
    const agent = await this.build(config, source, [...loading, file]);
    const scorers = await this.scorers(config.scorers, source);
    return scorers.length > 0 ? attachScorers(agent, scorers) : agent;
  }

  /**
   * `scorers:` as Scorers: a code reference (a score function or a Scorer), an `@adk/eval` metric by
   * name (`@adk/eval` must be installed), or a rubric for an LLM judge (`judge_model`).
   */
  private async scorers(configs: ScorerConfig[] | null | undefined, source: YamlSource): Promise<Scorer[]> {
    const out: Scorer[] = [];
    for (const [i, c] of (configs ?? []).entries()) {
      const at: YamlPathSegment[] = ['scorers', i];
      const kinds = (['code', 'metric', 'rubric'] as const).filter((k) => c[k] !== undefined);
      if (kinds.length !== 1)
        throw source.error(
          at,
          'exactly one of code (a function), metric (an eval metric name) or rubric (an LLM judge)',
          kinds.length === 0 ? 'none' : kinds.join(' and '),
        );
      const common = {
        ...(c.version !== undefined ? { version: c.version } : {}),
        ...(c.sample_rate !== undefined ? { sampleRate: c.sample_rate } : {}),
        ...(c.timeout_ms !== undefined ? { timeoutMs: c.timeout_ms } : {}),
      };
      let filter: ((turn: ScorerTurn) => boolean | Promise<boolean>) | undefined;
      if (c.filter) {
        const value = await this.codeValue(c.filter, source, [...at, 'filter']);
        if (typeof value !== 'function' || isClass(value))
          throw source.error(
            [...at, 'filter', 'name'],
            'a filter function of the turn',
            describeValue(value),
          );
        filter = value as (turn: ScorerTurn) => boolean;
      }
      const withFilter = filter ? { ...common, filter } : common;
      const judge = c.judge_model;
      const make = (build: () => Scorer): Scorer => {
        try {
          return build();
        } catch (error) {
          throw source.error(at, 'a valid scorer', `an error: ${describeError(error)}`, error);
        }
      };
      if (c.code) {
        const value = await this.codeValue(c.code, source, [...at, 'code']);
        if (isScorer(value)) {
          out.push(value);
          continue;
        }
        if (typeof value !== 'function' || isClass(value))
          throw source.error([...at, 'code', 'name'], 'a score function or a Scorer', describeValue(value));
        const name = c.name ?? c.code.name.split('.').at(-1) ?? 'scorer';
        out.push(make(() => defineScorer({ ...withFilter, name, score: value as ScoreFunction })));
      } else if (c.metric !== undefined) {
        const metric = c.metric;
        const evalPkg = await optionalPeer<typeof import('@adk/eval')>(
          '@adk/eval',
          source,
          [...at, 'metric'],
          'a metric scorer',
        );
        out.push(
          make(() =>
            evalPkg.metricScorer(metric, {
              ...withFilter,
              ...(c.name !== undefined ? { name: c.name } : {}),
              ...(c.threshold !== undefined ? { criterion: { threshold: c.threshold } } : {}),
              ...(judge ? { judge: resolveModel(judge) } : {}),
            }),
          ),
        );
      } else if (c.rubric !== undefined) {
        if (!judge) throw source.error([...at, 'judge_model'], 'a judge model name for a rubric', 'nothing');
        if (c.name === undefined) throw source.error([...at, 'name'], 'a scorer name', 'nothing');
        const { name, rubric } = c;
        out.push(
          make(() =>
            llmJudgeScorer({
              ...withFilter,
              name,
              rubric,
              model: resolveModel(judge),
              ...(c.scale ? { scale: c.scale } : {}),
            }),
          ),
        );
      }
    }
    const names = new Set<string>();
    for (const [i, scorer] of out.entries()) {
      if (names.has(scorer.name))
        throw source.error(['scorers', i, 'name'], 'a scorer name used once', JSON.stringify(scorer.name));
      names.add(scorer.name);
    }
    return out;
  }

  private async build(
    config: AgentConfig,
    source: YamlSource,
    loading: readonly string[],
  ): Promise<BaseAgent> {
    const agentClass = canonicalAgentClass(config.agent_class);
    const base = await this.baseOptions(config, source, loading);
    const construct = (make: () => BaseAgent): BaseAgent => {
      try {
        return make();
      } catch (error) {
        const message = describeError(error);
        const at: YamlPathSegment[] = /name/i.test(message) ? ['name'] : [];
        throw source.error(at, `a config ${agentClass} accepts`, `an error: ${message}`, error);
      }
    };
    switch (agentClass) {
      case 'LlmAgent':
      case 'Agent':
        return this.llmAgent(config as LlmAgentConfig, base, source, loading, construct);
      case 'SequentialAgent':
        return construct(() => new SequentialAgent(base));
      case 'ParallelAgent':
        return construct(() => new ParallelAgent(base));
      case 'LoopAgent': {
        const max = (config as LoopAgentConfig).max_iterations;
        return construct(
          () => new LoopAgent({ ...base, ...(typeof max === 'number' ? { maxIterations: max } : {}) }),
        );
      }
      case 'Workflow':
        return this.workflow(config as WorkflowConfig, base, source, loading);
      default:
        return this.customAgent(agentClass, config, base, source);
    }
  }

  /**
   * A Workflow: each node string becomes one node, the same string the same node everywhere in
   * the edges (so `[START, a]` and `[a, b]` share `a`).
   */
  private async workflow(
    config: WorkflowConfig,
    base: BaseAgentOptions,
    source: YamlSource,
    loading: readonly string[],
  ): Promise<BaseAgent> {
    const nodes = new Map<string, unknown>();
    const nodeOf = async (ref: string, path: YamlPathSegment[]): Promise<unknown> => {
      if (ref === 'START') return 'START';
      const key = /\.ya?ml$/i.test(ref) ? resolve(dirname(source.file), ref) : ref.replace(/^\./, '');
      if (nodes.has(key)) return nodes.get(key);
      let value: unknown;
      if (/\.ya?ml$/i.test(ref)) value = await this.agentRef(ref, source, path, loading);
      else {
        value = await this.code.resolve(key, source, path);
        const ok = typeof value === 'function' || isAgent(value) || isTool(value) || isBaseNode(value);
        if (!ok)
          throw source.error(
            path,
            'a node: a function, an agent, a tool or a BaseNode',
            describeValue(value),
          );
      }
      nodes.set(key, value);
      return value;
    };
    const element = async (value: unknown, path: YamlPathSegment[]): Promise<unknown> => {
      if (typeof value === 'string') return nodeOf(value, path);
      if (Array.isArray(value)) return Promise.all(value.map((v, i) => nodeOf(v as string, [...path, i])));
      const map: Record<string, unknown> = {};
      for (const [route, target] of Object.entries(value as Record<string, unknown>)) {
        const key = route === 'DEFAULT' || route === '__DEFAULT__' ? DEFAULT_ROUTE : route;
        map[key] = Array.isArray(target)
          ? await Promise.all(target.map((t, i) => nodeOf(t as string, [...path, route, i])))
          : await nodeOf(target as string, [...path, route]);
      }
      return map;
    };
    const edges: EdgeItem[] = [];
    for (const [i, item] of config.edges.entries()) {
      if (Array.isArray(item)) {
        const chain: unknown[] = [];
        for (const [j, el] of item.entries()) chain.push(await element(el, ['edges', i, j]));
        edges.push(chain as EdgeItem);
      } else {
        const from = await nodeOf(item.from_node, ['edges', i, 'from_node']);
        const to = await nodeOf(item.to_node, ['edges', i, 'to_node']);
        edges.push(new Edge(from as never, to as never, item.route ?? null));
      }
    }
    const { subAgents: _none, ...rest } = base;
    try {
      return new Workflow({
        ...rest,
        edges,
        ...(typeof config.max_concurrency === 'number' ? { maxConcurrency: config.max_concurrency } : {}),
      });
    } catch (error) {
      throw source.error(['edges'], 'a valid workflow graph', `an error: ${describeError(error)}`, error);
    }
  }

  private async customAgent(
    agentClass: string,
    config: BaseAgentConfig,
    base: BaseAgentOptions,
    source: YamlSource,
  ): Promise<BaseAgent> {
    const expected = `${BUILT_IN_AGENT_CLASSES.join(', ')}, or a dotted name of a class extending BaseAgent`;
    if (agentClass === 'BaseAgent')
      throw source.error(['agent_class'], expected, describeValue(config.agent_class));
    const cls = await this.code.resolve(agentClass, source, ['agent_class']);
    if (
      typeof cls !== 'function' ||
      // A class from a second copy of @adk/core fails instanceof; the instance is checked below.
      !(cls.prototype instanceof BaseAgent || isClass(cls))
    ) {
      throw source.error(['agent_class'], expected, describeValue(cls));
    }
    const fromConfig = (cls as { fromConfig?: unknown }).fromConfig;
    let agent: unknown;
    try {
      if (typeof fromConfig === 'function') {
        const context: CustomAgentConfigContext = {
          file: source.file,
          options: base,
          resolve: (name) => this.code.resolve(name, source, []),
        };
        agent = await (fromConfig as (c: BaseAgentConfig, ctx: CustomAgentConfigContext) => unknown).call(
          cls,
          config,
          context,
        );
      } else {
        agent = new (cls as new (o: BaseAgentOptions) => unknown)(base);
      }
    } catch (error) {
      if (isAdkError(error) && error instanceof AgentConfigError) throw error;
      throw source.error([], `a config ${agentClass} accepts`, `an error: ${describeError(error)}`, error);
    }
    if (!isAgent(agent))
      throw source.error(['agent_class'], expected, `a class that made ${describeValue(agent)}`);
    return agent;
  }

  private async baseOptions(
    config: BaseAgentConfig,
    source: YamlSource,
    loading: readonly string[],
  ): Promise<BaseAgentOptions> {
    const subAgents: BaseAgent[] = [];
    for (const [i, ref] of (config.sub_agents ?? []).entries()) {
      subAgents.push(await this.agentRef(ref, source, ['sub_agents', i], loading));
    }
    return {
      name: config.name,
      ...(config.description !== undefined ? { description: config.description } : {}),
      ...(subAgents.length > 0 ? { subAgents } : {}),
      beforeAgentCallback: await this.callbacks(
        config.before_agent_callbacks,
        source,
        'before_agent_callbacks',
      ),
      afterAgentCallback: await this.callbacks(config.after_agent_callbacks, source, 'after_agent_callbacks'),
    };
  }

  private async llmAgent(
    config: LlmAgentConfig,
    base: BaseAgentOptions,
    source: YamlSource,
    loading: readonly string[],
    construct: (make: () => BaseAgent) => BaseAgent,
  ): Promise<BaseAgent> {
    if (config.model && config.model_code) {
      throw source.error(['model_code'], 'only one of `model` and `model_code`', 'both');
    }
    let model: LlmAgentOptions['model'];
    if (config.model) model = config.model;
    else if (config.model_code) {
      const value = await this.codeValue(config.model_code, source, ['model_code']);
      const v = value as { generate?: unknown } | null;
      if (
        typeof value !== 'string' &&
        (typeof v !== 'object' || v === null || typeof v.generate !== 'function')
      ) {
        throw source.error(
          ['model_code', 'name'],
          'a model (an Llm instance) or a model name',
          describeValue(value),
        );
      }
      model = value as LlmAgentOptions['model'];
    }
    const tools: ToolUnion[] = [];
    for (const [i, tool] of (config.tools ?? []).entries()) {
      tools.push(await this.tool(tool, source, ['tools', i], loading));
    }
    const outputSchema = config.output_schema
      ? await this.schema(config.output_schema, source, 'output_schema')
      : undefined;
    const inputSchema = config.input_schema
      ? await this.schema(config.input_schema, source, 'input_schema')
      : undefined;
    const generateConfig = config.generate_content_config
      ? generateConfigFrom(config.generate_content_config, source)
      : undefined;
    const options: LlmAgentOptions = {
      ...base,
      ...(model !== undefined ? { model } : {}),
      instruction: config.instruction,
      ...(config.static_instruction != null
        ? { staticInstruction: staticText(config.static_instruction, source) }
        : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(generateConfig ? { generateConfig } : {}),
      ...(config.output_key != null ? { outputKey: config.output_key } : {}),
      ...(outputSchema ? { outputSchema } : {}),
      ...(config.include_contents ? { includeContents: config.include_contents } : {}),
      ...(config.memory
        ? {
            memory: memoryFrom(
              config.memory,
              config.memory.profile?.schema
                ? await this.schema(config.memory.profile.schema, source, 'memory.profile.schema')
                : undefined,
            ),
          }
        : {}),
      ...(config.disallow_transfer_to_parent != null
        ? { disallowTransferToParent: config.disallow_transfer_to_parent }
        : {}),
      ...(config.disallow_transfer_to_peers != null
        ? { disallowTransferToPeers: config.disallow_transfer_to_peers }
        : {}),
      beforeModelCallback: await this.callbacks(
        config.before_model_callbacks,
        source,
        'before_model_callbacks',
      ),
      afterModelCallback: await this.callbacks(config.after_model_callbacks, source, 'after_model_callbacks'),
      beforeToolCallback: await this.callbacks(config.before_tool_callbacks, source, 'before_tool_callbacks'),
      afterToolCallback: await this.callbacks(config.after_tool_callbacks, source, 'after_tool_callbacks'),
      inputGuardrails: await this.guardrails(config.input_guardrails, source, 'input_guardrails'),
      outputGuardrails: await this.guardrails(config.output_guardrails, source, 'output_guardrails'),
      toolGuardrails: await this.guardrails(config.tool_guardrails, source, 'tool_guardrails'),
    };
    const agent = construct(() => new LlmAgent(options));
    if (inputSchema) inputSchemas.set(agent, inputSchema);
    return agent;
  }

  private async schema(
    ref: CodeConfig,
    source: YamlSource,
    key: string,
  ): Promise<z.ZodType<Record<string, unknown>>> {
    const value = await this.codeValue(ref, source, [key]);
    if (!isZodSchema(value)) throw source.error([key, 'name'], 'a zod schema', describeValue(value));
    return value;
  }
  private async callbacks(
    refs: CodeConfig[] | null | undefined,
    source: YamlSource,
    key: string,
  ): Promise<never[]> {
    // Typed by the option each list goes to; every kind is a plain function here.
    const out: unknown[] = [];
    for (const [i, ref] of (refs ?? []).entries()) {
      const value = await this.codeValue(ref, source, [key, i]);
      if (typeof value !== 'function' || isClass(value)) {
        throw source.error([key, i, 'name'], 'a callback function', describeValue(value));
      }
      out.push(value);
    }
    return out as never[];
  }

  /** Guardrails: each reference is a `Guardrail`, or a factory whose call (with `args`, or none) returns one. */
  private async guardrails(
    refs: CodeConfig[] | null | undefined,
    source: YamlSource,
    key: string,
  ): Promise<Guardrail[]> {
    const out: Guardrail[] = [];
    for (const [i, ref] of (refs ?? []).entries()) {
      let value = await this.codeValue(ref, source, [key, i]);
      if (typeof value === 'function' && !isClass(value) && (!ref.args || ref.args.length === 0))
        value = await (value as () => unknown)();
      const g = value as Partial<Guardrail> | undefined;
      if (!g || typeof g !== 'object' || typeof g.name !== 'string' || typeof g.check !== 'function')
        throw source.error(
          [key, i, 'name'],
          'a guardrail (an object with name and check)',
          describeValue(value),
        );
      out.push(value as Guardrail);
    }
    return out;
  }

  /** A CodeConfig's value: the export, or what calling it with `args` returns. */
  private async codeValue(ref: CodeConfig, source: YamlSource, path: YamlPathSegment[]): Promise<unknown> {
    const value = await this.code.resolve(ref.name, source, [...path, 'name']);
    if (!ref.args || ref.args.length === 0) return value;
    if (typeof value !== 'function') {
      throw source.error([...path, 'name'], 'a function or class to call with `args`', describeValue(value));
    }
    try {
      return await applyArguments(value, ref.args);
    } catch (error) {
      throw source.error(
        [...path, 'args'],
        `arguments ${ref.name} accepts`,
        `an error: ${describeError(error)}`,
        error,
      );
    }
  }

  private async agentRef(
    ref: AgentRefConfig | string,
    source: YamlSource,
    path: YamlPathSegment[],
    loading: readonly string[],
  ): Promise<BaseAgent> {
    const configPath = typeof ref === 'string' ? ref : ref.config_path;
    const code = typeof ref === 'string' ? undefined : ref.code;
    if (configPath && code) throw source.error(path, 'either `config_path` or `code`', 'both');
    if (configPath) {
      const at = typeof ref === 'string' ? path : [...path, 'config_path'];
      if (isAbsolute(configPath)) {
        throw source.error(at, 'a path relative to this file', describeValue(configPath));
      }
      const target = resolve(dirname(source.file), configPath);
      if (!isInside(canonical(this.appRoot), canonical(target))) {
        throw source.error(
          at,
          `a path inside the app folder ${this.appRoot}`,
          `${describeValue(configPath)}, which leaves it`,
        );
      }
      if (!existsSync(target) || !statSync(target).isFile()) {
        throw source.error(
          at,
          'the path of an agent config file',
          `${describeValue(configPath)}: no file at ${target}`,
        );
      }
      if (loading.includes(target)) {
        throw source.error(
          at,
          'an agent config that does not include itself',
          `a cycle: ${[...loading, target].join(' -> ')}`,
        );
      }
      return this.agentFromFile(target, loading);
    }
    if (code) {
      const value = await this.code.resolve(code, source, [...path, 'code']);
      if (!isAgent(value)) throw source.error([...path, 'code'], 'an agent instance', describeValue(value));
      return value;
    }
    throw source.error(path, 'either `config_path` or `code`', 'neither');
  }

  private async tool(
    config: ToolConfig,
    source: YamlSource,
    path: YamlPathSegment[],
    loading: readonly string[],
  ): Promise<ToolUnion> {
    const name = config.name.replace(/^google\.adk\.tools\.(?:[a-z_]+\.)*(?=[A-Za-z_]+$)/, '');
    const args = config.args ?? undefined;
    const argsPath = [...path, 'args'];
    const noArgs = () => {
      if (args && Object.keys(args).length > 0) {
        throw source.error(argsPath, `no args for ${name}`, describeValue(args));
      }
    };
    switch (name) {
      case 'google_search':
        noArgs();
        return googleSearch();
      case 'url_context':
        noArgs();
        return urlContext();
      case 'google_maps_grounding':
        noArgs();
        return new ModelBuiltInTool(
          { type: 'googleMaps' },
          'google_maps_grounding',
          'Grounds answers in Google Maps data (run by Gemini).',
        );
      case 'exit_loop':
        noArgs();
        return exitLoopTool;
      case 'load_memory':
        noArgs();
        return loadMemoryTool;
      case 'preload_memory':
        noArgs();
        return preloadMemoryTool;
      case 'load_artifacts':
        noArgs();
        return loadArtifactsTool;
      case 'AgentTool': {
        validateAgainst('AgentToolConfig', args, source, argsPath);
        const a = args as { agent: AgentRefConfig | string; skip_summarization?: boolean };
        const agent = await this.agentRef(a.agent, source, [...argsPath, 'agent'], loading);
        const inputSchema = inputSchemas.get(agent);
        return new AgentTool({
          agent,
          ...(a.skip_summarization ? { skipSummarization: true } : {}),
          ...(inputSchema ? { inputSchema } : {}),
        });
      }
      case 'LongRunningFunctionTool': {
        validateAgainst('LongRunningFunctionToolConfig', args, source, argsPath);
        const func = (args as { func: string | CodeConfig }).func;
        const at = [...argsPath, 'func'];
        const value =
          typeof func === 'string'
            ? await this.code.resolve(func, source, at)
            : await this.codeValue(func, source, at);
        if (
          !(value instanceof BaseTool) &&
          !(isTool(value) && typeof (value as BaseTool).declaration === 'function')
        ) {
          throw source.error(at, 'a tool (e.g. a FunctionTool) to mark long-running', describeValue(value));
        }
        return new LongRunningFunctionTool(value as BaseTool);
      }
      case 'ExampleTool': {
        validateAgainst('ExampleToolConfig', args, source, argsPath);
        const examples = (args as { examples: unknown }).examples;
        if (typeof examples === 'string') {
          const value = await this.code.resolve(examples, source, [...argsPath, 'examples']);
          if (!Array.isArray(value))
            throw source.error([...argsPath, 'examples'], 'a list of examples', describeValue(value));
          return new ExampleTool(value as Example[]);
        }
        return new ExampleTool(
          (examples as { input: unknown; output?: unknown[] }[]).map((e, i) => ({
            input: contentFrom(e.input, source, [...argsPath, 'examples', i, 'input']),
            output: (e.output ?? []).map((o, j) =>
              contentFrom(o, source, [...argsPath, 'examples', i, 'output', j]),
            ),
          })),
        );
      }
      case 'McpToolset':
        validateAgainst('McpToolsetConfig', args ?? {}, source, argsPath);
        return mcpToolset(args ?? {}, source, argsPath);
      case 'OpenAPIToolset':
      case 'OpenApiToolset':
        validateAgainst('OpenAPIToolsetConfig', args ?? {}, source, argsPath);
        return this.openApiToolset(args ?? {}, source, argsPath);
      case 'SkillToolset':
        validateAgainst('SkillToolsetConfig', args ?? {}, source, argsPath);
        return this.skillToolset(args ?? {}, source, argsPath);
      default:
        return this.customTool(config, source, path);
    }
  }

  private async customTool(
    config: ToolConfig,
    source: YamlSource,
    path: YamlPathSegment[],
  ): Promise<ToolUnion> {
    const expected = `a built-in tool (${BUILT_IN_TOOL_NAMES.join(', ')}) or a dotted name of a tool, a toolset, a tool class or a function that makes one`;
    if (!config.name.includes('.')) {
      // A bare name is a built-in unless it was registered.
      let registered: unknown;
      try {
        registered = await this.code.resolve(config.name, source, [...path, 'name']);
      } catch {
        throw source.error([...path, 'name'], expected, describeValue(config.name));
      }
      return this.toolValue(registered, config, source, path, expected);
    }
    const value = await this.code.resolve(config.name, source, [...path, 'name']);
    return this.toolValue(value, config, source, path, expected);
  }

  private async toolValue(
    value: unknown,
    config: ToolConfig,
    source: YamlSource,
    path: YamlPathSegment[],
    expected: string,
  ): Promise<ToolUnion> {
    let tool = value;
    if (typeof value === 'function' && !isTool(value)) {
      if (isClass(value)) {
        try {
          tool = new value(config.args ?? {});
        } catch (error) {
          throw source.error(
            [...path, 'args'],
            `args ${config.name} accepts`,
            `an error: ${describeError(error)}`,
            error,
          );
        }
      } else if (config.args) {
        try {
          tool = await (value as (a: unknown) => unknown)(config.args);
        } catch (error) {
          throw source.error(
            [...path, 'args'],
            `args ${config.name} accepts`,
            `an error: ${describeError(error)}`,
            error,
          );
        }
      } else {
        throw source.error(
          [...path, 'name'],
          `${expected} (a plain function is not a tool: wrap it in a FunctionTool, or give \`args\` to call a factory)`,
          describeValue(value),
        );
      }
    } else if (config.args && Object.keys(config.args).length > 0) {
      throw source.error(
        [...path, 'args'],
        `no args (${config.name} is already a tool)`,
        describeValue(config.args),
      );
    }
    if (!isTool(tool)) throw source.error([...path, 'name'], expected, describeValue(tool));
    return tool;
  }

  private async openApiToolset(
    args: Record<string, unknown>,
    source: YamlSource,
    path: YamlPathSegment[],
  ): Promise<ToolUnion> {
    const given = ['spec_str', 'spec_path', 'spec_url'].filter((k) => args[k] != null);
    if (given.length !== 1) {
      throw source.error(
        path,
        'exactly one of spec_str, spec_path, spec_url',
        given.length === 0 ? 'none' : given.join(' and '),
      );
    }
    let spec: string | URL;
    if (typeof args.spec_path === 'string') {
      const target = resolve(dirname(source.file), args.spec_path);
      if (isAbsolute(args.spec_path) || !isInside(canonical(this.appRoot), canonical(target))) {
        throw source.error(
          [...path, 'spec_path'],
          `a path inside the app folder ${this.appRoot}`,
          describeValue(args.spec_path),
        );
      }
      try {
        spec = readFileSync(target, 'utf8');
      } catch (error) {
        throw source.error(
          [...path, 'spec_path'],
          'a readable OpenAPI document',
          describeError(error),
          error,
        );
      }
    } else if (typeof args.spec_url === 'string') {
      try {
        spec = new URL(args.spec_url);
      } catch {
        throw source.error([...path, 'spec_url'], 'a URL', describeValue(args.spec_url));
      }
    } else spec = args.spec_str as string;
    const openapi = await optionalPeer<typeof import('@adk/openapi')>(
      '@adk/openapi',
      source,
      path,
      'OpenAPIToolset',
    );
    return new openapi.OpenApiToolset({
      spec,
      ...(typeof args.base_url === 'string' ? { baseUrl: args.base_url } : {}),
      ...(Array.isArray(args.tool_filter) ? { filter: args.tool_filter as string[] } : {}),
      ...(typeof args.tool_name_prefix === 'string' ? { namePrefix: args.tool_name_prefix } : {}),
      ...(args.headers ? { headers: args.headers as Record<string, string> } : {}),
    });
  }
  /** Agent Skills from a folder beside the YAML; scripts run in the named environment. */
  private async skillToolset(
    args: Record<string, unknown>,
    source: YamlSource,
    path: YamlPathSegment[],
  ): Promise<ToolUnion> {
    const dir = String(args.skills_dir);
    const target = resolve(dirname(source.file), dir);
    if (isAbsolute(dir) || !isInside(canonical(this.appRoot), canonical(target))) {
      throw source.error(
        [...path, 'skills_dir'],
        `a path inside the app folder ${this.appRoot}`,
        describeValue(dir),
      );
    }
    const skills = await optionalPeer<typeof import('@adk/skills')>(
      '@adk/skills',
      source,
      path,
      'SkillToolset',
    );
    let loaded: Awaited<ReturnType<typeof skills.loadSkillsFromDir>>;
    try {
      loaded = await skills.loadSkillsFromDir(target);
    } catch (error) {
      throw source.error(
        [...path, 'skills_dir'],
        'a folder of skills (subfolders with a SKILL.md)',
        describeError(error),
        error,
      );
    }
    let environment: import('@adk/environments').BaseEnvironment | undefined;
    if (args.environment === 'sandbox' || args.environment === 'unsafe_local') {
      const environments = await optionalPeer<typeof import('@adk/environments')>(
        '@adk/environments',
        source,
        [...path, 'environment'],
        'SkillToolset',
      );
      environment =
        args.environment === 'sandbox'
          ? new environments.LocalSandboxEnvironment()
          : new environments.UnsafeLocalEnvironment();
    }
    return new skills.SkillToolset({
      skills: loaded,
      ...(environment ? { environment } : {}),
      ...(typeof args.max_active_skills === 'number' ? { maxActiveSkills: args.max_active_skills } : {}),
    });
  }
}

function isScorer(value: unknown): value is Scorer {
  const v = value as Partial<Scorer> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    typeof v.version === 'string' &&
    typeof v.sampleRate === 'number' &&
    typeof v.score === 'function'
  );
}

async function optionalPeer<T>(
  pkg: string,
  source: YamlSource,
  path: YamlPathSegment[],
  tool: string,
): Promise<T> {
  try {
    return (await import(pkg)) as T;
  } catch (error) {
    throw source.error(
      path,
      `the package ${pkg} installed (${tool} needs it)`,
      `it is missing: ${describeError(error)}`,
      error,
    );
  }
}

async function mcpToolset(
  args: Record<string, unknown>,
  source: YamlSource,
  path: YamlPathSegment[],
): Promise<ToolUnion> {
  const kinds = [
    'stdio_server_params',
    'stdio_connection_params',
    'sse_connection_params',
    'streamable_http_connection_params',
  ];
  const given = kinds.filter((k) => args[k] != null);
  if (given.length !== 1) {
    throw source.error(
      path,
      `exactly one of ${kinds.join(', ')}`,
      given.length === 0 ? 'none' : given.join(' and '),
    );
  }
  const kind = given[0] as string;
  type Stdio = { command: string; args?: string[]; env?: Record<string, string> | null; cwd?: string | null };
  type Http = {
    url: string;
    headers?: Record<string, string> | null;
    timeout?: number | null;
    sse_read_timeout?: number | null;
  };
  let connection: import('@adk/mcp').McpConnection;
  let connectTimeoutMs: number | undefined;
  let timeoutMs: number | undefined;
  const stdio = (p: Stdio): import('@adk/mcp').StdioConnection => ({
    type: 'stdio',
    command: p.command,
    ...(p.args ? { args: p.args } : {}),
    ...(p.env ? { env: p.env } : {}),
    ...(p.cwd ? { cwd: resolve(dirname(source.file), p.cwd) } : {}),
  });
  if (kind === 'stdio_server_params') connection = stdio(args[kind] as Stdio);
  else if (kind === 'stdio_connection_params') {
    const p = args[kind] as { server_params: Stdio; timeout?: number | null };
    connection = stdio(p.server_params);
    if (p.timeout) connectTimeoutMs = p.timeout * 1000;
  } else {
    const p = args[kind] as Http;
    try {
      new URL(p.url);
    } catch {
      throw source.error([...path, kind, 'url'], 'an http(s) URL', describeValue(p.url));
    }
    connection = {
      type: kind === 'sse_connection_params' ? 'sse' : 'http',
      url: p.url,
      ...(p.headers ? { headers: p.headers } : {}),
    };
    if (p.timeout) connectTimeoutMs = p.timeout * 1000;
    if (p.sse_read_timeout) timeoutMs = p.sse_read_timeout * 1000;
  }
  const mcp = await optionalPeer<typeof import('@adk/mcp')>('@adk/mcp', source, path, 'McpToolset');
  return new mcp.McpToolset({
    connection,
    ...(Array.isArray(args.tool_filter) ? { toolFilter: args.tool_filter as string[] } : {}),
    ...(typeof args.tool_name_prefix === 'string' ? { toolNamePrefix: args.tool_name_prefix } : {}),
    ...(typeof args.require_confirmation === 'boolean'
      ? { requireConfirmation: args.require_confirmation }
      : {}),
    ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

function staticText(value: NonNullable<LlmAgentConfig['static_instruction']>, source: YamlSource): string {
  if (typeof value === 'string') return value;
  const texts: string[] = [];
  for (const [i, part] of value.parts.entries()) {
    if (typeof part.text !== 'string') {
      throw source.error(['static_instruction', 'parts', i], 'a text part', describeValue(part));
    }
    texts.push(part.text);
  }
  return texts.join('');
}

function contentFrom(value: unknown, source: YamlSource, path: YamlPathSegment[]): Content {
  const v = value as { role?: unknown; parts?: unknown };
  if (typeof v !== 'object' || v === null || !Array.isArray(v.parts)) {
    throw source.error(path, 'a content (role and parts)', describeValue(value));
  }
  const parts: Part[] = v.parts.map((p, i) => {
    const part = p as Record<string, unknown>;
    if (typeof part.text === 'string') return { text: part.text };
    const call = (part.function_call ?? part.functionCall) as { name?: unknown; args?: unknown } | undefined;
    if (call && typeof call.name === 'string') {
      return {
        functionCall: { id: '', name: call.name, args: (call.args as Record<string, unknown>) ?? {} },
      };
    }
    const response = (part.function_response ?? part.functionResponse) as
      | { name?: unknown; response?: unknown }
      | undefined;
    if (response && typeof response.name === 'string') {
      return {
        functionResponse: {
          id: '',
          name: response.name,
          response: (response.response as Record<string, unknown>) ?? {},
        },
      };
    }
    throw source.error(
      [...path, 'parts', i],
      'a part with text, function_call or function_response',
      describeValue(p),
    );
  });
  return { role: v.role === 'user' ? 'user' : 'model', parts } as Content;
}

const GENERATE_KEYS: Record<string, string> = {
  temperature: 'temperature',
  top_p: 'topP',
  top_k: 'topK',
  max_output_tokens: 'maxOutputTokens',
  stop_sequences: 'stopSequences',
  presence_penalty: 'presencePenalty',
  frequency_penalty: 'frequencyPenalty',
  seed: 'seed',
  response_mime_type: 'responseMimeType',
};

function generateConfigFrom(raw: Record<string, unknown>, source: YamlSource): GenerateConfig {
  const out: Record<string, unknown> = {};
  const providerOptions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null || value === undefined) continue;
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const target = GENERATE_KEYS[snake];
    if (target) out[target] = value;
    else if (snake === 'response_schema' || snake === 'response_json_schema') out.responseSchema = value;
    else if (snake === 'labels') out.labels = value;
    else if (snake === 'safety_settings') providerOptions.safetySettings = value;
    else if (snake === 'thinking_config') {
      const t = value as Record<string, unknown>;
      const thinking: Record<string, unknown> = {};
      const include = t.includeThoughts ?? t.include_thoughts;
      const budget = t.thinkingBudget ?? t.thinking_budget;
      const level = t.thinkingLevel ?? t.thinking_level;
      if (typeof include === 'boolean') thinking.includeThoughts = include;
      if (typeof budget === 'number') thinking.budgetTokens = budget;
      if (typeof level === 'string') thinking.effort = level.toLowerCase();
      out.thinking = thinking;
    } else {
      // The schema already refuses unknown keys; this guards against a schema/mapping mismatch.
      throw source.error(
        ['generate_content_config', key],
        'a supported generate_content_config key',
        describeValue(key),
      );
    }
  }
  // Safety settings are Gemini's: under its namespace, other vendors never see them.
  if (Object.keys(providerOptions).length > 0) out.providerOptions = { gemini: providerOptions };
  return out as GenerateConfig;
}

/** Whether a folder is a YAML app (it has a `root_agent.yaml`). */
export function isConfigApp(folder: string): boolean {
  return existsSync(join(folder, ROOT_AGENT_FILE));
}

/** `memory:` (validated by the schema) to `LlmAgentOptions['memory']`. */
function memoryFrom(
  config: MemoryConfig,
  schema: z.ZodType<Record<string, unknown>> | undefined,
): NonNullable<LlmAgentOptions['memory']> {
  const memory: NonNullable<LlmAgentOptions['memory']> = {};
  const profile = config.profile;
  if (profile)
    memory.profile = {
      ...(profile.template !== undefined ? { template: profile.template } : {}),
      ...(schema !== undefined ? { schema } : {}),
      ...(profile.scope ? { scope: profile.scope } : {}),
      ...(profile.state_key ? { stateKey: profile.state_key } : {}),
      ...(profile.update ? { update: profile.update } : {}),
    };
  const recall = config.recall;
  if (recall === true) memory.recall = true;
  else if (recall && typeof recall === 'object')
    memory.recall = {
      ...(recall.top_k !== undefined ? { topK: recall.top_k } : {}),
      ...(recall.neighbours !== undefined ? { neighbours: recall.neighbours } : {}),
      ...(recall.min_score !== undefined ? { minScore: recall.min_score } : {}),
      ...(recall.kinds !== undefined ? { kinds: recall.kinds } : {}),
    };
  const observe = config.observe;
  if (observe === true) memory.observe = {};
  else if (observe && typeof observe === 'object')
    memory.observe = {
      ...(observe.model !== undefined ? { model: observe.model } : {}),
      ...(observe.observe_at_tokens !== undefined ? { observeAtTokens: observe.observe_at_tokens } : {}),
      ...(observe.keep_recent_tokens !== undefined ? { keepRecentTokens: observe.keep_recent_tokens } : {}),
      ...(observe.reflect_at_tokens !== undefined ? { reflectAtTokens: observe.reflect_at_tokens } : {}),
      ...(observe.min_chars !== undefined ? { minChars: observe.min_chars } : {}),
      ...(observe.max_attempts !== undefined ? { maxAttempts: observe.max_attempts } : {}),
      ...(observe.backoff_ms !== undefined ? { backoffMs: observe.backoff_ms } : {}),
      ...(observe.max_backoff_ms !== undefined ? { maxBackoffMs: observe.max_backoff_ms } : {}),
      ...(observe.instruction !== undefined ? { instruction: observe.instruction } : {}),
      ...(observe.reflect_instruction !== undefined
        ? { reflectInstruction: observe.reflect_instruction }
        : {}),
    };
  const facts = config.facts;
  if (facts === true) memory.facts = {};
  else if (facts && typeof facts === 'object')
    memory.facts = {
      ...(facts.model !== undefined ? { model: facts.model } : {}),
      ...(facts.context_facts !== undefined ? { contextFacts: facts.context_facts } : {}),
      ...(facts.instruction !== undefined ? { instruction: facts.instruction } : {}),
    };
  return memory;
}
