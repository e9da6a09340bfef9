// JSON export: one array of records, streamed one record a line so no page is ever joined to the next.
// JSON Lines (jsonl.ts) is the same writer with other framing.
import type { CodeRecord } from '../api/schemas.js';
import { Utf8Encoder } from './encoder.js';
import type { FormatWriter, TextSink } from './format.js';
import { copyRecord, parsedRecords, room, type ScannedPage } from './scan.js';

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

  constructor(
    private readonly sink: TextSink,
    private readonly framing: Framing,
    private readonly transform?: (text: string) => string,
  ) {}

  async page(records: readonly CodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { first, between, after } = this.framing;
    let text = '';
    for (const record of records) text += (this.count++ === 0 ? first : between) + JSON.stringify(record) + after;
    await this.sink.write(this.encoder.encode(this.transform ? this.transform(text) : text));
  }

  async raw(page: ScannedPage): Promise<void> {
    if (this.transform) return this.page(parsedRecords(page));
    const { first, between, after } = this.framing;
    const out = (this.out = room(this.out, page.close - page.open + page.count * (between.length + after.length) + first.length));
    let o = 0;
    for (let r = 0; r < page.count; r++) {
      o = ascii(this.count++ === 0 ? first : between, out, o);
      o = copyRecord(page, r, out, o);
      o = ascii(after, out, o);
    }
    await this.sink.write(out.subarray(0, o));
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
