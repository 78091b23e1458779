import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiCallError } from './api-call-error.js';
import {
  parseJsonEventStream,
  parseJsonSseBatches,
  parseSseStream,
  type SseEvent,
  SseParser,
} from './sse.js';

function bytes(...chunks: string[]): AsyncIterable<Uint8Array> {
  const encoder = new TextEncoder();
  return (async function* () {
    for (const chunk of chunks) yield encoder.encode(chunk);
  })();
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('parseSseStream', () => {
  it('parses events, comments, event names and ids', async () => {
    const events = await collect(
      parseSseStream(bytes(': keep-alive\n\nevent: message_start\nid: 7\ndata: {"a":1}\n\ndata: two\n\n')),
    );
    expect(events).toEqual([
      { event: 'message_start', id: '7', data: '{"a":1}' },
      { id: '7', data: 'two' },
    ]);
  });

  it('joins multi-line data with newlines and strips one leading space only', async () => {
    const events = await collect(parseSseStream(bytes('data:  a\ndata:b\ndata\n\n')));
    expect(events).toEqual([{ data: ' a\nb\n' }]);
  });

  it('handles CRLF and CR line ends, also a CRLF split across chunks', async () => {
    const events = await collect(
      parseSseStream(bytes('data: one\r', '\n\r', '\ndata: two\r\rdata: three\r\n\r\n')),
    );
    expect(events.map((e) => e.data)).toEqual(['one', 'two', 'three']);
  });

  it('decodes UTF-8 split inside a character', async () => {
    const encoded = new TextEncoder().encode('data: héllo ✓\n\n');
    const events = await collect(
      parseSseStream(
        (async function* () {
          for (const b of encoded) yield new Uint8Array([b]);
        })(),
      ),
    );
    expect(events).toEqual([{ data: 'héllo ✓' }]);
  });

  it('discards an event cut off by the end of the stream', async () => {
    expect(await collect(parseSseStream(bytes('data: whole\n\ndata: cut')))).toEqual([{ data: 'whole' }]);
  });

  it('gives the same events however the input is chunked (property)', () => {
    const text = 'event: a\ndata: 1\r\n\r\n: c\ndata: x\ndata: y\r\rdata: [DONE]\n\n';
    const whole = new SseParser().feed(text);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const parser = new SseParser();
        const events: SseEvent[] = [];
        let last = 0;
        for (const p of [...points, text.length]) {
          events.push(...parser.feed(text.slice(last, p)));
          last = p;
        }
        expect(events).toEqual(whole);
      }),
    );
    expect(whole.map((e) => e.data)).toEqual(['1', 'x\ny', '[DONE]']);
  });
});

describe('parseJsonEventStream', () => {
  it('parses JSON data and stops at [DONE]', async () => {
    const events = parseSseStream(bytes('data: {"n":1}\n\ndata: [DONE]\n\ndata: {"n":2}\n\n'));
    expect(await collect(parseJsonEventStream(events, { url: 'u' }))).toEqual([{ value: { n: 1 } }]);
  });

  it('turns a malformed line into a typed ApiCallError', async () => {
    const events = parseSseStream(bytes('data: {"n":1}\n\ndata: {"n":\n\n'));
    const out: unknown[] = [];
    const error = await (async () => {
      try {
        for await (const e of parseJsonEventStream(events, { url: 'http://x' })) out.push(e);
      } catch (e) {
        return e;
      }
    })();
    expect(out).toHaveLength(1);
    expect(isApiCallError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'invalid-response', isRetryable: false });
  });
});

describe('parseJsonSseBatches', () => {
  it('yields the events of each network chunk together, split across chunk borders, until [DONE]', async () => {
    const encoder = new TextEncoder();
    async function* chunks() {
      yield encoder.encode('data: {"i":1}\n\ndata: {"i":2}\n\nda');
      yield encoder.encode('ta: {"i":3}\n\n');
      yield encoder.encode(': comment\n\n');
      yield encoder.encode('data: {"i":4}\n\ndata: [DONE]\n\ndata: {"i":5}\n\n');
    }
    const batches: number[][] = [];
    for await (const batch of parseJsonSseBatches<{ i: number }>(chunks(), { url: 'http://x' }))
      batches.push(batch.map((e) => e.value.i));
    // The first batch holds one event, so the first response never waits for the whole chunk.
    expect(batches).toEqual([[1], [2], [3], [4]]);
  });

  it('starts with batches of 1, 2, 4, … events, then yields one batch per network chunk', async () => {
    const encoder = new TextEncoder();
    const events = (from: number, count: number) =>
      Array.from({ length: count }, (_, k) => `data: {"i":${from + k}}\n\n`).join('');
    async function* chunks() {
      yield encoder.encode(events(0, 300));
      yield encoder.encode(events(300, 50));
    }
    const sizes: number[] = [];
    const values: number[] = [];
    for await (const batch of parseJsonSseBatches<{ i: number }>(chunks(), { url: 'http://x' })) {
      sizes.push(batch.length);
      for (const event of batch) values.push(event.value.i);
    }
    expect(sizes).toEqual([1, 2, 4, 8, 16, 32, 64, 173, 50]);
    expect(values).toEqual(Array.from({ length: 350 }, (_, k) => k));
  });

  it('reads a long first chunk the same wherever its head is cut (CRLF, surrogate pairs)', async () => {
    const encoder = new TextEncoder();
    const emoji = '\u{1F600}'.repeat(3000);
    // The head is 4096 characters: cut between CR and LF, and (short comments) inside the emoji.
    for (const length of [4088, 4089, 4090, 4091, 4092, 4093, 4094, 4095, 4096, 100, 101]) {
      const text = `:${'x'.repeat(length)}\r\ndata: {"i":1}\r\n\r\ndata: {"s":"${emoji}"}\r\n\r\n`;
      async function* chunks() {
        yield encoder.encode(text);
      }
      const values: unknown[] = [];
      for await (const batch of parseJsonSseBatches(chunks(), { url: 'http://x' }))
        for (const event of batch) values.push(event.value);
      expect(values).toEqual([{ i: 1 }, { s: emoji }]);
    }
  });
});
