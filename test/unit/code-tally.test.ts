// CodeTally: every code of an order seen once, in bounded memory; a repeat is exit 5 (duplicate_code),
// found across pages, across the table's growth (an order whose quantity is not known), and on both the
// fast page reader's pages and JSON.parse's records.
import { describe, expect, it } from 'vitest';
import { CodeTally } from '../../src/export/tally.js';
import { PageScanner } from '../../src/export/scan.js';

const records = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({ code: `CODE-${from + i}` }));

describe('CodeTally', () => {
  it('50,000 distinct codes pass where 4 were expected (the table grows); a repeat after growth is refused', () => {
    const tally = new CodeTally('ord_1', 4);
    for (let p = 0; p < 50; p++) tally.page(records(p * 1000, p * 1000 + 1000));
    expect(() => tally.page([{ code: 'CODE-17' }])).toThrow(
      expect.objectContaining({ code: 'duplicate_code', exitCode: 5 }) as Error,
    );
    expect(() => tally.page([{ code: 'CODE-49999' }])).toThrow(/code number 50002 repeats/);
  });

  it('without a known quantity: 50,000 distinct codes pass, and a repeat of the first or the last is refused', () => {
    const tally = new CodeTally('ord_1b');
    for (let p = 0; p < 50; p++) tally.page(records(p * 1000, p * 1000 + 1000));
    expect(() => tally.page([{ code: 'CODE-0' }])).toThrow(/code number 50001 repeats/);
    expect(() => tally.page([{ code: 'CODE-49999' }])).toThrow(/code number 50002 repeats/);
  });

  it('a repeat within one page and across pages, by position, never naming the code', () => {
    const within = new CodeTally('ord_2', 4);
    expect(() => within.page([{ code: 'A' }, { code: 'B' }, { code: 'A' }])).toThrow(
      'the codes of order ord_2: code number 3 repeats a code sent earlier in the same order; the codes are not used',
    );
    expect(() => new CodeTally('ord_2').page([{ code: 'A' }, { code: 'A' }])).toThrow(
      expect.objectContaining({
        hint: 'the service sent a code twice in place of another; try again later, and tell the provider if it persists',
      }) as Error,
    );
    const across = new CodeTally('ord_3', 4);
    across.page([{ code: 'A' }, { code: 'B' }]);
    expect(() => across.page([{ code: 'C' }, { code: 'B' }])).toThrow(/code number 4 repeats/);
  });

  it('records without a code, or the same PIN under different codes, are not repeats', () => {
    const tally = new CodeTally('ord_4', 3);
    tally.page([{ pin: '1' }, { pin: '1' }] as never);
    tally.page([
      { code: 'A', pin: '1' },
      { code: 'B', pin: '1' },
    ]);
    tally.page([{ code: 12 }, { code: '13' }]);
    expect(() => tally.page([{ code: '12' }])).toThrow(/repeats/);
  });

  it('a page of more records than the last one (past 1,024) is hashed whole: a repeat at its end is found, by its position', () => {
    const big = (from: number, to: number): { code: string }[] => records(from, to);
    const tally = new CodeTally('ord_big', 10_000);
    tally.page(big(0, 10));
    tally.page(big(10, 3010));
    expect(() => tally.page([...big(3010, 5000), { code: 'CODE-2999' }])).toThrow(/code number 5001 repeats/);
    const scanner = new PageScanner(['data']);
    const scanned = scanner.scan(Buffer.from(JSON.stringify({ data: [...big(0, 2500), { code: 'CODE-2400' }] })));
    expect(scanned).toBeDefined();
    expect(() => new CodeTally('ord_big2').page(scanned!)).toThrow(/code number 2501 repeats/);
  });

  it('pages read from their bytes (scan.ts) are tallied as their records are', () => {
    const scanner = new PageScanner(['data']);
    const page = (codes: string[]) =>
      scanner.scan(
        Buffer.from(JSON.stringify({ data: codes.map((code, i) => ({ code, pin: `0${i}` })), has_more: true })),
      )!;
    const tally = new CodeTally('ord_5', 4);
    const first = page(['X-1', 'X-2']);
    expect(first).toBeDefined();
    tally.page(first);
    expect(() => tally.page(page(['X-3', 'X-1']))).toThrow(/code number 4 repeats/);
    // The same code as a record from JSON.parse is the same code.
    const mixed = new CodeTally('ord_6', 4);
    mixed.page(page(['Y-1']));
    expect(() => mixed.page([{ code: 'Y-1' }])).toThrow(/repeats/);
  });
});

describe('CodeTally, every kind of code and position', () => {
  const scanned = (records: unknown[]) =>
    new PageScanner(['data']).scan(Buffer.from(JSON.stringify({ data: records })))!;

  it('a record without a code still takes its place: the repeat is named by its position among all records', () => {
    const tally = new CodeTally('ord_7', 4);
    expect(() => tally.page([{ pin: '1' }, { code: 'A' }, { code: 'A' }] as never)).toThrow(/code number 3 repeats/);
    const fast = new CodeTally('ord_8', 4);
    const page = scanned([{ code: null }, { code: 'A' }, { code: true }, { code: 'A' }]);
    expect(page).toBeDefined();
    expect(() => fast.page(page)).toThrow(/code number 4 repeats/);
  });

  it('read from their bytes: a code holding a comma and a numeric code are codes; null and true are not', () => {
    const comma = new CodeTally('ord_9', 4);
    expect(() => comma.page(scanned([{ code: 'A,1' }, { code: 'A,2' }, { code: 'A,1' }]))).toThrow(
      /code number 3 repeats/,
    );
    const numeric = new CodeTally('ord_10', 4);
    expect(() => numeric.page(scanned([{ code: 12 }, { code: 13 }, { code: 12 }]))).toThrow(/code number 3 repeats/);
    // Two nulls or two trues are no codes, so no repeat.
    new CodeTally('ord_11', 4).page(scanned([{ code: null }, { code: null }, { code: true }, { code: true }]));
  });

  it('the code field is found wherever it is in the record; a record whose codes are nested has none at the top', () => {
    const last = new CodeTally('ord_12', 4);
    expect(() =>
      last.page(
        scanned([
          { pin: '1', code: 'A' },
          { pin: '2', code: 'A' },
        ]),
      ),
    ).toThrow(/code number 2 repeats/);
    // A `code` only inside another object is not the record's code: nothing to tally, nothing refused.
    new CodeTally('ord_13', 4).page(
      scanned([{ card: { code: 'A' } }, { card: { code: 'A' } }, { card: { code: 'A' } }]),
    );
  });

  it('the table is sized once from the quantity (at most 85 % full, any count of slots), for a million codes when it is not known, and grows past that', () => {
    // Two words a slot: the second hash and the check word.
    const slots = (tally: CodeTally): number => (tally as unknown as { table: Uint32Array }).table.length / 2;
    expect(slots(new CodeTally('o', 100))).toBe(1024);
    expect(slots(new CodeTally('o', 870))).toBe(1024);
    expect(slots(new CodeTally('o', 871))).toBe(1025);
    // A million codes in 1,176,471 slots (9.0 MiB): at most 70 % full took 1,428,572 (10.9 MiB), a power of two at
    // most half full 2^21 (16 MiB).
    expect(slots(new CodeTally('o', 1_000_000))).toBe(1_176_471);
    expect(slots(new CodeTally('o', 600_000))).toBe(705_883);
    // Unknown: one table for the first million codes and more (the export's 1,000,000 never grow it).
    expect(slots(new CodeTally('o'))).toBe(2 ** 21);
    const growing = new CodeTally('o', 512);
    growing.page(records(0, 870));
    expect(slots(growing)).toBe(1024);
    growing.page(records(870, 871));
    expect(slots(growing)).toBe(2048);
    // Every code of the grown tables still counts: a repeat of the first is refused, a new one passes.
    expect(() => growing.page(records(0, 1))).toThrow(/code number 872 repeats/);
  });

  it('a table of any count of slots finds every repeat: 30,000 codes in 35,295 slots, each sent again', () => {
    const tally = new CodeTally('o', 30_000);
    for (let from = 0; from < 30_000; from += 1000) tally.page(records(from, from + 1000));
    for (const code of [0, 1, 14_999, 29_999]) expect(() => tally.page(records(code, code + 1))).toThrow(/repeats/);
  });

  it('a table filled to its 85 % refuses every one of its codes sent again, and no code it has not seen (three seeds)', () => {
    for (let run = 0; run < 3; run++) {
      // 20,000 codes in 23,530 slots: the table as full as an order of its quantity ever makes it.
      const tally = new CodeTally('o', 20_000);
      for (let from = 0; from < 20_000; from += 1000) tally.page(records(from, from + 1000));
      expect((tally as unknown as { size: number }).size).toBe(20_000);
      for (let code = 0; code < 20_000; code++)
        expect(() => tally.page(records(code, code + 1)), `code ${code}`).toThrow(/repeats a code sent earlier/);
      // Codes it has not seen pass, past its quantity too (a new table takes them).
      tally.page(records(20_000, 21_000));
      expect(() => tally.page(records(20_500, 20_501))).toThrow(/repeats a code sent earlier/);
    }
  });
  it('codes that differ in one byte, in a whole word or in the last 1-3 bytes, or only in length, are different codes; each is the same code read from bytes or from records', () => {
    // The hash reads four bytes at a time and the rest one at a time: every length from 0 to 13, every position.
    const codes = new Set<string>();
    for (let length = 0; length <= 13; length++) {
      const base = 'K7Q-Z2M9-XW4P'.slice(0, length);
      codes.add(base);
      for (let at = 0; at < length; at++)
        for (const c of ['0', 'a', '\u00e9', '\u20ac']) codes.add(base.slice(0, at) + c + base.slice(at + 1));
    }
    codes.add('ABCD\u0001'.slice(0, 4));
    codes.add('AAAA');
    codes.add('AAAAA');
    codes.add('AAAAAAAA');
    const all = [...codes];
    expect(all.length).toBeGreaterThan(350);
    const fromBytes = new CodeTally('ord_w', all.length);
    fromBytes.page(scanned(all.map((code) => ({ code }))));
    const fromRecords = new CodeTally('ord_r', all.length);
    fromRecords.page(all.map((code) => ({ code })));
    // Each again, the other way: a repeat.
    for (const code of all) {
      expect(() => fromBytes.page([{ code }]), JSON.stringify(code)).toThrow(/repeats a code sent earlier/);
      expect(() => fromRecords.page(scanned([{ code }])), JSON.stringify(code)).toThrow(/repeats a code sent earlier/);
    }
  });
});
