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
export const interactionEventSchema: SchemaLike<InteractionEvent> = deferredSchema(() => schemas().event);
