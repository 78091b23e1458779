import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type EvalSet, parseEvalSet, serializeEvalSet } from '../index.js';

// Any eval set survives writing (snake_case as adk-python's files, or camelCase as its HTTP API)
// and reading back, including user data whose keys look like either case.
const ident = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/).filter((k) => k !== '__proto__');
const userData = fc
  .dictionary(ident, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((v) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>);
const text = fc.string({ maxLength: 12 });
const content = (role: 'user' | 'model') =>
  fc.record({
    role: fc.constant(role),
    parts: fc.array(fc.record({ text }), { minLength: 1, maxLength: 2 }),
  });
const call = fc.record({ id: fc.string({ maxLength: 4 }), name: ident, args: userData });
const response = fc.record({ id: fc.string({ maxLength: 4 }), name: ident, response: userData });
const invocation = fc.record(
  {
    invocationId: fc.string({ maxLength: 6 }),
    userContent: content('user'),
    finalResponse: content('model'),
    intermediateData: fc.record({
      toolUses: fc.array(call, { maxLength: 2 }),
      toolResponses: fc.array(response, { maxLength: 2 }),
      intermediateResponses: fc.array(
        fc.tuple(ident, fc.array(fc.record({ text }), { minLength: 1, maxLength: 2 })),
        {
          maxLength: 2,
        },
      ),
    }),
    creationTimestamp: fc.oneof(fc.constant(0), fc.double({ min: 1, max: 2e9, noNaN: true })),
  },
  { requiredKeys: ['invocationId', 'userContent', 'creationTimestamp'] },
);
const evalCase = fc.record(
  {
    evalId: ident,
    conversation: fc.array(invocation, { maxLength: 2 }),
    sessionInput: fc.record({ appName: ident, userId: ident, state: userData }),
    creationTimestamp: fc.oneof(fc.constant(0), fc.double({ min: 1, max: 2e9, noNaN: true })),
    finalSessionState: userData.filter((s) => Object.keys(s).length > 0),
  },
  { requiredKeys: ['evalId', 'conversation', 'creationTimestamp'] },
);
const evalSet = fc.record(
  {
    evalSetId: ident,
    name: text,
    description: text,
    evalCases: fc.array(evalCase, { maxLength: 3 }),
    creationTimestamp: fc.oneof(fc.constant(0), fc.double({ min: 1, max: 2e9, noNaN: true })),
  },
  { requiredKeys: ['evalSetId', 'evalCases', 'creationTimestamp'] },
) as fc.Arbitrary<EvalSet>;

describe('EvalSet codec', () => {
  it('round-trips any eval set through snake_case and camelCase JSON', () => {
    fc.assert(
      fc.property(evalSet, (set) => {
        for (const keys of ['snake', 'camel'] as const) {
          const text = JSON.stringify(serializeEvalSet(set, { keys }));
          expect(parseEvalSet(JSON.parse(text))).toEqual(set);
        }
      }),
      { numRuns: 150 },
    );
  });
});
