// What every export format shares: a sink for text, and a writer fed one page of records at a time.
import type { CodeRecord } from '../api/schemas.js';
import type { ScannedPage } from './scan.js';
import { UsageError } from '../errors.js';

/** The export formats, named once: the --format parser, the writers, the journal's schema and completion read this list. */
export const EXPORT_FORMATS = ['csv', 'json', 'jsonl', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** For help and errors: "csv, json or jsonl". */
export const EXPORT_FORMATS_IN_WORDS = `${EXPORT_FORMATS.slice(0, -1).join(', ')} or ${EXPORT_FORMATS[EXPORT_FORMATS.length - 1]}`;

/** Other names a format goes by: NDJSON is JSON Lines. */
const ALIASES = new Map<string, ExportFormat>([['ndjson', 'jsonl']]);

/** The format a --format value names, in any case, or undefined. */
export function exportFormatNamed(value: string): ExportFormat | undefined {
  const name = value.trim().toLowerCase();
  return EXPORT_FORMATS.find((format) => format === name) ?? ALIASES.get(name);
}

/**
 * Where formatted text goes: a temporary file, or stdout. `write` resolves once the sink is done with the
 * chunk and can take more: a Buffer passed in may then be reused.
 */
export interface TextSink {
  write(chunk: string | Uint8Array): Promise<void>;
  /** A file: what was written can be read back (from `position`, as written) and all of it dropped. */
  rewind?: {
    read(buffer: Buffer, position: number, length: number): Promise<number>;
    truncate(): Promise<void>;
  };
}

export interface FormatWriter {
  /** Formats one page and writes it; never holds more than a page. */
  page(records: readonly CodeRecord[]): Promise<void>;
  /** The same for a page read from its bytes (scan.ts): the same bytes out as page() of its records. */
  raw(page: ScannedPage): Promise<void>;
  /** Writes what closes the document. */
  finish(): Promise<void>;
  /** Removes anything temporary; safe to call twice, and after an error. */
  dispose(): Promise<void>;
}

/** The extensions that name a format; a file without one is json. */
const EXTENSIONS = new Map<string, ExportFormat>([
  ['csv', 'csv'],
  ['json', 'json'],
  ['jsonl', 'jsonl'],
  ['ndjson', 'jsonl'],
  ['xlsx', 'xlsx'],
]);

/** The extension of an age-encrypted codes file, after its format's: `codes.csv.age` (docs/codes-and-exports.md). */
export const AGE_EXTENSION = '.age';

/** Whether `out` names an encrypted codes file (`codes.csv.age`, `codes.age`), in any case. */
export function namesAgeFile(out: string): boolean {
  return out !== '-' && out.toLowerCase().endsWith(AGE_EXTENSION) && baseName(out).length > AGE_EXTENSION.length;
}

function baseName(out: string): string {
  return out.split(/[\\/]/).pop() ?? out;
}

/**
 * `--format`, else the extension (.csv, .json, .jsonl, .ndjson, .xlsx), else (no extension) json. An encrypted
 * file's format is named by the extension before `.age`: `codes.csv.age` is CSV, `codes.age` JSON. An extension that
 * names no format giftcodes writes (`codes.xls`, `codes.txt`) is refused (exit 2) rather than filled with
 * JSON under a name that promises something else.
 */
export function formatFor(out: string, format: ExportFormat | undefined): ExportFormat {
  if (format) return format;
  const name = baseName(namesAgeFile(out) ? out.slice(0, -AGE_EXTENSION.length) : out);
  const dot = name.lastIndexOf('.');
  if (out === '-' || dot <= 0) return 'json';
  const extension = name.slice(dot + 1).toLowerCase();
  const named = EXTENSIONS.get(extension);
  if (named) return named;
  throw new UsageError(
    `${out}: the extension .${extension} names no format giftcodes writes (${EXPORT_FORMATS_IN_WORDS})`,
    {
      code: 'out_format_unknown',
      hint: `name the file .csv, .json, .jsonl or .xlsx (encrypted: .csv.age...), or say which format with --format <${EXPORT_FORMATS.join('|')}>`,
    },
  );
}

/**
 * A workbook is a zip file, not text: it is written to a file only (a terminal or a pipe gets nothing it
 * could use, and a zip cannot be redacted as text is).
 */
export function xlsxToStdoutRefused(): UsageError {
  return new UsageError('--format xlsx writes a file, not stdout', {
    code: 'xlsx_to_stdout',
    hint: 'add --out codes.xlsx',
  });
}

/** A worksheet's rows: 1,048,576, one of them the header. */
export const XLSX_MAX_ROWS = 1_048_576;
/** The codes one sheet (one order's workbook) can hold. */
export const XLSX_MAX_CODES = XLSX_MAX_ROWS - 1;

/** The refusal of a workbook that would need more rows than a worksheet has (exit 2). */
export function tooManyRows(what: string): UsageError {
  return new UsageError(
    `${what}: a spreadsheet sheet holds at most ${XLSX_MAX_CODES.toLocaleString('en-US')} codes (${XLSX_MAX_ROWS.toLocaleString('en-US')} rows with its header)`,
    {
      code: 'xlsx_too_many_rows',
      hint: 'write csv or jsonl instead (--format csv), or at most that many codes per file',
    },
  );
}
