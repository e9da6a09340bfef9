// CSV export (RFC 4180, CRLF rows): a header row, `order_id` first, then `code` if present, then every
// other field in first-seen order; nested objects flattened with dots, arrays as JSON.
//
// The streaming problem: the header must name every column, yet a column may first appear on the last
// page, and memory must stay flat. Choice: each page is formatted once, as CSV rows, into a spool file
// beside the target, in the column order known so far. Columns are only ever appended, so an early row
// lacks at most some trailing cells. At the end the header is written, then the spool is copied after it:
// byte for byte where rows already have every column in the final order (the usual case: every record
// has the same fields), and re-cut row by row elsewhere (padded, or reordered when `code` first appears
// after another field). Memory holds the column names and one segment per change of width, never rows.
// The cost is writing the data twice to disk; a JSONL spool would also serialize and parse it twice.
// So where the sink can read back and forget what it was given (a file: TextSink.rewind), the header is
// written with the first rows, as the columns stand, and rows go straight after it; should a column be
// added later, the rows written so far are moved into the spool and the sink emptied (the spool's way
// from then on). The usual export (every record with the same fields) then writes its rows once.
import { writeSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { CodeRecord } from '../api/schemas.js';
import { LocalError } from '../errors.js';
import { localError } from '../files/atomic.js';
import { DisplayCache, displayOf } from './display.js';
import { Utf8Encoder } from './encoder.js';
import { SPREADSHEET_CHANGES, spreadsheetChanges, type FormatWriter, type NumericAt, type TextSink } from './format.js';
import {
  LITERAL,
  NULL,
  NUMBER,
  STRING,
  STRING_COMMA,
  parsedRecords,
  room,
  type ScannedPage,
  type Shape,
} from './scan.js';

/** A spreadsheet runs a cell starting with one of these as a formula (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;
const COPY_CHUNK = 256 * 1024;

/** Text that is its own cell: no quoting, and nothing a spreadsheet would run (the common case, one test). */
const PLAIN_TEXT = /^(?:[^=+\-@\t\r",\n][^",\r\n]*)?$/;

/**
 * One cell, quoted when needed. Text a spreadsheet would run as a formula gets a leading `'` unless
 * `raw`; numbers and booleans are data, never formulas, so `-5` stays a number.
 */
export function csvCell(value: unknown, raw: boolean): string {
  let text: string;
  if (typeof value === 'string') {
    if (PLAIN_TEXT.test(value)) return value;
    text = !raw && FORMULA_START.test(value) ? `'${value}` : value;
  } else if (value === null || value === undefined) {
    return '';
  } else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    text = String(value);
  } else {
    text = JSON.stringify(value) ?? '';
  }
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Visits every leaf of a record: nested objects become `a.b` keys; arrays and scalars are leaves. */
export function flattenRecord(
  record: Record<string, unknown>,
  visit: (key: string, value: unknown) => void,
  prefix = '',
): void {
  for (const key of Object.keys(record)) {
    const value = record[key];
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (isPlainObject(value)) flattenRecord(value, visit, name);
    else visit(name, value);
  }
}

/** A key path seen in records, so a known field costs a Map lookup, not building its dotted name again. */
interface Field {
  name: string;
  /** Its column once it has held a leaf. */
  column?: number;
  /** Fields under it once it has held an object. */
  children?: Map<string, Field>;
  /** The column of its display once it has held a money object (display.ts). */
  displayColumn?: number;
}

interface Segment {
  start: number;
  end: number;
  /** Cells in each row of this segment. */
  width: number;
}

export interface CsvWriterOptions {
  /** The `order_id` cell of records that carry no `order_id` of their own. */
  orderId: string;
  /** `--csv-raw`: no formula escaping. */
  raw: boolean;
  /** A path for the spool file (created 0600, removed by dispose). */
  spoolPath: string;
  /** Applied to each chunk of text before it is written (stdout redaction). */
  transform?: (text: string) => string;
  /** Keeps the spool's bytes encrypted on disk (an encrypted export: no plaintext ever reaches the disk, age.ts). */
  spoolCipher?: { apply(bytes: Uint8Array, position: number): Buffer };
}

export class CsvWriter implements FormatWriter {
  private readonly index = new Map<string, number>([['order_id', 0]]);
  private readonly names: string[] = ['order_id'];
  private readonly segments: Segment[] = [];
  private readonly fields = new Map<string, Field>();
  private readonly encoder = new Utf8Encoder();
  private readonly orderIdCell: string;
  private readonly transform: (text: string) => string;
  private spool: FileHandle | undefined;
  private spoolSize = 0;
  private disposed = false;
  /** raw(): the last shape seen, the column of each of its leaves, and which leaf fills each column (-1: none). */
  private shape: Shape | undefined;
  private leafColumns: number[] = [];
  private columnLeaves = new Int32Array(0);
  private orderIdBytes: Buffer | undefined;
  private out: Buffer = Buffer.allocUnsafe(64 * 1024);
  /** Rows written straight to the sink after its header: where they lie in it, and their width. */
  private direct: { start: number; end: number; width: number } | undefined;
  /** Rows may still go straight to the sink (it can be rewound, nothing transforms the text, no spool yet). */
  private directAllowed: boolean;
  /** raw(): the display column of each money object of the shape, and the displays of the records. */
  private displayColumns: number[] = [];
  private readonly displays = new DisplayCache();
  private readonly pageDisplays = new DisplayCells();
  /** raw(): each record's display cells, by money object. */
  private displayCells: Buffer[] = [];
  /** FormatWriter.escaped: the records' own values written with a leading `'` (a money display is ours, not counted). */
  escaped = 0;
  /** FormatWriter.numeric: text values a spreadsheet would change as numbers (spreadsheetChanges), unless raw. */
  numeric = 0;
  /** FormatWriter.numericAt: the first of them. */
  numericAt: NumericAt | undefined;
  /** writeRows: the first such cell of its page, as [output column, record of the page]. */
  firstNumeric: [number, number] | undefined;
  /** The records written so far: the spreadsheet row of the next is this plus 2 (the header is row 1). */
  private rows = 0;

  constructor(
    private readonly sink: TextSink,
    private readonly options: CsvWriterOptions,
  ) {
    this.orderIdCell = csvCell(options.orderId, options.raw);
    this.transform = options.transform ?? ((text) => text);
    this.directAllowed = sink.rewind !== undefined && options.transform === undefined;
  }

  async page(records: readonly CodeRecord[]): Promise<void> {
    let text = '';
    let width = this.names.length;
    for (const record of records) {
      // `code` goes second; adding it before the record's other new fields keeps the spool in final order.
      if (!this.index.has('code') && 'code' in record && !isPlainObject(record.code)) this.addColumn('code');
      const cells: (string | undefined)[] = [this.orderIdCell];
      this.cells(record, this.fields, '', cells);
      if (this.names.length !== width) {
        if (text !== '') await this.append(text, width);
        text = '';
        width = this.names.length;
      }
      let row = cells[0] ?? '';
      for (let i = 1; i < width; i++) row += `,${cells[i] ?? ''}`;
      text += `${row}\r\n`;
      this.rows++;
    }
    if (text !== '') await this.append(text, width);
  }

  /**
   * page() of the records, straight from their bytes: each cell is the record's bytes, quoted or
   * prefixed as csvCell() would (a string here holds no escape, no quote and no control character).
   */
  async raw(page: ScannedPage): Promise<void> {
    if (this.options.transform) return this.page(parsedRecords(page));
    const shape = page.shape;
    const { bytes: b, values } = page;
    const leaves = shape.leaves;
    // Every record's money objects must make a display (as page() would add its column), else page() it is.
    const displays = this.pageDisplays;
    const moneys = shape.money.length;
    // Each record's display cells (by money object), found once here and written below.
    const cells =
      moneys === 0 ? this.displayCells : (this.displayCells = roomFor(this.displayCells, page.count * moneys));
    for (let r = 0; r < page.count && moneys > 0; r++) {
      for (let m = 0; m < moneys; m++) {
        const { amount, currency } = shape.money[m]!;
        const a = r * leaves * 3 + amount * 3;
        const c = r * leaves * 3 + currency * 3;
        const display =
          values[a] !== NUMBER || values[c] !== STRING
            ? undefined
            : this.displays.of(b, values[a + 1]!, values[a + 2]!, values[c + 1]!, values[c + 2]!);
        if (display === undefined) return this.page(parsedRecords(page));
        cells[r * moneys + m] = displays.cell(display, this.options.raw);
      }
    }
    if (shape !== this.shape) {
      // The columns page() adds for the first record of this shape (the others add none): a money
      // object's display right after the object's last leaf.
      if (!this.index.has('code') && shape.topCode) this.addColumn('code');
      this.leafColumns = [];
      this.displayColumns = [];
      shape.leafNames.forEach((name, leaf) => {
        this.leafColumns.push(this.index.get(name) ?? this.addColumn(name));
        shape.money.forEach((m, i) => {
          if (m.lastLeaf === leaf) this.displayColumns[i] = this.index.get(m.display) ?? this.addColumn(m.display);
        });
      });
      this.shape = shape;
      this.columnLeaves = new Int32Array(0);
    }
    const width = this.names.length;
    if (this.columnLeaves.length !== width) {
      this.columnLeaves = new Int32Array(width).fill(-1);
      this.leafColumns.forEach((column, leaf) => (this.columnLeaves[column] = leaf));
      // A display column: -2 - its money object.
      this.displayColumns.forEach((column, m) => (this.columnLeaves[column] = -2 - m));
    }
    const orderId = (this.orderIdBytes ??= Buffer.from(this.orderIdCell, 'utf8'));
    const columns = this.columnLeaves;
    // Each cell at most its bytes, two quotes, a `'` and a comma; a display at most 24 bytes.
    const out = (this.out = room(
      this.out,
      page.close - page.open + page.count * (orderId.length + 4 * width + 2 + 24 * shape.money.length),
    ));
    const o = writeRows(page, columns, cells, moneys, orderId, out, this.options.raw, this);
    if (this.firstNumeric !== undefined && this.numericAt === undefined)
      this.numericAt = { column: this.names[this.firstNumeric[0]]!, row: this.rows + this.firstNumeric[1] + 2 };
    this.rows += page.count;
    await this.appendBytes(out.subarray(0, o), width);
  }

  /** flattenRecord's leaves into `cells` by column, remembering every key path seen. */
  private cells(
    record: Record<string, unknown>,
    fields: Map<string, Field>,
    parent: string,
    cells: (string | undefined)[],
  ): void {
    for (const key of Object.keys(record)) {
      const value = record[key];
      let field = fields.get(key);
      if (field === undefined) {
        field = { name: parent === '' ? key : `${parent}.${key}` };
        fields.set(key, field);
      }
      if (isPlainObject(value)) {
        this.cells(value, (field.children ??= new Map()), field.name, cells);
        const display = displayOf(value);
        if (display !== undefined) {
          field.displayColumn ??= this.index.get(`${field.name}.display`) ?? this.addColumn(`${field.name}.display`);
          cells[field.displayColumn] = csvCell(display, this.options.raw);
        }
      } else {
        field.column ??= this.index.get(field.name) ?? this.addColumn(field.name);
        cells[field.column] = csvCell(value, this.options.raw);
        if (!this.options.raw && typeof value === 'string') {
          if (FORMULA_START.test(value)) this.escaped++;
          else if (SPREADSHEET_CHANGES.test(value) && this.numeric++ === 0)
            this.numericAt = { column: field.name, row: this.rows + 2 };
        }
      }
    }
  }

  async finish(): Promise<void> {
    if (this.direct && this.direct.width === this.names.length) return;
    await this.leaveDirect();
    const order = this.finalOrder();
    const header = order.map((i) => csvCell(this.names[i], this.options.raw)).join(',');
    await this.sink.write(this.transform(`${header}\r\n`));
    const inOrder = order.every((internal, position) => internal === position);
    for (const segment of this.segments) {
      if (inOrder && segment.width === order.length) await this.copy(segment);
      else await this.recut(segment, order);
    }
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const spool = this.spool;
    this.spool = undefined;
    if (spool) {
      await spool.close().catch(() => undefined);
      await unlink(this.options.spoolPath).catch(() => undefined);
    }
  }

  private addColumn(name: string): number {
    const i = this.names.length;
    this.names.push(name);
    this.index.set(name, i);
    return i;
  }

  /** Internal column numbers in header order: order_id, code, then the rest as first seen. */
  private finalOrder(): number[] {
    const code = this.index.get('code');
    const order = [0];
    if (code !== undefined) order.push(code);
    for (let i = 1; i < this.names.length; i++) if (i !== code) order.push(i);
    return order;
  }

  private async append(text: string, width: number): Promise<void> {
    await this.appendBytes(this.encoder.encode(this.transform(text)), width);
  }

  private async appendBytes(bytes: Buffer, width: number): Promise<void> {
    if (this.directAllowed) {
      if (
        !this.direct &&
        this.names.length === width &&
        this.finalOrder().every((internal, position) => internal === position)
      ) {
        const header = Buffer.from(
          `${this.names.map((name) => csvCell(name, this.options.raw)).join(',')}\r\n`,
          'utf8',
        );
        await this.sink.write(header);
        this.direct = { start: header.length, end: header.length, width };
      }
      if (this.direct && this.direct.width === width && this.names.length === width) {
        await this.sink.write(bytes);
        this.direct.end += bytes.length;
        return;
      }
      await this.leaveDirect();
    }
    await this.spoolBytes(bytes, width);
  }

  /** The rows written straight to the sink go into the spool, and the sink is emptied: a column was added. */
  private async leaveDirect(): Promise<void> {
    this.directAllowed = false;
    const direct = this.direct;
    const rewind = this.sink.rewind;
    if (!direct || !rewind) return;
    this.direct = undefined;
    const buffer = Buffer.allocUnsafe(COPY_CHUNK);
    for (let at = direct.start; at < direct.end;) {
      const read = await rewind.read(buffer, at, Math.min(buffer.length, direct.end - at));
      if (read === 0) throw new Error('the codes file ended early');
      await this.spoolBytes(buffer.subarray(0, read), direct.width);
      at += read;
    }
    await rewind.truncate();
  }

  private async spoolBytes(bytes: Buffer, width: number): Promise<void> {
    try {
      this.spool ??= await open(this.options.spoolPath, 'wx+', 0o600);
      const cipher = this.options.spoolCipher;
      await writeAll(this.spool, cipher ? cipher.apply(bytes, this.spoolSize) : bytes, this.spoolSize);
    } catch (error) {
      // A TMPDIR that is missing or full is a local resource failing (exit 8), not a bug.
      throw localError(error, this.options.spoolPath, 'temporary CSV file', 'write_failed');
    }
    const last = this.segments.at(-1);
    if (last && last.width === width && last.end === this.spoolSize) last.end += bytes.length;
    else this.segments.push({ start: this.spoolSize, end: this.spoolSize + bytes.length, width });
    this.spoolSize += bytes.length;
  }

  private async *read(segment: Segment): AsyncGenerator<Buffer> {
    const spool = this.spool;
    if (!spool) return;
    // One buffer for the whole segment: each chunk is consumed (decoded, or written: TextSink) before the
    // next read. A fresh buffer per read left megabytes of them for the garbage collector at once.
    const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK, segment.end - segment.start));
    for (let at = segment.start; at < segment.end;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await spool.read(buffer, 0, Math.min(buffer.length, segment.end - at), at));
      } catch (error) {
        throw this.spoolReadError(error);
      }
      if (bytesRead === 0) throw this.spoolReadError(undefined);
      const cipher = this.options.spoolCipher;
      if (cipher) buffer.set(cipher.apply(buffer.subarray(0, bytesRead), at));
      at += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  }

  /** The spool read back failed (an I/O error, or cut short by another process): a local resource, exit 8, not a bug. */
  private spoolReadError(error: unknown): LocalError {
    if (error !== undefined)
      return localError(error, this.options.spoolPath, 'temporary CSV file', 'read_failed', 'read');
    return new LocalError(
      `cannot read the temporary CSV file ${this.options.spoolPath}: it ended early (another process cut it short)`,
      {
        code: 'read_failed',
        hint: 'run the same command again; set TMPDIR to a directory nothing else cleans up',
      },
    );
  }

  private async copy(segment: Segment): Promise<void> {
    for await (const chunk of this.read(segment)) await this.sink.write(chunk);
  }

  /** Rows written before a column existed: cut each into its cells, then pad and reorder them. */
  private async recut(segment: Segment, order: number[]): Promise<void> {
    const decoder = new StringDecoder('utf8');
    const splitter = new RowSplitter();
    for await (const chunk of this.read(segment)) {
      let text = '';
      splitter.push(decoder.write(chunk), (cells) => {
        text += `${order.map((i) => cells[i] ?? '').join(',')}\r\n`;
      });
      if (text !== '') await this.sink.write(text);
    }
  }
}

/** Splits CSV written by this module into rows of still-encoded cells; rows end with CRLF outside quotes. */
export class RowSplitter {
  private inQuotes = false;
  private skipLf = false;
  private cell = '';
  private row: string[] = [];

  push(text: string, onRow: (cells: string[]) => void): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (this.skipLf) {
        this.skipLf = false;
        if (ch === 10) {
          start = i + 1;
          continue;
        }
      }
      if (ch === 34) {
        this.inQuotes = !this.inQuotes;
      } else if (!this.inQuotes && (ch === 44 || ch === 13)) {
        this.row.push(this.cell + text.slice(start, i));
        this.cell = '';
        start = i + 1;
        if (ch === 13) {
          onRow(this.row);
          this.row = [];
          this.skipLf = true;
        }
      }
    }
    this.cell += text.slice(start);
  }
}

/** FileHandle.write may write less than asked; loop until every byte is down. */
export async function writeAll(handle: FileHandle, bytes: Uint8Array, position: number | null = null): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(
      bytes,
      offset,
      bytes.length - offset,
      position === null ? null : position + offset,
    );
    offset += bytesWritten;
  }
}

/** writeAll, on this thread (writeSync): every byte at `position` on, or `failed` of the error thrown. */
export function writeAllSync(fd: number, bytes: Uint8Array, position: number, failed: (error: unknown) => Error): void {
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset, position + offset);
  } catch (error) {
    throw failed(error);
  }
}

/**
 * Copies bytes [s, e) of `from` to `to` at o, four at a time (a DataView reads and writes unaligned words in
 * one instruction each): a cell is too short for a call into C++ to pay, and a byte loop costs four times the
 * steps. Returns the new o.
 */
function copyWords(from: DataView, s: number, e: number, to: DataView, o: number): number {
  for (; s + 4 <= e; s += 4, o += 4) to.setUint32(o, from.getUint32(s, true), true);
  for (; s < e; s++, o++) to.setUint8(o, from.getUint8(s));
  return o;
}

/**
 * CsvWriter.raw()'s rows of `page` into `out` (room made for them); returns their length. A function of its own,
 * not raw()'s body: raw() is an async function, and the loop's optimised code ran ~2.5 % of the 1,000,000-code
 * export's instructions more there (cachegrind, --single-threaded). `counts` takes the escaped and
 * numeric cells, counted in locals.
 */
function writeRows(
  page: ScannedPage,
  columns: Int32Array,
  cells: readonly Buffer[],
  moneys: number,
  orderId: Buffer,
  out: Buffer,
  raw: boolean,
  counts: { escaped: number; numeric: number; firstNumeric: [number, number] | undefined },
): number {
  const { bytes: b, values } = page;
  const leaves = page.shape.leaves;
  const width = columns.length;
  const from = new DataView(b.buffer, b.byteOffset, b.length);
  const to = new DataView(out.buffer, out.byteOffset, out.length);
  let escaped = 0;
  let numeric = 0;
  let o = 0;
  for (let r = 0; r < page.count; r++) {
    const base = r * leaves * 3;
    for (let column = 0; column < width; column++) {
      if (column > 0) out[o++] = 0x2c;
      const leaf = columns[column] as number;
      if (leaf < 0) {
        // A typed array's set(): a builtin, where Buffer#copy calls into C++.
        const cell = column === 0 ? orderId : leaf <= -2 ? cells[r * moneys - 2 - leaf] : undefined;
        if (cell !== undefined) {
          out.set(cell, o);
          o += cell.length;
        }
        continue;
      }
      const at = base + leaf * 3;
      const kind = values[at];
      const s = values[at + 1] as number;
      const e = values[at + 2] as number;
      if (kind === NUMBER || kind === LITERAL) {
        o = copyWords(from, s, e, to, o);
      } else if (kind !== NULL && e > s) {
        const quoted = kind === STRING_COMMA;
        const first = b[s];
        if (quoted) out[o++] = 0x22;
        // = + - @ start a formula (FORMULA_START; a tab or CR would have been escaped in the JSON).
        if (!raw && (first === 0x3d || first === 0x2b || first === 0x2d || first === 0x40)) {
          out[o++] = 0x27;
          escaped++;
        } else if (!raw && spreadsheetChanges(b, s, e)) {
          // The first of the export (rare: a branch taken once), where a warning names it.
          if (numeric++ === 0 && counts.numeric === 0) counts.firstNumeric ??= [column, r];
        }
        o = copyWords(from, s, e, to, o);
        if (quoted) out[o++] = 0x22;
      }
    }
    out[o++] = 0x0d;
    out[o++] = 0x0a;
  }
  counts.escaped += escaped;
  counts.numeric += numeric;
  return o;
}

/** `cells`, or a longer array when it holds fewer than `size`. */
function roomFor(cells: Buffer[], size: number): Buffer[] {
  return cells.length >= size ? cells : new Array<Buffer>(size).fill(EMPTY);
}

const EMPTY = Buffer.alloc(0);

/** A display's CSV cell as bytes, kept while the display stays the same (the codes of an order share it). */
class DisplayCells {
  private display: string | undefined;
  private bytes: Buffer = Buffer.alloc(0);

  cell(display: string, raw: boolean): Buffer {
    if (display !== this.display) {
      this.display = display;
      this.bytes = Buffer.from(csvCell(display, raw), 'utf8');
    }
    return this.bytes;
  }
}
