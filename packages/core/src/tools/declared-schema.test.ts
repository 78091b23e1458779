import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, InMemoryRunner, LlmAgent, userContent, zodToJsonSchema } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

describe('tool declarations carry only what the user declared', () => {
  it('an integer, an optional nested object and a nullable string reach the model exactly as written', async () => {
    const book = new FunctionTool({
      name: 'book_table',
      description: 'Books a table',
      parameters: z.object({
        guests: z.number().int(),
        options: z.object({ terrace: z.boolean(), note: z.string().optional() }).optional(),
        phone: z.string().nullable(),
      }),
      execute: () => ({ ok: true }),
    });
    const model = new ScriptedModel(['ok']);
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'host', model, tools: [book] }) });
    for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    expect(model.requests[0]!.tools).toEqual([
      {
        name: 'book_table',
        description: 'Books a table',
        parameters: {
          type: 'object',
          properties: {
            guests: { type: 'integer' },
            options: {
              type: 'object',
              properties: { terrace: { type: 'boolean' }, note: { type: 'string' } },
              required: ['terrace'],
            },
            phone: { type: ['string', 'null'] },
          },
          required: ['guests', 'phone'],
        },
      },
    ]);
  });

  it('keeps bounds, patterns and strictness the user asked for, and drops the ones zod adds', () => {
    const schema = zodToJsonSchema(
      z.object({
        positive: z.number().int().positive(),
        range: z.number().int().min(0).max(10),
        int32: z.int32(),
        when: z.iso.datetime(),
        code: z.string().regex(/^[A-Z]{3}$/),
        scores: z.record(z.string(), z.number()),
        strict: z.strictObject({ x: z.string() }),
      }),
    );
    expect(schema).toEqual({
      type: 'object',
      properties: {
        positive: { type: 'integer', exclusiveMinimum: 0 },
        range: { type: 'integer', minimum: 0, maximum: 10 },
        int32: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
        when: { type: 'string', format: 'date-time' },
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
        scores: { type: 'object', additionalProperties: { type: 'number' } },
        strict: {
          type: 'object',
          properties: { x: { type: 'string' } },
          required: ['x'],
          additionalProperties: false,
        },
      },
      required: ['positive', 'range', 'int32', 'when', 'code', 'scores', 'strict'],
    });
    expect(schema).not.toHaveProperty('$schema');
  });
});
