import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { describeValue } from '../errors.js';
import { pointerToPath, type YamlPathSegment } from '../names.js';
import type { YamlSource } from '../yaml-source.js';
import { AGENT_CONFIG_SCHEMA_ID, agentConfigJsonSchema } from './agent-config-schema.js';

export type ConfigDefinition = keyof typeof agentConfigJsonSchema.$defs;

let ajv: Ajv2020 | undefined;
const validators = new Map<ConfigDefinition, ValidateFunction>();

// Compiled on first use: importing the package stays cheap.
function validatorFor(definition: ConfigDefinition): ValidateFunction {
  let validate = validators.get(definition);
  if (!validate) {
    if (!ajv) {
      // ajv (CommonJS) is loaded on first validation, not when the package is imported.
      const { Ajv2020: AjvClass } = createRequire(import.meta.url)(
        'ajv/dist/2020.js',
      ) as typeof import('ajv/dist/2020.js');
      ajv = new AjvClass({
        allErrors: false,
        verbose: true,
        strict: true,
        strictTypes: false,
        strictTuples: false,
      });
      ajv.addSchema(agentConfigJsonSchema);
    }
    const compiled = ajv.getSchema(`${AGENT_CONFIG_SCHEMA_ID}#/$defs/${definition}`);
    if (!compiled) throw new Error(`No schema definition ${definition}`);
    validate = compiled;
    validators.set(definition, validate);
  }
  return validate;
}

function valueAt(data: unknown, path: readonly YamlPathSegment[]): unknown {
  let value = data;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function typeName(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).filter((t) => t !== 'null');
  const words: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    integer: 'an integer',
    boolean: 'a boolean (true or false)',
    array: 'a list',
    object: 'a mapping',
  };
  return names.map((t) => words[String(t)] ?? String(t)).join(' or ');
}

function explain(
  error: ErrorObject,
  data: unknown,
  basePath: readonly YamlPathSegment[],
): { path: YamlPathSegment[]; expected: string; found: string } {
  const path = [...basePath, ...pointerToPath(error.instancePath)];
  const value = valueAt(data, pointerToPath(error.instancePath));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        path: [...path, String(params.missingProperty)],
        expected: `the required key "${String(params.missingProperty)}"`,
        found: 'nothing',
      };
    case 'additionalProperties': {
      const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      return {
        path: [...path, String(params.additionalProperty)],
        expected: known.length > 0 ? `one of the keys ${known.join(', ')}` : 'no extra keys',
        found: `the unknown key "${String(params.additionalProperty)}"`,
      };
    }
    case 'type':
      return { path, expected: typeName(params.type), found: describeValue(value) };
    case 'enum':
      return {
        path,
        expected: `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        found: describeValue(value),
      };
    case 'const':
      return { path, expected: JSON.stringify(params.allowedValue), found: describeValue(value) };
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
      return {
        path,
        expected: `a number ${String(params.comparison)} ${String(params.limit)}`,
        found: describeValue(value),
      };
    case 'anyOf': {
      const options = (error.schema as Record<string, unknown>[] | undefined) ?? [];
      const described = options
        .map((o) =>
          o.$ref
            ? `a ${String(o.$ref).split('/').pop()}`
            : o.type
              ? typeName(o.type)
              : o.const !== undefined
                ? JSON.stringify(o.const)
                : 'a value',
        )
        .filter((d) => d !== '');
      return { path, expected: described.join(' or ') || 'another shape', found: describeValue(value) };
    }
    default:
      return {
        path,
        expected: `a value that ${error.message ?? 'matches the schema'}`,
        found: describeValue(value),
      };
  }
}

/**
 * Validates `data` (found at `basePath` of `source`) against one schema definition; throws an
 * AgentConfigError naming the first problem.
 */
export function validateAgainst(
  definition: ConfigDefinition,
  data: unknown,
  source: YamlSource,
  basePath: readonly YamlPathSegment[] = [],
): void {
  const validate = validatorFor(definition);
  if (validate(data)) return;
  const errors = validate.errors ?? [];
  // Inside an anyOf, ajv reports each branch's failure first. A failure deeper than the anyOf (or
  // other than a type mismatch) pinpoints the problem; a plain type mismatch of every branch is
  // best told by the anyOf itself ("a string or a mapping").
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  const specific = errors.filter(
    (e) =>
      e.keyword !== 'anyOf' &&
      !(e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null') &&
      (!anyOf ||
        e.instancePath.length > anyOf.instancePath.length ||
        (e.keyword !== 'type' && e.keyword !== 'const')),
  );
  const error = specific[0] ?? anyOf ?? errors[0];
  if (!error) throw source.error([...basePath], `a valid ${definition}`, 'an invalid value');
  const { path, expected, found } = explain(error, data, basePath);
  throw source.error(path, expected, found);
}
