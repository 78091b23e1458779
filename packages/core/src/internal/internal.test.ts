import { describe, expect, it } from 'vitest';
import * as root from '../index.js';
import * as internal from './index.js';

describe('@adk/core/internal', () => {
  it('exports the shared helpers; the root still re-exports the same values for one minor version', () => {
    const names = Object.keys(internal);
    expect(names.length).toBeGreaterThan(30);
    // Helpers added after the move live only here.
    const internalOnly = new Set(['delay', 'delayUnlessAborted', 'evictOldest', 'originalCallOf']);
    for (const name of names.filter((n) => !internalOnly.has(n)))
      expect((root as Record<string, unknown>)[name], name).toBe((internal as Record<string, unknown>)[name]);
    expect(internal.tryParseJson('{"a":1}')).toEqual({ a: 1 });
    expect(internal.isPlainObject([])).toBe(false);
    expect('delay' in root).toBe(false);
  });

  it('delay rejects with the abort reason and delayUnlessAborted resolves early, leaving no listener', async () => {
    const controller = new AbortController();
    const waiting = internal.delay(60_000, controller.signal);
    const cut = internal.delayUnlessAborted(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(cut).resolves.toBeUndefined();
    await expect(internal.delay(1, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('originalCallOf reads the call a confirmation asks about, and refuses a malformed one', () => {
    const call = (originalFunctionCall: unknown) => ({ args: { originalFunctionCall } });
    expect(internal.originalCallOf(call({ id: 'c1', name: 'delete', args: { path: 'a' } }))).toEqual({
      id: 'c1',
      name: 'delete',
      args: { path: 'a' },
    });
    expect(internal.originalCallOf(call({ id: 'c1', name: 'delete', args: 'x' }))?.args).toEqual({});
    expect(internal.originalCallOf(call({ id: 1, name: 'delete' }))).toBeUndefined();
    expect(internal.originalCallOf(call(undefined))).toBeUndefined();
    expect('originalCallOf' in root).toBe(false);
  });
});
