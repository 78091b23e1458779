import type { z as Z } from 'zod';
import { zod } from '../utils/zod.js';
import type { Content, JsonValue, Part } from './content.js';
import type {
  Event,
  EventActions,
  EventErrorCode,
  NodeInfo,
  ToolConfirmation,
  UsageMetadata,
} from './event.js';

/** zod schemas of the persisted JSON shapes, for validating at the edges (SQL rows, the wire). */
export interface EventSchemas {
  jsonValue: Z.ZodType<JsonValue>;
  part: Z.ZodType<Part>;
  content: Z.ZodType<Content>;
  usageMetadata: Z.ZodType<UsageMetadata>;
  toolConfirmation: Z.ZodType<ToolConfirmation>;
  eventActions: Z.ZodType<EventActions>;
  nodeInfo: Z.ZodType<NodeInfo>;
  event: Z.ZodType<Event>;
}

function build(z: typeof Z): EventSchemas {
  const jsonValue: Z.ZodType<JsonValue> = z.lazy(() =>
    z.union([
      z.string(),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(jsonValue),
      z.record(z.string(), jsonValue),
    ]),
  );
  const part = z.object({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    inlineData: z
      .object({ mimeType: z.string(), data: z.string(), displayName: z.string().optional() })
      .optional(),
    fileData: z
      .object({ mimeType: z.string(), fileUri: z.string(), displayName: z.string().optional() })
      .optional(),
    functionCall: z
      .object({
        id: z.string(),
        name: z.string(),
        args: z.record(z.string(), z.unknown()),
        invalidArgs: z.string().optional(),
      })
      .optional(),
    functionResponse: z
      .object({
        id: z.string(),
        name: z.string(),
        response: z.record(z.string(), z.unknown()),
        willContinue: z.boolean().optional(),
        scheduling: z.enum(['SILENT', 'WHEN_IDLE', 'INTERRUPT']).optional(),
      })
      .optional(),
    executableCode: z.object({ language: z.string(), code: z.string() }).optional(),
    codeExecutionResult: z.object({ outcome: z.string(), output: z.string().optional() }).optional(),
    serverToolUse: z
      .object({ id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) })
      .optional(),
    serverToolResult: z.object({ toolUseId: z.string(), type: z.string(), content: z.unknown() }).optional(),
  });
  const content = z.object({ role: z.enum(['user', 'model']), parts: z.array(part) });
  const usageMetadata = z.object({
    promptTokenCount: z.number().optional(),
    candidatesTokenCount: z.number().optional(),
    totalTokenCount: z.number().optional(),
    cachedContentTokenCount: z.number().optional(),
    thoughtsTokenCount: z.number().optional(),
    toolUsePromptTokenCount: z.number().optional(),
  });
  const transcription = z.object({ text: z.string().optional(), finished: z.boolean().optional() });
  const toolConfirmation = z.object({
    hint: z.string().optional(),
    confirmed: z.boolean(),
    payload: z.unknown().optional(),
  });
  const routeValue = z.union([z.string(), z.number(), z.boolean()]);
  const eventActions = z.object({
    stateDelta: z.record(z.string(), z.unknown()),
    artifactDelta: z.record(z.string(), z.number()),
    transferToAgent: z.string().optional(),
    escalate: z.boolean().optional(),
    skipSummarization: z.boolean().optional(),
    requestedToolConfirmations: z.record(z.string(), toolConfirmation).optional(),
    requestedAuthConfigs: z.record(z.string(), z.unknown()).optional(),
    endOfAgent: z.boolean().optional(),
    agentState: z.record(z.string(), z.unknown()).optional(),
    compaction: z
      .object({ startTimestamp: z.number(), endTimestamp: z.number(), compactedContent: content })
      .optional(),
    rewindBeforeInvocationId: z.string().optional(),
    route: z.union([routeValue, z.array(routeValue)]).optional(),
    setModelResponse: z.unknown().optional(),
  });
  const nodeInfo = z.object({
    path: z.string(),
    outputFor: z.array(z.string()).optional(),
    messageAsOutput: z.boolean().optional(),
  });
  const event = z.object({
    id: z.string(),
    invocationId: z.string(),
    author: z.string(),
    branch: z.string().optional(),
    timestamp: z.number(),
    content: content.optional(),
    partial: z.boolean().optional(),
    turnComplete: z.boolean().optional(),
    interrupted: z.boolean().optional(),
    finishReason: z.string().optional(),
    // Any string is kept (a vendor's new finish reason, a remote agent's code); typed as EventErrorCode.
    errorCode: (z.string() as unknown as Z.ZodType<EventErrorCode>).optional(),
    errorMessage: z.string().optional(),
    usageMetadata: usageMetadata.optional(),
    groundingMetadata: z.unknown().optional(),
    citationMetadata: z.unknown().optional(),
    customMetadata: z.record(z.string(), z.unknown()).optional(),
    modelVersion: z.string().optional(),
    avgLogprobs: z.number().optional(),
    logprobsResult: z.unknown().optional(),
    cacheMetadata: z.unknown().optional(),
    longRunningToolIds: z.array(z.string()).optional(),
    output: z.unknown().optional(),
    nodeInfo: nodeInfo.optional(),
    inputTranscription: transcription.optional(),
    outputTranscription: transcription.optional(),
    actions: eventActions,
  });
  return { jsonValue, part, content, usageMetadata, toolConfirmation, eventActions, nodeInfo, event };
}

let built: EventSchemas | undefined;

/** The schemas, built on first use (zod is not loaded when @adk/core is imported). */
export function eventSchemas(): EventSchemas {
  built ??= build(zod().z);
  return built;
}
