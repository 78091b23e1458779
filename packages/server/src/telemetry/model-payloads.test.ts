import { describe, expect, it } from 'vitest';
import { LLM_REQUEST_ATTRIBUTE, PAYLOAD_LIMIT, payloadJson } from './model-payloads.js';
import { rememberingRedactor } from './redaction.js';
import { InMemorySpanStore } from './span-store.js';

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

  it('masks every text and key before serializing, scanning a repeated turn once', () => {
    const scanned: string[] = [];
    const redact = rememberingRedactor((text) => {
      scanned.push(text);
      return text.replaceAll('4111111111111111', '[CARD]');
    });
    const turn = { role: 'user', parts: [{ text: 'my card is 4111111111111111' }] };
    const first = payloadJson({ contents: [turn] }, PAYLOAD_LIMIT, redact);
    expect(first).toBe('{"contents":[{"role":"user","parts":[{"text":"my card is [CARD]"}]}]}');
    const before = scanned.length;
    const next = { role: 'model', parts: [{ functionCall: { args: { '4111111111111111': 'x' } } }] };
    const second = payloadJson({ contents: [turn, next] }, PAYLOAD_LIMIT, redact);
    expect(second).not.toContain('4111111111111111');
    expect(JSON.parse(second).contents[1].parts[0].functionCall.args).toEqual({ '[CARD]': 'x' });
    // The earlier turn's texts came from memory: only the new turn's texts and keys were scanned.
    expect(scanned.slice(before)).not.toContain('my card is 4111111111111111');
    expect(scanned.slice(before)).toContain('4111111111111111');
  });
});

describe('rememberingRedactor', () => {
  it('keeps the answers in use within its character budget', () => {
    let calls = 0;
    const redact = rememberingRedactor((text) => {
      calls += 1;
      return text.toUpperCase();
    }, 16);
    expect(redact('aaaa')).toBe('AAAA');
    expect(redact('bbbb')).toBe('BBBB');
    expect(calls).toBe(2);
    redact('cccc'); // 12 characters: over half the budget, these become the older generation
    redact('aaaa'); // a hit in the older generation, kept
    expect(calls).toBe(3);
    redact('dddd');
    redact('eeee'); // another turnover: 'bbbb' and 'cccc' were not used since, so they go
    expect(redact('aaaa')).toBe('AAAA');
    expect(calls).toBe(5);
    redact('bbbb');
    expect(calls).toBe(6);
  });
});

describe('InMemorySpanStore payloads', () => {
  it('serializes and redacts a payload on first read, once, and never during the run', async () => {
    const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base');
    const store = new InMemorySpanStore();
    store.configure({ redact: (text) => text.replaceAll('4111111111111111', '[CARD]') });
    const provider = new BasicTracerProvider({ spanProcessors: [store] });
    const span = provider.getTracer('t').startSpan('call_llm', {
      attributes: { 'gcp.vertex.agent.session_id': 's1', 'gen_ai.operation.name': 'chat' },
    });
    span.end();
    let calls = 0;
    const seen: string[] = [];
    store.subscribe((record) => seen.push(record.span_id));
    store.annotateLatestModelCall('s1', {
      [LLM_REQUEST_ATTRIBUTE]: () => {
        calls += 1;
        return payloadJson({ text: 'card 4111111111111111' });
      },
    });
    expect(calls).toBe(0);
    expect(seen).toHaveLength(1);
    const [record] = store.sessionSpans('s1');
    expect(record?.attributes[LLM_REQUEST_ATTRIBUTE]).toBe('{"text":"card [CARD]"}');
    expect({ ...record?.attributes }[LLM_REQUEST_ATTRIBUTE]).toBe('{"text":"card [CARD]"}');
    expect(calls).toBe(1);
    // A function that takes the redactor masks its own texts; the store does not scan its output.
    const second = provider.getTracer('t').startSpan('call_llm', {
      attributes: { 'gcp.vertex.agent.session_id': 's1', 'gen_ai.operation.name': 'chat' },
    });
    second.end();
    store.annotateLatestModelCall('s1', {
      [LLM_REQUEST_ATTRIBUTE]: (redact) =>
        payloadJson({ text: 'card 4111111111111111', n: '4111111111111111' }, PAYLOAD_LIMIT, redact),
    });
    const latest = store.sessionSpans('s1').at(-1);
    expect(latest?.attributes[LLM_REQUEST_ATTRIBUTE]).toBe('{"text":"card [CARD]","n":"[CARD]"}');
    await provider.shutdown();
  });
});
