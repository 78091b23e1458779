import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import type { z as Z } from 'zod';

// Zod schemas of the Gemini API responses we read. Loose: unknown fields pass through untouched.

// Built on first use: importing the provider does not load zod.
const schemas = lazyZod((z) => {
  const numberish = z.number().optional();

  const geminiPartSchema = z.looseObject({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
    fileData: z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
    functionCall: z
      .looseObject({
        id: z.string().optional(),
        // Absent on the continuation chunks of a call whose arguments are streamed.
        name: z.string().optional(),
        args: z.record(z.string(), z.unknown()).optional(),
        partialArgs: z
          .array(
            z.looseObject({
              jsonPath: z.string(),
              stringValue: z.string().optional(),
              numberValue: z.number().optional(),
              boolValue: z.boolean().optional(),
              nullValue: z.unknown().optional(),
              willContinue: z.boolean().optional(),
            }),
          )
          .optional(),
        willContinue: z.boolean().optional(),
      })
      .optional(),
    executableCode: z.looseObject({ language: z.string(), code: z.string() }).optional(),
    codeExecutionResult: z.looseObject({ outcome: z.string(), output: z.string().optional() }).optional(),
  });

  const geminiUsageSchema = z.looseObject({
    promptTokenCount: numberish,
    candidatesTokenCount: numberish,
    totalTokenCount: numberish,
    cachedContentTokenCount: numberish,
    thoughtsTokenCount: numberish,
    toolUsePromptTokenCount: numberish,
  });

  const geminiResponseSchema = z.looseObject({
    candidates: z
      .array(
        z.looseObject({
          content: z
            .looseObject({ role: z.string().optional(), parts: z.array(geminiPartSchema).optional() })
            .optional(),
          finishReason: z.string().optional(),
          finishMessage: z.string().optional(),
          safetyRatings: z.array(z.unknown()).optional(),
          citationMetadata: z.unknown().optional(),
          groundingMetadata: z.unknown().optional(),
          urlContextMetadata: z.unknown().optional(),
          index: z.number().optional(),
        }),
      )
      .optional(),
    promptFeedback: z
      .looseObject({
        blockReason: z.string().optional(),
        blockReasonMessage: z.string().optional(),
        safetyRatings: z.array(z.unknown()).optional(),
      })
      .optional(),
    usageMetadata: geminiUsageSchema.optional(),
    modelVersion: z.string().optional(),
    responseId: z.string().optional(),
    /** Sent in place of a chunk when a stream fails after it started. */
    error: z
      .looseObject({
        code: z.number().optional(),
        message: z.string().optional(),
        status: z.string().optional(),
      })
      .optional(),
  });

  return { geminiPartSchema, geminiUsageSchema, geminiResponseSchema };
});
type Schemas = ReturnType<typeof schemas>;

export type GeminiPart = Z.infer<Schemas['geminiPartSchema']>;
export type GeminiResponse = Z.infer<Schemas['geminiResponseSchema']>;

export const geminiPartSchema: SchemaLike<GeminiPart> = deferredSchema(() => schemas().geminiPartSchema);
export const geminiUsageSchema: SchemaLike<Z.infer<Schemas['geminiUsageSchema']>> = deferredSchema(
  () => schemas().geminiUsageSchema,
);
export const geminiResponseSchema: SchemaLike<GeminiResponse> = deferredSchema(
  () => schemas().geminiResponseSchema,
);
