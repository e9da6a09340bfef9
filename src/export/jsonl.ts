// JSON Lines export: one record a line, exactly as the server sent it.
import type { CodeRecord } from '../api/schemas.js';
import { Utf8Encoder } from './encoder.js';
import type { FormatWriter, TextSink } from './format.js';
import { copyRecord, parsedRecords, room, type ScannedPage } from './scan.js';

export class JsonLinesWriter implements FormatWriter {
  private readonly encoder = new Utf8Encoder();
  private out: Buffer = Buffer.allocUnsafe(64 * 1024);
  constructor(
    private readonly sink: TextSink,
    private readonly transform?: (text: string) => string,
  ) {}

  async page(records: readonly CodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    let text = '';
    for (const record of records) text += `${JSON.stringify(record)}\n`;
    await this.sink.write(this.encoder.encode(this.transform ? this.transform(text) : text));
  }

  async raw(page: ScannedPage): Promise<void> {
    if (this.transform) return this.page(parsedRecords(page));
    const out = (this.out = room(this.out, page.close - page.open + page.count));
    let o = 0;
    for (let r = 0; r < page.count; r++) {
      o = copyRecord(page, r, out, o);
      out[o++] = 0x0a;
    }
    await this.sink.write(out.subarray(0, o));
  }

  async finish(): Promise<void> {}

  async dispose(): Promise<void> {}
}
