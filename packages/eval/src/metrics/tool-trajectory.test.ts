import { describe, expect, it } from 'vitest';
import { toolCallsMatch } from '../index.js';

describe('tool trajectory match types', () => {
  const call = (name: string, args: Record<string, unknown> = {}) => ({ id: '', name, args });
  const t1 = call('t1', { a: 1 });
  const t2 = call('t2');
  const t3 = call('t3');
  const extra = call('x');

  it('EXACT needs the same calls, same order, same args', () => {
    expect(toolCallsMatch([t1, t2], [t1, t2], 'EXACT')).toBe(true);
    expect(toolCallsMatch([t2, t1], [t1, t2], 'EXACT')).toBe(false);
    expect(toolCallsMatch([t1, t2, extra], [t1, t2], 'EXACT')).toBe(false);
    expect(toolCallsMatch([call('t1', { a: 2 })], [t1], 'EXACT')).toBe(false);
    expect(toolCallsMatch([call('t1', { a: 2 })], [t1], 'EXACT', true)).toBe(true);
    // Args compare like Python dicts: key order does not matter.
    expect(
      toolCallsMatch([call('t', { a: 1, b: [1, { c: 2 }] })], [call('t', { b: [1, { c: 2 }], a: 1 })]),
    ).toBe(true);
    expect(toolCallsMatch([], [], 'EXACT')).toBe(true);
  });

  it('IN_ORDER allows extra calls between the expected ones', () => {
    expect(toolCallsMatch([t1, extra, t2, extra, t3], [t1, t2, t3], 'IN_ORDER')).toBe(true);
    expect(toolCallsMatch([t1, extra, t2, t3], [t1, t2, t3, call('t4')], 'IN_ORDER')).toBe(false);
    expect(toolCallsMatch([t2, t1], [t1, t2], 'IN_ORDER')).toBe(false);
    expect(toolCallsMatch([extra], [], 'IN_ORDER')).toBe(true);
  });

  it('ANY_ORDER needs every expected call, in any order, each matched once', () => {
    expect(toolCallsMatch([t2, extra, t1, t3], [t1, t2, t3], 'ANY_ORDER')).toBe(true);
    expect(toolCallsMatch([t1, t2, t3], [t1, t2, t3, call('t4')], 'ANY_ORDER')).toBe(false);
    expect(toolCallsMatch([t1], [t1, t1], 'ANY_ORDER')).toBe(false);
  });
});
