// JSON export: one array of records, streamed one record a line so no page is ever joined to the next.
import type { CodeRecord } from '../api/schemas.js';
import { Utf8Encoder } from './encoder.js';
import type { FormatWriter, TextSink } from './format.js';

export class JsonArrayWriter implements FormatWriter {
  private readonly encoder = new Utf8Encoder();
  private count = 0;

  constructor(
    private readonly sink: TextSink,
    private readonly transform: (text: string) => string = (text) => text,
  ) {}

  async page(records: readonly CodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    let text = '';
    for (const record of records) {
      text += (this.count === 0 ? '[\n' : ',\n') + JSON.stringify(record);
      this.count++;
    }
    await this.sink.write(this.encoder.encode(this.transform(text)));
  }

  async finish(): Promise<void> {
    await this.sink.write(this.count === 0 ? '[]\n' : '\n]\n');
  }

  async dispose(): Promise<void> {}
}
