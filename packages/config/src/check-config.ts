import { dirname, isAbsolute, resolve } from 'node:path';
import { describeValue } from './errors.js';
import { parseAgentConfig } from './load-agent.js';
import type { YamlPathSegment } from './names.js';
import { CodeResolver, canonical, defaultImporter, isInside } from './resolve-code.js';
import type { AgentConfig } from './types.js';
import { YamlSource } from './yaml-source.js';

export interface CheckAgentConfigOptions {
  /** Where the file is (or will be) saved; relative paths in it are resolved from its folder. */
  file: string;
  /** The app folder no reference may leave (default: the file's folder). */
  appRoot?: string;
  /** Where dotted module names start (default: the parent of the app folder). */
  agentsRoot?: string;
}

const BUILT_IN_AGENT = /^(?:google\.adk\.agents(?:\.[a-z_]+)?\.)?[A-Za-z]+$/;

/**
 * Validates agent config text against the schema and checks, without importing or running
 * anything, that its references stay inside the app folder: `config_path`s and OpenAPI `spec_path`s
 * are relative and inside it, and dotted code names do not point at a module outside it. Names that
 * match no module file are left alone (they may be registered). For editors such as the builder,
 * before a file is saved. Throws an AgentConfigError; returns the validated config.
 */
export function checkAgentConfig(text: string, options: CheckAgentConfigOptions): AgentConfig {
  const file = resolve(options.file);
  const config = parseAgentConfig(text, file);
  const source = new YamlSource(file, text);
  const appRoot = resolve(options.appRoot ?? dirname(file));
  const resolver = new CodeResolver({
    appRoot,
    agentsRoot: resolve(options.agentsRoot ?? dirname(appRoot)),
    references: undefined,
    importModule: defaultImporter,
  });
  const code = (name: unknown, path: YamlPathSegment[]) => {
    if (typeof name === 'string' && name.includes('.')) resolver.moduleOf(name, source, path);
  };
  const relativePath = (value: unknown, path: YamlPathSegment[]) => {
    if (typeof value !== 'string') return;
    if (isAbsolute(value)) throw source.error(path, 'a path relative to this file', describeValue(value));
    if (!isInside(canonical(appRoot), canonical(resolve(dirname(file), value)))) {
      throw source.error(
        path,
        `a path inside the app folder ${appRoot}`,
        `${describeValue(value)}, which leaves it`,
      );
    }
  };
  const agentRef = (ref: unknown, path: YamlPathSegment[]) => {
    if (typeof ref === 'string') return relativePath(ref, path);
    const r = ref as { config_path?: unknown; code?: unknown } | null;
    if (!r || typeof r !== 'object') return;
    relativePath(r.config_path, [...path, 'config_path']);
    code(r.code, [...path, 'code']);
  };
  const record = config as Record<string, unknown>;
  if (typeof record.agent_class === 'string' && !BUILT_IN_AGENT.test(record.agent_class)) {
    code(record.agent_class, ['agent_class']);
  }
  for (const [i, ref] of ((record.sub_agents as unknown[] | null) ?? []).entries())
    agentRef(ref, ['sub_agents', i]);
  for (const key of [
    'before_agent_callbacks',
    'after_agent_callbacks',
    'before_model_callbacks',
    'after_model_callbacks',
    'before_tool_callbacks',
    'after_tool_callbacks',
  ]) {
    for (const [i, ref] of ((record[key] as { name?: unknown }[] | null) ?? []).entries())
      code(ref.name, [key, i, 'name']);
  }
  for (const key of ['model_code', 'input_schema', 'output_schema']) {
    const ref = record[key] as { name?: unknown } | null | undefined;
    if (ref) code(ref.name, [key, 'name']);
  }
  for (const [i, tool] of (
    (record.tools as { name: string; args?: Record<string, unknown> | null }[] | null) ?? []
  ).entries()) {
    const args = tool.args ?? {};
    const at: YamlPathSegment[] = ['tools', i];
    if (tool.name === 'AgentTool') agentRef(args.agent, [...at, 'args', 'agent']);
    else if (tool.name === 'LongRunningFunctionTool') {
      const func = args.func as string | { name?: unknown } | undefined;
      code(
        typeof func === 'string' ? func : func?.name,
        typeof func === 'string' ? [...at, 'args', 'func'] : [...at, 'args', 'func', 'name'],
      );
    } else if (tool.name === 'ExampleTool') code(args.examples, [...at, 'args', 'examples']);
    else if (tool.name === 'OpenAPIToolset' || tool.name === 'OpenApiToolset')
      relativePath(args.spec_path, [...at, 'args', 'spec_path']);
    else if (tool.name === 'SkillToolset') relativePath(args.skills_dir, [...at, 'args', 'skills_dir']);
    else if (!tool.name.startsWith('google.adk.')) code(tool.name, [...at, 'name']);
  }
  if (record.agent_class === 'Workflow' && Array.isArray(record.edges)) {
    const node = (ref: unknown, path: YamlPathSegment[]) => {
      if (typeof ref !== 'string' || ref === 'START') return;
      if (/\.ya?ml$/i.test(ref)) relativePath(ref, path);
      else code(ref.replace(/^\./, ''), path);
    };
    for (const [i, item] of (record.edges as unknown[]).entries()) {
      if (Array.isArray(item)) {
        for (const [j, element] of item.entries()) {
          if (Array.isArray(element)) for (const [k, ref] of element.entries()) node(ref, ['edges', i, j, k]);
          else if (element && typeof element === 'object') {
            for (const [route, target] of Object.entries(element as Record<string, unknown>)) {
              if (Array.isArray(target))
                for (const [k, ref] of target.entries()) node(ref, ['edges', i, j, route, k]);
              else node(target, ['edges', i, j, route]);
            }
          } else node(element, ['edges', i, j]);
        }
      } else if (item && typeof item === 'object') {
        const edge = item as { from_node?: unknown; to_node?: unknown };
        node(edge.from_node, ['edges', i, 'from_node']);
        node(edge.to_node, ['edges', i, 'to_node']);
      }
    }
  }
  return config;
}
