import { describe, expect, it } from 'vitest';
import { readSse } from './sse.js';

function stream(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

async function all(chunks: string[]): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readSse(stream(chunks))) out.push(data);
  return out;
}

describe('readSse', () => {
  it('yields each message once, whatever the chunk boundaries', async () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\n\n';
    const expected = ['{"a":1}', '{"b":2}'];
    for (let cut = 1; cut < text.length; cut++)
      expect(await all([text.slice(0, cut), text.slice(cut)])).toEqual(expected);
  });

  it('handles CRLF, multi-line data, comments, other fields and a last message without a blank line', async () => {
    expect(await all([': ping\r\nevent: x\r\ndata: one\r\ndata: two\r\n\r\nid: 3\ndata:three'])).toEqual([
      'one\ntwo',
      'three',
    ]);
  });

  it('keeps multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: "héllo 🌍"\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const b of bytes) controller.enqueue(new Uint8Array([b]));
        controller.close();
      },
    });
    const out: string[] = [];
    for await (const d of readSse(body)) out.push(d);
    expect(out).toEqual(['"héllo 🌍"']);
  });
});
