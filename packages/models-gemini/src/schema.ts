import type { JsonSchema } from '@adk/core';

/**
 * Rewrites a JSON Schema (as `z.toJSONSchema` emits) into the OpenAPI 3.0 subset that Gemini's
 * `Schema` accepts:
 * - `$ref`s into `$defs`/`definitions` are inlined (recursion deeper than 8 becomes a bare object);
 * - `type: [T, 'null']` and `anyOf/oneOf` with a `null` branch become `nullable: true`;
 *   remaining multi-type unions become `anyOf`; `allOf` is merged;
 * - `const` becomes a one-value `enum`; enums must be strings, other enums are dropped and listed
 *   in the description;
 * - only the keywords Gemini knows are kept (type, format, description, nullable, enum, items,
 *   properties, required, min/max items/length/properties, minimum, maximum, pattern, title,
 *   anyOf, propertyOrdering); `exclusiveMinimum/Maximum` become `minimum/maximum`;
 * - string formats other than `date-time`/`enum` and number formats other than
 *   `float/double/int32/int64` are dropped.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  const defs = { ...asRecord(schema.$defs), ...asRecord(schema.definitions) };
  return convert(schema, defs, 0);
}

/** Parameters for a function declaration; undefined for an object without properties. */
export function toGeminiParameters(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  const converted = toGeminiSchema(schema);
  if (converted.type === 'object' && Object.keys(asRecord(converted.properties)).length === 0)
    return undefined;
  return converted;
}

const STRING_FORMATS = new Set(['date-time', 'enum']);
const NUMBER_FORMATS = new Set(['float', 'double', 'int32', 'int64']);

function convert(input: unknown, defs: Record<string, unknown>, depth: number): JsonSchema {
  if (input === true || input === undefined) return {};
  if (!isRecord(input)) return {};
  let schema: Record<string, unknown> = input;
  if (typeof schema.$ref === 'string') {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name === undefined ? undefined : defs[decodeURIComponent(name)];
    if (!isRecord(target) || depth > 8) return { type: 'object' };
    const { $ref: _ref, ...rest } = schema;
    schema = { ...target, ...rest };
    depth++;
  }

  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    schema = (allOf as unknown[]).reduce<Record<string, unknown>>(
      (acc, part) => (isRecord(part) ? mergeSchemas(acc, part) : acc),
      rest,
    );
  }

  const out: JsonSchema = {};
  if (typeof schema.title === 'string') out.title = schema.title;
  let description = typeof schema.description === 'string' ? schema.description : undefined;

  const union = (
    Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  ) as unknown[] | undefined;
  if (union) {
    const nonNull = union.filter((s) => !(isRecord(s) && s.type === 'null'));
    const nullable = nonNull.length < union.length;
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    if (nonNull.length === 1) {
      const merged = convert({ ...rest, ...(nonNull[0] as Record<string, unknown>) }, defs, depth + 1);
      if (nullable) merged.nullable = true;
      return merged;
    }
    const result: JsonSchema = { ...convert(rest, defs, depth + 1) };
    result.anyOf = nonNull.map((s) => convert(s, defs, depth + 1));
    if (nullable) result.nullable = true;
    return result;
  }

  let type = schema.type;
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    const nonNull = types.filter((t) => t !== 'null');
    if (nonNull.length < types.length) out.nullable = true;
    if (nonNull.length > 1) {
      const { type: _t, ...rest } = schema;
      const result = convert(rest, defs, depth + 1);
      result.anyOf = nonNull.map((t) => convert({ ...rest, type: t }, defs, depth + 1));
      delete result.type;
      if (out.nullable) result.nullable = true;
      return result;
    }
    type = nonNull[0];
  }
  if (schema.const !== undefined && schema.enum === undefined) {
    if (typeof schema.const === 'string') {
      type = 'string';
      out.enum = [schema.const];
    } else description = appendNote(description, `Must be ${JSON.stringify(schema.const)}.`);
  }
  if (Array.isArray(schema.enum)) {
    if (schema.enum.every((v) => typeof v === 'string')) {
      out.enum = [...schema.enum];
      type = 'string';
    } else
      description = appendNote(
        description,
        `One of: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}.`,
      );
  }
  if (type === undefined && isRecord(schema.properties)) type = 'object';
  if (type === undefined && schema.items !== undefined) type = 'array';
  if (typeof type === 'string' && type !== 'null') out.type = type;
  if (type === 'null') out.nullable = true;
  if (schema.nullable === true) out.nullable = true;
  if (description !== undefined) out.description = description;

  if (typeof schema.format === 'string') {
    const allowed =
      type === 'string'
        ? STRING_FORMATS
        : type === 'number' || type === 'integer'
          ? NUMBER_FORMATS
          : undefined;
    if (allowed?.has(schema.format)) out.format = schema.format;
  }
  for (const key of [
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'minProperties',
    'maxProperties',
    'minimum',
    'maximum',
  ]) {
    if (typeof schema[key] === 'number') out[key] = schema[key];
  }
  if (typeof schema.exclusiveMinimum === 'number' && out.minimum === undefined)
    out.minimum = schema.exclusiveMinimum;
  if (typeof schema.exclusiveMaximum === 'number' && out.maximum === undefined)
    out.maximum = schema.exclusiveMaximum;
  if (typeof schema.pattern === 'string') out.pattern = schema.pattern;

  if (type === 'object' || isRecord(schema.properties)) {
    const properties = asRecord(schema.properties);
    const names = Object.keys(properties);
    if (names.length > 0) {
      out.properties = Object.fromEntries(
        names.map((name) => [name, convert(properties[name], defs, depth + 1)]),
      );
      const required = Array.isArray(schema.required)
        ? schema.required.filter((r): r is string => typeof r === 'string' && names.includes(r))
        : [];
      if (required.length > 0) out.required = required;
    }
    if (Array.isArray(schema.propertyOrdering)) out.propertyOrdering = schema.propertyOrdering;
  }
  if (type === 'array') {
    const items = Array.isArray(schema.prefixItems) ? schema.prefixItems[0] : schema.items;
    out.items = isRecord(items) ? convert(items, defs, depth + 1) : {};
  }
  return out;
}

function mergeSchemas(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...a, ...b };
  if (isRecord(a.properties) || isRecord(b.properties)) {
    merged.properties = { ...asRecord(a.properties), ...asRecord(b.properties) };
  }
  const required = [
    ...(Array.isArray(a.required) ? a.required : []),
    ...(Array.isArray(b.required) ? b.required : []),
  ];
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

function appendNote(description: string | undefined, note: string): string {
  return description ? `${description} ${note}` : note;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
