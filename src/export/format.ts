// What every export format shares: a sink for text, and a writer fed one page of records at a time.
import type { CodeRecord } from '../api/schemas.js';
import type { ScannedPage } from './scan.js';
import { UsageError } from '../errors.js';
import { grouped } from '../output/words.js';

/** What a format's writer is given: the order, --csv-raw, a private file it may spool to, and (stdout) the redaction. */
export interface WriterOptions {
  orderId: string;
  csvRaw: boolean;
  spoolPath: string;
  transform?: ((text: string) => string) | undefined;
  /** Keeps the CSV spool encrypted on disk (an encrypted export, age.ts). */
  spoolCipher?: { apply(bytes: Uint8Array, position: number): Buffer } | undefined;
}

/** A format in one entry: how it is named and recognised, what it may be written to, and its writer. */
export interface FormatEntry {
  /** The extensions that name it (`--out codes.csv`), the first the one to suggest; also names `--format` takes. */
  readonly extensions: readonly string[];
  /** Its media type, for whatever hands the file on (an upload, a mail attachment). */
  readonly contentType: string;
  /** A binary document (a zip): written to a file only, never to stdout, where it could not be redacted as text is. */
  readonly binary?: boolean;
  /** The most codes one file can hold, and the refusal of more (exit 2, before anything is charged). */
  readonly limit?: { readonly codes: number; readonly refused: (what: string) => UsageError };
  /** Its writer, loaded when a file is first written (a verb that writes no codes never loads it). */
  readonly writer: () => Promise<(sink: TextSink, o: WriterOptions) => FormatWriter>;
}

/** A worksheet's rows: 1,048,576, one of them the header. */
export const XLSX_MAX_ROWS = 1_048_576;
/** The codes one sheet (one order's workbook) can hold. */
export const XLSX_MAX_CODES = XLSX_MAX_ROWS - 1;

/**
 * The export formats: a new one is its writer's file and one entry here. The --format parser, the export,
 * the journal's schema, the pre-flight of `order place` and plans, help and completion read this table.
 */
export const FORMAT_TABLE = {
  csv: {
    extensions: ['csv'],
    contentType: 'text/csv; charset=utf-8',
    writer: async () => {
      const { CsvWriter } = await import('./csv.js');
      return (sink, o) =>
        new CsvWriter(sink, {
          orderId: o.orderId,
          raw: o.csvRaw,
          spoolPath: o.spoolPath,
          ...(o.transform ? { transform: o.transform } : {}),
          ...(o.spoolCipher ? { spoolCipher: o.spoolCipher } : {}),
        });
    },
  },
  json: {
    extensions: ['json'],
    contentType: 'application/json',
    writer: async () => {
      const { JsonArrayWriter } = await import('./json.js');
      return (sink, o) => new JsonArrayWriter(sink, o.transform);
    },
  },
  jsonl: {
    extensions: ['jsonl', 'ndjson'],
    contentType: 'application/x-ndjson',
    writer: async () => {
      const { JsonLinesWriter } = await import('./jsonl.js');
      return (sink, o) => new JsonLinesWriter(sink, o.transform);
    },
  },
  xlsx: {
    extensions: ['xlsx'],
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    binary: true,
    limit: { codes: XLSX_MAX_CODES, refused: (what) => tooManyRows(what) },
    writer: async () => {
      const { XlsxWriter } = await import('./xlsx.js');
      return (sink, o) => new XlsxWriter(sink, { orderId: o.orderId });
    },
  },
} as const satisfies Record<string, FormatEntry>;

export type ExportFormat = keyof typeof FORMAT_TABLE;
export const EXPORT_FORMATS = Object.keys(FORMAT_TABLE) as [ExportFormat, ...ExportFormat[]];

/** For help and errors: "csv, json, jsonl or xlsx". */
export const EXPORT_FORMATS_IN_WORDS = inWords(EXPORT_FORMATS);
/** The endings that name a format: ".csv, .json, .jsonl or .xlsx". */
export const FILE_ENDINGS = inWords(EXPORT_FORMATS.map((f) => `.${FORMAT_TABLE[f].extensions[0]}`));
/** How a file names its format: `name the file .csv, .json, .jsonl or .xlsx` (a plan row has no --format). */
export const NAME_THE_FILE = `name the file ${FILE_ENDINGS}`;

function inWords(names: readonly string[]): string {
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** Every extension, and so every --format name, with the format it names (ndjson is JSON Lines). */
const EXTENSIONS = new Map<string, ExportFormat>(
  EXPORT_FORMATS.flatMap((format) => FORMAT_TABLE[format].extensions.map((extension) => [extension, format] as const)),
);

/** The format a --format value names, in any case, or undefined. */
export function exportFormatNamed(value: string): ExportFormat | undefined {
  return EXTENSIONS.get(value.trim().toLowerCase());
}

/** A format's entry, typed as any entry (the optional fields read as such). */
export function formatEntry(format: ExportFormat): FormatEntry {
  return FORMAT_TABLE[format];
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
  /** CSV: values a spreadsheet would run as formulas (= + - @, a tab or a CR first), written with a leading `'` (not --csv-raw). */
  readonly escaped?: number;
  /** XLSX: values that held characters a workbook cannot (control characters), written without them. */
  readonly stripped?: number;
  /** CSV: text values a spreadsheet reads as numbers or logical values and changes (spreadsheetChanges), not --csv-raw. */
  readonly numeric?: number;
  /** CSV: where the first of them is, by column name and spreadsheet row (the header is row 1); never its value. */
  readonly numericAt?: NumericAt | undefined;
}

/** A cell of a CSV export, by its column's name and its spreadsheet row (the header is row 1). */
export interface NumericAt {
  column: string;
  row: number;
}

/**
 * Whether the text `b[s..e)` is a value a spreadsheet opening a CSV reads as something else and changes: digits with a
 * leading zero (a PIN `0440` becomes 440) or more digits than it keeps (16 and more: the 16th on become zeros), digits
 * around one E (`12E45678`, a code of letters and digits, becomes the number 1.2E+45678; `1.5E3` 1500), or TRUE and
 * FALSE in any case (they become the logical values, upper case). A person's day: customers' PINs lost their zero,
 * without a word, where formula escaping was said. Dates and decimals are left: a field of them is meant as one.
 */
export function spreadsheetChanges(b: Uint8Array, s: number, e: number): boolean {
  // SPREADSHEET_CHANGES, over bytes (the scanned page's), without making a string of each cell; a code that starts
  // with a letter other than t or f is two tests.
  const n = e - s;
  const first = b[s] as number;
  if (n < 2) return false;
  if (first > 0x39) return (n === 4 || n === 5) && logicalWord(b, s, n);
  if (first < 0x30) return false;
  let i = digitsFrom(b, s + 1, e);
  if (i === e) return first === 0x30 || n >= 16;
  // E notation: digits, perhaps a point and digits, E, perhaps a sign, digits.
  if (b[i] === 0x2e) {
    const after = digitsFrom(b, i + 1, e);
    if (after === i + 1) return false;
    i = after;
  }
  if (i === e || ((b[i] as number) | 0x20) !== 0x65) return false;
  i++;
  if (b[i] === 0x2b || b[i] === 0x2d) i++;
  return i < e && digitsFrom(b, i, e) === e;
}

/** The index of the first byte from `i` on that is no ASCII digit, or `e`. */
function digitsFrom(b: Uint8Array, i: number, e: number): number {
  while (i < e && (b[i] as number) >= 0x30 && (b[i] as number) <= 0x39) i++;
  return i;
}

/** `true` (n 4) or `false` (n 5) in any case, at `b[s]`. */
function logicalWord(b: Uint8Array, s: number, n: number): boolean {
  const word = n === 4 ? 'true' : 'false';
  for (let i = 0; i < n; i++) if (((b[s + i] as number) | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

/** spreadsheetChanges, of a string. */
export const SPREADSHEET_CHANGES =
  /^(?:0[0-9]+|[0-9]{16,}|[0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+|[tT][rR][uU][eE]|[fF][aA][lL][sS][eE])$/;

/**
 * Where the values a warning counts are: one order's export (`of order ord_…`), or many at once, a plan's rows
 * (`in 6 files`), said once for all of them.
 */
export type WarnedIn = { orderId: string } | { files: number };

function valuesIn(count: number, where: WarnedIn, of: 'of order' | 'in'): string {
  const values = count === 1 ? '1 value' : `${grouped(count)} values`;
  return 'orderId' in where
    ? `${values} ${of} ${where.orderId}`
    : `${values} in ${where.files === 1 ? '1 file' : `${grouped(where.files)} files`}`;
}

/**
 * Said after a CSV export holding such values (spreadsheetChanges): the file holds them whole; a spreadsheet opening it
 * does not. One line: it was ~280 characters, four lines of an 80-column terminal, and a plan said it per row.
 */
export function numericWarning(count: number, where: WarnedIn, at?: NumericAt): string {
  // The first named (a person's day hunted through the file for it), never its value: a code or a PIN.
  const first = at ? `, the first at ${at.column}, row ${grouped(at.row)}` : '';
  return `${valuesIn(count, where, 'in')} would change in a spreadsheet (leading 0, 16+ digits, 1E5, TRUE)${first}: import as text, or use .xlsx`;
}

/** Said after an XLSX export that left characters out: the workbook's cell is not the value the API sent. */
export function strippedWarning(count: number, where: WarnedIn): string {
  return `${valuesIn(count, where, 'of order')} held control characters a workbook cannot hold and ${count === 1 ? 'was' : 'were'} written without them; for the values as the API sent them: a .json or .jsonl file`;
}

/** Said after a CSV export that escaped values: a program reading the file gets `'=…`, not the value the API sent. */
export function escapedWarning(count: number, where: WarnedIn): string {
  return `${valuesIn(count, where, 'of order')} began with = + - @, a tab or a CR and got a leading ' so a spreadsheet shows ${count === 1 ? 'it' : 'them'} as text; for the values as the API sent them: --csv-raw, or an .xlsx file`;
}

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
 * `--format`, else the extension (.csv, .json, .jsonl, .ndjson, .xlsx), else (no extension) json; `--format` and an
 * extension of another format is refused (exit 2). An encrypted
 * file's format is named by the extension before `.age`: `codes.csv.age` is CSV, `codes.age` JSON. An extension that
 * names no format giftcodes writes (`codes.xls`, `codes.txt`) is refused (exit 2) rather than filled with
 * JSON under a name that promises something else.
 */
export function formatFor(out: string, format: ExportFormat | undefined): ExportFormat {
  const { extension, named } = extensionOf(out);
  if (extension === undefined) return format ?? 'json';
  // --format says which format where the name does not (codes.txt); one that contradicts the name is refused, as an
  // unknown extension is: --out mism.xlsx --format csv wrote CSV that a spreadsheet then refused (a person's day).
  if (format && named && named !== format)
    throw new UsageError(`${out}: the extension .${extension} is ${named}, not --format ${format}`, {
      code: 'out_format_mismatch',
      // An encrypted file keeps its .age (a review was told `.csv` for e.xlsx.age, a name refused with a recipient).
      hint: `drop --format (the extension chooses the format), or name the file .${FORMAT_TABLE[format].extensions[0]}${namesAgeFile(out) ? AGE_EXTENSION : ''}`,
    });
  if (format) return format;
  if (named) return named;
  throw new UsageError(
    `${out}: the extension .${extension} names no format giftcodes writes (${EXPORT_FORMATS_IN_WORDS})`,
    {
      code: 'out_format_unknown',
      hint: `${NAME_THE_FILE}, or say which format with --format <${EXPORT_FORMATS.join('|')}>`,
    },
  );
}

/** A file name's extension (before `.age`), and the format it names, if any; no extension (or stdout): neither. */
export function extensionOf(out: string): { extension?: string; named?: ExportFormat } {
  const name = baseName(namesAgeFile(out) ? out.slice(0, -AGE_EXTENSION.length) : out);
  const dot = name.lastIndexOf('.');
  if (out === '-' || dot <= 0) return {};
  const extension = name.slice(dot + 1).toLowerCase();
  const named = EXTENSIONS.get(extension);
  return named === undefined ? { extension } : { extension, named };
}

/**
 * A binary format (a workbook is a zip file, not text) is written to a file only: a terminal or a pipe gets
 * nothing it could use, and a zip cannot be redacted as text is.
 */
export function toStdoutRefused(format: ExportFormat): UsageError | undefined {
  if (!formatEntry(format).binary) return undefined;
  return new UsageError(`--format ${format} writes a file, not stdout`, {
    code: `${format}_to_stdout`,
    hint: `add --out codes.${FORMAT_TABLE[format].extensions[0]}`,
  });
}

/** The refusal of more codes than one file of the format can hold (exit 2), or undefined when they fit. */
export function tooManyCodes(format: ExportFormat, quantity: number, what: string): UsageError | undefined {
  const limit = formatEntry(format).limit;
  return limit && quantity > limit.codes ? limit.refused(what) : undefined;
}

/** The refusal of a workbook that would need more rows than a worksheet has (exit 2). */
export function tooManyRows(what: string): UsageError {
  return new UsageError(
    `${what}: a spreadsheet sheet holds at most ${grouped(XLSX_MAX_CODES)} codes (${grouped(XLSX_MAX_ROWS)} rows with its header)`,
    {
      code: 'xlsx_too_many_rows',
      hint: 'write csv or jsonl instead (--format csv), or at most that many codes per file',
    },
  );
}
