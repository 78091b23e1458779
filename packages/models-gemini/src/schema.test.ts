import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toGeminiParameters, toGeminiSchema } from './schema.js';

describe('toGeminiSchema', () => {
  it('rewrites zod JSON Schema to the Gemini subset', () => {
    const Address = z.object({ street: z.string() });
    const schema = z.toJSONSchema(
      z.object({
        name: z.string().min(1).describe('Full name'),
        email: z.email(),
        age: z.number().int().nullable(),
        kind: z.literal('person'),
        level: z.union([z.literal(1), z.literal(2)]),
        when: z.iso.datetime(),
        tags: z.array(z.string()).max(3),
        home: Address,
        work: Address.optional(),
        either: z.union([z.string(), z.number()]),
      }),
    );
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Full name', minLength: 1 },
        email: { type: 'string', pattern: expect.any(String) },
        age: { type: 'integer', nullable: true, minimum: expect.any(Number), maximum: expect.any(Number) },
        kind: { type: 'string', enum: ['person'] },
        level: {
          anyOf: [
            { type: 'number', description: 'Must be 1.' },
            { type: 'number', description: 'Must be 2.' },
          ],
        },
        when: { type: 'string', format: 'date-time', pattern: expect.any(String) },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        home: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
        work: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['name', 'email', 'age', 'kind', 'level', 'when', 'tags', 'home', 'either'],
    });
  });

  it('inlines $refs, turns type arrays into nullable and drops unknown keywords', () => {
    expect(
      toGeminiSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        additionalProperties: false,
        properties: { a: { $ref: '#/$defs/A' }, b: { type: ['string', 'null'], examples: ['x'] } },
        $defs: { A: { type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0 } } } },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        a: { type: 'object', properties: { n: { type: 'number', minimum: 0 } } },
        b: { type: 'string', nullable: true },
      },
    });
  });

  it('omits parameters for a tool without arguments', () => {
    expect(toGeminiParameters(z.toJSONSchema(z.object({})))).toBeUndefined();
    expect(toGeminiParameters(undefined)).toBeUndefined();
  });
});
