import { describe, expect, it } from 'vitest';
import { flattenBatches } from './index.js';

async function* batchesOf<T>(arrays: T[][], log: string[] = []): AsyncGenerator<T[], void, undefined> {
  try {
    for (const [i, array] of arrays.entries()) {
      log.push(`batch ${i}`);
      yield array;
    }
  } finally {
    log.push('closed');
  }
}

describe('flattenBatches', () => {
  it('hands out every item in order, skipping empty batches, resuming once per batch', async () => {
    const log: string[] = [];
    const out: number[] = [];
    for await (const n of flattenBatches(batchesOf([[1, 2], [], [3], [4, 5, 6]], log))) out.push(n);
    expect(out).toEqual([1, 2, 3, 4, 5, 6]);
    expect(log).toEqual(['batch 0', 'batch 1', 'batch 2', 'batch 3', 'closed']);
  });

  it('closes the batches when the reader stops early', async () => {
    const log: string[] = [];
    for await (const n of flattenBatches(batchesOf([[1, 2], [3]], log))) if (n === 1) break;
    expect(log).toEqual(['batch 0', 'closed']);
  });

  it("passes the batches' failure on, after the items read before it", async () => {
    async function* failing(): AsyncGenerator<number[], void, undefined> {
      yield [1];
      throw new Error('stream cut');
    }
    const out: number[] = [];
    await expect(
      (async () => {
        for await (const n of flattenBatches(failing())) out.push(n);
      })(),
    ).rejects.toThrow('stream cut');
    expect(out).toEqual([1]);
  });

  it('answers next() calls made at once in order, and throw() reaches the batches', async () => {
    const stream = flattenBatches(batchesOf([[1], [2, 3]]));
    const results = await Promise.all([stream.next(), stream.next(), stream.next(), stream.next()]);
    expect(results.map((r) => r.value)).toEqual([1, 2, 3, undefined]);
    expect(results.at(-1)?.done).toBe(true);
    const log: string[] = [];
    const other = flattenBatches(batchesOf([[1], [2]], log));
    await other.next();
    await expect(other.throw(new Error('stop'))).rejects.toThrow('stop');
    expect(log).toEqual(['batch 0', 'closed']);
    expect(await other.next()).toEqual({ value: undefined, done: true });
  });
});
