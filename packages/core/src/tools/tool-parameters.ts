import type { z } from 'zod';
import type { JsonSchema } from '../models/llm.js';
import { formatIssues } from '../utils/zod.js';

/**
 * A zod 3 schema (`zod@3`, or `zod/v3`), as `@google/adk` samples written for zod 3 pass it. Only
 * the members we use: validation and the definition we read to write its JSON Schema.
 */
export interface Zod3Schema<T = unknown> {
  readonly _output: T;
  readonly _def: { readonly typeName?: string };
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: Zod3Issue[] } };
}

interface Zod3Issue {
  path: (string | number)[];
  message: string;
}

/**
 * What a FunctionTool's `parameters` may be: a zod 4 schema (arguments validated and typed), a zod 3
 * schema (the same), or a JSON Schema object (sent as given; arguments passed through unvalidated).
 */
export type ToolParameters =
  | z.ZodType<Record<string, unknown>>
  | Zod3Schema<Record<string, unknown>>
  | JsonSchema;

/** The arguments type `execute` receives for a `parameters` value. */
export type ToolArgs<S> = S extends z.ZodType
  ? z.output<S>
  : S extends Zod3Schema<infer T>
    ? T
    : Record<string, unknown>;

export function isZod4Schema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

export function isZod3Schema(value: unknown): value is Zod3Schema {
  return (
    typeof value === 'object' &&
    value !== null &&
    !('_zod' in value) &&
    '_def' in value &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

export function zod3Issues(issues: Zod3Issue[]): string {
  return formatIssues(issues.map((i) => ({ path: i.path, message: i.message })));
}

type Def = Record<string, unknown> & { typeName?: string; description?: string };

/** JSON Schema of a zod 3 schema: the types a tool's arguments use; anything else is `{}` (any). */
export function zod3ToJsonSchema(schema: Zod3Schema): JsonSchema {
  return convert(schema._def as Def);
}

function convert(def: Def): JsonSchema {
  const out = convertBare(def);
  if (typeof def.description === 'string') out.description = def.description;
  return out;
}

function inner(value: unknown): Def {
  return ((value as { _def?: Def } | undefined)?._def ?? {}) as Def;
}

function convertBare(def: Def): JsonSchema {
  switch (def.typeName) {
    case 'ZodString':
      return { type: 'string' };
    case 'ZodNumber': {
      const checks = (def.checks as { kind: string }[] | undefined) ?? [];
      return { type: checks.some((c) => c.kind === 'int') ? 'integer' : 'number' };
    }
    case 'ZodBigInt':
      return { type: 'integer' };
    case 'ZodBoolean':
      return { type: 'boolean' };
    case 'ZodNull':
      return { type: 'null' };
    case 'ZodLiteral':
      return { const: def.value };
    case 'ZodEnum':
      return { type: 'string', enum: def.values };
    case 'ZodNativeEnum':
      return { enum: Object.values(def.values as Record<string, unknown>) };
    case 'ZodArray':
      return { type: 'array', items: convert(inner(def.type)) };
    case 'ZodObject': {
      const shape = (typeof def.shape === 'function' ? (def.shape as () => unknown)() : def.shape) as Record<
        string,
        unknown
      >;
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const [key, value] of Object.entries(shape ?? {})) {
        const d = inner(value);
        properties[key] = convert(d);
        if (d.typeName !== 'ZodOptional' && d.typeName !== 'ZodDefault') required.push(key);
      }
      return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
    }
    case 'ZodRecord':
      return { type: 'object', additionalProperties: convert(inner(def.valueType)) };
    case 'ZodUnion':
      return { anyOf: (def.options as unknown[]).map((o) => convert(inner(o))) };
    case 'ZodOptional':
    case 'ZodDefault':
    case 'ZodReadonly':
    case 'ZodCatch':
      return convert(inner(def.innerType));
    case 'ZodNullable':
      return { anyOf: [convert(inner(def.innerType)), { type: 'null' }] };
    case 'ZodEffects':
      return convert(inner(def.schema));
    default:
      return {};
  }
}

/** Validates arguments against any supported `parameters`; throws a message of the issues. */
export function parseToolArgs(
  parameters: ToolParameters | undefined,
  args: Record<string, unknown>,
): { ok: true; value: unknown } | { ok: false; issues: string } {
  if (isZod4Schema(parameters)) {
    const parsed = parameters.safeParse(args);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, issues: formatIssues(parsed.error.issues) };
  }
  if (isZod3Schema(parameters)) {
    const parsed = parameters.safeParse(args);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, issues: zod3Issues(parsed.error.issues) };
  }
  return { ok: true, value: args };
}
