// JSON Lines export: one record a line, exactly as the server sent it.
import type { TextSink } from './format.js';
import { JsonRecordsWriter } from './json.js';

export class JsonLinesWriter extends JsonRecordsWriter {
  constructor(sink: TextSink, transform?: (text: string) => string) {
    super(sink, { first: '', between: '', after: '\n', end: '', empty: '' }, transform);
  }
}
