// An existing --out file that certainly cannot hold an order's codes is told without fetching one (orders/recover.ts
// tooShortForCodes): a person's day waited a minute and a half of pages for a refusal of a one-line file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tooShortForCodes } from '../../src/orders/recover.js';
import { tempDir } from '../helpers/e2e.js';

function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

describe('tooShortForCodes', () => {
  it('an empty file holds no codes, whatever its format and whether the quantity is known', () => {
    for (const name of ['e.csv', 'e.json', 'e.xlsx', 'e.jsonl'])
      expect(tooShortForCodes(file(name, ''), 'csv', undefined)).toBe(0);
  });

  it('a CSV needs a header and a line a code; JSON Lines a line a code; a last line without its break counts', () => {
    expect(tooShortForCodes(file('a.csv', 'h\r\n1\r\n2\r\n'), 'csv', 3)).toBe(3);
    expect(tooShortForCodes(file('b.csv', 'h\r\n1\r\n2\r\n3\r\n'), 'csv', 3)).toBeUndefined();
    expect(tooShortForCodes(file('c.csv', 'h\n1\n2\n3'), 'csv', 3)).toBeUndefined();
    expect(tooShortForCodes(file('d.csv', 'h\n1\n2'), 'csv', 3)).toBe(3);
    expect(tooShortForCodes(file('a.jsonl', '{}\n{}\n'), 'jsonl', 3)).toBe(2);
    expect(tooShortForCodes(file('b.jsonl', '{}\n{}\n{}\n'), 'jsonl', 3)).toBeUndefined();
    // Lines beyond the first 64 KiB are counted too.
    expect(tooShortForCodes(file('big.jsonl', `${'x'.repeat(70_000)}\n`.repeat(3)), 'jsonl', 4)).toBe(3);
    expect(tooShortForCodes(file('big2.jsonl', `${'x'.repeat(70_000)}\n`.repeat(4)), 'jsonl', 4)).toBeUndefined();
  });

  it('may hold them, to be compared whole: another format, an encrypted file, an unknown quantity, no file', () => {
    expect(tooShortForCodes(file('a.json', '[]'), 'json', 5)).toBeUndefined();
    expect(tooShortForCodes(file('a.csv.age', 'age'), 'csv', 5)).toBeUndefined();
    // Only a name that ends in .age is an encrypted file.
    expect(tooShortForCodes(file('a.age.csv', 'h\n'), 'csv', 5)).toBe(1);
    expect(tooShortForCodes(file('u.csv', 'h\n'), 'csv', undefined)).toBeUndefined();
    expect(tooShortForCodes(join(tempDir(), 'none.csv'), 'csv', 5)).toBeUndefined();
  });
});
