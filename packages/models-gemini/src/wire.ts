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

const RESPONSE_KEYS = new Set(['candidates', 'usageMetadata', 'modelVersion', 'responseId']);
const CANDIDATE_KEYS = new Set(['content', 'finishReason', 'index']);
const TEXT_PART_KEYS = new Set(['text', 'thought', 'thoughtSignature']);

function onlyKeys(value: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function isPlainTextPart(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const part = value as Record<string, unknown>;
  return (
    onlyKeys(part, TEXT_PART_KEYS) &&
    (part.text === undefined || typeof part.text === 'string') &&
    (part.thought === undefined || typeof part.thought === 'boolean') &&
    (part.thoughtSignature === undefined || typeof part.thoughtSignature === 'string')
  );
}

/**
 * The common streaming chunk — text and thought parts, a finish reason, numeric usage — checked by
 * hand: it is most of a stream, and a structural check costs a fraction of a schema parse. Any
 * other field (function calls, grounding, safety, prompt feedback, errors) goes through the full
 * schema.
 */
function isPlainTextChunk(value: unknown): value is GeminiResponse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const chunk = value as Record<string, unknown>;
  if (!onlyKeys(chunk, RESPONSE_KEYS)) return false;
  if (chunk.modelVersion !== undefined && typeof chunk.modelVersion !== 'string') return false;
  if (chunk.responseId !== undefined && typeof chunk.responseId !== 'string') return false;
  const usage = chunk.usageMetadata;
  if (usage !== undefined) {
    if (typeof usage !== 'object' || usage === null) return false;
    for (const count of Object.values(usage)) if (typeof count !== 'number') return false;
  }
  const candidates = chunk.candidates;
  if (candidates === undefined) return true;
  if (!Array.isArray(candidates)) return false;
  for (const candidate of candidates) {
    if (typeof candidate !== 'object' || candidate === null) return false;
    const c = candidate as Record<string, unknown>;
    if (!onlyKeys(c, CANDIDATE_KEYS)) return false;
    if (c.finishReason !== undefined && typeof c.finishReason !== 'string') return false;
    if (c.index !== undefined && typeof c.index !== 'number') return false;
    const content = c.content;
    if (content === undefined) continue;
    if (typeof content !== 'object' || content === null) return false;
    const { role, parts } = content as Record<string, unknown>;
    if (role !== undefined && typeof role !== 'string') return false;
    if (parts === undefined) continue;
    if (!Array.isArray(parts)) return false;
    for (const part of parts) if (!isPlainTextPart(part)) return false;
  }
  return true;
}

export const geminiResponseSchema: SchemaLike<GeminiResponse> = {
  safeParse: (value) =>
    isPlainTextChunk(value) ? { success: true, data: value } : responseSchema.safeParse(value),
};
