import { describe, expect, it } from 'vitest';
import { evictOldest } from '../internal/index.js';

describe('evictOldest', () => {
  it('keeps a small collection at exactly max, dropping the oldest first', () => {
    const map = new Map<string, number>();
    const dropped: string[] = [];
    for (let i = 0; i < 5; i++) {
      map.set(`k${i}`, i);
      evictOldest(map, 3, (key) => dropped.push(key));
    }
    expect([...map.keys()]).toEqual(['k2', 'k3', 'k4']);
    expect(dropped).toEqual(['k0', 'k1']);
    const set = new Set([1, 2]);
    evictOldest(set, 2);
    expect([...set]).toEqual([1, 2]);
    evictOldest(set, 0);
    expect(set.size).toBe(0);
  });

  it('drops a slice of the oldest entries from a large collection, never more than max kept', () => {
    const set = new Set<number>();
    let largest = 0;
    for (let i = 0; i < 10_000; i++) {
      set.add(i);
      evictOldest(set, 6400);
      largest = Math.max(largest, set.size);
    }
    expect(largest).toBe(6400);
    expect(set.size).toBeGreaterThanOrEqual(6300);
    // The newest entries are the ones kept.
    expect(set.has(9999)).toBe(true);
    expect(Math.min(...set)).toBe(10_000 - set.size);
  });
});
