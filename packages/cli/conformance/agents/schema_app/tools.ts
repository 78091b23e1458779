import { FunctionTool } from '@adk/core';
import { z } from 'zod';

/** A schema with an id: declared once under `$defs` and referenced three times (`$ref`). */
const City = z.string().meta({ id: 'City', description: 'A city name' });

/**
 * Its declaration has what adk-python's genai `parameters` form writes differently: `$defs`/`$ref`
 * (inlined there), `type: [string, "null"]` (there `nullable: true`), lower-case types.
 */
export const plan_trip = new FunctionTool({
  name: 'plan_trip',
  description: 'Plans a trip between two places.',
  parameters: z.object({
    from: City,
    to: City,
    stops: z.array(City).optional(),
    note: z.string().nullable().optional(),
  }),
  execute: ({ from, to }) => ({ from, to, days: 3 }),
});
