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

/** The text field of a common delta type (text, thinking, tool input, signature). */
function deltaTextField(type: unknown): string | undefined {
  switch (type) {
    case 'text_delta':
      return 'text';
    case 'thinking_delta':
      return 'thinking';
    case 'input_json_delta':
      return 'partial_json';
    case 'signature_delta':
      return 'signature';
    default:
      return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `z.string().nullish()` and `z.number().nullish()`. */
const isNullishString = (value: unknown): boolean => value == null || typeof value === 'string';
const isNullishNumber = (value: unknown): boolean => value == null || typeof value === 'number';

/** `claudeUsageSchema.optional()`. */
function isOptionalUsage(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isObject(value)) return false;
  return (
    isNullishNumber(value.input_tokens) &&
    isNullishNumber(value.output_tokens) &&
    isNullishNumber(value.cache_creation_input_tokens) &&
    isNullishNumber(value.cache_read_input_tokens)
  );
}

/** A `content_block_start` block of text, thinking or a (server) tool call. */
function isPlainBlock(value: unknown): boolean {
  if (!isObject(value)) return false;
  switch (value.type) {
    case 'text':
      return typeof value.text === 'string' && (value.citations == null || Array.isArray(value.citations));
    case 'thinking':
      return (
        typeof value.thinking === 'string' &&
        (value.signature === undefined || typeof value.signature === 'string')
      );
    case 'tool_use':
    case 'server_tool_use':
      // `input` is `z.unknown()`, which zod still requires to be present.
      return typeof value.id === 'string' && typeof value.name === 'string' && value.input !== undefined;
    default:
      return false;
  }
}

/**
 * The events of an ordinary stream — message start, block start (text, thinking, tool call), the
 * text, thinking, tool-input and signature deltas, block stop, message delta and stop, ping —
 * checked by hand: a structural check costs a fraction of a schema parse, and a plain stream then
 * never builds the schemas nor loads zod. It accepts only what the schema accepts unchanged (every
 * object is loose, nothing has a default or a transform); every other event (errors, server tool
 * results, citations) and anything that does not match goes through the full schema.
 */
function isPlainEvent(value: unknown): value is ClaudeStreamEvent {
  if (!isObject(value)) return false;
  switch (value.type) {
    case 'content_block_delta': {
      if (typeof value.index !== 'number') return false;
      const delta = value.delta;
      if (!isObject(delta)) return false;
      const field = deltaTextField(delta.type);
      return field !== undefined && typeof delta[field] === 'string';
    }
    case 'message_start': {
      const message = value.message;
      return (
        isObject(message) &&
        typeof message.id === 'string' &&
        (message.model === undefined || typeof message.model === 'string') &&
        isOptionalUsage(message.usage)
      );
    }
    case 'content_block_start':
      return typeof value.index === 'number' && isPlainBlock(value.content_block);
    case 'content_block_stop':
      return typeof value.index === 'number';
    case 'message_delta': {
      const delta = value.delta;
      return (
        isObject(delta) &&
        isNullishString(delta.stop_reason) &&
        isNullishString(delta.stop_sequence) &&
        isOptionalUsage(value.usage)
      );
    }
    case 'message_stop':
    case 'ping':
      return true;
    default:
      return false;
  }
}

export const claudeStreamEventSchema: SchemaLike<ClaudeStreamEvent> = {
  safeParse: (value) =>
    isPlainEvent(value) ? { success: true, data: value } : streamEventSchema.safeParse(value),
};
