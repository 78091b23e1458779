import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LiveRequest, parseLiveRequest } from '../index.js';

describe('parseLiveRequest', () => {
  it("reads adk-python's frames: snake_case, unset fields as null, close: false", () => {
    const frame = JSON.stringify({
      content: {
        role: 'user',
        parts: [
          {
            function_response: {
              id: 'c1',
              name: 'lookup',
              response: { some_key: 1 },
              will_continue: false,
            },
          },
        ],
      },
      blob: null,
      activity_start: null,
      activity_end: null,
      close: false,
    });
    expect(parseLiveRequest(frame)).toEqual({
      content: {
        role: 'user',
        // The tool's own data keeps its keys.
        parts: [
          { functionResponse: { id: 'c1', name: 'lookup', response: { some_key: 1 }, willContinue: false } },
        ],
      },
    });
    expect(parseLiveRequest({ blob: { mime_type: 'audio/pcm;rate=16000', data: 'AAEC' } })).toEqual({
      blob: { mimeType: 'audio/pcm;rate=16000', data: 'AAEC' },
    });
    expect(parseLiveRequest({ activity_start: {} })).toEqual({ activityStart: {} });
    expect(parseLiveRequest({ activityEnd: {} })).toEqual({ activityEnd: {} });
    expect(parseLiveRequest('{"close":true}')).toEqual({ close: true });
    // A content without a role is the user's.
    expect(parseLiveRequest({ content: { parts: [{ text: 'hi' }] } })).toEqual({
      content: { role: 'user', parts: [{ text: 'hi' }] },
    });
  });

  it.each([
    ['not JSON', '{"content":', 'live request JSON'],
    ['an array', [], 'JSON object'],
    ['nothing', { close: false }, 'exactly one'],
    [
      'two kinds',
      { content: { parts: [{ text: 'a' }] }, blob: { mimeType: 'a/b', data: '' } },
      'exactly one',
    ],
    ['an unknown field', { contnet: {} }, 'unknown field contnet'],
    ['a blob without mimeType', { blob: { data: 'AA==' } }, 'blob.mimeType'],
    ['blob data that is not base64', { blob: { mimeType: 'audio/pcm', data: 'not base64!' } }, 'base64'],
    ['a bad role', { content: { role: 'system', parts: [{ text: 'x' }] } }, 'content: role'],
    ['empty parts', { content: { parts: [] } }, 'parts is empty'],
    ['parts that are not a list', { content: { parts: 'hi' } }, 'content: parts'],
    ['a close that is not a boolean', { close: 'yes' }, 'close must be'],
    ['an activity that is not an object', { activity_start: 1 }, 'activityStart must be an object'],
  ])('rejects %s with a ValidationError that says what is wrong', (_name, frame, message) => {
    let error: unknown;
    try {
      parseLiveRequest(frame);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'VALIDATION' });
    expect((error as Error).message).toContain(message);
  });

  it('round-trips every request through JSON (property)', () => {
    const base64 = fc.base64String();
    const request: fc.Arbitrary<LiveRequest> = fc.oneof(
      fc.record({
        blob: fc.record({ mimeType: fc.constantFrom('audio/pcm;rate=16000', 'image/jpeg'), data: base64 }),
      }),
      fc.record({
        content: fc.record({
          role: fc.constantFrom('user' as const, 'model' as const),
          parts: fc.array(fc.record({ text: fc.string() }), { minLength: 1, maxLength: 3 }),
        }),
      }),
      fc.constant({ activityStart: {} }),
      fc.constant({ activityEnd: {} }),
      fc.constant({ close: true }),
    );
    fc.assert(
      fc.property(request, (r) => {
        expect(parseLiveRequest(JSON.stringify(r))).toEqual(r);
      }),
    );
  });
});
