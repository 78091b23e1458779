import type { z } from 'zod';
import type { FunctionResponseScheduling } from '../events/content.js';
import { withLongRunningNote } from '../flow/adk-prompts.js';
import type { FunctionDeclaration, JsonSchema } from '../models/llm.js';
import { formatIssues, zod } from '../utils/zod.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

export interface FunctionToolOptions<S extends z.ZodType<Record<string, unknown>>, R> {
  name: string;
  description: string;
  /** zod schema of the arguments object; arguments are validated before `execute` runs. */
  parameters: S;
  /** Returns the response; an async generator function makes a streaming tool (see BaseTool.run). */
  execute: (args: z.output<S>, context: ToolContext) => R | Promise<R> | AsyncIterable<R>;
  isLongRunning?: boolean;
  /** Safe to run again after a crash interrupted it (see BaseToolOptions.idempotent). */
  idempotent?: boolean;
  /** Live sessions: see BaseToolOptions.behavior. */
  behavior?: 'BLOCKING' | 'NON_BLOCKING';
  /** Live sessions: see BaseToolOptions.scheduling. */
  scheduling?: FunctionResponseScheduling;
  /** Ask the user before running: always, or when the predicate says so. */
  requireConfirmation?: boolean | ((args: z.output<S>, context: ToolContext) => boolean | Promise<boolean>);
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

/** A tool from a zod schema and a typed function. */
export class FunctionTool<S extends z.ZodType<Record<string, unknown>>, R = unknown> extends BaseTool {
  private readonly options: FunctionToolOptions<S, R>;
  private cachedDeclaration: FunctionDeclaration | undefined;

  constructor(options: FunctionToolOptions<S, R>) {
    super({
      name: options.name,
      description: options.description,
      isLongRunning: options.isLongRunning ?? false,
      idempotent: options.idempotent ?? false,
      ...(options.behavior ? { behavior: options.behavior } : {}),
      ...(options.scheduling ? { scheduling: options.scheduling } : {}),
    });
    this.options = options;
  }

  get parameters(): S {
    return this.options.parameters;
  }

  declaration(): FunctionDeclaration {
    this.cachedDeclaration ??= {
      name: this.name,
      // ADK tells the model not to call a long-running tool again while it is pending.
      description: this.isLongRunning ? withLongRunningNote(this.description) : this.description,
      parameters: zodToJsonSchema(this.options.parameters),
      ...(this.behavior === 'NON_BLOCKING' ? { behavior: 'NON_BLOCKING' as const } : {}),
    };
    return this.cachedDeclaration;
  }

  parseArgs(args: Record<string, unknown>): z.output<S> {
    const parsed = this.options.parameters.safeParse(args);
    if (!parsed.success) throw new ToolArgumentsError(formatIssues(parsed.error.issues));
    return parsed.data;
  }

  override async requiresConfirmation(args: Record<string, unknown>, context: ToolContext): Promise<boolean> {
    const rule = this.options.requireConfirmation;
    if (typeof rule !== 'function') return rule ?? false;
    const parsed = this.options.parameters.safeParse(args);
    return parsed.success ? rule(parsed.data, context) : false;
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    return this.options.execute(this.parseArgs(args), context);
  }
}
