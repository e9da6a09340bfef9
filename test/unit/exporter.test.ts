// The one exporter: --json writes the document, text mode the text and its notes; an exporter that is no --json
// document (json: false) writes nothing on stdout under --json.
import { describe, expect, it } from 'vitest';
import { exportResult, pagerCommand } from '../../src/output/exporter.js';
import { Io } from '../../src/output/io.js';
import { PassThrough } from 'node:stream';
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

// A person's day: at TERM=dumb (Emacs's shell) less stopped at "WARNING: terminal is not fully functional. Press RETURN".
describe('pagerCommand on a dumb terminal', () => {
  const terminal = (env: NodeJS.ProcessEnv): Io =>
    new Io({
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      env,
      stdinIsTTY: true,
      stdoutIsTTY: true,
      stderrIsTTY: true,
    });

  it('pages through none unless a pager is named for giftcodes; a real terminal pages as before', () => {
    expect(pagerCommand(terminal({ TERM: 'dumb' }))).toBeUndefined();
    expect(pagerCommand(terminal({ TERM: 'dumb', PAGER: 'less' }))).toBeUndefined();
    expect(pagerCommand(terminal({ TERM: 'dumb', GIFTCODES_PAGER: 'more' }))).toBe('more');
    expect(pagerCommand(terminal({ TERM: 'xterm-256color' }))).toBe('less -FRX');
  });
});
