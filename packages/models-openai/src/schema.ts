import type { JsonSchema } from '@adk/core';

/**
 * Rewrites a JSON Schema for OpenAI strict mode (Structured Outputs): every object gets
 * `additionalProperties: false` and lists all its properties in `required`; a property that was
 * optional becomes nullable instead (`type: [T, 'null']`, or `anyOf` with `{type: 'null'}`);
 * `$schema` and `default` are dropped. `$defs`/`$ref` are kept (strict mode supports them).
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _s, ...rest } = schema;
  return strict(rest) as JsonSchema;
}

function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (typeof node !== 'object' || node === null) return node;
  const input = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'default') continue;
    if (key === 'properties' || key === '$defs' || key === 'definitions') {
      out[key] = Object.fromEntries(
        Object.entries((value ?? {}) as Record<string, unknown>).map(([k, v]) => [k, strict(v)]),
      );
    } else if (
      key === 'items' ||
      key === 'anyOf' ||
      key === 'oneOf' ||
      key === 'allOf' ||
      key === 'prefixItems'
    ) {
      out[key] = strict(value);
    } else out[key] = value;
  }
  if (out.oneOf && !out.anyOf) {
    out.anyOf = out.oneOf;
    delete out.oneOf;
  }
  const isObject = out.type === 'object' || (out.properties !== undefined && out.type === undefined);
  if (isObject) {
    const properties = (out.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    for (const [name, prop] of Object.entries(properties)) {
      if (!required.has(name)) properties[name] = nullable(prop);
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

function nullable(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  let s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && !s.enum.includes(null)) s = { ...s, enum: [...s.enum, null] };
  if (typeof s.type === 'string') return s.type === 'null' ? s : { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.type)) return s.type.includes('null') ? s : { ...s, type: [...s.type, 'null'] };
  if (Array.isArray(s.anyOf))
    return s.anyOf.some((b) => (b as { type?: unknown }).type === 'null')
      ? s
      : { ...s, anyOf: [...s.anyOf, { type: 'null' }] };
  return { anyOf: [s, { type: 'null' }] };
}
