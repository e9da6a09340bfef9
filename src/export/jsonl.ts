// JSON Lines export: one record a line, exactly as the server sent it.
import type { CodeRecord } from '../api/schemas.js';
import { Utf8Encoder } from './encoder.js';
import type { FormatWriter, TextSink } from './format.js';

export class JsonLinesWriter implements FormatWriter {
  private readonly encoder = new Utf8Encoder();
  constructor(
    private readonly sink: TextSink,
    private readonly transform: (text: string) => string = (text) => text,
  ) {}

  async page(records: readonly CodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    let text = '';
    for (const record of records) text += `${JSON.stringify(record)}\n`;
    await this.sink.write(this.encoder.encode(this.transform(text)));
  }

  async finish(): Promise<void> {}

  async dispose(): Promise<void> {}
}
