import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from './calculate.js';

describe('calculate', () => {
  it.each([
    ['(12 + 3) * 7', 105],
    ['2^10', 1024],
    ['2 ^ 3 ^ 2', 512],
    ['-4 + 10 / 4', -1.5],
    ['17 % 5', 2],
    ['-(2 + 3) * +2', -10],
  ])('%s = %d', (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each([
    ['1 / 0', 'division by zero'],
    ['(1 + 2', 'missing ")"'],
    ['1 +', 'unexpected end of expression'],
    ['process.exit()', 'unexpected "p"'],
    ['2 3', 'unexpected "3"'],
  ])('rejects %s', (expression, message) => {
    expect(() => calculate(expression)).toThrow(message);
  });

  it('agrees with JavaScript on sums and products of integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (a, b, c) => {
          expect(calculate(`${a} + ${b} * ${c}`)).toBe(a + b * c);
          expect(calculate(`(${a} - ${b}) * ${c}`)).toBe((a - b) * c);
        },
      ),
    );
  });
});
