// Our own stderr lines at a terminal are broken at word boundaries to its width, a command kept whole where it fits a
// line (else continued with ` \`); in a pipe or a log they stay one line each. At 80 columns the terminal broke
// `after` into `aft` / `er` and `giftcodes` into `giftcod` / `es` (a person's day).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Io } from '../../src/output/io.js';
import { wrapWords } from '../../src/output/wrap.js';

const HINT =
  'nothing listens on 127.0.0.1:4010: start the reference server with giftcodes serve, or check --base-url (profile "default" has none saved, so http://127.0.0.1:4010 was used: GIFTCODES_CONFIG_DIR=/var/lib/giftcodes giftcodes config set base-url URL)';

/** An Io whose stderr is a terminal `columns` wide (or a pipe), and what stderr got. */
function stderrIo(tty: boolean, columns?: number): { io: Io; err: () => string } {
  const stderr = Object.assign(new PassThrough(), columns === undefined ? {} : { columns });
  let err = '';
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const io = new Io({
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    env: { NO_COLOR: '1' },
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
  });
  return { io, err: () => err };
}

describe('wrapWords', () => {
  it('breaks at spaces, every line within the width, continuations under the first word after the label', () => {
    const text = wrapWords(HINT, 80, 'hint: '.length, 'hint: '.length);
    const lines = `hint: ${text}`.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {6}\S/);
    // Nothing lost or cut: the words joined again are the text.
    expect(lines.map((l) => l.trim()).join(' ')).toBe(`hint: ${HINT}`);
  });

  it('keeps a command that fits a line on one line, with the assignment before it', () => {
    const lines = wrapWords(HINT, 80, 6, 6).split('\n');
    expect(
      lines.some((l) => l.trim() === 'giftcodes serve, or check --base-url (profile "default" has none saved,'),
    ).toBe(false);
    expect(
      lines.some((l) => l.includes('GIFTCODES_CONFIG_DIR=/var/lib/giftcodes giftcodes config set base-url URL)')),
    ).toBe(true);
    expect(lines.some((l) => l.includes('giftcodes serve,'))).toBe(true);
  });

  it('continues a command wider than a line as a shell reads it on, each broken line ending in " \\"', () => {
    const command =
      'GIFTCODES_CONFIG_DIR=/tmp/tmp.dycjbaXhXO giftcodes order place --product steam-us-20 --quantity 2 --profile failing --env test --base-url http://127.0.0.1:40999';
    const text = wrapWords(`to order it anew: ${command}`, 80, 6, 6);
    const lines = text.split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toBe('to order it anew:');
    expect(lines.slice(1, -1).every((l) => l.endsWith(' \\'))).toBe(true);
    // What a shell reads when the lines are pasted: the command, whole.
    expect(
      lines
        .slice(1)
        .map((l) => l.trim())
        .join('\n')
        .replace(/ \\\n/g, ' '),
    ).toBe(command);
  });

  it('leaves a text that fits as it is, and a word wider than a line whole', () => {
    expect(wrapWords('short', 80, 7, 7)).toBe('short');
    const path = `/srv/${'x'.repeat(100)}/codes.csv`;
    expect(wrapWords(`wrote ${path} (csv)`, 80).split('\n')).toEqual(['wrote', path, '(csv)']);
  });
});

describe('Io: our stderr lines', () => {
  it('at an 80-column terminal: the error, hint and warning lines break at word boundaries', () => {
    const { io, err } = stderrIo(true, 80);
    io.warn(HINT);
    io.notice(`reading ${HINT}`);
    const lines = err().trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^warning: nothing listens/);
    expect(lines[1]).toMatch(/^ {9}\S/);
    // Every word whole: each line ends where a word does (or with a command's ` \\`).
    const words = new Set([...`warning: ${HINT} reading ${HINT}`.split(' '), '\\']);
    for (const line of lines) for (const word of line.trim().split(' ')) expect(words.has(word)).toBe(true);
  });

  it('a ✓ or ✗ line goes on under its first word after the mark, not under the mark; another notice at the margin', () => {
    const { io, err } = stderrIo(true, 80);
    const wrote = '✓ wrote 50,000 codes of ord_54a9c935697d4e8c96cb37c9 to /tmp/me42/again.csv (csv, 0600)';
    io.notice(wrote);
    io.say(`✗ key-20261202: ${HINT}`);
    io.notice(`reading ${HINT}`);
    const lines = err().trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.slice(0, 2)).toEqual([
      '✓ wrote 50,000 codes of ord_54a9c935697d4e8c96cb37c9 to /tmp/me42/again.csv',
      '  (csv, 0600)',
    ]);
    const failed = lines.findIndex((line) => line.startsWith('✗ key-20261202: '));
    const reading = lines.findIndex((line) => line.startsWith('reading '));
    expect(failed).toBe(2);
    for (const line of lines.slice(failed + 1, reading)) expect(line).toMatch(/^ {2}\S/);
    expect(lines[reading + 1]).toMatch(/^\S/);
  });

  it('in a pipe or a log: one line each, never broken', () => {
    const { io, err } = stderrIo(false, 80);
    io.warn(HINT);
    io.notice(HINT);
    const lines = err().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ warning: nothing listens .* base-url URL\)$/);
  });

  it('a terminal that says no width (a pty without a size): as it is', () => {
    const { io, err } = stderrIo(true);
    io.warn(HINT);
    expect(err()).toBe(`warning: ${HINT}\n`);
  });
});
