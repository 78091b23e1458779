import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import type { z as Z } from 'zod';

// Zod schema of the Live API's server messages (`BidiGenerateContentServerMessage`). Loose:
// unknown fields pass through untouched, and messages of kinds we do not read are accepted.

const schemas = lazyZod((z) => {
  const part = z.looseObject({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
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
  const transcription = z.looseObject({ text: z.string().optional(), finished: z.boolean().optional() });
  const numberish = z.number().optional();

  const serverMessage = z.looseObject({
    setupComplete: z.looseObject({ sessionId: z.string().optional() }).optional(),
    serverContent: z
      .looseObject({
        modelTurn: z.looseObject({ role: z.string().optional(), parts: z.array(part).optional() }).optional(),
        turnComplete: z.boolean().optional(),
        interrupted: z.boolean().optional(),
        generationComplete: z.boolean().optional(),
        groundingMetadata: z.unknown().optional(),
        inputTranscription: transcription.optional(),
        outputTranscription: transcription.optional(),
        turnCompleteReason: z.string().optional(),
        waitingForInput: z.boolean().optional(),
      })
      .optional(),
    toolCall: z
      .looseObject({
        functionCalls: z
          .array(
            z.looseObject({
              id: z.string().optional(),
              name: z.string(),
              args: z.record(z.string(), z.unknown()).optional(),
            }),
          )
          .optional(),
      })
      .optional(),
    toolCallCancellation: z.looseObject({ ids: z.array(z.string()).optional() }).optional(),
    goAway: z.looseObject({ timeLeft: z.string().optional() }).optional(),
    sessionResumptionUpdate: z
      .looseObject({
        newHandle: z.string().optional(),
        resumable: z.boolean().optional(),
        lastConsumedClientMessageIndex: z.union([z.string(), z.number()]).optional(),
      })
      .optional(),
    usageMetadata: z
      .looseObject({
        promptTokenCount: numberish,
        cachedContentTokenCount: numberish,
        responseTokenCount: numberish,
        toolUsePromptTokenCount: numberish,
        thoughtsTokenCount: numberish,
        totalTokenCount: numberish,
      })
      .optional(),
  });
  return { serverMessage };
});

export type GeminiLiveServerMessage = Z.infer<ReturnType<typeof schemas>['serverMessage']>;

export const geminiLiveServerMessageSchema: SchemaLike<GeminiLiveServerMessage> = deferredSchema(
  () => schemas().serverMessage,
);
