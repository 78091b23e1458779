// The names and paths an Agent Config speaks of, with no Node.js import: the loader uses them, and
// so do editors that run in a browser (the dev UI's Builder) through `@adk/config/names`.

/** The `agent_class` values built in (besides a dotted name of a custom class). */
export const BUILT_IN_AGENT_CLASSES = [
  'LlmAgent',
  'Agent',
  'SequentialAgent',
  'ParallelAgent',
  'LoopAgent',
  'Workflow',
] as const;

/** The tools named by a bare name in `tools`; anything else is a dotted name of the app's code. */
export const BUILT_IN_TOOL_NAMES = [
  'google_search',
  'url_context',
  'google_maps_grounding',
  'exit_loop',
  'load_memory',
  'preload_memory',
  'load_artifacts',
  'AgentTool',
  'LongRunningFunctionTool',
  'ExampleTool',
  'McpToolset',
  'OpenAPIToolset',
  'SkillToolset',
] as const;

/**
 * The class an `agent_class` names: `LlmAgent` when absent, and adk-python's fully qualified names
 * (`google.adk.agents.LlmAgent`) as the same classes' short names. Other names are kept as given.
 */
export function canonicalAgentClass(agentClass: string | undefined): string {
  const name = agentClass ?? 'LlmAgent';
  const match = /^google\.adk\.agents(?:\.[a-z_]+)?\.([A-Za-z]+)$/.exec(name);
  return match ? (match[1] as string) : name;
}

/** The definitions of AgentConfig.json's `$defs` that a whole agent config is checked against. */
export type AgentConfigDefinition =
  | 'LlmAgentConfig'
  | 'LoopAgentConfig'
  | 'ParallelAgentConfig'
  | 'SequentialAgentConfig'
  | 'WorkflowConfig'
  | 'BaseAgentConfig';

/** The schema definition for a config of this (canonical) class; a custom class gets the base one. */
export function agentConfigDefinition(agentClass: string): AgentConfigDefinition {
  switch (agentClass) {
    case 'LlmAgent':
    case 'Agent':
      return 'LlmAgentConfig';
    case 'LoopAgent':
      return 'LoopAgentConfig';
    case 'ParallelAgent':
      return 'ParallelAgentConfig';
    case 'SequentialAgent':
      return 'SequentialAgentConfig';
    case 'Workflow':
      return 'WorkflowConfig';
    default:
      return 'BaseAgentConfig';
  }
}

export type YamlPathSegment = string | number;

/** Formats path segments the way errors show them: `tools[1].args.agent` (`$` for the whole file). */
export function formatYamlPath(path: readonly YamlPathSegment[]): string {
  if (path.length === 0) return '$';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** A JSON Pointer (as JSON Schema validators report where a problem is) as path segments. */
export function pointerToPath(pointer: string): YamlPathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
