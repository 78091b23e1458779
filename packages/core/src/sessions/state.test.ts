import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeState, State, splitStateDelta, withoutTempKeys } from '../index.js';

const key = fc
  .tuple(fc.constantFrom('', 'app:', 'user:', 'temp:'), fc.string({ minLength: 1, maxLength: 6 }))
  .map(([p, k]) => p + k);
const delta = fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 8 });

describe('state scoping', () => {
  it('splitting a delta by prefix and merging it back loses nothing but temp: keys', () => {
    fc.assert(
      fc.property(delta, (d) => {
        const split = splitStateDelta(d);
        const merged = mergeState(split.app, split.user, split.session);
        expect({ ...merged, ...split.temp }).toEqual(d);
        expect(withoutTempKeys(d)).toEqual(merged);
      }),
    );
  });

  it('routes app:/user: keys without their prefix and keeps temp: keys apart', () => {
    expect(splitStateDelta({ 'app:a': 1, 'user:b': 2, c: 3, 'temp:d': 4 })).toEqual({
      app: { a: 1 },
      user: { b: 2 },
      session: { c: 3 },
      temp: { 'temp:d': 4 },
    });
  });

  it('a State view reads pending writes over temp over the base', () => {
    const s = new State({ a: 1, b: 1 }, {}, { 'temp:t': 'x' });
    s.set('b', 2);
    expect([s.get('a'), s.get('b'), s.get('temp:t'), s.has('zz')]).toEqual([1, 2, 'x', false]);
    expect(s.delta).toEqual({ b: 2 });
    expect(s.toObject()).toEqual({ a: 1, b: 2, 'temp:t': 'x' });
  });
});
