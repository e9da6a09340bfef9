// JSON export: one array of records, streamed one record a line so no page is ever joined to the next.
// JSON Lines (jsonl.ts) is the same writer with other framing.
import type { CodeRecord } from '../api/schemas.js';
import { Utf8Encoder } from './encoder.js';
import type { FormatWriter, TextSink } from './format.js';
import { DisplayCache, withDisplay } from './display.js';
import { copyRecord, NUMBER, parsedRecords, room, STRING, STRING_COMMA, type ScannedPage } from './scan.js';

/** What surrounds the records, in ASCII: `first` or `between` before each, `after` behind each, then `end` (`empty` if none). */
export interface Framing {
  readonly first: string;
  readonly between: string;
  readonly after: string;
  readonly end: string;
  readonly empty: string;
}

/** Each record as its compact JSON (as the server sent it, whitespace dropped), framed. */
export class JsonRecordsWriter implements FormatWriter {
  private readonly encoder = new Utf8Encoder();
  private count = 0;
  private out: Buffer = Buffer.allocUnsafe(64 * 1024);
  private readonly displays = new DisplayCache();

  constructor(
    private readonly sink: TextSink,
    private readonly framing: Framing,
    private readonly transform?: (text: string) => string,
  ) {}

  async page(records: readonly CodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { first, between, after } = this.framing;
    let text = '';
    for (const record of records)
      text += (this.count++ === 0 ? first : between) + JSON.stringify(withDisplay(record)) + after;
    await this.sink.write(this.encoder.encode(this.transform ? this.transform(text) : text));
  }

  async raw(page: ScannedPage): Promise<void> {
    if (this.transform) return this.page(parsedRecords(page));
    const money = page.shape.money;
    if (money.length > 0 && !this.displayable(page)) return this.page(parsedRecords(page));
    const { first, between, after } = this.framing;
    // A display member is at most `,"display":"` and 20 digits, a sign, a point and a quote.
    const out = (this.out = room(
      this.out,
      page.close - page.open + page.count * (between.length + after.length + money.length * 40) + first.length,
    ));
    let o = 0;
    const { bytes: b, values } = page;
    const leaves = page.shape.leaves;
    for (let r = 0; r < page.count; r++) {
      o = ascii(this.count++ === 0 ? first : between, out, o);
      if (money.length === 0) o = copyRecord(page, r, out, o);
      else {
        // A compact record (displayable() said so): its bytes, with each display after its object's last value.
        let from = page.records[r * 3] as number;
        const base = r * leaves * 3;
        for (const m of money) {
          const a = base + m.amount * 3;
          const c = base + m.currency * 3;
          if (values[a] !== NUMBER || values[c] !== STRING) continue;
          const display = this.displays.of(b, values[a + 1]!, values[a + 2]!, values[c + 1]!, values[c + 2]!);
          if (display === undefined) continue;
          const last = base + m.lastLeaf * 3;
          const at = (values[last + 2] as number) + (values[last] === STRING || values[last] === STRING_COMMA ? 1 : 0);
          o += b.copy(out, o, from, at);
          o = ascii(`,"display":"${display}"`, out, o);
          from = at;
        }
        o += b.copy(out, o, from, page.records[r * 3 + 1]);
      }
      o = ascii(after, out, o);
    }
    await this.sink.write(out.subarray(0, o));
  }

  /** The records' displays can be inserted in their bytes: every money object ends with a leaf and every record is compact. */
  private displayable(page: ScannedPage): boolean {
    if (!page.shape.money.every((m) => m.leafLast)) return false;
    for (let r = 0; r < page.count; r++) if (page.records[r * 3 + 2] !== 1) return false;
    return true;
  }

  async finish(): Promise<void> {
    const end = this.count === 0 ? this.framing.empty : this.framing.end;
    if (end !== '') await this.sink.write(end);
  }

  async dispose(): Promise<void> {}
}

export class JsonArrayWriter extends JsonRecordsWriter {
  constructor(sink: TextSink, transform?: (text: string) => string) {
    super(sink, { first: '[\n', between: ',\n', after: '', end: '\n]\n', empty: '[]\n' }, transform);
  }
}

/** `text` (ASCII) to out at o; returns the new o. */
function ascii(text: string, out: Buffer, o: number): number {
  for (let i = 0; i < text.length; i++) out[o++] = text.charCodeAt(i);
  return o;
}
