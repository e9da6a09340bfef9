// Io, the one owner of the streams: which stream each kind of line goes to and when it is silent, colour,
// prompts, columns, and flushOut's check of a stdout closed at the start (Node reopens it on /dev/null).
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExitCode, InterruptedError, LocalError, UsageError } from '../../src/errors.js';
import { exportItem } from '../../src/output/exporter.js';
import { Io, SPINNER_ELAPSED_AFTER_S, stdoutFailed, zeroWidth, type IoOptions } from '../../src/output/io.js';
import { LOG_EVERY_MS, startProgress } from '../../src/output/progress.js';
import { tempDir } from '../helpers/e2e.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;
const ESC = '\u001b[';

function ioWith(o: Partial<IoOptions> = {}): { io: Io; out: () => string; err: () => string } {
  const stdout = o.stdout ?? new PassThrough();
  const stderr = o.stderr ?? new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const io = new Io({
    stdin: new PassThrough(),
    env: {},
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    ...o,
    stdout,
    stderr,
  });
  return { io, out: () => out, err: () => err };
}

/** An Io at a terminal (stdin and stderr), reading its answers from `stdin`. */
function promptIo(stdin: PassThrough): Io {
  return new Io({
    stdin,
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    stdinIsTTY: true,
    stdoutIsTTY: false,
    stderrIsTTY: true,
  });
}

describe('Io streams', () => {
  it('system() gives the process streams, looked up when used', () => {
    const io = Io.system();
    expect(io.stdin).toBe(process.stdin);
    expect(io.stdout).toBe(process.stdout);
    expect(io.stderr).toBe(process.stderr);
    expect(io.env).toBe(process.env);
  });

  it('out ends each text with one newline; outJson writes one indented document; both redact a known secret', async () => {
    const c = ioWith();
    c.io.addSecret('sk_live_abcdefghijklmnop');
    c.io.out('one');
    c.io.out('two\n');
    c.io.outJson({ key: 'sk_live_abcdefghijklmnop' });
    await c.io.flushOut();
    expect(c.out()).toMatch(/^one\ntwo\n\{\n {2}"key": "[^"]+"\n\}\n$/);
    expect(c.out()).not.toContain('sk_live_abcdefghijklmnop');
  });

  it('an empty secret is not added: redaction leaves text alone', async () => {
    const c = ioWith();
    c.io.addSecret('');
    c.io.addSecret(undefined);
    expect(c.io.redact('plain text')).toBe('plain text');
  });

  it('outJson applies --query; a query that finds nothing prints null', async () => {
    const c = ioWith();
    c.io.query = (value) => (value as { id?: string }).id;
    c.io.outJson({ id: 'ord_1' });
    c.io.outJson({});
    await c.io.flushOut();
    expect(c.out()).toBe('"ord_1"\nnull\n');
  });

  it('outItem: one compact JSON line per item, --query applied to each (null when it finds nothing), keys redacted', async () => {
    const c = ioWith();
    await c.io.outItem({ id: 'evt_1', data: { key: 'sk_live_abcdefghijklmnop' } });
    c.io.addSecret('sk_live_abcdefghijklmnop');
    await c.io.outItem({ id: 'evt_2', data: { key: 'sk_live_abcdefghijklmnop' } });
    c.io.query = (value) => (value as { id?: string }).id;
    await c.io.outItem({ id: 'evt_3' });
    await c.io.outItem({});
    await c.io.flushOut();
    expect(c.out()).toBe(
      '{"id":"evt_1","data":{"key":"sk_live_abcdefghijklmnop"}}\n{"id":"evt_2","data":{"key":"…mnop"}}\n"evt_3"\nnull\n',
    );
  });

  it('outItem into a stdout that failed: exit 8, the line is not taken for written, and flushOut says so too', async () => {
    const stdout = new Writable({
      write: (_chunk, _encoding, callback) => callback(Object.assign(new Error('EPIPE'), { code: 'EPIPE' })),
    });
    const c = ioWith({ stdout });
    await expect(c.io.outItem({ id: 'evt_1' })).rejects.toMatchObject({
      exitCode: ExitCode.local,
      message: expect.stringContaining('the reader closed the pipe'),
    });
    await expect(c.io.flushOut()).rejects.toMatchObject({ exitCode: ExitCode.local });
  });

  it('exportItem resolves once stdout took its own line, not once every line written since (a steady stream starved every answer)', async () => {
    // webhook listen answers an event once its line was taken: waiting for all pending lines instead, events
    // arriving faster than a slow reader takes them were never answered (their senders time out and retry).
    const stdout = new Writable({ highWaterMark: 1, write: (_chunk, _encoding, callback) => setTimeout(callback, 20) });
    const c = ioWith({ stdout });
    let firstTaken = false;
    const first = exportItem(c.io, 'first', (item) => item).then(() => (firstTaken = true));
    for (let i = 0; i < 20 && !firstTaken; i++) {
      void exportItem(c.io, `item ${i}`, (item) => item);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(firstTaken).toBe(true);
    await first;
    await c.io.flushOut();
  });

  it('exportItem after a line that failed: exit 8, though its own write was never attempted', async () => {
    const stdout = new Writable({
      write: (_chunk, _encoding, callback) => callback(Object.assign(new Error('EPIPE'), { code: 'EPIPE' })),
    });
    const c = ioWith({ stdout });
    await expect(exportItem(c.io, 'a', (item) => item)).rejects.toMatchObject({ exitCode: ExitCode.local });
    await expect(exportItem(c.io, 'b', (item) => item)).rejects.toMatchObject({ exitCode: ExitCode.local });
  });

  it('notice: stderr with an ISO time when stderr is no terminal, none on a terminal; silent under --quiet and --json', () => {
    const c = ioWith();
    c.io.notice('hello');
    expect(c.err()).toMatch(new RegExp(`${ISO.source}hello\\n$`));
    const tty = ioWith({ stderrIsTTY: true });
    tty.io.notice('hello');
    expect(tty.err()).toBe('hello\n');
    for (const mode of [
      { json: true, quiet: false },
      { json: false, quiet: true },
    ]) {
      const quiet = ioWith();
      quiet.io.setMode({ ...mode, verbose: false });
      quiet.io.notice('hidden');
      expect(quiet.err()).toBe('');
    }
  });

  it('say is heard in every mode; warn only not under --quiet, prefixed; debug only with --verbose; errRaw as given, redacted', () => {
    const c = ioWith({ stderrIsTTY: true });
    c.io.setMode({ json: true, quiet: true, verbose: false });
    c.io.say('resumed');
    c.io.warn('hidden');
    c.io.debug('hidden too');
    expect(c.err()).toBe('resumed\n');
    const v = ioWith({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
    v.io.setMode({ json: false, quiet: false, verbose: true });
    v.io.warn('careful');
    v.io.debug('detail');
    v.io.addSecret('sk_test_abcdefghijklmnop');
    v.io.errRaw('raw sk_test_abcdefghijklmnop');
    expect(v.err()).toMatch(/^warning: careful\ndetail\nraw (?!sk_test_abcdefghijklmnop)\S+$/);
    // Off a terminal (a cron log) every line starts with its time, --verbose's request lines too.
    const s = ioWith();
    s.io.setMode({ json: false, quiet: false, verbose: true });
    s.io.say('stamped');
    s.io.warn('stamped too');
    s.io.debug('GET /v1/ping 200 14ms attempt 1/6');
    const lines = s.err().split('\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(ISO);
    expect(lines[2]!.replace(ISO, '')).toBe('GET /v1/ping 200 14ms attempt 1/6');
  });

  it('setMode sets --json, --quiet and --verbose', () => {
    const { io } = ioWith();
    io.setMode({ json: true, quiet: true, verbose: true });
    expect([io.json, io.quiet, io.verbose]).toEqual([true, true, true]);
    io.setMode({ json: false, quiet: false, verbose: false });
    expect([io.json, io.quiet, io.verbose]).toEqual([false, false, false]);
  });
});

describe('Io colour', () => {
  const enabled = (o: Partial<IoOptions>): boolean => ioWith(o).io.colorEnabled;

  it('follows FORCE_COLOR, then NO_COLOR, then TERM=dumb, then whether stdout is a terminal', () => {
    expect(enabled({})).toBe(false);
    expect(enabled({ stdoutIsTTY: true })).toBe(true);
    expect(enabled({ env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(enabled({ env: { FORCE_COLOR: '0' }, stdoutIsTTY: true })).toBe(false);
    expect(enabled({ env: { FORCE_COLOR: 'false' }, stdoutIsTTY: true })).toBe(false);
    expect(enabled({ env: { FORCE_COLOR: '', NO_COLOR: '1' }, stdoutIsTTY: true })).toBe(false);
    expect(enabled({ env: { FORCE_COLOR: '' }, stdoutIsTTY: true })).toBe(true);
    expect(enabled({ env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).toBe(true);
    expect(enabled({ env: { NO_COLOR: '' }, stdoutIsTTY: true })).toBe(true);
    expect(enabled({ env: { TERM: 'dumb' }, stdoutIsTTY: true })).toBe(false);
    expect(enabled({ env: { TERM: 'xterm' }, stdoutIsTTY: true })).toBe(true);
    expect(enabled({ color: false, env: { FORCE_COLOR: '1' } })).toBe(false);
    expect(enabled({ color: true })).toBe(true);
  });

  it('--no-color turns it off and the colours already made are made again; no colour word leaves it as it was', () => {
    const { io } = ioWith({ env: { FORCE_COLOR: '1' } });
    expect(io.c.green('x')).toContain(ESC);
    io.setMode({ json: false, quiet: false, verbose: false });
    expect(io.colorEnabled).toBe(true);
    expect(io.c.green('x')).toContain(ESC);
    io.setMode({ json: false, quiet: false, verbose: false, color: false });
    expect(io.colorEnabled).toBe(false);
    expect(io.c.green('x')).toBe('x');
  });

  it("stderr's colour is decided by stderr: plain in a log while stdout is at a terminal, and the other way round", () => {
    // `giftcodes … 2>err.log` at a terminal wrote ^[[33mwarning: into the log.
    const log = ioWith({ stdoutIsTTY: true, stderrIsTTY: false });
    log.io.setMode({ json: false, quiet: false, verbose: true });
    log.io.warn('w');
    log.io.debug('d');
    expect(log.err()).not.toContain(ESC);
    expect(log.io.c.green('x')).toContain(ESC);
    expect(log.io.ce.green('x')).toBe('x');
    // Codes piped on (`| cat`) while the warnings are read at the terminal.
    const piped = ioWith({ stdoutIsTTY: false, stderrIsTTY: true });
    piped.io.warn('w');
    expect(piped.err()).toBe(`${ESC}33mwarning:${ESC}39m w\n`);
    expect(piped.io.c.green('x')).toBe('x');
    // NO_COLOR, --no-color and FORCE_COLOR hold for both.
    expect(ioWith({ stderrIsTTY: true, env: { NO_COLOR: '1' } }).io.errColorEnabled).toBe(false);
    expect(ioWith({ stderrIsTTY: true, color: false }).io.errColorEnabled).toBe(false);
    expect(ioWith({ env: { FORCE_COLOR: '1' } }).io.errColorEnabled).toBe(true);
  });

  it('a warning is yellow and a debug line dim when colour is on', () => {
    const c = ioWith({ env: { FORCE_COLOR: '1' }, stderrIsTTY: true });
    c.io.setMode({ json: false, quiet: false, verbose: true });
    c.io.warn('w');
    c.io.debug('d');
    expect(c.err()).toBe(`${ESC}33mwarning:${ESC}39m w\n${ESC}2md${ESC}22m\n`);
  });
});

describe('Io columns and prompts', () => {
  const withColumns = (columns: number | undefined, override?: number): number => {
    const stdout = Object.assign(new PassThrough(), columns === undefined ? {} : { columns });
    return ioWith({ stdout, ...(override === undefined ? {} : { columns: override }) }).io.columns;
  };

  it("columns: the override, else stdout's when wider than 20, else 100", () => {
    expect(withColumns(undefined)).toBe(100);
    expect(withColumns(80)).toBe(80);
    expect(withColumns(21)).toBe(21);
    expect(withColumns(20)).toBe(100);
    expect(withColumns(80, 50)).toBe(50);
  });

  it('prompts need stdin and stderr on a terminal, and no CI (CI empty, "false" or "0" is no CI)', () => {
    const can = (o: Partial<IoOptions>): boolean => ioWith(o).io.canPrompt;
    expect(can({ stdinIsTTY: true, stderrIsTTY: true })).toBe(true);
    expect(can({ stdinIsTTY: false, stderrIsTTY: true })).toBe(false);
    expect(can({ stdinIsTTY: true, stderrIsTTY: false })).toBe(false);
    for (const ci of ['', 'false', '0'])
      expect(can({ stdinIsTTY: true, stderrIsTTY: true, env: { CI: ci } })).toBe(true);
    for (const ci of ['true', '1']) expect(can({ stdinIsTTY: true, stderrIsTTY: true, env: { CI: ci } })).toBe(false);
  });

  it('confirm and password without a person: exit 2 naming what needs it and the flag that answers', async () => {
    const { io } = ioWith();
    const confirmError = await io.confirm('Place it?', '--yes', 'a live order').catch((e: unknown) => e);
    expect(confirmError).toBeInstanceOf(UsageError);
    expect(confirmError).toMatchObject({
      code: 'confirmation_required',
      message: 'a live order needs confirmation, and this run is not interactive',
      hint: 'pass --yes to confirm without a prompt',
    });
    await expect(io.confirm('Sure?', '--yes')).rejects.toMatchObject({
      message: 'this needs confirmation, and this run is not interactive',
    });
    await expect(io.password('API key', '--api-key-stdin')).rejects.toMatchObject({
      exitCode: ExitCode.usage,
      code: 'prompt_unavailable',
      message: 'API key: this run is not interactive, so it cannot prompt',
      hint: 'pass --api-key-stdin',
    });
  });

  it('a prompt answered reads the answer; Ctrl-C at a prompt is exit 130, nothing saved or sent', async () => {
    const answered = new PassThrough();
    const yes = promptIo(answered);
    const asking = yes.confirm('Place it?', '--yes');
    setTimeout(() => answered.write('y\n'), 20);
    await expect(asking).resolves.toBe(true);

    const typed = new PassThrough();
    const no = promptIo(typed);
    const waiting = no.password('API key', '--api-key-stdin');
    setTimeout(() => typed.write('\x03'), 20);
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error).toMatchObject({ message: 'cancelled at the prompt; nothing was saved or sent' });
  });

  it("Ctrl-C at a confirm given what its 'no' throws throws that: a person reads the same words either way", async () => {
    const typed = new PassThrough();
    const io = promptIo(typed);
    const cancelled = new InterruptedError('cancelled: nothing was sent');
    const asking = io.confirm('Place it?', '--yes', 'a live order', { cancelled });
    setTimeout(() => typed.write('\x03'), 20);
    expect(await asking.catch((e: unknown) => e)).toBe(cancelled);
  });
});

describe('Io spinner', () => {
  it('nothing but the status lines when stderr is no terminal, or under --quiet or --json', async () => {
    for (const setup of [{}, { stderrIsTTY: true, quiet: true }, { stderrIsTTY: true, json: true }]) {
      const c = ioWith({ stderrIsTTY: setup.stderrIsTTY ?? false });
      c.io.setMode({ json: setup.json ?? false, quiet: setup.quiet ?? false, verbose: false });
      const spinner = await c.io.spinner('waiting');
      spinner.update('still waiting');
      spinner.stop('done');
      expect(c.err()).toBe('');
    }
  });

  it('on a terminal: the text on stderr, and a final line with a check mark when given one', async () => {
    const c = ioWith({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
    const spinner = await c.io.spinner('waiting for order ord_1');
    spinner.update('order ord_1 is processing');
    spinner.stop('order ord_1 completed');
    expect(c.err()).toContain('waiting for order ord_1');
    expect(c.err()).toContain('✓ order ord_1 completed');
    const plain = ioWith({ stderrIsTTY: true });
    const quiet = await plain.io.spinner('waiting');
    quiet.stop();
    expect(plain.err()).not.toContain('✓');
  });
});

describe('Io spinner that counts the seconds', () => {
  // A person's day: a POST the API held for 8 s showed `placing the order: 2 × amazon-us-50` and no sign of how long.
  it('from SPINNER_ELAPSED_AFTER_S on, the seconds follow the text, through an update too; never before, never unasked', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const c = ioWith({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
      const spinner = await c.io.spinner('placing the order: 2 × amazon-us-50', { elapsed: true });
      await vi.advanceTimersByTimeAsync((SPINNER_ELAPSED_AFTER_S - 1) * 1000);
      expect(c.err()).not.toMatch(/\(\d+ s\)/);
      await vi.advanceTimersByTimeAsync(2000);
      spinner.update('placing the order: 2 × amazon-us-50, retrying');
      await vi.advanceTimersByTimeAsync(1000);
      spinner.stop();
      expect(c.err()).toContain(`placing the order: 2 × amazon-us-50, retrying (${SPINNER_ELAPSED_AFTER_S + 1} s)`);
      const plain = ioWith({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
      const unasked = await plain.io.spinner('waiting');
      await vi.advanceTimersByTimeAsync(10_000);
      unasked.stop();
      expect(plain.err()).not.toMatch(/\(\d+ s\)/);
    } finally {
      vi.useRealTimers();
    }
  });
});

// A person's day: `asking http://… (GET /v1/ping)` turned unchanged for minutes while a slow API was retried.
describe('Io.retrying: a request tried again', () => {
  it('on the turning spinner, its attempt beside the seconds, until the next update; else a notice of its cause', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const c = ioWith({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
      const spinner = await c.io.spinner('placing the order', { elapsed: true });
      await vi.advanceTimersByTimeAsync((SPINNER_ELAPSED_AFTER_S + 1) * 1000);
      c.io.retrying('cannot reach it; trying again in 0.2 s (attempt 2 of 6)', 'attempt 2 of 6');
      await vi.advanceTimersByTimeAsync(200);
      expect(c.err()).toContain(`placing the order (${SPINNER_ELAPSED_AFTER_S + 1} s; attempt 2 of 6)`);
      expect(c.err()).not.toContain('cannot reach it');
      spinner.update('order ord_1: pending');
      await vi.advanceTimersByTimeAsync(1000);
      spinner.stop();
      expect(c.err()).toContain(`order ord_1: pending (${SPINNER_ELAPSED_AFTER_S + 1} s)`);
      expect(c.err()).not.toContain('pending (attempt');
      // With no spinner turning: the whole line, stamped in a log; nothing under --quiet or --json.
      c.io.retrying('cannot reach it; trying again in 0.2 s (attempt 3 of 6)', 'attempt 3 of 6');
      expect(c.err()).toContain('cannot reach it; trying again in 0.2 s (attempt 3 of 6)\n');
      const log = ioWith({ stderrIsTTY: false });
      log.io.retrying('cannot reach it; trying again', 'attempt 2 of 6');
      expect(log.err()).toMatch(new RegExp(`^${ISO.source}cannot reach it; trying again\n$`));
      for (const mode of [
        { json: true, quiet: false },
        { json: false, quiet: true },
      ]) {
        const silent = ioWith({ stderrIsTTY: false });
        silent.io.setMode({ ...mode, verbose: false });
        silent.io.retrying('cannot reach it', 'attempt 2 of 6');
        expect(silent.err()).toBe('');
      }
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("Io on a dumb terminal (TERM=dumb, as in Emacs's shell)", () => {
  it('stderr is written as a log: stamped lines, no spinner, no progress redrawn with \\r and escapes; it still prompts', async () => {
    const d = ioWith({ stdinIsTTY: true, stderrIsTTY: true, env: { TERM: 'dumb' } });
    const spinner = await d.io.spinner('waiting for order ord_1');
    spinner.stop('order ord_1 completed');
    // Said as a log says it instead (orders/wait.ts prints each status where stderrIsTTY is false).
    expect(d.io.stderrIsTTY).toBe(false);
    let at = 0;
    const progress = startProgress(d.io, { label: 'writing the codes', unit: 'codes', total: 10, now: () => at });
    at = LOG_EVERY_MS;
    progress.update(10);
    progress.stop();
    d.io.notice('order ord_1: completed');
    expect(d.err()).not.toContain('\r');
    expect(d.err()).not.toContain('\u001b');
    expect(d.err().split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(new RegExp(`${ISO.source}writing the codes: 10 of 10 codes \\(100%\\)`)),
      expect.stringMatching(new RegExp(`${ISO.source}order ord_1: completed$`)),
    ]);
    expect(d.io.canPrompt).toBe(true);
  });
});

describe('Io spinner on a terminal of no width', () => {
  it('draws nothing where the terminal says it is 0 columns wide (ora divided by it and never stopped clearing)', async () => {
    for (const columns of [0, Number.NaN, -1]) {
      const stderr = Object.assign(new PassThrough(), { columns });
      const c = ioWith({ stderrIsTTY: true, stderr });
      const spinner = await c.io.spinner('waiting for order ord_1');
      spinner.update('order ord_1 is processing');
      spinner.stop('order ord_1 completed');
      expect(c.err(), String(columns)).toBe('');
    }
    expect(zeroWidth(Object.assign(new PassThrough(), { columns: 80 }))).toBe(false);
    expect(zeroWidth(new PassThrough())).toBe(false);
  });
});

describe('Io spinner, one at a time', () => {
  it('a second spinner while one turns, or one under a progress line, draws nothing; after the first stops, one may', async () => {
    const c = ioWith({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
    const first = await c.io.spinner('waiting for order ord_1');
    const second = await c.io.spinner('waiting for order ord_2');
    second.update('order ord_2 is processing');
    second.stop('order ord_2 completed');
    first.stop('order ord_1 completed');
    expect(c.err()).not.toContain('ord_2');
    expect(c.err()).toContain('✓ order ord_1 completed');
    const third = await c.io.spinner('waiting for order ord_3');
    third.stop('order ord_3 completed');
    expect(c.err()).toContain('✓ order ord_3 completed');

    const { startProgress } = await import('../../src/output/progress.js');
    const d = ioWith({ stderrIsTTY: true });
    const plan = startProgress(d.io, { label: 'plan', unit: 'rows', total: 2 });
    const row = await d.io.spinner('waiting for order ord_4');
    row.stop('order ord_4 completed');
    plan.stop();
    expect(d.err()).not.toContain('ord_4');
  });
});

describe('Io, data on stdout under a progress line', () => {
  it('a progress line on a terminal stderr ends before the first byte of data: a pipe may take the data to that terminal', async () => {
    const { startProgress } = await import('../../src/output/progress.js');
    const c = ioWith({ stderrIsTTY: true });
    const p = startProgress(c.io, { label: 'writing the codes of ord_1', unit: 'codes', total: 2, now: () => 0 });
    p.update(2);
    c.io.out('order_id,code');
    const atData = c.err();
    p.update(2);
    p.stop();
    await c.io.flushOut();
    expect(atData).toBe('\rwriting the codes of ord_1: 2 of 2 codes (100%)\x1b[K\r\x1b[K');
    expect(c.err()).toBe(atData);
  });

  it('goes on when stdout is a regular file, which the data never takes to the terminal', async () => {
    const { startProgress } = await import('../../src/output/progress.js');
    const fd = openSync(join(tempDir(), 'codes.csv'), 'w');
    try {
      const c = ioWith({ stderrIsTTY: true, stdoutFd: fd });
      const p = startProgress(c.io, { label: 'x', unit: 'codes', total: 2 });
      p.update(1);
      c.io.out('order_id,code');
      p.update(2);
      p.stop();
      await c.io.flushOut();
      expect(c.err()).toContain('x: 2 of 2 codes (100%)');
    } finally {
      closeSync(fd);
    }
  });
});

describe('Io.flushOut, more', () => {
  const opened: number[] = [];
  afterEach(() => {
    for (const fd of opened.splice(0)) closeSync(fd);
  });
  const fd = (path: string, flags: string): number => {
    const n = openSync(path, flags);
    opened.push(n);
    return n;
  };

  it('a stdout closed at the start (/dev/null open for reading and writing) is exit 8 at a delivery, and only there', async () => {
    const c = ioWith({ stdoutFd: fd('/dev/null', 'r+') });
    c.io.out('the order');
    await expect(c.io.flushOut()).resolves.toBeUndefined();
    const error = await c.io.flushOut({ delivery: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalError);
    expect(error).toMatchObject({
      code: 'output_failed',
      message: 'could not write the output to standard output (it is closed (EBADF))',
    });
    expect((error as LocalError).hint).toMatch(/^send stdout somewhere that can take it/);
    // Once failed, nothing more is written.
    c.io.out('more');
    await expect(c.io.flushOut()).rejects.toBeInstanceOf(LocalError);
  });

  it.skipIf(process.platform !== 'linux')(
    "a user's >/dev/null (write only), a file read-write, or another device read-write is a delivery",
    async () => {
      const file = join(tempDir(), 'out.txt');
      writeFileSync(file, '');
      for (const [path, flags] of [
        ['/dev/null', 'w'],
        [file, 'r+'],
        ['/dev/zero', 'r+'],
      ] as const) {
        const c = ioWith({ stdoutFd: fd(path, flags) });
        c.io.out('the order');
        await expect(c.io.flushOut({ delivery: true })).resolves.toBeUndefined();
      }
      // A descriptor that is not open is not told apart either (the write's own error says it).
      await expect(ioWith({ stdoutFd: 987 }).io.flushOut({ delivery: true })).resolves.toBeUndefined();
    },
  );

  it('waits for writes made while it waits; the first failure is kept, named by its code or its message', async () => {
    let calls = 0;
    const slow = new Writable({
      write(_chunk, _e, callback) {
        calls += 1;
        setTimeout(() => callback(calls === 2 ? Object.assign(new Error('quota'), { code: 'EDQUOT' }) : undefined), 5);
      },
    });
    const c = ioWith({ stdout: slow });
    c.io.out('first');
    const flushing = c.io.flushOut();
    c.io.out('second');
    await expect(flushing).rejects.toMatchObject({ message: 'could not write the output to standard output (EDQUOT)' });
    expect(calls).toBe(2);

    const noCode = ioWith({ stdout: new Writable({ write: (_c, _e, callback) => callback(new Error('went away')) }) });
    noCode.io.out('x');
    await expect(noCode.io.flushOut()).rejects.toMatchObject({
      message: 'could not write the output to standard output (went away)',
    });
  });

  it("an 'error' event on stdout is a failure too, and never an uncaught one", async () => {
    const stdout = new PassThrough();
    const c = ioWith({ stdout });
    c.io.out('x');
    await c.io.flushOut();
    stdout.emit('error', Object.assign(new Error('pipe'), { code: 'EPIPE' }));
    await expect(c.io.flushOut()).rejects.toMatchObject({
      message: 'could not write the output to standard output (the reader closed the pipe)',
      hint: 'the reader stopped before the end (as head does): send the whole output to a file or to a reader that reads it all, then run the command again',
    });
  });

  it('the hint is for its cause: a reader that stopped early needs no disk space, a full disk no reader', () => {
    const fail = (code: string) => stdoutFailed(Object.assign(new Error(code), { code })).hint;
    expect(fail('ENOSPC')).toBe(
      'free some space on the disk stdout goes to, or send it elsewhere, then run the command again',
    );
    expect(fail('EPIPE')).toMatch(/^the reader stopped before the end \(as head does\)/);
    expect(fail('EIO')).toMatch(/^send stdout somewhere that can take it/);
  });
});
