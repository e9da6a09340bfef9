import { existsSync, truncateSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CsvWriter, RowSplitter, csvCell, flattenRecord } from '../../src/export/csv.js';
import { formatArg } from '../../src/commands/wait-flags.js';
import { SPREADSHEET_CHANGES, spreadsheetChanges, formatFor, type TextSink } from '../../src/export/format.js';
import { majorUnits } from '../../src/money.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';
import { exportCodes, gatherExportWarnings } from '../../src/export/write.js';
import type { ApiClient } from '../../src/api/client.js';

function memorySink(): TextSink & { text(): string } {
  const chunks: Buffer[] = [];
  return {
    write: async (chunk) => {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

/**
 * The documented display rule (docs/codes-and-exports.md), written out plainly: every object inside a record (not the
 * record itself) with an integer `amount`, a three-letter `currency` and no `display` gains `display` last.
 */
function withDisplays(value: Record<string, unknown>, inside = false): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] =
      inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? withDisplays(inner as Record<string, unknown>, true)
        : inner;
  }
  const { amount, currency } = value;
  if (
    inside &&
    !('display' in value) &&
    Number.isSafeInteger(amount) &&
    typeof currency === 'string' &&
    /^[A-Za-z]{3}$/.test(currency)
  )
    copy.display = majorUnits(amount as number, currency);
  return copy;
}

/** The obvious in-memory CSV, to hold the streaming writer against. */
function referenceCsv(orderId: string, records: Record<string, unknown>[], raw: boolean): string {
  const flat = records.map((record) => {
    const cells = new Map<string, unknown>();
    flattenRecord(withDisplays(record), (key, value) => cells.set(key, value));
    return cells;
  });
  const others: string[] = [];
  let hasCode = false;
  for (const cells of flat) {
    for (const key of cells.keys()) {
      if (key === 'code') hasCode = true;
      else if (key !== 'order_id' && !others.includes(key)) others.push(key);
    }
  }
  const columns = ['order_id', ...(hasCode ? ['code'] : []), ...others];
  const lines = [columns.map((c) => csvCell(c, raw)).join(',')];
  for (const cells of flat) {
    lines.push(columns.map((c) => csvCell(c === 'order_id' && !cells.has(c) ? orderId : cells.get(c), raw)).join(','));
  }
  return lines.map((line) => `${line}\r\n`).join('');
}

async function streamCsv(
  orderId: string,
  pages: Record<string, unknown>[][],
  raw: boolean,
): Promise<{ text: string; spool: string; escaped: number }> {
  const sink = memorySink();
  const spool = join(tempDir(), 'spool.tmp');
  const writer = new CsvWriter(sink, { orderId, raw, spoolPath: spool });
  try {
    for (const page of pages) await writer.page(page);
    await writer.finish();
  } finally {
    await writer.dispose();
  }
  return { text: sink.text(), spool, escaped: writer.escaped };
}

describe('csvCell', () => {
  it('escapes what a spreadsheet would run as a formula, unless raw', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const value = `${start}SUM(A1)`;
      expect(csvCell(value, false).replace(/^"|"$/g, '')).toMatch(/^'/);
      expect(csvCell(value, true).replace(/^"/, '')).toMatch(
        new RegExp(`^\\${start === '\t' ? 't' : start === '\r' ? 'r' : start}`),
      );
    }
    expect(csvCell('=1+1', false)).toBe("'=1+1");
    expect(csvCell('=1+1', true)).toBe('=1+1');
    expect(csvCell('TEST-ABCD', false)).toBe('TEST-ABCD');
  });

  it('leaves numbers and booleans alone: -5 is data, not a formula', () => {
    expect(csvCell(-5, false)).toBe('-5');
    expect(csvCell(true, false)).toBe('true');
    expect(csvCell(null, false)).toBe('');
  });

  it('quotes per RFC 4180 and writes arrays as JSON', () => {
    expect(csvCell('a,b', false)).toBe('"a,b"');
    expect(csvCell('say "hi"', false)).toBe('"say ""hi"""');
    expect(csvCell('two\nlines', false)).toBe('"two\nlines"');
    expect(csvCell(['x', 1], false)).toBe('"[""x"",1]"');
    expect(csvCell('=HYPERLINK("x")', false)).toBe(`"'=HYPERLINK(""x"")"`);
  });
});

describe('formatFor', () => {
  it('takes --format, else the extension, else (no extension) json; an extension naming no format is refused', () => {
    expect(formatFor('a.csv', undefined)).toBe('csv');
    expect(formatFor('A.CSV', undefined)).toBe('csv');
    expect(formatFor('a.jsonl', undefined)).toBe('jsonl');
    expect(formatFor('a.ndjson', undefined)).toBe('jsonl');
    expect(formatFor('a.json', undefined)).toBe('json');
    expect(() => formatFor('a.txt', undefined)).toThrow(
      expect.objectContaining({ exitCode: 2, code: 'out_format_unknown' }) as Error,
    );
    expect(() => formatFor('dir.v2/codes.xls', undefined)).toThrow(
      'dir.v2/codes.xls: the extension .xls names no format giftcodes writes (csv, json, jsonl or xlsx)',
    );
    expect(formatFor('a.txt', 'csv')).toBe('csv');
    expect(formatFor('dir.v2/codes', undefined)).toBe('json');
    expect(formatFor('.codes', undefined)).toBe('json');
    expect(formatFor('-', undefined)).toBe('json');
    // An extension of another format contradicts --format: refused (format-table.test.ts).
    expect(() => formatFor('a.csv', 'jsonl')).toThrow(expect.objectContaining({ code: 'out_format_mismatch' }));
    expect(formatFor('dir/Codes.XLSX', undefined)).toBe('xlsx');
  });

  it('--format takes the four formats in any case and ndjson for jsonl; anything else names them', () => {
    expect(['csv', 'json', 'jsonl', 'xlsx', ' CSV ', 'Json', 'ndjson', 'NDJSON', 'XLSX'].map(formatArg)).toEqual([
      'csv',
      'json',
      'jsonl',
      'xlsx',
      'csv',
      'json',
      'jsonl',
      'jsonl',
      'xlsx',
    ]);
    for (const bad of ['xml', '', 'constructor', '__proto__', 'json,csv']) {
      expect(() => formatArg(bad)).toThrow(`expected csv, json, jsonl or xlsx, got "${bad}"`);
    }
  });
});

describe('CsvWriter', () => {
  it('puts order_id first and code second, flattens nested objects, and removes its spool', async () => {
    const { text, spool } = await streamCsv(
      'ord_1',
      [
        [{ pin: '1', code: 'A', value: { amount: 5, currency: 'USD' } }],
        [{ code: 'B', pin: '2', value: { amount: 5, currency: 'USD' } }],
      ],
      false,
    );
    expect(text).toBe(
      'order_id,code,pin,value.amount,value.currency,value.display\r\nord_1,A,1,5,USD,0.05\r\nord_1,B,2,5,USD,0.05\r\n',
    );
    expect(existsSync(spool)).toBe(false);
  });

  it('counts the values it escaped: text only, never a number, none with --csv-raw', async () => {
    const pages = [
      [
        { code: '=A', pin: '-1' },
        { code: '+B', pin: -1 },
      ],
      [{ code: '@C', serial: 'ok-=' }],
    ];
    expect((await streamCsv('ord_1', pages, false)).escaped).toBe(4);
    expect((await streamCsv('ord_1', pages, true)).escaped).toBe(0);
  });

  it('adds a column first seen on a later page, padding the earlier rows', async () => {
    const { text, escaped } = await streamCsv(
      'ord_1',
      [[{ code: 'A' }, { code: 'B' }], [{ code: 'C', extra: '=x' }]],
      false,
    );
    expect(text).toBe("order_id,code,extra\r\nord_1,A,\r\nord_1,B,\r\nord_1,C,'=x\r\n");
    expect(escaped).toBe(1);
  });

  it('moves code second even when it first appears after other fields', async () => {
    const { text } = await streamCsv('ord_1', [[{ pin: '1' }], [{ pin: '2', code: 'B' }]], true);
    expect(text).toBe('order_id,code,pin\r\nord_1,,1\r\nord_1,B,2\r\n');
  });

  it("keeps a record's own order_id", async () => {
    const { text } = await streamCsv('ord_1', [[{ order_id: 'ord_other', code: 'A' }]], false);
    expect(text).toBe('order_id,code\r\nord_other,A\r\n');
  });

  it('adds a display to any money-shaped object inside a record, not only value', async () => {
    const { text } = await streamCsv('ord_1', [[{ code: { currency: 'AAA', amount: 0 } }]], false);
    expect(text).toBe('order_id,code.currency,code.amount,code.display\r\nord_1,AAA,0,0.00\r\n');
  });

  it('writes a header alone for an order without codes', async () => {
    const { text } = await streamCsv('ord_1', [[]], false);
    expect(text).toBe('order_id\r\n');
  });

  it('matches the in-memory CSV for any records split into any pages', async () => {
    const scalar = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('=1+1', '-2', '+x', '@a', '\tt', '\rr', 'a,b', '"q"', 'l\nm', 'é€😀'),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 2 }),
    );
    // 'x.amount' collides with x's nested amount: both are the one column x.amount, the later cell wins.
    const key = fc.constantFrom('code', 'pin', 'serial', 'order_id', 'x', 'x.amount', '=evil', 'a,b');
    const record = fc.dictionary(
      key,
      fc.oneof(scalar, fc.dictionary(fc.constantFrom('amount', 'currency'), scalar, { maxKeys: 2 })),
      { maxKeys: 5 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(record, { maxLength: 4 }), { maxLength: 4 }),
        fc.boolean(),
        async (pages, raw) => {
          const { text } = await streamCsv('ord_9', pages, raw);
          expect(text).toBe(referenceCsv('ord_9', pages.flat(), raw));
        },
      ),
      { numRuns: 150, seed: 1 },
    );
  });
});

describe('RowSplitter', () => {
  it('finds the same rows wherever the text is cut', () => {
    const text = 'a,"b,""c""\r\nd",e\r\n,\r\n"x\r\n"\r\n';
    const expected = [['a', '"b,""c""\r\nd"', 'e'], ['', ''], ['"x\r\n"']];
    for (let cut = 0; cut <= text.length; cut++) {
      const rows: string[][] = [];
      const splitter = new RowSplitter();
      splitter.push(text.slice(0, cut), (cells) => rows.push(cells));
      splitter.push(text.slice(cut), (cells) => rows.push(cells));
      expect(rows).toEqual(expected);
    }
  });
});

describe('CsvWriter: the spool in TMPDIR failing is a local resource (exit 8), never an internal error', () => {
  // A sink that cannot be rewound (stdout) sends every row through the spool.
  const writer = (spoolPath: string) => new CsvWriter(memorySink(), { orderId: 'ord_1', raw: false, spoolPath });

  it('a spool that cannot be made (its directory missing): write_failed, naming the file and the errno', async () => {
    const spoolPath = join(tempDir(), 'no-such-tmp', 'giftcodes-spool-1.tmp');
    await expect(writer(spoolPath).page([{ code: 'A-1' }])).rejects.toMatchObject({
      exitCode: 8,
      code: 'write_failed',
      message: `cannot write the temporary CSV file ${spoolPath}: the directory does not exist (ENOENT)`,
    });
  });

  it('a spool cut short before it is read back: read_failed, "it ended early"', async () => {
    const spoolPath = join(tempDir(), 'giftcodes-spool-2.tmp');
    const w = writer(spoolPath);
    await w.page([{ code: 'A-1' }, { code: 'A-2' }]);
    truncateSync(spoolPath, 0);
    await expect(w.finish()).rejects.toMatchObject({
      exitCode: 8,
      code: 'read_failed',
      message: `cannot read the temporary CSV file ${spoolPath}: it ended early (another process cut it short)`,
    });
    await w.dispose();
  });

  it('a spool whose read back fails (EIO): read_failed, naming the file and the errno', async () => {
    const spoolPath = join(tempDir(), 'giftcodes-spool-3.tmp');
    const w = writer(spoolPath);
    await w.page([{ code: 'A-1' }]);
    const probe = await open(spoolPath, 'r');
    const fileHandle = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const read = vi
      .spyOn(fileHandle, 'read')
      .mockRejectedValueOnce(Object.assign(new Error('i/o error'), { code: 'EIO' }));
    try {
      await expect(w.finish()).rejects.toMatchObject({
        exitCode: 8,
        code: 'read_failed',
        message: `cannot read the temporary CSV file ${spoolPath}: an input/output error from the disk (EIO)`,
      });
    } finally {
      read.mockRestore();
      await w.dispose();
    }
  });
});

describe('a CSV export that escaped values says so', () => {
  // Broke: the leading ' was silent, and a program reading the file took '=A1 for the code =A1.
  async function exported(
    out: string,
    format: 'csv' | 'jsonl' | 'xlsx',
    csvRaw = false,
    pages: Record<string, unknown>[][] = [[{ code: '=A1' }, { code: 'B2' }], [{ code: '-C3' }]],
    captured = capturedIo(),
    orderId = 'ord_1',
  ): Promise<string> {
    async function* codePages() {
      yield* pages;
    }
    await exportCodes({
      api: { codePages, rawCodePages: codePages } as unknown as ApiClient,
      orderId,
      out,
      format,
      force: false,
      csvRaw,
      io: captured.io,
      signal: new AbortController().signal,
      expected: pages.flat().length,
    });
    return said(captured);
  }
  /** What a run's stderr said, without the time each line starts with off a terminal. */
  const said = (captured: ReturnType<typeof capturedIo>): string => captured.err().replace(/^\d{4}-\S+Z /gm, '');

  it('a warning counts them and names the ways to the values as sent; none for --csv-raw or JSON Lines', async () => {
    const dir = tempDir();
    const warning =
      "warning: 2 values of order ord_1 began with = + - @, a tab or a CR and got a leading ' so a spreadsheet shows them as text; for the values as the API sent them: --csv-raw, or an .xlsx file";
    expect(await exported(join(dir, 'codes.csv'), 'csv')).toContain(warning);
    expect(await exported('-', 'csv')).toContain(warning);
    expect(await exported(join(dir, 'raw.csv'), 'csv', true)).not.toContain('warning');
    expect(await exported(join(dir, 'codes.jsonl'), 'jsonl')).not.toContain('warning');
  });

  // A person's day: customers' PINs lost their leading zero in a spreadsheet, without a word.
  it('digits a spreadsheet would change (a leading 0, more than 15 digits) are counted and said; none for --csv-raw', async () => {
    const dir = tempDir();
    const pages = [
      [
        { code: 'A-1', pin: '0440' },
        { code: '6006491234567890123', pin: '1234' },
        { code: 'A-2', pin: '0' },
      ],
      [{ code: 'A-3', pin: '0x12', serial: '123456789012345' }],
    ];
    // One line (it was ~280 characters: four lines of an 80-column terminal), its meaning kept.
    // The first of them named by column and spreadsheet row (a person's day hunted through the file for it); never
    // its value, which may be a code or a PIN.
    const warning =
      'warning: 2 values in ord_1 would change in a spreadsheet (leading 0, 16+ digits, 1E5, TRUE), the first at pin, row 2: import as text, or use .xlsx\n';
    expect(await exported(join(dir, 'pins.csv'), 'csv', false, pages)).toBe(warning);
    expect(await exported('-', 'csv', false, pages)).toBe(warning);
    expect(
      await exported(join(dir, 'later.csv'), 'csv', false, [
        [{ code: 'A-1', pin: '1' }],
        [{ code: 'A-2', pin: '1' }, { code: '6006491234567890123' }],
      ]),
    ).toContain('(leading 0, 16+ digits, 1E5, TRUE), the first at code, row 4: ');
    expect(await exported(join(dir, 'pins-raw.csv'), 'csv', true, pages)).not.toContain('warning');
    expect(await exported(join(dir, 'pins.xlsx'), 'xlsx', false, pages)).not.toContain('warning');
  });

  // A 12-row plan printed six copies of the digits warning, one per row's order: gathered, it is said once.
  it('exports gathered (a plan) say each warning once, with totals over their files; one order as it would itself', async () => {
    const dir = tempDir();
    const pins = [
      [
        { code: 'A-1', pin: '0440' },
        { code: '6006491234567890123', pin: '0001' },
      ],
    ];
    const captured = capturedIo();
    const gathered = gatherExportWarnings(captured.io);
    await exported(join(dir, 'a.csv'), 'csv', false, pins, captured, 'ord_a');
    await exported(join(dir, 'b.csv'), 'csv', false, pins, captured, 'ord_b');
    await exported(join(dir, 'c.csv'), 'csv', false, [[{ code: 'A-2', pin: '0' }]], captured, 'ord_c');
    await exported(join(dir, 'd.csv'), 'csv', false, [[{ code: '=A1', pin: '0440' }]], captured, 'ord_d');
    expect(said(captured)).toBe('');
    gathered.end();
    expect(said(captured).split('\n')).toEqual([
      "warning: 1 value in 1 file began with = + - @, a tab or a CR and got a leading ' so a spreadsheet shows it as text; for the values as the API sent them: --csv-raw, or an .xlsx file",
      'warning: 7 values in 3 files would change in a spreadsheet (leading 0, 16+ digits, 1E5, TRUE): import as text, or use .xlsx',
      '',
    ]);
    gathered.end();
    expect(said(captured).split('\n')).toHaveLength(3);
    // Ended: each export says its own again.
    expect(await exported(join(dir, 'e.csv'), 'csv', false, pins, captured, 'ord_e')).toContain(
      'warning: 3 values in ord_e would change',
    );
    const one = capturedIo();
    const single = gatherExportWarnings(one.io);
    await exported(join(dir, 'f.csv'), 'csv', false, pins, one, 'ord_f');
    await exported(join(dir, 'g.csv'), 'csv', false, [[{ code: 'A-3' }]], one, 'ord_g');
    single.end();
    expect(said(one)).toBe(
      'warning: 3 values in ord_f would change in a spreadsheet (leading 0, 16+ digits, 1E5, TRUE): import as text, or use .xlsx\n',
    );
  });

  // An adversary's count: random 8-character codes of letters and digits hold ~20 a million that are digits around one
  // E (`12E45678`), which a spreadsheet reads as a number (1.2E+45678, or 1.20E+46) and never gives back; nor `TRUE`.
  it('E notation and TRUE/FALSE as text are counted as values a spreadsheet changes; dates, decimals and codes are not', async () => {
    const dir = tempDir();
    const pages = [
      [
        { code: '12E45678', pin: '7' },
        { code: '3e5', pin: 'true' },
        { code: '1.5E+3', pin: 'FALSE' },
        { code: 'E123', pin: '12E', serial: '2027-01-02' },
        { code: '1E-', pin: '25.00', serial: 'TRUEX' },
      ],
    ];
    expect(await exported(join(dir, 'e.csv'), 'csv', false, pages)).toBe(
      'warning: 5 values in ord_1 would change in a spreadsheet (leading 0, 16+ digits, 1E5, TRUE), the first at code, row 2: import as text, or use .xlsx\n',
    );
  });

  it('spreadsheetChanges over bytes is SPREADSHEET_CHANGES over the string', () => {
    const texts = ['0440', '0', '00', '123', '0x1', '', '1234567890123456', '123456789012345', '01a', ' 01', '٠١'];
    texts.push('1E5', '1e5', '12E45678', '1.5E3', '1.5e+3', '2E-4', 'E5', '1E', '1E+', '1.E5', '.5E1', '1.5', '1E5A');
    texts.push('TRUE', 'true', 'True', 'FALSE', 'false', 'TRUTH', 'FALS', 'T', 'F1', 'tRuE');
    for (const text of texts)
      expect(spreadsheetChanges(Buffer.from(text), 0, Buffer.byteLength(text)), text).toBe(
        SPREADSHEET_CHANGES.test(text),
      );
    expect(['0440', '12E45678', '1.5e+3', 'TRUE', 'false'].every((t) => SPREADSHEET_CHANGES.test(t))).toBe(true);
    expect(['1E', '1.E5', '1.5', '2027-01-02', 'TRUTH', 'E5'].some((t) => SPREADSHEET_CHANGES.test(t))).toBe(false);
  });

  // Broke: a workbook left out the control characters XML cannot hold, silently (the cell was not the code).
  it('an .xlsx file says how many values it wrote without control characters; none when there were none', async () => {
    const dir = tempDir();
    const pages = [[{ code: 'A\u0001B', pin: '1' }, { code: 'ok' }], [{ code: 'C\u001fD' }]];
    expect(await exported(join(dir, 'codes.xlsx'), 'xlsx', false, pages)).toContain(
      'warning: 2 values of order ord_1 held control characters a workbook cannot hold and were written without them; for the values as the API sent them: a .json or .jsonl file',
    );
    expect(await exported(join(dir, 'plain.xlsx'), 'xlsx')).not.toContain('warning');
  });
});
