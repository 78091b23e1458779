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
const responseSchema: SchemaLike<GeminiResponse> = deferredSchema(() => schemas().geminiResponseSchema);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';
const isOptionalNumber = (value: unknown): boolean => value === undefined || typeof value === 'number';
const isOptionalArray = (value: unknown): boolean => value === undefined || Array.isArray(value);

/** A text or thought part: none of the other part kinds, whose fields the schema checks deeper. */
function isPlainTextPart(value: unknown): boolean {
  return (
    isObject(value) &&
    isOptionalString(value.text) &&
    (value.thought === undefined || typeof value.thought === 'boolean') &&
    isOptionalString(value.thoughtSignature) &&
    value.inlineData === undefined &&
    value.fileData === undefined &&
    value.functionCall === undefined &&
    value.executableCode === undefined &&
    value.codeExecutionResult === undefined
  );
}

/** `geminiUsageSchema.optional()`: its counts are numbers; other fields (token details) are free. */
function isOptionalUsage(value: unknown): boolean {
  if (value === undefined) return true;
  return (
    isObject(value) &&
    isOptionalNumber(value.promptTokenCount) &&
    isOptionalNumber(value.candidatesTokenCount) &&
    isOptionalNumber(value.totalTokenCount) &&
    isOptionalNumber(value.cachedContentTokenCount) &&
    isOptionalNumber(value.thoughtsTokenCount) &&
    isOptionalNumber(value.toolUsePromptTokenCount)
  );
}

function isPlainCandidate(value: unknown): boolean {
  if (
    !isObject(value) ||
    !isOptionalString(value.finishReason) ||
    !isOptionalString(value.finishMessage) ||
    !isOptionalArray(value.safetyRatings) ||
    !isOptionalNumber(value.index)
  )
    return false;
  // citationMetadata, groundingMetadata and urlContextMetadata are `unknown` in the schema.
  const content = value.content;
  if (content === undefined) return true;
  if (!isObject(content) || !isOptionalString(content.role)) return false;
  const parts = content.parts;
  if (parts === undefined) return true;
  if (!Array.isArray(parts)) return false;
  for (const part of parts) if (!isPlainTextPart(part)) return false;
  return true;
}

/**
 * The common streaming chunk — text and thought parts, a finish reason, usage — checked by hand:
 * it is most of a stream, and a structural check costs a fraction of a schema parse. It reads only
 * the fields the schema constrains (every object is loose; nothing has a default or a transform),
 * so it accepts exactly what the schema would return unchanged. A chunk with another part kind
 * (function calls, inline data, code), prompt feedback or an error goes through the full schema.
 */
function isPlainTextChunk(value: unknown): value is GeminiResponse {
  if (
    !isObject(value) ||
    value.error !== undefined ||
    value.promptFeedback !== undefined ||
    !isOptionalString(value.modelVersion) ||
    !isOptionalString(value.responseId) ||
    !isOptionalUsage(value.usageMetadata)
  )
    return false;
  const candidates = value.candidates;
  if (candidates === undefined) return true;
  if (!Array.isArray(candidates)) return false;
  for (const candidate of candidates) if (!isPlainCandidate(candidate)) return false;
  return true;
}

export const geminiResponseSchema: SchemaLike<GeminiResponse> = {
  safeParse: (value) =>
    isPlainTextChunk(value) ? { success: true, data: value } : responseSchema.safeParse(value),
};
