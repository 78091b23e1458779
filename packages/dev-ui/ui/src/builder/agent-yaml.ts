// Agent Config YAML in the Builder: parsing with `yaml` (comments kept on every edit), validation
// against AgentConfig.json (validators compiled at build time), and the edits the form makes.
import {
  BaseAgentConfig,
  LlmAgentConfig,
  LoopAgentConfig,
  ParallelAgentConfig,
  type SchemaError,
  SequentialAgentConfig,
  type Validate,
  WorkflowConfig,
} from 'virtual:agent-config-validators';
import {
  type AgentConfigDefinition,
  agentConfigDefinition,
  BUILT_IN_AGENT_CLASSES,
  canonicalAgentClass,
  formatYamlPath,
  pointerToPath,
  type YamlPathSegment,
} from '@adk/config/names';
import { type Document, isMap, isScalar, isSeq, LineCounter, parseDocument, YAMLSeq } from 'yaml';

export const ROOT_FILE = 'root_agent.yaml';

/** The agent classes the form offers (`Agent` is another name of `LlmAgent`; a dotted name of a custom class is kept as it is). */
export const AGENT_CLASSES = BUILT_IN_AGENT_CLASSES.filter((c) => c !== 'Agent');

export type PathSegment = YamlPathSegment;

/** A problem of one file: a YAML parse error or a schema error, with where it is. */
export interface Problem {
  file: string;
  kind: 'yaml' | 'schema';
  /** 1-based, when known. */
  line?: number;
  col?: number;
  /** The YAML path (`tools[0].name`); empty for the whole document. */
  path: string;
  message: string;
}

export interface AnalyzedFile {
  /** The parsed fields, when the text parses to a mapping. */
  data?: Record<string, unknown>;
  problems: Problem[];
  /** True when the text parses (the form can edit it). */
  editable: boolean;
}

/** `['tools', 0, 'name']` → `tools[0].name`; empty for the whole document. */
function formatPath(path: readonly PathSegment[]): string {
  return path.length === 0 ? '' : formatYamlPath(path);
}

/** The class an `agent_class` value names, as the loader reads it (an empty one is `LlmAgent`). */
export function canonicalClass(agentClass: unknown): string {
  return canonicalAgentClass(typeof agentClass === 'string' && agentClass !== '' ? agentClass : undefined);
}

const VALIDATORS: Record<AgentConfigDefinition, Validate> = {
  BaseAgentConfig,
  LlmAgentConfig,
  LoopAgentConfig,
  ParallelAgentConfig,
  SequentialAgentConfig,
  WorkflowConfig,
};

function describe(error: SchemaError): { path: PathSegment[]; message: string } {
  const path = pointerToPath(error.instancePath);
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return { path, message: `the required key "${String(params.missingProperty)}" is missing` };
    case 'additionalProperties':
      return { path: [...path, String(params.additionalProperty)], message: 'unknown key' };
    case 'enum':
      return {
        path,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'type': {
      const types = (Array.isArray(params.type) ? params.type : [params.type]).filter((t) => t !== 'null');
      return { path, message: `must be ${types.join(' or ')}` };
    }
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

/**
 * Schema errors worth showing: inside an `anyOf`, ajv reports every branch; a failure deeper than
 * the anyOf (or other than a type mismatch) says more than the anyOf itself, as in @adk/config.
 */
function relevant(errors: SchemaError[]): SchemaError[] {
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf');
  const specific = errors.filter(
    (e) =>
      e.keyword !== 'anyOf' &&
      !(e.keyword === 'type' && e.params.type === 'null') &&
      !anyOfs.some(
        (a) => e.instancePath === a.instancePath && (e.keyword === 'type' || e.keyword === 'const'),
      ),
  );
  const covered = (a: SchemaError) => specific.some((e) => e.instancePath.startsWith(a.instancePath));
  return [...specific, ...anyOfs.filter((a) => !covered(a))];
}

function position(
  doc: Document.Parsed,
  lines: LineCounter,
  path: readonly PathSegment[],
): { line: number; col: number } | undefined {
  // The node at the path, else the nearest enclosing one (a missing key: its mapping).
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range) return lines.linePos(range[0]);
  }
  return undefined;
}

/** Parses and validates one agent file. */
export function analyze(file: string, text: string): AnalyzedFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      editable: false,
      problems: doc.errors.map((e) => {
        const at = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
        return {
          file,
          kind: 'yaml',
          line: at.line,
          col: at.col,
          path: '',
          message: e.message.split('\n')[0] ?? '',
        };
      }),
    };
  }
  const data = doc.toJS() as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return {
      editable: false,
      problems: [
        {
          file,
          kind: 'schema',
          line: 1,
          col: 1,
          path: '',
          message: 'must be a mapping of agent fields (name, instruction, …)',
        },
      ],
    };
  }
  const record = data as Record<string, unknown>;
  // The schema definition a config is checked against, chosen by its `agent_class` as the loader does.
  const validate = VALIDATORS[agentConfigDefinition(canonicalClass(record.agent_class))];
  const problems: Problem[] = [];
  if (!validate(record)) {
    const seen = new Set<string>();
    for (const error of relevant(validate.errors ?? [])) {
      const { path, message } = describe(error);
      const key = `${formatPath(path)}|${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push({ file, kind: 'schema', path: formatPath(path), message, ...position(doc, lines, path) });
    }
  }
  return { data: record, problems, editable: isMap(doc.contents) };
}

function edit(text: string, change: (doc: Document.Parsed) => void): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return text;
  if (!isMap(doc.contents)) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  change(doc);
  return doc.toString({ lineWidth: 0 });
}

/**
 * Sets a top-level field (`undefined` removes it). A scalar keeps its style and comments; a new
 * multi-line string is written as a block (`|`).
 */
export function setField(text: string, key: string, value: unknown): string {
  return edit(text, (doc) => {
    if (value === undefined) {
      doc.delete(key);
      return;
    }
    const node = doc.get(key, true);
    if (isScalar(node) && (typeof value !== 'object' || value === null)) {
      node.value = value;
      if (typeof value === 'string' && value.includes('\n') && node.type !== 'BLOCK_LITERAL')
        node.type = 'BLOCK_LITERAL';
      return;
    }
    const created = doc.createNode(value);
    if (isScalar(created) && typeof value === 'string' && value.includes('\n'))
      created.type = 'BLOCK_LITERAL';
    doc.set(key, created);
  });
}

/** Appends an item to a top-level list (created when missing). */
export function addItem(text: string, key: string, item: unknown): string {
  return edit(text, (doc) => {
    const list = doc.get(key, true);
    if (isSeq(list)) list.add(doc.createNode(item));
    else {
      const seq = new YAMLSeq();
      seq.add(doc.createNode(item));
      doc.set(key, seq);
    }
  });
}

/** Removes item `index` of a top-level list (the key goes when the list is left empty). */
export function removeItem(text: string, key: string, index: number): string {
  return edit(text, (doc) => {
    const list = doc.get(key, true);
    if (!isSeq(list)) return;
    list.delete(index);
    if (list.items.length === 0) doc.delete(key);
  });
}

/** `dir/a/../b.yaml` → `dir/b.yaml`; undefined for a path that leaves the app folder or is absolute. */
export function normalizePath(path: string): string | undefined {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return undefined;
  const out: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.length > 0 ? out.join('/') : undefined;
}

/** A `config_path` of `file`, as a path in the app folder (relative to `file`'s folder). */
export function resolveFrom(file: string, configPath: string): string | undefined {
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
  return normalizePath(`${dir}${configPath}`);
}

/** The agent files a config names: `sub_agents[].config_path` and AgentTools' `args.agent.config_path`. */
export function referencedFiles(file: string, data: Record<string, unknown> | undefined): string[] {
  if (!data) return [];
  const found: string[] = [];
  const take = (ref: unknown) => {
    const path =
      typeof ref === 'string' ? ref : (ref as { config_path?: unknown } | null | undefined)?.config_path;
    if (typeof path === 'string' && /\.ya?ml$/i.test(path)) {
      const resolved = resolveFrom(file, path);
      if (resolved && !found.includes(resolved)) found.push(resolved);
    }
  };
  if (Array.isArray(data.sub_agents)) for (const ref of data.sub_agents) take(ref);
  if (Array.isArray(data.tools))
    for (const tool of data.tools as { name?: unknown; args?: { agent?: unknown } | null }[])
      if (tool?.name === 'AgentTool') take(tool.args?.agent);
  return found;
}

/** A new sub-agent file's text: an LlmAgent with a name and an instruction to fill in. */
export function newAgentText(name: string): string {
  return `name: ${name}\ndescription: ''\ninstruction: Describe what ${name} does.\n`;
}
