import { describe, expect, it } from 'vitest';
import { StatementNames } from './statement-names.js';

describe('StatementNames', () => {
  it('names a text the second time it is seen, always the same name, one text per name', () => {
    const names = new StatementNames(10);
    expect(names.nameFor('select 1')).toBeUndefined();
    const first = names.nameFor('select 1');
    expect(first).toMatch(/^adk_\d+$/);
    expect(names.nameFor('select 1')).toBe(first);
    expect(names.nameFor('select 2')).toBeUndefined();
    const second = names.nameFor('select 2');
    expect(second).not.toBe(first);
  });

  it('names at most `max` texts; the rest run unnamed, the named keep their names', () => {
    const names = new StatementNames(2);
    for (const text of ['a', 'a', 'b', 'b', 'c', 'c']) names.nameFor(text);
    expect(names.nameFor('a')).toBeDefined();
    expect(names.nameFor('b')).toBeDefined();
    expect(names.nameFor('c')).toBeUndefined();
  });

  it('one-off texts never take a name, however many there are', () => {
    const names = new StatementNames(5);
    for (let i = 0; i < 5000; i++) expect(names.nameFor(`select ${i}`)).toBeUndefined();
    expect(names.nameFor('repeated')).toBeUndefined();
    expect(names.nameFor('repeated')).toBeDefined();
  });
});
