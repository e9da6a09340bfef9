// JSON export: one array of records, streamed one record a line so no page is ever joined to the next.
import type { CodeRecord } from '../api/schemas.js';
import { Utf8Encoder } from './encoder.js';
import type { FormatWriter, TextSink } from './format.js';
import { copyRecord, parsedRecords, room, type ScannedPage } from './scan.js';

export class JsonArrayWriter implements FormatWriter {
  private readonly encoder = new Utf8Encoder();
  private count = 0;
  private out: Buffer = Buffer.allocUnsafe(64 * 1024);

  constructor(
    private readonly sink: TextSink,
    private readonly transform?: (text: string) => string,
  ) {}

  async page(records: readonly CodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    let text = '';
    for (const record of records) {
      text += (this.count === 0 ? '[\n' : ',\n') + JSON.stringify(record);
      this.count++;
    }
    await this.sink.write(this.encoder.encode(this.transform ? this.transform(text) : text));
  }

  async raw(page: ScannedPage): Promise<void> {
    if (this.transform) return this.page(parsedRecords(page));
    const out = (this.out = room(this.out, page.close - page.open + 2 * page.count + 2));
    let o = 0;
    for (let r = 0; r < page.count; r++) {
      out[o++] = this.count++ === 0 ? 0x5b /* [ */ : 0x2c /* , */;
      out[o++] = 0x0a;
      o = copyRecord(page, r, out, o);
    }
    await this.sink.write(out.subarray(0, o));
  }

  async finish(): Promise<void> {
    await this.sink.write(this.count === 0 ? '[]\n' : '\n]\n');
  }

  async dispose(): Promise<void> {}
}
