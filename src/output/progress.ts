// How far a long step is: codes written of the order's quantity, catalog products read of the stated total,
// plan rows done of all. On a terminal one line on stderr, redrawn in place at most ten times a second and
// cleared at the end; elsewhere (cron, CI, a log file) no redraws, but a timestamped line every ten seconds
// for work that lasts longer than that. Silent under --quiet and --json. See README, "Progress and logs".
import type { Writable } from 'node:stream';
import { grouped } from './words.js';

/** What progress needs of the Io: stderr, whether it is a terminal, the mode, and the log's timestamps. */
export interface ProgressIo {
  readonly stderr: Writable;
  readonly stderrIsTTY: boolean;
  readonly quiet: boolean;
  readonly json: boolean;
  stamp(): string;
}

export interface ProgressOptions {
  /** What is being done, for a person: "writing the codes of ord_123". */
  label: string;
  /** A shorter label for a terminal too narrow for the whole line: "writing codes". */
  short?: string;
  /** The unit counted, plural: "codes", "products", "rows". */
  unit: string;
  /** How many there are, where known; without it the line shows the count and the rate only. */
  total?: number | undefined;
  /** Milliseconds since some fixed point; a test passes a fake clock. */
  now?: () => number;
  /**
   * What a pause between updates is spent on ("waiting for the API"): the line is drawn then too, each second on a
   * terminal (each LOG_EVERY_MS in a log), with how long the wait has lasted. Without it a slow API left the screen
   * still for as long as it took to send the first page (20 s, a person's-day review), and a log said nothing.
   * A function is asked at each drawing: what the wait is on may change (a plan's rows wait on the API, or on
   * another run's hold of the order journal).
   */
  waiting?: string | (() => string);
}

export interface Progress {
  /** `done` so far (and the total, once it becomes known). Cheap: it draws only when a redraw is due. */
  update(done: number, total?: number): void;
  /** Clears the line on a terminal. Safe to call twice. */
  stop(): void;
}

/** Redraws on a terminal at most this often. */
export const REDRAW_MS = 100;
/** On a terminal, a wait this long between updates is drawn (ProgressOptions.waiting). */
export const WAITING_EVERY_MS = 1000;
/** Not on a terminal: a line at most this often, the first one once the work has lasted this long. */
export const LOG_EVERY_MS = 10_000;

const NONE: Progress = { update: () => undefined, stop: () => undefined };

/**
 * Terminals with a progress line: one line at a time (a plan's rows write their codes under the plan's
 * line). `erase` clears it when drawn, so that another line on stderr does not land beside it; `stop` ends it.
 */
const busy = new WeakMap<Writable, { erase(): void; stop(): void }>();

/** Whether a progress line owns the terminal's stderr now (a spinner beside it would garble both). */
export function progressShown(stderr: Writable): boolean {
  return busy.has(stderr);
}

/** Before any other line on a terminal's stderr: the progress line makes way, and is drawn again at its next update. */
export function makeRoom(stderr: Writable): void {
  busy.get(stderr)?.erase();
}

/**
 * Before data on stdout while stderr is a terminal: the progress line is cleared for good. stdout may be a pipe
 * into a reader that writes to the same terminal (`| cat`, `| head`), at a time of its own: a line drawn there
 * would have the data glued to it, and its clearing, later, would wipe a line of the data instead.
 */
export function endProgress(stderr: Writable): void {
  busy.get(stderr)?.stop();
}

export function startProgress(io: ProgressIo, o: ProgressOptions): Progress {
  if (io.quiet || io.json) return NONE;
  const tty = io.stderrIsTTY;
  // Read once: Io's stderr getter makes room for other lines, this one's own included.
  const stderr = io.stderr;
  if (tty && busy.has(stderr)) return NONE;
  // Milliseconds from process.hrtime, not performance.now(): the global `performance` loads node:perf_hooks and its
  // timing modules on first use (~0.9 MiB of a run's peak RSS), for a clock this line reads once a second.
  const now = o.now ?? monotonicMs;
  const started = now();
  let total = o.total;
  let done = 0;
  let next = tty ? started : started + LOG_EVERY_MS;
  let drawn = false;
  let stopped = false;
  let updatedAt = started;
  const period = tty ? WAITING_EVERY_MS : LOG_EVERY_MS;
  // Checked each period: a wait as long as one is drawn, with how long it has lasted. Never keeps the process alive.
  const waits =
    o.waiting === undefined
      ? undefined
      : setInterval(() => {
          const at = now();
          if (at - updatedAt >= period) draw(at, at - updatedAt);
        }, period);
  waits?.unref();
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    if (waits) clearInterval(waits);
    if (tty) busy.delete(stderr);
    if (drawn) stderr.write('\r\x1b[K');
  };
  if (tty) {
    busy.set(stderr, {
      erase: () => {
        if (!drawn) return;
        drawn = false;
        next = 0;
        stderr.write('\r\x1b[K');
      },
      stop,
    });
  }
  const width = (): number => {
    const columns = (stderr as Writable & { columns?: number }).columns;
    return columns && columns > 20 ? columns : 80;
  };
  const draw = (at: number, waited?: number): void => {
    const on = typeof o.waiting === 'function' ? o.waiting() : o.waiting;
    const pause = waited === undefined ? '' : `, ${on} (${duration(waited / 1000)})`;
    // While waiting, no rate and no time left: both would be read as still true.
    const elapsed = waited === undefined ? at - started : 0;
    const line = progressLine(o.label, o.unit, done, total, elapsed) + pause;
    if (tty) {
      // \r back to the start of the line, \x1b[K erases what a longer earlier line left.
      stderr.write(`\r${narrowed(line, o, done, total, elapsed, width() - 1, pause)}\x1b[K`);
      drawn = true;
    } else {
      stderr.write(`${io.stamp()}${line}\n`);
    }
  };
  return {
    update(count, newTotal) {
      if (stopped) return;
      done = count;
      if (newTotal !== undefined) total = newTotal;
      const at = now();
      updatedAt = at;
      // The last count is drawn on a terminal however soon it comes: the line ends at its total, not short of it.
      const last = tty && total !== undefined && done >= total;
      if (at < next && !last) return;
      next = at + (tty ? REDRAW_MS : LOG_EVERY_MS);
      draw(at);
    },
    stop,
  };
}

/** `writing the codes of ord_1: 50,000 of 100,000 codes (50%), 25,000 codes/s, 2 s left`. */
export function progressLine(
  label: string,
  unit: string,
  done: number,
  total: number | undefined,
  elapsedMs: number,
): string {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? done / seconds : 0;
  const rateText = rateWords(rate, ` ${unit}`);
  if (total === undefined || total <= 0) return `${label}: ${grouped(done)} ${unit}${rateText}`;
  const percent = Math.min(100, Math.floor((done * 100) / total));
  const left = rate > 0 && done < total ? `, ${duration((total - done) / rate)} left` : '';
  return `${label}: ${grouped(done)} of ${grouped(total)} ${unit} (${percent}%)${rateText}${left}`;
}

/**
 * `, 25,000 codes/s`, or under one a second `, 4 rows/min`, or nothing under one a minute: a plan whose rows wait on
 * their orders read "0 rows/s" in a cron log (a review).
 */
function rateWords(perSecond: number, unit: string): string {
  if (Math.round(perSecond) >= 1) return `, ${grouped(Math.round(perSecond))}${unit}/s`;
  const perMinute = Math.round(perSecond * 60);
  return perMinute >= 1 ? `, ${grouped(perMinute)}${unit}/min` : '';
}

/** Seconds for a person: `42 s`, `3 min 5 s`, `1 h 2 min`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** How long a run took, for its summary line: `0.8 s`, `31.2 s`, `3 min 5 s`. */
export function took(seconds: number): string {
  return seconds < 60 ? `${seconds.toFixed(1)} s` : duration(seconds);
}

/**
 * A terminal line that fits: the whole line where it does; else the numbers kept and the words dropped (`writing
 * codes: 68,000/200,000 (34%), 25,000/s, 5 s left`), the short label in place of the long one; cut only if even
 * that is too wide. A person at 80 columns sees the percentage and the time left, not an ellipsis where they were.
 */
export function narrowed(
  line: string,
  o: Pick<ProgressOptions, 'label' | 'short'>,
  done: number,
  total: number | undefined,
  elapsedMs: number,
  width: number,
  /** What a wait is spent on, and for how long, as the line ends with it: kept in the shorter lines too. */
  pause = '',
): string {
  if (line.length <= width) return line;
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? done / seconds : 0;
  const parts = [total !== undefined && total > 0 ? `${grouped(done)}/${grouped(total)}` : grouped(done)];
  if (total !== undefined && total > 0) parts[0] += ` (${Math.min(100, Math.floor((done * 100) / total))}%)`;
  const said = rateWords(rate, '');
  if (said) parts.push(said.slice(2));
  if (rate > 0 && total !== undefined && done < total) parts.push(`${duration((total - done) / rate)} left`);
  const numbers = parts.join(', ');
  for (const label of [o.label, o.short ?? o.label]) {
    const compact = `${label}: ${numbers}${pause}`;
    if (compact.length <= width) return compact;
  }
  return fit(`${o.short ?? o.label}: ${numbers}${pause}`, width);
}

/** A line that would wrap is cut with an ellipsis: a wrapped line cannot be redrawn in place. */
function fit(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

/** What summary lines need of the Io. */
export interface SummaryIo {
  readonly stderrIsTTY: boolean;
  notice(text: string): void;
}

/**
 * Not on a terminal, a run that ordered or exported ends with one line that tells its story in the log:
 * what was ordered, the order, where the codes went, how long the run took. A terminal has seen all that.
 */
export function runSummary(io: SummaryIo, what: string, seconds = process.uptime()): void {
  if (io.stderrIsTTY) return;
  io.notice(`done: ${what}; took ${took(seconds)}`);
}

/** A monotonic clock in milliseconds (process.hrtime: the same clock performance.now() reads). */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
