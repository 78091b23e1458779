import { AdkError, type AdkErrorCode, type AdkErrorOptions } from '@adk/core';

export interface AgentConfigErrorInit {
  /** The YAML file. */
  file: string;
  /** Where in the file, as a path from the top: `tools[1].args.agent.config_path` (`$` for the whole file). */
  yamlPath: string;
  /** What the loader expected there. */
  expected: string;
  /** What it found. */
  found: string;
  /** 1-based line and column of the value (of its mapping when a key is missing), when known. */
  line?: number;
  column?: number;
}

/**
 * An agent config file could not be used: the YAML is malformed, a field has the wrong shape, a
 * reference does not resolve, or a path leaves the app folder. The message names the file, the YAML
 * path, what was expected and what was found; the same facts are fields.
 */
export class AgentConfigError extends AdkError {
  readonly file: string;
  readonly yamlPath: string;
  readonly expected: string;
  readonly found: string;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(init: AgentConfigErrorInit, options: AdkErrorOptions & { code?: AdkErrorCode } = {}) {
    const where = init.line === undefined ? init.file : `${init.file}:${init.line}:${init.column ?? 1}`;
    super(
      options.code ?? 'AGENT_CONFIG',
      `${where}: at ${init.yamlPath}: expected ${init.expected}, found ${init.found}`,
      {
        ...(options.cause === undefined ? {} : { cause: options.cause }),
        details: { ...init, ...options.details },
      },
    );
    this.file = init.file;
    this.yamlPath = init.yamlPath;
    this.expected = init.expected;
    this.found = init.found;
    this.line = init.line;
    this.column = init.column;
  }
}

/** A valid config that asks for something this version cannot build yet (e.g. `agent_class: Workflow`). */
export class AgentConfigNotSupportedError extends AgentConfigError {
  constructor(init: AgentConfigErrorInit, options: AdkErrorOptions = {}) {
    super(init, { ...options, code: 'AGENT_CONFIG_NOT_SUPPORTED' });
  }
}

/** A short, quoted description of a found value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''}`;
  if (typeof value === 'object') {
    const name = (value as object).constructor?.name;
    if (name && name !== 'Object') return `an instance of ${name}`;
    const keys = Object.keys(value as object);
    return keys.length === 0 ? 'an empty mapping' : `a mapping with keys ${keys.slice(0, 6).join(', ')}`;
  }
  return typeof value;
}
