import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEvent, type Event, eventSchemas, isFinalResponse, type Part, parseEvent } from '../index.js';

const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const record = fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4 });

const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ text: fc.string() }),
  fc.record({ text: fc.string(), thought: fc.constant(true), thoughtSignature: fc.base64String() }),
  fc.record({
    inlineData: fc.record({ mimeType: fc.constantFrom('image/png', 'audio/wav'), data: fc.base64String() }),
  }),
  fc.record({ fileData: fc.record({ mimeType: fc.constant('application/pdf'), fileUri: fc.webUrl() }) }),
  fc.record({ functionCall: fc.record({ id: fc.uuid(), name: fc.string({ minLength: 1 }), args: record }) }),
  fc.record({
    functionResponse: fc.record({ id: fc.uuid(), name: fc.string({ minLength: 1 }), response: record }),
  }),
  fc.record({ executableCode: fc.record({ language: fc.constant('PYTHON'), code: fc.string() }) }),
  fc.record({ codeExecutionResult: fc.record({ outcome: fc.constant('OUTCOME_OK'), output: fc.string() }) }),
);

const event: fc.Arbitrary<Event> = fc
  .record(
    {
      id: fc.uuid(),
      invocationId: fc.string({ minLength: 1 }),
      author: fc.constantFrom('user', 'agent_a', 'agent_b'),
      branch: fc.constantFrom('root', 'root.a'),
      timestamp: fc.double({ min: 0, max: 4e12, noNaN: true }),
      content: fc.record({
        role: fc.constantFrom('user' as const, 'model' as const),
        parts: fc.array(part, { maxLength: 4 }),
      }),
      partial: fc.boolean(),
      turnComplete: fc.boolean(),
      interrupted: fc.boolean(),
      finishReason: fc.constantFrom('STOP', 'MAX_TOKENS', 'SAFETY'),
      errorCode: fc.string(),
      errorMessage: fc.string(),
      usageMetadata: fc.record({
        promptTokenCount: fc.nat(),
        candidatesTokenCount: fc.nat(),
        totalTokenCount: fc.nat(),
      }),
      customMetadata: record,
      longRunningToolIds: fc.array(fc.uuid(), { maxLength: 2 }),
      actions: fc.record(
        {
          stateDelta: record,
          artifactDelta: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.nat()),
          transferToAgent: fc.string(),
          escalate: fc.boolean(),
          skipSummarization: fc.boolean(),
          endOfAgent: fc.boolean(),
        },
        { requiredKeys: ['stateDelta', 'artifactDelta'] },
      ),
    },
    { requiredKeys: ['id', 'invocationId', 'author', 'timestamp', 'actions'] },
  )
  .map((e) => e as Event);

describe('Event JSON', () => {
  it('round-trips losslessly through JSON and the schema', () => {
    fc.assert(
      fc.property(event, (e) => {
        const back = parseEvent(JSON.parse(JSON.stringify(e)));
        expect(back).toEqual(e);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects malformed events with a schema error', () => {
    expect(eventSchemas().event.safeParse({ id: 1 }).success).toBe(false);
    expect(() =>
      parseEvent({ id: 'x', invocationId: 'i', author: 'a', timestamp: 'soon', actions: {} }),
    ).toThrow();
  });
});

describe('isFinalResponse', () => {
  const base = { invocationId: 'i', author: 'agent' };
  it('follows ADK: text is final; calls, responses and partial chunks are not', () => {
    expect(
      isFinalResponse(createEvent({ ...base, content: { role: 'model', parts: [{ text: 'hi' }] } })),
    ).toBe(true);
    expect(
      isFinalResponse(
        createEvent({ ...base, partial: true, content: { role: 'model', parts: [{ text: 'h' }] } }),
      ),
    ).toBe(false);
    expect(
      isFinalResponse(
        createEvent({
          ...base,
          content: { role: 'model', parts: [{ functionCall: { id: '1', name: 'f', args: {} } }] },
        }),
      ),
    ).toBe(false);
    expect(
      isFinalResponse(
        createEvent({
          ...base,
          content: { role: 'user', parts: [{ functionResponse: { id: '1', name: 'f', response: {} } }] },
        }),
      ),
    ).toBe(false);
  });
  it('skipSummarization and long-running ids make an event final', () => {
    const call = { role: 'model' as const, parts: [{ functionCall: { id: '1', name: 'f', args: {} } }] };
    expect(isFinalResponse(createEvent({ ...base, content: call, longRunningToolIds: ['1'] }))).toBe(true);
    expect(
      isFinalResponse(createEvent({ ...base, content: call, actions: { skipSummarization: true } })),
    ).toBe(true);
  });
});
