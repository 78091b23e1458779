import { describe, expect, it } from 'vitest';
import { payloadJson } from './model-payloads.js';

describe('payloadJson', () => {
  it('cuts long payloads with a marker and leaves inline bytes out', () => {
    const long = payloadJson({ text: 'x'.repeat(500) }, 100);
    expect(long.length).toBeLessThan(200);
    expect(long).toMatch(/^\{"text":"x+…\[truncated: 511 characters in all\]$/);
    const bytes = payloadJson({
      parts: [{ inlineData: { mimeType: 'image/png', data: new Uint8Array(10) } }],
    });
    expect(JSON.parse(bytes)).toEqual({
      parts: [{ inlineData: { mimeType: 'image/png', data: '<10 bytes not recorded>' } }],
    });
    const nested = payloadJson({
      contents: [{ parts: [{ text: 'hi' }, { inlineData: { data: 'AAAA' } }] }],
      n: 2n,
    });
    expect(JSON.parse(nested)).toEqual({
      contents: [{ parts: [{ text: 'hi' }, { inlineData: { data: '<3 bytes not recorded>' } }] }],
      n: '2',
    });
    // toJSON stands for its object, as in JSON.stringify; inline data without bytes is still walked.
    const withToJson = payloadJson({
      at: new Date(0),
      custom: { toJSON: () => ({ inlineData: { data: 'AAAA' } }) },
      odd: { inlineData: { note: 1n } },
    });
    expect(JSON.parse(withToJson)).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      custom: { inlineData: { data: '<3 bytes not recorded>' } },
      odd: { inlineData: { note: '1' } },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(JSON.parse(payloadJson(cyclic))).toHaveProperty('unrecorded');
  });
});
