import { z } from 'zod';

// Zod schemas of the Chat Completions responses we read. Loose, and lenient about nulls, because
// OpenAI-compatible servers (Ollama, vLLM, LiteLLM, Groq…) differ in small ways.

const toolCallSchema = z.looseObject({
  index: z.number().optional(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const openaiUsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type OpenAIUsage = z.infer<typeof openaiUsageSchema>;

const messageFields = {
  role: z.string().nullish(),
  content: z.string().nullish(),
  refusal: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
};

export const openaiCompletionSchema = z.looseObject({
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
export type OpenAICompletion = z.infer<typeof openaiCompletionSchema>;

export const openaiChunkSchema = z.looseObject({
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
export type OpenAIChunk = z.infer<typeof openaiChunkSchema>;
