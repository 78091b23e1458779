import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import type { z as Z } from 'zod';

// Zod schemas of the Chat Completions responses we read. Loose, and lenient about nulls, because
// OpenAI-compatible servers (Ollama, vLLM, LiteLLM, Groq…) differ in small ways.

// Built on first use: importing the provider does not load zod.
const schemas = lazyZod((z) => {
  const toolCallSchema = z.looseObject({
    index: z.number().optional(),
    id: z.string().nullish(),
    type: z.string().nullish(),
    function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
  });

  const openaiUsageSchema = z.looseObject({
    prompt_tokens: z.number().nullish(),
    completion_tokens: z.number().nullish(),
    total_tokens: z.number().nullish(),
    prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
  });

  const messageFields = {
    role: z.string().nullish(),
    content: z.string().nullish(),
    refusal: z.string().nullish(),
    reasoning_content: z.string().nullish(),
    reasoning: z.string().nullish(),
    tool_calls: z.array(toolCallSchema).nullish(),
  };

  const openaiCompletionSchema = z.looseObject({
    id: z.string().optional(),
    model: z.string().optional(),
    choices: z.array(
      z.looseObject({
        index: z.number().optional(),
        message: z.looseObject(messageFields),
        finish_reason: z.string().nullish(),
      }),
    ),
    usage: openaiUsageSchema.nullish(),
  });

  const openaiChunkSchema = z.looseObject({
    id: z.string().optional(),
    model: z.string().optional(),
    choices: z
      .array(
        z.looseObject({
          index: z.number().optional(),
          delta: z.looseObject(messageFields).nullish(),
          finish_reason: z.string().nullish(),
        }),
      )
      .optional(),
    usage: openaiUsageSchema.nullish(),
    /** Some compatible servers send an error object as a stream event. */
    error: z
      .looseObject({ message: z.string().optional(), type: z.string().nullish(), code: z.unknown() })
      .optional(),
  });

  return { openaiUsageSchema, openaiCompletionSchema, openaiChunkSchema };
});
type Schemas = ReturnType<typeof schemas>;

export type OpenAIUsage = Z.infer<Schemas['openaiUsageSchema']>;
export type OpenAICompletion = Z.infer<Schemas['openaiCompletionSchema']>;
export type OpenAIChunk = Z.infer<Schemas['openaiChunkSchema']>;

export const openaiUsageSchema: SchemaLike<OpenAIUsage> = deferredSchema(() => schemas().openaiUsageSchema);
export const openaiCompletionSchema: SchemaLike<OpenAICompletion> = deferredSchema(
  () => schemas().openaiCompletionSchema,
);
const chunkSchema: SchemaLike<OpenAIChunk> = deferredSchema(() => schemas().openaiChunkSchema);

const optionalString = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/**
 * The common streaming chunk — text or reasoning deltas only — checked by hand: it is most of a
 * stream, and a structural check costs a fraction of a schema parse. Anything else (tool calls,
 * usage, errors, unexpected types) goes through the full schema.
 */
function isPlainTextChunk(value: unknown): value is OpenAIChunk {
  if (typeof value !== 'object' || value === null) return false;
  const chunk = value as Record<string, unknown>;
  if (chunk.usage != null || chunk.error !== undefined) return false;
  if (!optionalString(chunk.id) || !optionalString(chunk.model)) return false;
  const choices = chunk.choices;
  if (choices === undefined) return true;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (typeof choice !== 'object' || choice === null) return false;
    const c = choice as Record<string, unknown>;
    if (c.index !== undefined && typeof c.index !== 'number') return false;
    if (!optionalString(c.finish_reason)) return false;
    const delta = c.delta;
    if (delta === undefined || delta === null) continue;
    if (typeof delta !== 'object') return false;
    const d = delta as Record<string, unknown>;
    if (d.tool_calls != null) return false;
    if (!optionalString(d.role) || !optionalString(d.content) || !optionalString(d.refusal)) return false;
    if (!optionalString(d.reasoning_content) || !optionalString(d.reasoning)) return false;
  }
  return true;
}

export const openaiChunkSchema: SchemaLike<OpenAIChunk> = {
  safeParse: (value) =>
    isPlainTextChunk(value) ? { success: true, data: value } : chunkSchema.safeParse(value),
};
