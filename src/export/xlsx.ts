// XLSX export: an Office Open XML workbook, one sheet per order, streamed. The sheet's XML is written
// here by hand, row by row, into a zip entry that yazl deflates as it goes; the zip's bytes go to the same
// sink as every other format (write.ts: the 0600 temporary file, fsynced, then renamed). Only a page of
// rows is ever in memory. The parts whose content depends on the whole order (the styles, one number
// format per currency seen; the autofilter's range) come after the sheet's rows: a zip's entries may be
// in any order.
//
// Cells: codes, PINs, serials and every other string are inline-string text cells, so a spreadsheet keeps
// `0208` and `1234567890123456` exactly and never runs one as a formula (no cell is ever a formula); an
// amount beside a currency is a number in the currency's major unit with that currency's number format;
// a timestamp (ISO 8601 with a time) is a date serial with a date style, in UTC. The columns are those of
// the first page (order_id first, code second, as in the CSV, and value.display after value.currency); a
// field first seen later gets a column of its own at the right, with an empty header cell (the header row is written first).
import yazl from 'yazl';
import { PassThrough } from 'node:stream';
import type { CodeRecord } from '../api/schemas.js';
import { currencyDecimals, majorUnits, moneyOf, type Money } from '../money.js';
import { tooManyRows, XLSX_MAX_CODES, type FormatWriter, type TextSink } from './format.js';
import { flattenRecord } from './csv.js';
import { parsedRecords, type ScannedPage } from './scan.js';

/** A fixed timestamp in the zip's entries: the same codes make the same bytes (the "already written" check compares them). */
const ZIP_MTIME = new Date(Date.UTC(2000, 0, 1));

/** Characters XML 1.0 does not allow in a document, even escaped. */
const XML_FORBIDDEN = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/** The same, to ask whether a value holds one (no /g: a test that keeps no position between values). */
const HOLDS_FORBIDDEN = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const XML_SPECIAL = /[&<>"]/;
// eslint-disable-next-line no-control-regex -- these are the control characters XML 1.0 forbids
const NEEDS_CLEANING = /[&<>"\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;

/** Text as XML character data: escaped, with what XML cannot hold dropped. */
export function xmlText(value: string): string {
  if (!NEEDS_CLEANING.test(value)) return value;
  let text = value.replace(XML_FORBIDDEN, '');
  if (XML_SPECIAL.test(text))
    text = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return text;
}

/** An ISO 8601 timestamp with a time of day: 2027-01-31T10:00:00Z, with or without fractions, Z or an offset. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;
const MS_PER_DAY = 86_400_000;
/** 1970-01-01 as a spreadsheet date serial (the 1900 date system). */
const EPOCH_SERIAL = 25_569;

/** The spreadsheet date serial of a timestamp, in UTC, or undefined when it is not one (or before 1900-03-01). */
export function dateSerial(value: string): number | undefined {
  if (!TIMESTAMP.test(value)) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  const serial = ms / MS_PER_DAY + EPOCH_SERIAL;
  return serial >= 61 ? serial : undefined;
}

/** Style indexes in styles.xml's cellXfs: 0 plain, 1 header (bold), 2 date, then one per currency seen. */
const STYLE_HEADER = 1;
const STYLE_DATE = 2;
const FIRST_CURRENCY_STYLE = 3;

/** The widest a column is made (characters): a long note in a cell wraps at the cell's edge rather than fill the screen. */
const MAX_COLUMN_WIDTH = 60;
/** A date cell's width as the date style shows it (`2027-01-31 10:00:00 UTC`), and a money cell's (`1,234,567.00 USD`). */
const DATE_WIDTH = 23;
const MONEY_WIDTH = 16;

/** How many characters a cell's XML shows: its text (entities as one), a date's or an amount's as their styles show them. */
export function cellWidth(xml: string): number {
  if (xml.startsWith(`<c s="${STYLE_DATE}">`)) return DATE_WIDTH;
  if (xml.startsWith('<c s="')) return MONEY_WIDTH;
  const text = /<(?:t|v)(?: [^>]*)?>([^<]*)</.exec(xml)?.[1] ?? '';
  return [...text.replace(/&[a-z]+;/g, '_')].length;
}

/** Column letters of a 0-based index: 0 → A, 26 → AA. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** A sheet name: at most 31 characters, none of []:*?/\ (Excel's rules). */
function sheetName(orderId: string): string {
  const name = orderId
    .replace(/[[\]:*?/\\]/g, '_')
    .replace(XML_FORBIDDEN, '')
    .slice(0, 31);
  return name === '' ? 'codes' : name;
}

export interface XlsxWriterOptions {
  /** The `order_id` cell of records that carry no `order_id` of their own, and the sheet's name. */
  orderId: string;
}

export class XlsxWriter implements FormatWriter {
  /** FormatWriter.stripped: the records' values written without the characters XML cannot hold. */
  stripped = 0;
  /** The first page's columns are being found (its cells are made again when written): nothing is counted. */
  private measuring = false;
  private readonly zip = new yazl.ZipFile();
  private readonly sheet = new PassThrough();
  private readonly pumped: Promise<void>;
  private failure: unknown;
  private readonly columns: string[] = ['order_id'];
  private readonly index = new Map<string, number>([['order_id', 0]]);
  /** Column headers written: the header row goes out with the first page. */
  private headerWritten = false;
  private rows = 0;
  private readonly currencyStyles = new Map<string, number>();
  private readonly orderIdCell: string;
  private disposed = false;

  constructor(
    private readonly sink: TextSink,
    private readonly options: XlsxWriterOptions,
  ) {
    this.orderIdCell = inlineString(options.orderId);
    const entry = { mtime: ZIP_MTIME, mode: 0o100600 };
    this.zip.addReadStream(this.sheet, 'xl/worksheets/sheet1.xml', { ...entry, compress: true });
    this.pumped = this.pump().catch((error: unknown) => {
      this.failure = error;
      this.sheet.destroy();
    });
    this.sheet.write(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
        '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/></sheetView></sheetViews>' +
        '<sheetFormatPr defaultRowHeight="15"/>',
    );
  }

  /** The zip's bytes, as yazl makes them, into the sink (one chunk at a time: the sink's pace is the backpressure). */
  private async pump(): Promise<void> {
    for await (const chunk of this.zip.outputStream as AsyncIterable<Buffer>) await this.sink.write(chunk);
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private async put(text: string): Promise<void> {
    this.check();
    if (!this.sheet.write(text)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.sheet.off('drain', done);
          this.sheet.off('close', done);
          resolve();
        };
        this.sheet.on('drain', done);
        this.sheet.on('close', done);
        void this.pumped.then(done);
      });
    }
    this.check();
  }

  async page(records: readonly CodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (this.rows + records.length > XLSX_MAX_CODES)
      throw tooManyRows(`order ${this.options.orderId} has more codes than one sheet`);
    // Each column as wide as the first page's widest cell: at a spreadsheet's default width (8.43 characters) a
    // 24-character code was cut off and a date cell read ######## (a person's day).
    const widths: number[] = [];
    if (!this.headerWritten) {
      // The columns of the first page, in the CSV's order: order_id, code, then the rest as first seen.
      if (records.some((record) => 'code' in record)) this.addColumn('code');
      this.measuring = true;
      widths[0] = cellWidth(this.orderIdCell);
      for (const record of records)
        this.flat(record, (column, xml) => (widths[column] = Math.max(widths[column] ?? 0, cellWidth(xml))));
      this.measuring = false;
    }
    let text = '';
    if (!this.headerWritten) {
      text +=
        `<cols>${this.columns
          .map((name, i) => {
            const width = Math.min(MAX_COLUMN_WIDTH, Math.max(name.length + 3, (widths[i] ?? 0) + 2));
            return `<col min="${i + 1}" max="${i + 1}" width="${width}" customWidth="1"/>`;
          })
          .join('')}</cols><sheetData>` +
        '<row r="1">' +
        this.columns
          .map((name) => `<c t="inlineStr" s="${STYLE_HEADER}"><is><t>${xmlText(name)}</t></is></c>`)
          .join('') +
        '</row>';
      this.headerWritten = true;
    }
    for (const record of records) {
      const cells: string[] = [];
      if (!('order_id' in record)) cells[0] = this.orderIdCell;
      this.flat(record, (column, cell) => (cells[column] = cell));
      let row = `<row r="${++this.rows + 1}">`;
      for (let i = 0; i < cells.length; i++) row += cells[i] ?? '<c/>';
      text += `${row}</row>`;
    }
    await this.put(text);
  }

  /** Each leaf of a record as a cell, with its column (added at the right when new). */
  private flat(record: CodeRecord, cell: (column: number, xml: string) => void): void {
    this.current = record;
    flattenRecord(record, (name, value) => {
      cell(this.index.get(name) ?? this.addColumn(name), this.cell(name, value));
      // An amount beside its currency: the major unit as text too, right after the currency.
      if (name.endsWith('currency')) {
        const display = this.display(record, name);
        if (display !== undefined)
          cell(
            this.index.get(`${name.slice(0, -'currency'.length)}display`) ??
              this.addColumn(`${name.slice(0, -'currency'.length)}display`),
            inlineString(display),
          );
      }
    });
  }

  /** The money object (`value`) that `currencyName` (`value.currency`) is in, when it is amount and currency. */
  private money(record: CodeRecord, currencyName: string): Money | undefined {
    let object: unknown = record;
    const path = currencyName.split('.').slice(0, -1);
    for (const key of path)
      object = typeof object === 'object' && object !== null ? (object as Record<string, unknown>)[key] : undefined;
    return moneyOf(object);
  }

  private display(record: CodeRecord, currencyName: string): string | undefined {
    const prefix = currencyName.slice(0, -'currency'.length);
    if (prefix !== '' && !prefix.endsWith('.')) return undefined;
    // A display the API sent itself is its own column already.
    if (this.index.has(`${prefix}display`) && this.leaf(record, `${prefix}display`) !== undefined) return undefined;
    const money = this.money(record, currencyName);
    return money ? majorUnits(money.amount, money.currency) : undefined;
  }

  private leaf(record: CodeRecord, name: string): unknown {
    let object: unknown = record;
    for (const key of name.split('.'))
      object = typeof object === 'object' && object !== null ? (object as Record<string, unknown>)[key] : undefined;
    return object;
  }

  private addColumn(name: string): number {
    this.columns.push(name);
    this.index.set(name, this.columns.length - 1);
    return this.columns.length - 1;
  }

  /** The record being formatted (an amount's cell looks up its currency in it). */
  private current: CodeRecord | undefined;

  /** One cell's XML. */
  private cell(name: string, value: unknown): string {
    if (typeof value === 'string') {
      if (!this.measuring && HOLDS_FORBIDDEN.test(value)) this.stripped++;
      const serial = dateSerial(value);
      return serial === undefined ? inlineString(value) : `<c s="${STYLE_DATE}"><v>${serial}</v></c>`;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return inlineString(String(value));
      if (name === 'amount' || name.endsWith('.amount')) {
        const money = this.money(this.current!, `${name.slice(0, -'amount'.length)}currency`);
        if (money)
          return `<c s="${this.currencyStyle(money.currency)}"><v>${majorUnits(money.amount, money.currency)}</v></c>`;
      }
      return `<c><v>${value}</v></c>`;
    }
    if (typeof value === 'boolean') return `<c t="b"><v>${value ? 1 : 0}</v></c>`;
    if (value === null || value === undefined) return '<c/>';
    return inlineString(JSON.stringify(value) ?? '');
  }

  private currencyStyle(currency: string): number {
    const code = currency.toUpperCase();
    let style = this.currencyStyles.get(code);
    if (style === undefined) {
      style = FIRST_CURRENCY_STYLE + this.currencyStyles.size;
      this.currencyStyles.set(code, style);
    }
    return style;
  }

  async raw(page: ScannedPage): Promise<void> {
    return this.page(parsedRecords(page));
  }

  async finish(): Promise<void> {
    if (!this.headerWritten) {
      await this.put(
        '<sheetData><row r="1">' + `<c t="inlineStr" s="${STYLE_HEADER}"><is><t>order_id</t></is></c>` + '</row>',
      );
      this.headerWritten = true;
    }
    const last = `${columnName(this.columns.length - 1)}${this.rows + 1}`;
    await this.put(
      `</sheetData><autoFilter ref="A1:${last}"/><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`,
    );
    this.sheet.end();
    const entry = { mtime: ZIP_MTIME, mode: 0o100600, compress: true };
    const name = xmlText(sheetName(this.options.orderId)).replace(/'/g, '&apos;');
    const quoted = `'${sheetName(this.options.orderId).replace(/'/g, "''")}'`;
    this.zip.addBuffer(Buffer.from(this.styles()), 'xl/styles.xml', entry);
    this.zip.addBuffer(
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
          `<sheets><sheet name="${name}" sheetId="1" r:id="rId1"/></sheets>` +
          `<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">${xmlText(quoted)}!$A$1:$${columnName(this.columns.length - 1)}$${this.rows + 1}</definedName></definedNames>` +
          '</workbook>',
      ),
      'xl/workbook.xml',
      entry,
    );
    this.zip.addBuffer(
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
          '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
          '</Relationships>',
      ),
      'xl/_rels/workbook.xml.rels',
      entry,
    );
    this.zip.addBuffer(
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
          '</Relationships>',
      ),
      '_rels/.rels',
      entry,
    );
    this.zip.addBuffer(
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
          '<Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
          '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
          '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
          '</Types>',
      ),
      '[Content_Types].xml',
      entry,
    );
    this.zip.end();
    await this.pumped;
    this.check();
  }

  /** Fonts (plain, bold), the date format, and one currency format per currency seen, e.g. `#,##0.00 "USD"`. */
  private styles(): string {
    // Times are UTC (as the API sends them): said in the cell, since a workbook has no zone (a person's day read the
    // local time there).
    const formats = [`<numFmt numFmtId="164" formatCode="${xmlText('yyyy-mm-dd hh:mm:ss "UTC"')}"/>`];
    const xfs = [
      '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
      '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>',
      '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>',
    ];
    for (const [currency] of this.currencyStyles) {
      const decimals = currencyDecimals(currency);
      const id = 164 + formats.length;
      const code = `#,##0${decimals > 0 ? `.${'0'.repeat(decimals)}` : ''} "${currency.replace(/[^A-Z]/g, '')}"`;
      formats.push(`<numFmt numFmtId="${id}" formatCode="${xmlText(code)}"/>`);
      xfs.push(`<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`);
    }
    return (
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      `<numFmts count="${formats.length}">${formats.join('')}</numFmts>` +
      '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>' +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${xfs.length}">${xfs.join('')}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
      '</styleSheet>'
    );
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (!this.sheet.writableEnded) this.sheet.destroy();
    (this.zip.outputStream as unknown as { destroy?: () => void }).destroy?.();
  }
}

/** A text cell whose content is exactly the string (leading and trailing spaces kept). */
function inlineString(value: string): string {
  const text = xmlText(value);
  const preserve = text !== text.trim() ? ' xml:space="preserve"' : '';
  return `<c t="inlineStr"><is><t${preserve}>${text}</t></is></c>`;
}
