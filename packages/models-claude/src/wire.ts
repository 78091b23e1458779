import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import type { z as Z } from 'zod';

// Zod schemas of the Anthropic Messages API responses we read. Loose: unknown fields pass through.

/** Content blocks with the result of a server tool (web search, web fetch, code execution). */
export const SERVER_TOOL_RESULT_TYPES = [
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
] as const;

// Built on first use: importing the provider does not load zod.
const schemas = lazyZod((z) => {
  const claudeUsageSchema = z.looseObject({
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cache_creation_input_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
  });

  const claudeContentBlockSchema = z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('text'), text: z.string(), citations: z.array(z.unknown()).nullish() }),
    z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }),
    z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
    z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
    z.looseObject({
      type: z.literal('server_tool_use'),
      id: z.string(),
      name: z.string(),
      input: z.unknown(),
    }),
    // Results of Claude's server tools, kept verbatim.
    ...SERVER_TOOL_RESULT_TYPES.map((type) =>
      z.looseObject({ type: z.literal(type), tool_use_id: z.string(), content: z.unknown() }),
    ),
  ]);

  const claudeMessageSchema = z.looseObject({
    id: z.string(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string().optional(),
    content: z.array(claudeContentBlockSchema),
    stop_reason: z.string().nullish(),
    stop_sequence: z.string().nullish(),
    usage: claudeUsageSchema.optional(),
    context_management: z.unknown().optional(),
  });

  const claudeStreamEventSchema = z.discriminatedUnion('type', [
    z.looseObject({
      type: z.literal('message_start'),
      message: z.looseObject({
        id: z.string(),
        model: z.string().optional(),
        usage: claudeUsageSchema.optional(),
      }),
    }),
    z.looseObject({
      type: z.literal('content_block_start'),
      index: z.number(),
      content_block: claudeContentBlockSchema,
    }),
    z.looseObject({
      type: z.literal('content_block_delta'),
      index: z.number(),
      delta: z.discriminatedUnion('type', [
        z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
        z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
        z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
        z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
        z.looseObject({ type: z.literal('citations_delta'), citation: z.unknown() }),
      ]),
    }),
    z.looseObject({ type: z.literal('content_block_stop'), index: z.number() }),
    z.looseObject({
      type: z.literal('message_delta'),
      delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
      usage: claudeUsageSchema.optional(),
      context_management: z.unknown().optional(),
    }),
    z.looseObject({ type: z.literal('message_stop') }),
    z.looseObject({ type: z.literal('ping') }),
    z.looseObject({
      type: z.literal('error'),
      error: z.looseObject({ type: z.string(), message: z.string() }),
    }),
  ]);

  return { claudeUsageSchema, claudeContentBlockSchema, claudeMessageSchema, claudeStreamEventSchema };
});
type Schemas = ReturnType<typeof schemas>;

export type ClaudeUsage = Z.infer<Schemas['claudeUsageSchema']>;
export type ClaudeContentBlock = Z.infer<Schemas['claudeContentBlockSchema']>;
export type ClaudeMessage = Z.infer<Schemas['claudeMessageSchema']>;
export type ClaudeStreamEvent = Z.infer<Schemas['claudeStreamEventSchema']>;

export const claudeUsageSchema: SchemaLike<ClaudeUsage> = deferredSchema(() => schemas().claudeUsageSchema);
export const claudeContentBlockSchema: SchemaLike<ClaudeContentBlock> = deferredSchema(
  () => schemas().claudeContentBlockSchema,
);
export const claudeMessageSchema: SchemaLike<ClaudeMessage> = deferredSchema(
  () => schemas().claudeMessageSchema,
);
const streamEventSchema: SchemaLike<ClaudeStreamEvent> = deferredSchema(
  () => schemas().claudeStreamEventSchema,
);

/** The text fields of the common deltas, by delta type. */
const DELTA_TEXT_FIELD: Record<string, string> = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  input_json_delta: 'partial_json',
  signature_delta: 'signature',
};

/**
 * The common stream event — a text, thinking, tool-input or signature delta — checked by hand: it
 * is most of a stream, and a structural check costs a fraction of a schema parse. Every other event
 * (and any delta that does not match) goes through the full schema.
 */
function isPlainDelta(value: unknown): value is ClaudeStreamEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  if (event.type !== 'content_block_delta' || typeof event.index !== 'number') return false;
  const delta = event.delta;
  if (typeof delta !== 'object' || delta === null) return false;
  const d = delta as Record<string, unknown>;
  const field = typeof d.type === 'string' ? DELTA_TEXT_FIELD[d.type] : undefined;
  return field !== undefined && typeof d[field] === 'string';
}

export const claudeStreamEventSchema: SchemaLike<ClaudeStreamEvent> = {
  safeParse: (value) =>
    isPlainDelta(value) ? { success: true, data: value } : streamEventSchema.safeParse(value),
};
