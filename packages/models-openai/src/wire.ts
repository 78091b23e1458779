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
export const openaiChunkSchema: SchemaLike<OpenAIChunk> = deferredSchema(() => schemas().openaiChunkSchema);
