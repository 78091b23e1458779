import { describe, expect, it } from 'vitest';
import { bootstrapInterval, median } from './stats.js';

describe('bootstrapInterval', () => {
  it('brackets the median of a sample, narrows as the sample grows, and repeats itself', () => {
    const small = [0.9, 0.95, 1, 0.85, 0.97, 0.92];
    const [lo, hi] = bootstrapInterval(small, median);
    expect(lo).toBeLessThanOrEqual(median(small));
    expect(hi).toBeGreaterThanOrEqual(median(small));
    expect(bootstrapInterval(small, median)).toEqual([lo, hi]);
    const large = Array.from({ length: 8 }, () => small).flat();
    const [lo2, hi2] = bootstrapInterval(large, median);
    expect(hi2 - lo2).toBeLessThan(hi - lo);
  });

  it('gives one value for a constant sample and NaN for none', () => {
    expect(bootstrapInterval([2, 2, 2], median)).toEqual([2, 2]);
    expect(bootstrapInterval([], median).every(Number.isNaN)).toBe(true);
  });
});
