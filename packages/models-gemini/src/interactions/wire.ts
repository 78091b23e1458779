import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import type { z as Z } from 'zod';

// Zod schemas of what the Interactions API sends (the steps wire shape). Loose: each event's
// fields are read where used, and new step or delta types pass through.

const schemas = lazyZod((z) => {
  const step = z.looseObject({ type: z.string() });
  const usage = z.looseObject({
    total_input_tokens: z.number().nullish(),
    total_output_tokens: z.number().nullish(),
    total_thought_tokens: z.number().nullish(),
    total_cached_tokens: z.number().nullish(),
    total_tool_use_tokens: z.number().nullish(),
    total_tokens: z.number().nullish(),
  });
  const interaction = z.looseObject({
    id: z.string(),
    status: z.string(),
    model: z.string().nullish(),
    steps: z.array(step).nullish(),
    usage: usage.nullish(),
  });
  const event = z.looseObject({
    event_type: z.string(),
    index: z.number().optional(),
    step: step.optional(),
    delta: z.looseObject({ type: z.string() }).optional(),
    interaction: interaction.optional(),
    usage: usage.nullish(),
    status: z.string().optional(),
    error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  });
  return { interaction, event, usage, step };
});
type Schemas = ReturnType<typeof schemas>;

export type InteractionStep = Z.infer<Schemas['step']>;
export type InteractionUsage = Z.infer<Schemas['usage']>;
export type InteractionObject = Z.infer<Schemas['interaction']>;
export type InteractionEvent = Z.infer<Schemas['event']>;

export const interactionSchema: SchemaLike<InteractionObject> = deferredSchema(() => schemas().interaction);
const eventSchema: SchemaLike<InteractionEvent> = deferredSchema(() => schemas().event);

/**
 * A delta or step boundary event (most of a stream) checked by hand: the same rules as the schema,
 * at a fraction of a schema parse. Events that carry a step, an interaction, usage, a status or an
 * error go through the full schema.
 */
function isLightEvent(value: unknown): value is InteractionEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const event = value as Record<string, unknown>;
  if (typeof event.event_type !== 'string') return false;
  if (event.index !== undefined && typeof event.index !== 'number') return false;
  if (
    event.step !== undefined ||
    event.interaction !== undefined ||
    event.usage !== undefined ||
    event.status !== undefined ||
    event.error !== undefined
  )
    return false;
  const delta = event.delta;
  if (delta === undefined) return true;
  return (
    typeof delta === 'object' && delta !== null && typeof (delta as { type?: unknown }).type === 'string'
  );
}

export const interactionEventSchema: SchemaLike<InteractionEvent> = {
  safeParse: (value) => (isLightEvent(value) ? { success: true, data: value } : eventSchema.safeParse(value)),
};
