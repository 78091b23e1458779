import { describe, expect, it } from 'vitest';
import * as root from '../index.js';
import * as internal from './index.js';

describe('@adk/core/internal', () => {
  it('exports the shared helpers; the root still re-exports the same values for one minor version', () => {
    const names = Object.keys(internal);
    expect(names.length).toBeGreaterThan(30);
    for (const name of names)
      expect((root as Record<string, unknown>)[name], name).toBe((internal as Record<string, unknown>)[name]);
    expect(internal.tryParseJson('{"a":1}')).toEqual({ a: 1 });
    expect(internal.isPlainObject([])).toBe(false);
  });
});
