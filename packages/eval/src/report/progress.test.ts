import { describe, expect, it } from 'vitest';
import { progressBar } from '../index.js';

describe('progressBar', () => {
  it('draws only on a terminal', () => {
    expect(progressBar({ isTTY: false, write: () => true })).toBeUndefined();
    const out: string[] = [];
    const bar = progressBar({ isTTY: true, columns: 60, write: (s: string) => out.push(s) });
    bar?.start(2);
    bar?.tick({ evalSetId: 's', evalId: 'a', run: 1, passed: true });
    bar?.tick({ evalSetId: 's', evalId: 'b', run: 1, passed: false });
    bar?.finish();
    expect(out.at(-2)).toContain('2/2 runs  ✓ 1  ✗ 1');
    expect(out.at(-1)).toBe('\n');
  });
});
