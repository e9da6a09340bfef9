// A format is one entry of format.ts's table: its extensions (and so its --format names), its media type,
// whether it may go to stdout, how many codes one file holds, and its writer. Everything else reads the table.
import { describe, expect, it } from 'vitest';
import {
  EXPORT_FORMATS,
  EXPORT_FORMATS_IN_WORDS,
  exportFormatNamed,
  FORMAT_TABLE,
  formatEntry,
  formatFor,
  toStdoutRefused,
  tooManyCodes,
  XLSX_MAX_CODES,
  type TextSink,
} from '../../src/export/format.js';
import { tempDir } from '../helpers/e2e.js';

describe('the export formats, one entry each', () => {
  it('names the formats from the table, in its order', () => {
    expect(EXPORT_FORMATS).toEqual(Object.keys(FORMAT_TABLE));
    expect(EXPORT_FORMATS_IN_WORDS).toBe('csv, json, jsonl or xlsx');
  });

  it.each(EXPORT_FORMATS)('%s: every extension names it, as a file and as --format', (format) => {
    const entry = formatEntry(format);
    expect(entry.extensions[0]).toBe(format);
    for (const extension of entry.extensions) {
      expect(formatFor(`dir/codes.${extension.toUpperCase()}`, undefined)).toBe(format);
      expect(exportFormatNamed(` ${extension} `)).toBe(format);
    }
    expect(entry.contentType).toMatch(/^[a-z]+\/[\w.+-]+/);
  });

  it('an unknown extension is refused naming the first extension of each format', () => {
    expect(() => formatFor('codes.xls', undefined)).toThrow(
      expect.objectContaining({
        code: 'out_format_unknown',
        hint: 'name the file .csv, .json, .jsonl or .xlsx, or say which format with --format <csv|json|jsonl|xlsx>',
      }) as Error,
    );
  });

  // A person's day: --out mism.xlsx --format csv wrote CSV into a file Excel then refused to open.
  it('--format that contradicts the extension is refused; one the extension agrees with, or names no format, is taken', () => {
    expect(() => formatFor('dir/mism.xlsx', 'csv')).toThrow(
      expect.objectContaining({
        code: 'out_format_mismatch',
        exitCode: 2,
        message: 'dir/mism.xlsx: the extension .xlsx is xlsx, not --format csv',
        hint: 'drop --format (the extension chooses the format), or name the file .csv',
      }) as Error,
    );
    expect(() => formatFor('codes.csv.age', 'json')).toThrow(
      expect.objectContaining({
        code: 'out_format_mismatch',
        hint: expect.stringMatching(/name the file \.json\.age$/),
      }),
    );
    expect(() => formatFor('codes.ndjson', 'json')).toThrow(expect.objectContaining({ code: 'out_format_mismatch' }));
    expect(formatFor('codes.CSV', 'csv')).toBe('csv');
    expect(formatFor('codes.ndjson', 'jsonl')).toBe('jsonl');
    expect(formatFor('codes.txt', 'csv')).toBe('csv');
    expect(formatFor('codes', 'xlsx')).toBe('xlsx');
    expect(formatFor('-', 'csv')).toBe('csv');
    expect(formatFor('codes.age', 'csv')).toBe('csv');
  });

  it('only a binary format is refused on stdout, in its own words', () => {
    expect(EXPORT_FORMATS.filter((format) => toStdoutRefused(format) !== undefined)).toEqual(['xlsx']);
    expect(toStdoutRefused('xlsx')).toMatchObject({
      message: '--format xlsx writes a file, not stdout',
      code: 'xlsx_to_stdout',
      hint: 'add --out codes.xlsx',
      exitCode: 2,
    });
  });

  it("a format's limit refuses more codes than one file holds, and no more than that", () => {
    expect(tooManyCodes('xlsx', XLSX_MAX_CODES, 'q')).toBeUndefined();
    expect(tooManyCodes('xlsx', XLSX_MAX_CODES + 1, 'q')).toMatchObject({ code: 'xlsx_too_many_rows', exitCode: 2 });
    for (const format of ['csv', 'json', 'jsonl'] as const)
      expect(tooManyCodes(format, 10_000_000, 'q')).toBeUndefined();
  });

  it.each(EXPORT_FORMATS)('%s: its writer loads and writes a whole document of one code', async (format) => {
    const chunks: Buffer[] = [];
    const sink: TextSink = {
      write: (chunk) => {
        chunks.push(Buffer.from(typeof chunk === 'string' ? chunk : Buffer.from(chunk)));
        return Promise.resolve();
      },
    };
    const make = await FORMAT_TABLE[format].writer();
    const writer = make(sink, { orderId: 'ord_1', csvRaw: false, spoolPath: `${tempDir()}/spool` });
    try {
      await writer.page([{ code: 'ABCD-0208', pin: '0208', value: { amount: 2500, currency: 'USD' } }]);
      await writer.finish();
    } finally {
      await writer.dispose();
    }
    const bytes = Buffer.concat(chunks);
    if (format === 'xlsx') expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    else expect(bytes.toString('utf8')).toContain('ABCD-0208');
  });
});
