import { z } from 'zod';

// Zod schemas of the Gemini API responses we read. Loose: unknown fields pass through untouched.

const numberish = z.number().optional();

export const geminiPartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
  fileData: z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
  functionCall: z
    .looseObject({
      id: z.string().optional(),
      name: z.string(),
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  executableCode: z.looseObject({ language: z.string(), code: z.string() }).optional(),
  codeExecutionResult: z.looseObject({ outcome: z.string(), output: z.string().optional() }).optional(),
});
export type GeminiPart = z.infer<typeof geminiPartSchema>;

export const geminiUsageSchema = z.looseObject({
  promptTokenCount: numberish,
  candidatesTokenCount: numberish,
  totalTokenCount: numberish,
  cachedContentTokenCount: numberish,
  thoughtsTokenCount: numberish,
  toolUsePromptTokenCount: numberish,
});

export const geminiResponseSchema = z.looseObject({
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
export type GeminiResponse = z.infer<typeof geminiResponseSchema>;
