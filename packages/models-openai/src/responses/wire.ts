import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import type { z as Z } from 'zod';

// Zod schemas of what the Responses API sends. Loose: the fields each event type carries are read
// where they are used, and unknown event types (new hosted tools) pass through untouched.

const schemas = lazyZod((z) => {
  const responsesItemSchema = z.looseObject({ type: z.string(), id: z.string().nullish() });
  const responsesUsageSchema = z.looseObject({
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    total_tokens: z.number().nullish(),
    input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    output_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
  });
  const responsesErrorSchema = z.looseObject({ code: z.string().nullish(), message: z.string().nullish() });
  const responseObjectSchema = z.looseObject({
    id: z.string(),
    object: z.string().optional(),
    status: z.string().nullish(),
    model: z.string().nullish(),
    output: z.array(responsesItemSchema).nullish(),
    usage: responsesUsageSchema.nullish(),
    error: responsesErrorSchema.nullish(),
    incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  });
  const responsesEventSchema = z.looseObject({
    type: z.string(),
    sequence_number: z.number().optional(),
    output_index: z.number().optional(),
    item: responsesItemSchema.optional(),
    response: responseObjectSchema.optional(),
    delta: z.unknown().optional(),
  });
  return { responseObjectSchema, responsesEventSchema, responsesUsageSchema, responsesItemSchema };
});
type Schemas = ReturnType<typeof schemas>;

export type ResponsesItem = Z.infer<Schemas['responsesItemSchema']>;
export type ResponsesUsage = Z.infer<Schemas['responsesUsageSchema']>;
export type ResponseObject = Z.infer<Schemas['responseObjectSchema']>;
export type ResponsesEvent = Z.infer<Schemas['responsesEventSchema']>;

export const responseObjectSchema: SchemaLike<ResponseObject> = deferredSchema(
  () => schemas().responseObjectSchema,
);
const eventSchema: SchemaLike<ResponsesEvent> = deferredSchema(() => schemas().responsesEventSchema);

const optionalNumber = (v: unknown) => v === undefined || typeof v === 'number';

/**
 * An event without an `item` or `response` (the deltas, most of a stream) checked by hand: the
 * same rules as the schema, at a fraction of a schema parse. Events that carry an item or a
 * response go through the full schema.
 */
function isLightEvent(value: unknown): value is ResponsesEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const event = value as Record<string, unknown>;
  return (
    typeof event.type === 'string' &&
    event.item === undefined &&
    event.response === undefined &&
    optionalNumber(event.sequence_number) &&
    optionalNumber(event.output_index)
  );
}

export const responsesEventSchema: SchemaLike<ResponsesEvent> = {
  safeParse: (value) => (isLightEvent(value) ? { success: true, data: value } : eventSchema.safeParse(value)),
};
