import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodePoint } from '../../src/compare.js';
import { counted, grouped } from '../../src/output/words.js';

describe('counted', () => {
  it('says one code, and codes for any other count, grouped by thousands', () => {
    expect(counted(1, 'code')).toBe('1 code');
    expect(counted(0, 'code')).toBe('0 codes');
    expect(counted(3, 'code')).toBe('3 codes');
    expect(counted(1_000_000, 'code')).toBe('1,000,000 codes');
    expect(counted(2, 'entry', 'entries')).toBe('2 entries');
  });
});

describe('grouped', () => {
  it('groups thousands by commas, as en-US does', () => {
    expect(grouped(0)).toBe('0');
    expect(grouped(999)).toBe('999');
    expect(grouped(1000)).toBe('1,000');
    expect(grouped(12_345)).toBe('12,345');
    expect(grouped(1_000_000)).toBe('1,000,000');
    expect(grouped(-1234)).toBe('-1,234');
    expect(grouped(Number.NaN)).toBe('NaN');
  });

  it('writes every whole number as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(grouped(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('byCodePoint', () => {
  it('sorts by code point, whatever the locale', () => {
    expect(['b', 'B', 'a', 'A', '2026-01-02', '2026-01-01'].sort(byCodePoint)).toEqual([
      '2026-01-01',
      '2026-01-02',
      'A',
      'B',
      'a',
      'b',
    ]);
    expect(byCodePoint('x', 'x')).toBe(0);
  });
});

// Number formatting and comparison by ICU (toLocaleString, Intl, localeCompare) load ICU's data: ~5 MiB more peak RSS
// for an export that printed one count, ~3 MiB for a journal that sorted its intents. The program formats and
// sorts with grouped() and byCodePoint() instead; this keeps a new use from coming back unnoticed.
describe('no ICU formatting or collation in the program', () => {
  it('src/ calls none of toLocaleString, Intl or localeCompare outside comments', () => {
    const uses: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts'))
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '');
              if (/\.toLocale\w*String\(|\bIntl\.|\.localeCompare\(/.test(code)) uses.push(`${path}:${i + 1}`);
            });
      }
    };
    walk(join(import.meta.dirname, '..', '..', 'src'));
    expect(uses).toEqual([]);
  });
});
