// The one exporter: --json writes the document, text mode the text and its notes; an exporter that is no --json
// document (json: false) writes nothing on stdout under --json.
import { describe, expect, it } from 'vitest';
import { exportResult, pagerCommand } from '../../src/output/exporter.js';
import { Io } from '../../src/output/io.js';
import { PassThrough } from 'node:stream';
import { capturedIo, terminalIo } from '../helpers/inprocess.js';

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

// A person's day: login's line at 80 columns was broken by the terminal mid-word (`…:4565` / `1 (from --base-url`),
// under warnings broken at their spaces.
describe('exportResult with wrap: a sentence of ours', () => {
  const sentence =
    '✓ saved the test key sc_test_…7e2d for reseller rs_demo at http://127.0.0.1:45651 (from --base-url, saved as the profile base URL) in profile "default"';
  const out = (io: Io): Promise<string> =>
    new Promise((resolve) => {
      let text = '';
      io.stdout.on('data', (c: Buffer) => (text += c.toString()));
      void exportResult(io, {}, { text: () => sentence, wrap: 2, pager: false }).then(async () => {
        await io.flushOut();
        setImmediate(() => resolve(text));
      });
    });

  it('on a terminal: broken at its spaces to its width, each continuation under the first word after the mark', async () => {
    const lines = (await out(terminalIo(80))).trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}\S/);
    expect(lines.map((line) => line.trim()).join(' ')).toBe(sentence);
    expect(lines.join('\n')).toContain('http://127.0.0.1:45651');
  });

  it('an exporter without wrap is written as it is on a terminal too (a table fitted by its own rules), and one without text prints nothing', async () => {
    const io = terminalIo(80);
    let text = '';
    io.stdout.on('data', (c: Buffer) => (text += c.toString()));
    await exportResult(io, {}, { text: () => sentence, pager: false });
    await exportResult(io, {}, { pager: false });
    await io.flushOut();
    await new Promise((resolve) => setImmediate(resolve));
    expect(text).toBe(`${sentence}\n`);
  });

  it('in a pipe or a file: one line, as scripts read it', async () => {
    const text = capturedIo();
    await exportResult(text.io, {}, { text: () => sentence, wrap: 2, pager: false });
    await text.io.flushOut();
    expect(text.out()).toBe(`${sentence}\n`);
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
