import type { z } from 'zod';
import type { FunctionDeclaration, JsonSchema } from '../models/llm.js';
import { formatIssues } from '../utils/zod.js';
import { BaseTool } from './base-tool.js';
import { zodToJsonSchema } from './function-tool.js';
import type { ToolContext } from './tool-context.js';

/** The tool's name, as adk-python declares it. */
export const SET_MODEL_RESPONSE_TOOL_NAME = 'set_model_response';

/**
 * adk-python's description: the docstring of its `set_model_response` function as Python 3.13+
 * compiles it (common indentation removed), stripped (docs/decisions/0016-adk-prompt-texts.md).
 */
export const SET_MODEL_RESPONSE_DESCRIPTION =
  'Set your final response using the required output schema.\n\nUse this tool to provide your final structured answer instead\nof outputting text directly.';

/** What a call with arguments that do not match the schema answers (the issues go in between). */
const VALIDATION_ERROR_PREFIX = 'Validation Error found:\n';
const VALIDATION_ERROR_ADVICE =
  'Recall the set_model_response function correctly, fix the errors, and call it again with all required fields using the correct types.';

/**
 * How the schema becomes the tool's parameters (adk-python's rule): an object's fields are the
 * parameters; an array of objects is one `items` parameter; anything else one `response` parameter.
 */
export type SetModelResponseShape = 'fields' | 'items' | 'response';

function isObjectSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as JsonSchema).type === 'object';
}

/** Drops `null` fields of objects, nested ones included (pydantic's `model_dump(exclude_none=True)`). */
function withoutNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === null ? v : withoutNullFields(v)));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>))
    if (v !== null && v !== undefined) out[key] = withoutNullFields(v);
  return out;
}

/**
 * The tool an agent with an output schema and tools gets when its model cannot take a response
 * schema together with tools (`ModelCapabilities.responseSchemaWithTools`), as in adk-python 2.x:
 * its arguments are the schema, the model calls it with its final answer, and the validated
 * arguments become the agent's final response. Arguments that do not validate are answered with
 * adk-python's error text so the model can call it again; nothing is recorded then.
 */
export class SetModelResponseTool extends BaseTool {
  readonly shape: SetModelResponseShape;
  private readonly parameters: JsonSchema;

  constructor(readonly outputSchema: z.ZodType) {
    super({ name: SET_MODEL_RESPONSE_TOOL_NAME, description: SET_MODEL_RESPONSE_DESCRIPTION });
    const schema = zodToJsonSchema(outputSchema);
    if (isObjectSchema(schema)) {
      this.shape = 'fields';
      this.parameters = schema;
    } else {
      this.shape = schema.type === 'array' && isObjectSchema(schema.items) ? 'items' : 'response';
      this.parameters = { type: 'object', properties: { [this.shape]: schema }, required: [this.shape] };
    }
  }

  declaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parameters: this.parameters };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const value = this.shape === 'fields' ? args : args[this.shape];
    const parsed = this.outputSchema.safeParse(value);
    if (!parsed.success)
      return {
        error: `${VALIDATION_ERROR_PREFIX}${formatIssues(parsed.error.issues)}\n${VALIDATION_ERROR_ADVICE}`,
      };
    const result = this.shape === 'response' ? parsed.data : withoutNullFields(parsed.data);
    context.actions.setModelResponse = result;
    return result;
  }
}
