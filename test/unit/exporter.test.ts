// The one exporter: --json writes the document, text mode the text and its notes; an exporter that is no --json
// document (json: false) writes nothing on stdout under --json.
import { describe, expect, it } from 'vitest';
import { exportResult } from '../../src/output/exporter.js';
import { capturedIo } from '../helpers/inprocess.js';

describe('exportResult', () => {
  const exporter = { text: () => 'a text', notes: () => ['a note'], pager: false as const };

  it('--json: the document, not the text; text mode: the text, then its notes', async () => {
    const json = capturedIo({ json: true });
    await exportResult(json.io, { a: 1 }, exporter);
    await json.io.flushOut();
    expect(JSON.parse(json.out())).toEqual({ a: 1 });
    const text = capturedIo();
    await exportResult(text.io, { a: 1 }, exporter);
    await text.io.flushOut();
    expect(text.out()).toBe('a text\n');
    expect(text.err()).toContain('a note');
  });

  it('json: false is no --json document: nothing on stdout under --json, the text as ever without it', async () => {
    const json = capturedIo({ json: true });
    await exportResult(json.io, { a: 1 }, { ...exporter, json: false });
    await json.io.flushOut();
    expect(json.out()).toBe('');
    const text = capturedIo();
    await exportResult(text.io, { a: 1 }, { ...exporter, json: false });
    await text.io.flushOut();
    expect(text.out()).toBe('a text\n');
  });
});
