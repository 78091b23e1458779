import { AdkError, type AdkErrorOptions } from '@adk/core';

export interface ConformanceFileErrorInit {
  /** The YAML file. */
  file: string;
  /** Where in the file: `user_messages[1].text` (`$` for the whole file). */
  yamlPath: string;
  /** What was expected there. */
  expected: string;
  /** What was found. */
  found: string;
  /** 1-based line and column, when known. */
  line?: number;
  column?: number;
}

/**
 * A conformance file (`spec.yaml`, `generated-recordings*.yaml`, `generated-session*.yaml`) could
 * not be used: malformed YAML or a field of the wrong shape. The message names the file, the YAML
 * path, what was expected and what was found; the same facts are fields.
 */
export class ConformanceFileError extends AdkError {
  readonly file: string;
  readonly yamlPath: string;
  readonly expected: string;
  readonly found: string;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(init: ConformanceFileErrorInit, options: AdkErrorOptions = {}) {
    const where = init.line === undefined ? init.file : `${init.file}:${init.line}:${init.column ?? 1}`;
    super(
      'CONFORMANCE_FILE',
      `${where}: at ${init.yamlPath}: expected ${init.expected}, found ${init.found}`,
      {
        ...options,
        details: { ...init },
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

/**
 * During replay, the runtime did something the recording does not have: a model request that
 * differs from the recorded one, a tool call with another name or arguments, or more model or
 * tool calls than were recorded for an agent and user message.
 */
export class ReplayMismatchError extends AdkError {
  /** A readable diff (recorded vs actual), when the mismatch is between two values. */
  readonly diff: string | undefined;

  constructor(message: string, diff?: string, options: AdkErrorOptions = {}) {
    super('CONFORMANCE_MISMATCH', diff ? `${message}\n${diff}` : message, options);
    this.diff = diff;
  }
}

/** Replay cannot run: no recordings for the case, or an agent whose model cannot be replaced. */
export class ReplaySetupError extends AdkError {
  constructor(message: string, options: AdkErrorOptions = {}) {
    super('CONFORMANCE_SETUP', message, options);
  }
}

/** A short description of a found value for error messages. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return 'a mapping';
}
