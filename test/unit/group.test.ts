// groupBy (src/group.ts): the items by a key, each group and the groups in the order the items come.
import { describe, expect, it } from 'vitest';
import { groupBy } from '../../src/group.js';

describe('groupBy', () => {
  it('keeps each group in the items order, and the groups in the order their first item comes', () => {
    const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]);
    expect([...groups]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
    expect(groupBy([], (s: string) => s).size).toBe(0);
    // 100,000 items of one key: one group of them all, in order.
    const many = groupBy(
      Array.from({ length: 100_000 }, (_, i) => i),
      () => 'same',
    ).get('same')!;
    expect(many).toHaveLength(100_000);
    expect(many[99_999]).toBe(99_999);
  });
});
