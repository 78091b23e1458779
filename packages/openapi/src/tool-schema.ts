import { isPlainObject, type JsonSchema } from '@adk/core';

const DROPPED = new Set(['xml', 'externalDocs', 'example', 'discriminator', 'x-examples']);

/**
 * A parameter or body schema as JSON Schema for a tool declaration: OpenAPI 3.0 `nullable` becomes
 * a `null` type, `example` and other documentation-only keywords are dropped, `readOnly`
 * properties are left out of request bodies, and recursive schemas are cut at the repetition.
 */
export function toToolSchema(schema: unknown, options: { request: boolean }): JsonSchema {
  return convert(schema, options.request, new Set()) as JsonSchema;
}

function convert(schema: unknown, request: boolean, stack: Set<object>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => convert(s, request, stack));
  if (!isPlainObject(schema)) return schema;
  if (stack.has(schema)) return { description: 'A value of the same shape as its parent (recursive).' };
  stack.add(schema);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === 'nullable') continue;
    if (key === 'properties' && isPlainObject(value)) {
      const properties: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(value)) {
        if (request && isPlainObject(property) && property.readOnly === true) continue;
        properties[name] = convert(property, request, stack);
      }
      out.properties = properties;
      continue;
    }
    out[key] = typeof value === 'object' && value !== null ? convert(value, request, stack) : value;
  }
  if (request && Array.isArray(out.required) && isPlainObject(out.properties)) {
    const kept = (out.required as unknown[]).filter(
      (n) => typeof n === 'string' && n in (out.properties as object),
    );
    if (kept.length > 0) out.required = kept;
    else delete out.required;
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    else if (out.type === undefined) out.anyOf = [...((out.anyOf as unknown[]) ?? [{}]), { type: 'null' }];
  }
  stack.delete(schema);
  return out;
}
