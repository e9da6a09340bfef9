// Progress on stderr (output/progress.ts): redrawn in place on a terminal, timestamped lines in a log.
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import {
  endProgress,
  LOG_EVERY_MS,
  makeRoom,
  progressLine,
  runSummary,
  startProgress,
  type ProgressIo,
} from '../../src/output/progress.js';

function fakeIo(tty: boolean, mode: { quiet?: boolean; json?: boolean } = {}): ProgressIo & { text(): string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return {
    stderr,
    stderrIsTTY: tty,
    quiet: mode.quiet ?? false,
    json: mode.json ?? false,
    stamp: () => (tty ? '' : '2026-11-29T00:00:00.000Z '),
    text: () => text,
  };
}

/** A clock the test moves by hand. */
function clock(): { now: () => number; advance(ms: number): void } {
  let t = 0;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('progress on a terminal', () => {
  it('redraws one line in place at most ten times a second, and clears it at the end', () => {
    const io = fakeIo(true);
    const c = clock();
    const p = startProgress(io, { label: 'writing the codes of ord_1', unit: 'codes', total: 1000, now: c.now });
    for (let i = 1; i <= 100; i++) {
      c.advance(10);
      p.update(i * 5);
    }
    p.stop();
    const draws = io
      .text()
      .split('\r')
      .filter((s) => s.startsWith('writing'));
    // 1000 ms of updates every 10 ms: at most one draw per 100 ms, plus the first.
    expect(draws.length).toBeGreaterThanOrEqual(9);
    expect(draws.length).toBeLessThanOrEqual(11);
    expect(io.text()).not.toContain('\n');
    expect(io.text().endsWith('\r\x1b[K')).toBe(true);
    expect(draws.at(-1)).toMatch(
      // eslint-disable-next-line no-control-regex
      /^writing the codes of ord_1: 4\d\d of 1,000 codes \(4\d%\), 500 codes\/s, 1 s left\x1b\[K$/,
    );
  });

  it('draws the last count however soon it comes', () => {
    const io = fakeIo(true);
    const c = clock();
    const p = startProgress(io, { label: 'x', unit: 'codes', total: 10, now: c.now });
    p.update(1);
    c.advance(1);
    p.update(10);
    expect(io.text()).toContain('10 of 10 codes (100%)');
  });

  it('draws one line at a time: a second progress under the first stays silent', () => {
    const io = fakeIo(true);
    const outer = startProgress(io, { label: 'plan', unit: 'rows', total: 2 });
    const inner = startProgress(io, { label: 'writing the codes of ord_2', unit: 'codes', total: 10 });
    inner.update(5);
    inner.stop();
    outer.update(1);
    outer.stop();
    expect(io.text()).not.toContain('ord_2');
    expect(io.text()).toContain('plan: 1 of 2 rows (50%)');
  });

  it('makes way for another line on stderr, and is drawn again at its next update', () => {
    const io = fakeIo(true);
    const c = clock();
    const p = startProgress(io, { label: 'x', unit: 'codes', total: 10, now: c.now });
    p.update(1);
    makeRoom(io.stderr);
    io.stderr.write('warning: slow\n');
    c.advance(1000);
    p.update(2);
    p.stop();
    expect(io.text()).toBe(
      '\rx: 1 of 10 codes (10%)\x1b[K\r\x1b[Kwarning: slow\n\rx: 2 of 10 codes (20%), 2 codes/s, 4 s left\x1b[K\r\x1b[K',
    );
  });

  it('ends for good before data on stdout: cleared once, drawn no more, and its stop() writes nothing after the data', () => {
    const io = fakeIo(true);
    const c = clock();
    const p = startProgress(io, { label: 'x', unit: 'codes', total: 10, now: c.now });
    p.update(10);
    endProgress(io.stderr);
    const atData = io.text();
    c.advance(1000);
    p.update(10);
    p.stop();
    endProgress(io.stderr);
    expect(atData).toBe('\rx: 10 of 10 codes (100%)\x1b[K\r\x1b[K');
    expect(io.text()).toBe(atData);
    // The terminal is free again: the next progress line is drawn.
    startProgress(io, { label: 'y', unit: 'codes', total: 1 }).update(1);
    expect(io.text()).toContain('y: 1 of 1 codes');
  });

  it('says nothing under --quiet or --json', () => {
    for (const mode of [{ quiet: true }, { json: true }]) {
      const io = fakeIo(true, mode);
      const p = startProgress(io, { label: 'x', unit: 'codes', total: 10 });
      p.update(10);
      p.stop();
      expect(io.text()).toBe('');
    }
  });
});

describe('progress on a narrow terminal', () => {
  it('at 80 columns a long order id keeps the percentage, rate and time left: words go, not numbers', () => {
    const io = fakeIo(true);
    Object.assign(io.stderr, { columns: 80 });
    const c = clock();
    const p = startProgress(io, {
      label: 'writing the codes of ord_0dcf39e37b0040f88f383636',
      short: 'writing codes',
      unit: 'codes',
      total: 200_000,
      now: c.now,
    });
    c.advance(2000);
    p.update(68_000);
    const drawn = io.text().split('\r').filter(Boolean).at(-1)!.replace('\x1b[K', '');
    expect(drawn).toBe('writing codes: 68,000/200,000 (34%), 34,000/s, 4 s left');
    expect(drawn.length).toBeLessThan(80);
    p.stop();
  });

  it('keeps the long label where the numbers fit beside it, and cuts only what nothing else fits', async () => {
    const { narrowed } = await import('../../src/output/progress.js');
    const o = { label: 'writing the codes of ord_1', short: 'writing codes' };
    const whole = progressLine(o.label, 'codes', 500, 1000, 1000);
    expect(narrowed(whole, o, 500, 1000, 1000, 200)).toBe(whole);
    expect(narrowed(whole, o, 500, 1000, 1000, 60)).toBe(
      'writing the codes of ord_1: 500/1,000 (50%), 500/s, 1 s left',
    );
    expect(narrowed(whole, o, 500, 1000, 1000, 50)).toBe('writing codes: 500/1,000 (50%), 500/s, 1 s left');
    expect(narrowed(whole, o, 500, 1000, 1000, 30)).toBe('writing codes: 500/1,000 (50%…');
  });
});

describe('progress in a log', () => {
  it('writes no redraws, and one timestamped line every ten seconds of work that lasts longer', () => {
    const io = fakeIo(false);
    const c = clock();
    const p = startProgress(io, { label: 'writing the codes of ord_1', unit: 'codes', total: 100_000, now: c.now });
    for (let s = 1; s <= 25; s++) {
      c.advance(1000);
      p.update(s * 4000);
    }
    p.stop();
    const lines = io.text().split('\n').filter(Boolean);
    expect(io.text()).not.toContain('\r');
    expect(lines).toEqual([
      '2026-11-29T00:00:00.000Z writing the codes of ord_1: 40,000 of 100,000 codes (40%), 4,000 codes/s, 15 s left',
      '2026-11-29T00:00:00.000Z writing the codes of ord_1: 80,000 of 100,000 codes (80%), 4,000 codes/s, 5 s left',
    ]);
  });

  it('says nothing of work shorter than ten seconds', () => {
    const io = fakeIo(false);
    const c = clock();
    const p = startProgress(io, { label: 'x', unit: 'codes', total: 10, now: c.now });
    c.advance(LOG_EVERY_MS - 1);
    p.update(10);
    p.stop();
    expect(io.text()).toBe('');
  });

  it('ends a run with one summary line; a terminal gets none', () => {
    const lines: string[] = [];
    runSummary(
      { stderrIsTTY: false, notice: (t) => lines.push(t) },
      'ordered 5 × amazon-us-25: order ord_1 completed',
      31.24,
    );
    runSummary({ stderrIsTTY: true, notice: (t) => lines.push(t) }, 'ordered', 1);
    expect(lines).toEqual(['done: ordered 5 × amazon-us-25: order ord_1 completed; took 31.2 s']);
  });
});

describe('progressLine', () => {
  it('shows the count and the rate where the total is unknown', () => {
    expect(progressLine('reading the catalog', 'products', 2000, undefined, 2000)).toBe(
      'reading the catalog: 2,000 products, 1,000 products/s',
    );
  });
  // A review: a plan whose rows waited on their orders read "0 rows/s" in a cron log.
  it('a rate under one a second is said a minute, and under one a minute not at all', () => {
    expect(progressLine('plan', 'rows', 1, 6, 13_000)).toBe('plan: 1 of 6 rows (16%), 5 rows/min, 1 min 5 s left');
    expect(progressLine('plan', 'rows', 1, 6, 240_000)).toBe('plan: 1 of 6 rows (16%), 20 min 0 s left');
    expect(progressLine('plan', 'rows', 3, 6, 2000)).toBe('plan: 3 of 6 rows (50%), 2 rows/s, 2 s left');
  });
  it('says minutes for long waits', () => {
    expect(progressLine('w', 'codes', 1000, 1_000_000, 1000)).toBe(
      'w: 1,000 of 1,000,000 codes (0%), 1,000 codes/s, 16 min 39 s left',
    );
  });
});

// Broke: a slow API left the screen still after "✓ order … completed" for as long as it took to send the first page
// (20 s, a person's-day review): the line is drawn only at an update, and none came.
describe('a wait between updates (ProgressOptions.waiting)', () => {
  it('is drawn each second on a terminal, with how long it has lasted, and no longer once stopped', () => {
    vi.useFakeTimers();
    try {
      const io = fakeIo(true);
      const now = (): number => Date.now();
      const p = startProgress(io, {
        label: 'writing the codes of ord_1',
        short: 'writing codes',
        unit: 'codes',
        total: 100_000,
        now,
        waiting: 'waiting for the API',
      });
      vi.advanceTimersByTime(999);
      expect(io.text()).toBe('');
      vi.advanceTimersByTime(12_001);
      const draws = io.text().split('\r').filter(Boolean);
      expect(draws.at(-1)).toBe(
        'writing the codes of ord_1: 0 of 100,000 codes (0%), waiting for the API (13 s)\x1b[K',
      );
      // Updates flowing: no waiting words; a pause after them counts from the last update.
      p.update(50_000);
      vi.advanceTimersByTime(500);
      expect(io.text().split('\r').at(-1)).not.toContain('waiting');
      vi.advanceTimersByTime(3_000);
      // While waiting no rate and no time left, which would read as still true.
      expect(io.text().split('\r').at(-1)).toBe(
        'writing the codes of ord_1: 50,000/100,000 (50%), waiting for the API (3 s)\x1b[K',
      );
      p.stop();
      const after = io.text();
      vi.advanceTimersByTime(10_000);
      expect(io.text()).toBe(after);
    } finally {
      vi.useRealTimers();
    }
  });

  it('in a log, a stamped line each ten seconds of waiting; without `waiting`, nothing', () => {
    vi.useFakeTimers();
    try {
      const io = fakeIo(false);
      const plain = fakeIo(false);
      const now = (): number => Date.now();
      const o = { label: 'writing the codes of ord_1', unit: 'codes', total: 10, now };
      const p = startProgress(io, { ...o, waiting: 'waiting for the API' });
      const q = startProgress(plain, o);
      vi.advanceTimersByTime(LOG_EVERY_MS * 2);
      expect(io.text()).toBe(
        '2026-11-29T00:00:00.000Z writing the codes of ord_1: 0 of 10 codes (0%), waiting for the API (10 s)\n' +
          '2026-11-29T00:00:00.000Z writing the codes of ord_1: 0 of 10 codes (0%), waiting for the API (20 s)\n',
      );
      expect(plain.text()).toBe('');
      p.stop();
      q.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the wait in the line narrowed for 80 columns', () => {
    const io = fakeIo(true);
    (io.stderr as unknown as { columns: number }).columns = 60;
    vi.useFakeTimers();
    try {
      const p = startProgress(io, {
        label: 'writing the codes of ord_0123456789abcdef01234567',
        short: 'writing codes',
        unit: 'codes',
        total: 100_000,
        now: () => Date.now(),
        waiting: 'waiting for the API',
      });
      vi.advanceTimersByTime(2_000);
      expect(io.text().split('\r').at(-1)).toBe('writing codes: 0/100,000 (0%), waiting for the API (2 s)\x1b[K');
      p.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
