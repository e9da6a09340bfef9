// isoTime (src/output/io.ts): the stamp of every stderr line off a terminal, written from the date's UTC fields
// rather than by toISOString (which reads ICU's time zone tables: BENCHMARKS.md, issue 33). It must write what
// toISOString writes, character for character.
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/output/io.js';

describe('isoTime', () => {
  it('writes what toISOString writes, across years, months, leap days and milliseconds', () => {
    const times = [
      0,
      1,
      -1,
      Date.now(),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 12, 0, 0, 5),
      Date.UTC(2000, 0, 1),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      new Date('0000-01-01T00:00:00.000Z').getTime(),
      new Date('9999-12-31T23:59:59.999Z').getTime(),
    ];
    // A spread of times over four centuries, each at an odd millisecond.
    for (let t = Date.UTC(1800, 0, 1); t < Date.UTC(2200, 0, 1); t += 86_400_000 * 97 + 3_600_000 * 7 + 61_007)
      times.push(t);
    for (const t of times) expect(isoTime(t), String(t)).toBe(new Date(t).toISOString());
  });

  it('leaves years outside 0–9999, and an invalid time, to toISOString', () => {
    for (const iso of ['-000001-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z']) {
      const t = new Date(iso).getTime();
      expect(isoTime(t)).toBe(iso);
    }
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
