import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import type { z as Z } from 'zod';

// Zod schema of the Realtime API's server events: one loose shape with the fields we read (every
// event has a string `type`); unknown events and fields pass through untouched.

const schemas = lazyZod((z) => {
  const usage = z.looseObject({
    total_tokens: z.number().optional(),
    input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
    input_token_details: z.looseObject({ cached_tokens: z.number().optional() }).optional(),
  });
  const serverEvent = z.looseObject({
    type: z.string(),
    event_id: z.string().optional(),
    delta: z.string().optional(),
    item_id: z.string().optional(),
    call_id: z.string().optional(),
    name: z.string().optional(),
    arguments: z.string().optional(),
    transcript: z.string().optional(),
    item: z
      .looseObject({
        id: z.string().optional(),
        type: z.string().optional(),
        name: z.string().optional(),
        call_id: z.string().optional(),
      })
      .optional(),
    response: z
      .looseObject({
        id: z.string().optional(),
        status: z.string().optional(),
        status_details: z
          .looseObject({
            type: z.string().optional(),
            reason: z.string().optional(),
            error: z
              .looseObject({
                type: z.string().optional(),
                code: z.string().optional(),
                message: z.string().optional(),
              })
              .nullish(),
          })
          .nullish(),
        usage: usage.nullish(),
      })
      .optional(),
    error: z
      .looseObject({
        type: z.string().optional(),
        code: z.string().nullish(),
        message: z.string().optional(),
        param: z.string().nullish(),
        event_id: z.string().nullish(),
      })
      .optional(),
  });
  return { serverEvent };
});

export type RealtimeServerEvent = Z.infer<ReturnType<typeof schemas>['serverEvent']>;

export const realtimeServerEventSchema: SchemaLike<RealtimeServerEvent> = deferredSchema(
  () => schemas().serverEvent,
);
