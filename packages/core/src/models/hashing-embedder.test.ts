import { describe, expect, it } from 'vitest';
import { CachingEmbedder, HashingEmbedder } from '../index.js';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

describe('HashingEmbedder', () => {
  it('is deterministic, normalised, and puts texts sharing words and word pieces nearer', async () => {
    const e = new HashingEmbedder({ dimensions: 128 });
    const [a, b, c, d] = await e.embed([
      'I love hiking in the Alps',
      'I love hiking in the Alps',
      'hikes in the alps',
      'my cat eats fish',
    ]);
    expect(a).toEqual(b);
    expect(a?.length).toBe(128);
    expect(cosine(a ?? [], a ?? [])).toBeCloseTo(1, 6);
    expect(cosine(a ?? [], c ?? [])).toBeGreaterThan(cosine(a ?? [], d ?? []));
    expect((await e.embed(['']))[0]?.every((x) => x === 0)).toBe(true);
  });

  it('CachingEmbedder answers a repeated query from its bounded cache, never documents', async () => {
    let calls = 0;
    const inner = new HashingEmbedder();
    const cached = new CachingEmbedder(
      {
        model: inner.model,
        dimensions: inner.dimensions,
        embed: (t, o) => {
          calls++;
          return inner.embed(t, o);
        },
      },
      2,
    );
    const [q1] = await cached.embed(['where do I live'], { taskType: 'RETRIEVAL_QUERY' });
    const [q2] = await cached.embed(['where do I live'], { taskType: 'RETRIEVAL_QUERY' });
    expect(q2).toEqual(q1);
    expect(calls).toBe(1);
    await cached.embed(['doc'], { taskType: 'RETRIEVAL_DOCUMENT' });
    await cached.embed(['doc'], { taskType: 'RETRIEVAL_DOCUMENT' });
    expect(calls).toBe(3);
    await cached.embed(['b', 'c']);
    await cached.embed(['where do I live']);
    expect(calls).toBe(5);
  });
});
