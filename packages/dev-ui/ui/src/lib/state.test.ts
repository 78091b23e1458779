import { describe, expect, it } from 'vitest';
import type { AdkEvent } from '../api/types.js';
import { initialState, stateAfter, stateChanges } from './state.js';

const ev = (id: string, stateDelta?: Record<string, unknown>): AdkEvent => ({
  id,
  author: 'agent',
  ...(stateDelta ? { actions: { stateDelta } } : {}),
});

describe('state before/after an event', () => {
  const events = [ev('1', { city: 'Paris' }), ev('2'), ev('3', { city: 'Rome', 'temp:x': 1, n: 1 })];
  const final = { city: 'Rome', n: 1, seeded: true };
  const initial = initialState(events, final);

  it('takes untouched keys of the final state as the initial state', () => {
    expect(initial).toEqual({ seeded: true });
  });

  it('gives each key of a delta the value an earlier event set, or unset', () => {
    expect(stateChanges(events, 0, initial)).toEqual([
      { key: 'city', before: undefined, after: 'Paris', beforeKnown: false },
    ]);
    expect(stateChanges(events, 2, initial)).toEqual([
      { key: 'city', before: 'Paris', after: 'Rome', beforeKnown: true },
      { key: 'temp:x', before: undefined, after: 1, beforeKnown: false },
      { key: 'n', before: undefined, after: 1, beforeKnown: false },
    ]);
    expect(stateChanges(events, 1, initial)).toEqual([]);
  });

  it('replays deltas up to an event, without temp: keys', () => {
    expect(stateAfter(events, 1, initial)).toEqual({ seeded: true, city: 'Paris' });
    expect(stateAfter(events, 2, initial)).toEqual(final);
  });
});
