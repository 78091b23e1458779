import type { z } from 'zod';
import { ConfigError } from '../errors/errors.js';
import type { FunctionResponseScheduling } from '../events/content.js';
import { withLongRunningNote } from '../flow/adk-prompts.js';
import type { FunctionDeclaration, JsonSchema } from '../models/llm.js';
import { zod } from '../utils/zod.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';
import {
  isZod3Schema,
  isZod4Schema,
  parseToolArgs,
  type ToolArgs,
  type ToolParameters,
  zod3ToJsonSchema,
} from './tool-parameters.js';

export interface FunctionToolOptions<S extends ToolParameters | undefined, R> {
  /** Default: the name of `execute` (`async function get_weather(…)` is `get_weather`), as in @google/adk. */
  name?: string;
  description: string;
  /**
   * The arguments: a zod 4 or zod 3 schema (validated before `execute` runs, and typed), or a JSON
   * Schema object (sent as given, arguments passed through). Omitted: the tool takes no arguments.
   */
  parameters?: S;
  /** Returns the response; an async generator function makes a streaming tool (see BaseTool.run). */
  execute: (args: ToolArgs<S>, context: ToolContext) => R | Promise<R> | AsyncIterable<R>;
  isLongRunning?: boolean;
  /** Safe to run again after a crash interrupted it (see BaseToolOptions.idempotent). */
  idempotent?: boolean;
  /** Live sessions: see BaseToolOptions.behavior. */
  behavior?: 'BLOCKING' | 'NON_BLOCKING';
  /** Live sessions: see BaseToolOptions.scheduling. */
  scheduling?: FunctionResponseScheduling;
  /** Ask the user before running: always, or when the predicate says so. */
  requireConfirmation?: boolean | ((args: ToolArgs<S>, context: ToolContext) => boolean | Promise<boolean>);
}

/** Thrown inside `run` when the model's arguments do not match the schema. */
export class ToolArgumentsError extends Error {
  constructor(readonly issues: string) {
    super(`Invalid arguments: ${issues}`);
    this.name = 'ToolArgumentsError';
  }
}

/**
 * Converts a zod schema to the JSON Schema of a function declaration: what the user declared and
 * nothing zod adds on its own (no `$schema`, no ±2^53-1 bounds of `.int()`, no built-in pattern
 * behind a string `format`, no `propertyNames: {type: string}` of a record). `additionalProperties:
 * false` appears only for a strict object, which asks for it.
 */
export function zodToJsonSchema(schema: z.ZodType): JsonSchema {
  const json = zod().z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => dropImplicitKeywords(zodSchema, jsonSchema),
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** The parts of a zod schema's definition that say where a keyword came from. */
interface ZodDefView {
  type?: string;
  format?: string;
  checks?: { _zod?: { def?: { check?: string; format?: string } } }[];
}

function dropImplicitKeywords(zodSchema: unknown, json: JsonSchema): void {
  const def: ZodDefView = (zodSchema as { _zod?: { def?: ZodDefView } })._zod?.def ?? {};
  const checks = (def.checks ?? []).map((c) => c._zod?.def ?? {});
  if (def.type === 'number' && (def.format === 'safeint' || checks.some((c) => c.format === 'safeint'))) {
    if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
    if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  }
  // A format such as `date-time` or `email` says it; the regex zod checks it with is its own.
  if (def.type === 'string' && def.format && !checks.some((c) => c.format === 'regex')) delete json.pattern;
  const names = json.propertyNames as JsonSchema | undefined;
  if (names && Object.keys(names).length === 1 && names.type === 'string') delete json.propertyNames;
}

/** A tool from a function and its arguments' schema (zod 4, zod 3 or JSON Schema). */
export class FunctionTool<S extends ToolParameters | undefined = undefined, R = unknown> extends BaseTool {
  private readonly options: FunctionToolOptions<S, R>;
  private cachedDeclaration: FunctionDeclaration | undefined;

  constructor(options: FunctionToolOptions<S, R>) {
    const name = options.name ?? options.execute.name;
    if (!name)
      throw new ConfigError('FunctionTool needs a name: pass `name` or a named function as `execute`');
    super({
      name,
      description: options.description,
      isLongRunning: options.isLongRunning ?? false,
      idempotent: options.idempotent ?? false,
      ...(options.behavior ? { behavior: options.behavior } : {}),
      ...(options.scheduling ? { scheduling: options.scheduling } : {}),
    });
    this.options = options;
  }

  get parameters(): S {
    return this.options.parameters as S;
  }

  declaration(): FunctionDeclaration {
    this.cachedDeclaration ??= {
      name: this.name,
      // ADK tells the model not to call a long-running tool again while it is pending.
      description: this.isLongRunning ? withLongRunningNote(this.description) : this.description,
      ...parametersSchema(this.options.parameters),
      ...(this.behavior === 'NON_BLOCKING' ? { behavior: 'NON_BLOCKING' as const } : {}),
    };
    return this.cachedDeclaration;
  }

  parseArgs(args: Record<string, unknown>): ToolArgs<S> {
    const parsed = parseToolArgs(this.options.parameters, args);
    if (!parsed.ok) throw new ToolArgumentsError(parsed.issues);
    return parsed.value as ToolArgs<S>;
  }

  override async requiresConfirmation(args: Record<string, unknown>, context: ToolContext): Promise<boolean> {
    const rule = this.options.requireConfirmation;
    if (typeof rule !== 'function') return rule ?? false;
    const parsed = parseToolArgs(this.options.parameters, args);
    return parsed.ok ? rule(parsed.value as ToolArgs<S>, context) : false;
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    return this.options.execute(this.parseArgs(args), context);
  }
}

function parametersSchema(parameters: ToolParameters | undefined): { parameters?: JsonSchema } {
  if (parameters === undefined) return {};
  if (isZod4Schema(parameters)) return { parameters: zodToJsonSchema(parameters) };
  if (isZod3Schema(parameters)) return { parameters: zod3ToJsonSchema(parameters) };
  return { parameters: parameters as JsonSchema };
}
