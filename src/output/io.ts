// One object owns the streams, TTY facts, colour, the spinner and prompts; a test builds one over buffers.
import { fstatSync, readFileSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { isatty } from 'node:tty';
import { Chalk, type ChalkInstance } from 'chalk';
import { InterruptedError, LocalError, UsageError } from '../errors.js';
import { redactKeys } from '../secrets.js';
import { endProgress, makeRoom, progressShown } from './progress.js';
import { markIndent, wrapWords } from './wrap.js';
import type { Query } from './exporter.js';

/**
 * What Ctrl-C at a prompt says where the caller gives nothing more fitting: a login's key prompt, say, where nothing
 * was saved. An order's questions say what their "no" says (errors.ts, nothingSent).
 */
export const CANCELLED_AT_PROMPT = 'cancelled at the prompt; nothing was saved or sent';

export interface IoOptions {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  columns?: number;
  color?: boolean | undefined;
  /** The descriptor behind stdout (the process's: 1), checked at flushOut for a stdout closed before the start. */
  stdoutFd?: number | undefined;
}

export interface OutputMode {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  /** `--no-color` sets this false; undefined means decide from the environment. */
  color?: boolean | undefined;
}

export interface Spinner {
  update(text: string): void;
  stop(finalText?: string): void;
}

/** When a spinner that counts (Io.spinner's `elapsed`) starts showing the seconds waited. */
export const SPINNER_ELAPSED_AFTER_S = 3;

export class Io {
  private readonly streams: Pick<IoOptions, 'stdin' | 'stdout' | 'stderr' | 'stdoutFd'>;
  readonly env: NodeJS.ProcessEnv;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  /**
   * stderr is a terminal that redraws a line: not a dumb one (TERM=dumb, Emacs's shell), which shows \r and escapes
   * as they are. There stderr is written as a log is (timestamped lines, no spinner, no progress redrawn), and
   * a run's status lines are said as they come.
   */
  readonly stderrIsTTY: boolean;
  /** stderr is a terminal, dumb or not: a person is there to answer a prompt. */
  private readonly stderrTerminal: boolean;
  json = false;
  /** --raw: a JSON document that is a single string is printed as the string itself (jq -r). */
  raw = false;
  /** --query: applied to every JSON document written with outJson (see output/exporter.ts). */
  query: Query | undefined;
  /** --no-pager sets this false (see output/exporter.ts). */
  pager = true;
  quiet = false;
  verbose = false;
  private colorOverride: boolean | undefined;
  private chalkInstance: ChalkInstance | undefined;
  private errChalkInstance: ChalkInstance | undefined;
  private readonly columnsOverride: number | undefined;
  /** Secrets that must never be written, whole, to any stream. */
  private readonly secrets: string[] = [];
  /** Writes to stdout whose callback has not come yet, and the first error any of them reported. */
  private readonly pendingOut = new Set<Promise<void>>();
  private outFailure: NodeJS.ErrnoException | undefined;
  /** stdout was found closed at the start and forgiven (forgiveUnreadStdout): not looked at again. */
  private stdoutUnread = false;
  /**
   * What a --query that printed null said, where it named a field the document does not have at all (exporter.ts
   * Query.absent): the document reached nobody (orders/lifecycle.ts deliver).
   */
  queryAbsent: string | undefined;
  /** Whether the last document a --query was applied to was a list: its hints' example (`[].order.id` or `id`). */
  queriedList = false;
  /** What the last --query printed: whether it holds the ids of the orders a run placed (lifecycle.ts sayUnprinted). */
  queried: string | undefined;
  private watchingOut = false;
  private watchingErr = false;
  /** A spinner is drawn on the terminal now: a second one stays silent (spinner()). */
  private spinning = false;
  /** The turning spinner's note of a request tried again (retrying), while one turns. */
  private spinnerNote: ((note: string) => void) | undefined;
  /** Whether stdout is a regular file (beforeData): read once, when first needed. */
  private stdoutIsFile: boolean | undefined;

  constructor(options: IoOptions) {
    this.streams = options;
    this.env = options.env;
    this.stdinIsTTY = options.stdinIsTTY;
    this.stdoutIsTTY = options.stdoutIsTTY;
    this.stderrTerminal = options.stderrIsTTY;
    this.stderrIsTTY = options.stderrIsTTY && options.env.TERM !== 'dumb';
    this.columnsOverride = options.columns;
    this.colorOverride = options.color;
  }

  /** Node creates a process stream on first use (stdin on a pipe costs a socket): only a command that uses one pays. */
  static system(): Io {
    return new Io({
      get stdin() {
        return process.stdin;
      },
      get stdout() {
        return process.stdout;
      },
      get stderr() {
        return process.stderr;
      },
      env: process.env,
      stdinIsTTY: isatty(0),
      stdoutIsTTY: isatty(1),
      stderrIsTTY: isatty(2),
      stdoutFd: 1,
    });
  }

  get stdin(): Readable {
    return this.streams.stdin;
  }

  get stdout(): Writable {
    return this.streams.stdout;
  }

  get stderr(): Writable {
    const stderr = this.streams.stderr;
    // A progress line drawn on the terminal makes way for whatever is written next.
    if (this.stderrIsTTY) makeRoom(stderr);
    if (!this.watchingErr) {
      // Where failures are told: one that cannot take them (its reader went away) leaves no one to tell, and its
      // EPIPE, unhandled, would end the run with exit 1 before its data reached stdout. The exit code still tells.
      this.watchingErr = true;
      stderr.on('error', () => undefined);
    }
    return stderr;
  }

  setMode(mode: OutputMode): void {
    this.json = mode.json;
    this.quiet = mode.quiet;
    this.verbose = mode.verbose;
    if (mode.color === false) this.colorOverride = false;
    this.chalkInstance = undefined;
    this.errChalkInstance = undefined;
  }

  addSecret(secret: string | undefined): void {
    if (secret) this.secrets.push(secret);
  }

  redact(text: string): string {
    return redactKeys(text, this.secrets);
  }

  get columns(): number {
    if (this.columnsOverride) return this.columnsOverride;
    const columns = (this.stdout as Writable & { columns?: number }).columns;
    return columns && columns > 20 ? columns : 100;
  }

  /**
   * The width of the terminal stdout is, where it is one and says its width (20 columns or more); undefined in a
   * pipe or a file, whose lines are never broken for a screen.
   */
  get terminalWidth(): number | undefined {
    if (!this.stdoutIsTTY) return undefined;
    const columns = (this.streams.stdout as Writable & { columns?: unknown }).columns;
    return typeof columns === 'number' && Number.isFinite(columns) && columns >= 20 ? columns : undefined;
  }

  /** Colour on stdout (c) follows --no-color, NO_COLOR, FORCE_COLOR, then whether stdout is a terminal. */
  get colorEnabled(): boolean {
    return this.colorOn(this.stdoutIsTTY);
  }

  /**
   * Colour on stderr (ce), as on stdout, but by whether stderr is a terminal: `2>err.log` at a terminal wrote
   * `^[[33mwarning:` into the log, where docs/cron-and-plans.md promises plain lines to grep.
   */
  get errColorEnabled(): boolean {
    return this.colorOn(this.stderrIsTTY);
  }

  private colorOn(tty: boolean): boolean {
    if (this.colorOverride !== undefined) return this.colorOverride;
    const force = this.env.FORCE_COLOR;
    if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
    if (this.env.NO_COLOR !== undefined && this.env.NO_COLOR !== '') return false;
    if (this.env.TERM === 'dumb') return false;
    return tty;
  }

  /** Colours for text on stdout (tables, an order described). */
  get c(): ChalkInstance {
    this.chalkInstance ??= new Chalk({ level: this.colorEnabled ? 1 : 0 });
    return this.chalkInstance;
  }

  /** Colours for text on stderr (warnings, notes, errors, the spinner's mark). */
  get ce(): ChalkInstance {
    this.errChalkInstance ??= new Chalk({ level: this.errColorEnabled ? 1 : 0 });
    return this.errChalkInstance;
  }

  /** Prompts need a person at both ends: stdin and stderr on a terminal, and not CI. */
  get canPrompt(): boolean {
    const ci = this.env.CI;
    return this.stdinIsTTY && this.stderrTerminal && !(ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0');
  }

  /** Data: stdout. Whether it arrived is known only after flushOut(). */
  out(text: string): void {
    this.writeOut(this.redact(text.endsWith('\n') ? text : `${text}\n`));
  }

  /** Exactly one JSON document on stdout. Whether it arrived is known only after flushOut(). */
  outJson(value: unknown): void {
    if (this.query) {
      this.queriedList = Array.isArray(value);
      const selected = this.query(value) ?? null;
      const missed = selected === null ? this.query.missed?.(value) : this.query.lacking?.(value);
      if (missed) this.warn(missed);
      if (missed && this.query.absent?.(value)) this.queryAbsent ??= missed;
      value = selected;
    }
    // Made once: a --query's output is also what its ids are looked for in (lifecycle.ts sayUnprinted).
    const text = this.raw && typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    if (this.query) this.queried = text;
    this.writeOut(this.redact(`${text}\n`));
  }

  /**
   * An item of a stream (webhook events): one compact JSON line with --json (--query applied), else `text`.
   * Resolves once stdout took this line, not every line written since: a steady stream faster than its
   * reader would never be done. Throws LocalError (exit 8) once stdout failed, this line or one before it.
   */
  async outItem(value: unknown, text?: string): Promise<void> {
    const line = text === undefined ? this.lineOf(value) : text.endsWith('\n') ? text : `${text}\n`;
    // Writes reach the stream in order: this one taken means every one before it was.
    await this.writeOut(this.redact(line));
    if (this.outFailure) throw stdoutFailed(this.outFailure);
  }

  private lineOf(value: unknown): string {
    return `${JSON.stringify(this.query ? (this.query(value) ?? null) : value)}\n`;
  }

  /**
   * Delivery is a fact, not an inference: resolves once every stdout write so far has been handed to the
   * kernel, and throws LocalError (exit 8) if any failed (a full disk, a closed pipe, a closed descriptor).
   * An order's intent is resolved only after this returned.
   */
  async flushOut(o: { delivery?: boolean } = {}): Promise<void> {
    while (this.pendingOut.size > 0) await Promise.all([...this.pendingOut]);
    // Only where an order's outcome is being delivered (orders/lifecycle.ts): a parent that gave another
    // command a read-write /dev/null (Node's stdio 'ignore', Python's DEVNULL) meant to throw its output away.
    if (
      o.delivery &&
      !this.stdoutUnread &&
      this.streams.stdoutFd !== undefined &&
      !this.outFailure &&
      closedAtStart(this.streams.stdoutFd)
    ) {
      this.outFailure = Object.assign(new Error('standard output was closed'), { code: 'EBADF' });
    }
    if (this.outFailure) throw stdoutFailed(this.outFailure);
  }

  /**
   * A stdout nobody reads (closed at the start, or a parent's read-write /dev/null: EBADF) is forgiven where the
   * outcome reached the user another way (its codes in a file): true when it was such a failure, now cleared.
   * Any other failure (a full disk, a reader gone) stays, and is still exit 8.
   */
  forgiveUnreadStdout(): boolean {
    if (this.outFailure?.code !== 'EBADF') return false;
    this.outFailure = undefined;
    this.stdoutUnread = true;
    return true;
  }

  private writeOut(text: string): Promise<void> {
    if (this.outFailure) return Promise.resolve();
    this.beforeData();
    if (!this.watchingOut) {
      // The failure reaches the write callback; without a listener the stream's 'error' event would also
      // end the process with a stack trace.
      this.watchingOut = true;
      this.stdout.on('error', (error: NodeJS.ErrnoException) => {
        this.outFailure ??= error;
      });
    }
    const written = new Promise<void>((resolve) => {
      const done = (error?: Error | null): void => {
        if (error) this.outFailure ??= error as NodeJS.ErrnoException;
        resolve();
      };
      try {
        this.stdout.write(text, done);
      } catch (error) {
        done(error as Error);
      }
    });
    this.pendingOut.add(written);
    void written.then(() => this.pendingOut.delete(written));
    return written;
  }

  /**
   * Before data goes to stdout (writeOut; the codes export writes its own): a progress line on a terminal's
   * stderr is cleared for good (progress.ts, endProgress), since a pipe may take the data to that terminal.
   * Not for a stdout redirected to a file: the data never reaches the terminal, and the line may go on.
   */
  beforeData(): void {
    const stderr = this.streams.stderr;
    if (!this.stderrIsTTY || !progressShown(stderr)) return;
    if (this.stdoutIsFile === undefined) {
      const fd = this.streams.stdoutFd;
      try {
        this.stdoutIsFile = fd !== undefined && fstatSync(fd).isFile();
      } catch {
        this.stdoutIsFile = false;
      }
    }
    if (!this.stdoutIsFile) endProgress(stderr);
  }

  /** Whether notices (and the summary lines said through them) reach stderr: not under --quiet or --json. */
  get noticesSaid(): boolean {
    return !(this.quiet || this.json);
  }

  /** Progress and notices: stderr, silenced by --quiet and --json. */
  notice(text: string): void {
    if (!this.noticesSaid) return;
    this.stderr.write(`${this.stamp()}${this.fitted(this.redact(text))}\n`);
  }

  /** Things the user must hear in every mode, --json and --quiet too (stderr): a resumed order, a settled one. */
  say(text: string): void {
    this.stderr.write(`${this.stamp()}${this.fitted(this.redact(text))}\n`);
  }

  /**
   * A line of ours for stderr, broken at its spaces to the terminal's width when stderr is one (output/wrap.ts),
   * its continuations under its first word after `label` (`warning: `, `hint: `); elsewhere (a pipe, a log) as it
   * is, one line. Text already redacted: a key cut in two would not be found by redact() any more.
   */
  fitted(text: string, label = ''): string {
    const columns = (this.streams.stderr as Writable & { columns?: unknown }).columns;
    if (!this.stderrIsTTY || typeof columns !== 'number' || !Number.isFinite(columns) || columns < 20) return text;
    return wrapWords(text, columns, label.length, label === '' ? markIndent(text) : label.length);
  }

  /**
   * A request about to be tried again: `short` on the spinner where one turns (`attempt 2 of 6`); else `line`, the
   * cause and the wait, as a notice (a log's stamped line says why the run waits). Not over a plan's progress line,
   * whose rate already says the rows wait.
   */
  retrying(line: string, short: string): void {
    if (this.spinnerNote) this.spinnerNote(short);
    else if (!(this.stderrIsTTY && progressShown(this.streams.stderr))) this.notice(line);
  }

  /** Warnings: stderr, silenced only by --quiet. */
  warn(text: string): void {
    if (this.quiet) return;
    this.caution(text);
  }

  /**
   * A warning of money, said in every mode, --quiet too, as say() is: this run charges again (a second order), or an
   * order may have been charged and is left to finish. A cron line with --quiet ordered a copied plan's rows twice
   * with nothing on stderr (an adversarial review); the single order's second order was always said.
   */
  caution(text: string): void {
    this.stderr.write(`${this.stamp()}${this.ce.yellow('warning:')} ${this.fitted(this.redact(text), 'warning: ')}\n`);
  }

  /**
   * Cron reads stderr from a log file: there, each notice, warning, progress and --verbose line starts with an
   * ISO 8601 time.
   */
  stamp(): string {
    if (this.stderrIsTTY) return '';
    // The error printer stamps too: a clock that throws (a broken Date) must not take the error, and its redaction, with it.
    try {
      return `${isoTime(Date.now())} `;
    } catch {
      return '';
    }
  }

  /** --verbose lines: stderr, stamped as the others (a request's line in a log says when it was sent). */
  debug(text: string): void {
    if (!this.verbose) return;
    this.stderr.write(this.redact(`${this.stamp()}${this.ce.dim(text)}\n`));
  }

  /** Raw stderr write for the error printer. */
  errRaw(text: string): void {
    this.stderr.write(this.redact(text));
  }

  /**
   * A spinner on a terminal stderr; elsewhere nothing (callers print status changes with notice()). `elapsed`: from
   * SPINNER_ELAPSED_AFTER_S on, the seconds waited follow the text (`placing the order: 2 × amazon-us-50 (8 s)`): a
   * request the API holds for long showed a spinner and no sign of how long (a person's day).
   */
  async spinner(text: string, o: { elapsed?: boolean } = {}): Promise<Spinner> {
    // One moving line at a time on a terminal: a plan's rows wait side by side under the plan's progress line,
    // and spinners drawn over each other (or over it) leave debris ("completedg") and ora's own warning.
    if (
      this.quiet ||
      this.json ||
      !this.stderrIsTTY ||
      zeroWidth(this.streams.stderr) ||
      this.spinning ||
      progressShown(this.streams.stderr)
    ) {
      return { update: () => undefined, stop: () => undefined };
    }
    this.spinning = true;
    const { default: ora } = await import('ora');
    const spinner = ora({
      text,
      stream: this.stderr as NodeJS.WritableStream,
      color: 'cyan',
      discardStdin: false,
      isEnabled: true,
    }).start();
    let base = text;
    let note = '';
    const started = Date.now();
    const shown = (): string => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      const said = [o.elapsed && seconds >= SPINNER_ELAPSED_AFTER_S ? `${seconds} s` : '', note].filter(Boolean);
      return said.length > 0 ? `${base} (${said.join('; ')})` : base;
    };
    this.spinnerNote = (next) => {
      note = next;
      spinner.text = shown();
    };
    // Never keeps the process alive: a run that is done exits whatever the spinner shows.
    const ticking = o.elapsed ? setInterval(() => (spinner.text = shown()), 1000).unref() : undefined;
    return {
      update: (next) => {
        base = next;
        note = '';
        spinner.text = shown();
      },
      stop: (finalText) => {
        if (ticking) clearInterval(ticking);
        if (!spinner.isSpinning) return;
        this.spinning = false;
        this.spinnerNote = undefined;
        if (finalText) spinner.stopAndPersist({ symbol: this.ce.green('✓'), text: finalText });
        else spinner.stop();
      },
    };
  }

  /**
   * Ask yes/no. Non-interactive runs never prompt: they fail naming the flag that answers. `subject` names what is
   * confirmed for the non-interactive error ("a live order"); `message` is the question; `cancelled`, what Ctrl-C
   * throws (the error "no" leads to, where the caller stops on no), else CANCELLED_AT_PROMPT.
   */
  async confirm(
    message: string,
    answeringFlag: string,
    subject = 'this',
    o: { defaultAnswer?: boolean; cancelled?: InterruptedError; hint?: string } = {},
  ): Promise<boolean> {
    if (!this.canPrompt) {
      throw new UsageError(`${subject} needs confirmation, and this run is not interactive`, {
        code: 'confirmation_required',
        // A question whose first way on is not the flag (another run placing those rows right now) gives its own.
        hint: o.hint ?? `pass ${answeringFlag} to confirm without a prompt`,
      });
    }
    const { confirm } = await import('@inquirer/prompts');
    return this.promptOrInterrupt(
      () => confirm({ message, default: o.defaultAnswer ?? false }, this.promptContext()),
      o.cancelled,
    );
  }

  /** A masked secret prompt. */
  async password(message: string, answeringFlag: string, validate?: (value: string) => true | string): Promise<string> {
    if (!this.canPrompt) {
      throw new UsageError(`${message}: this run is not interactive, so it cannot prompt`, {
        code: 'prompt_unavailable',
        hint: `pass ${answeringFlag}`,
      });
    }
    const { password } = await import('@inquirer/prompts');
    return this.promptOrInterrupt(() =>
      password({ message, mask: '*', ...(validate ? { validate } : {}) }, this.promptContext()),
    );
  }

  /**
   * Any @inquirer/prompts prompt, bound to this Io's streams; Ctrl-C is an interruption, `cancelled` where given,
   * else CANCELLED_AT_PROMPT. Callers check canPrompt first (a run that is not interactive never prompts).
   */
  async prompt<T>(
    ask: (
      prompts: typeof import('@inquirer/prompts'),
      context: { input: Readable; output: Writable; signal?: AbortSignal },
    ) => Promise<T>,
    cancelled?: InterruptedError,
  ): Promise<T> {
    const prompts = await import('@inquirer/prompts');
    return this.promptOrInterrupt(() => ask(prompts, this.promptContext()), cancelled);
  }

  /** The run's signal (SIGINT, SIGTERM, SIGHUP): a question it interrupts ends at once, as Ctrl-C at it does. */
  private stopSignal: AbortSignal | undefined;

  /**
   * Questions end when `signal` aborts: a `kill` of a run waiting at a question left it there 5 s, then said "an
   * order it was placing is kept" of an order never sent, over the prompt (a review). Now its `cancelled` words.
   */
  stopPromptsOn(signal: AbortSignal): void {
    this.stopSignal = signal;
  }

  private promptContext(): { input: Readable; output: Writable; signal?: AbortSignal } {
    return { input: this.stdin, output: this.stderr, ...(this.stopSignal ? { signal: this.stopSignal } : {}) };
  }

  /** Questions asked so far: a check made before them is made again after (order/place.ts askedMeanwhile). */
  questionsAsked = 0;

  private async promptOrInterrupt<T>(ask: () => Promise<T>, cancelled?: InterruptedError): Promise<T> {
    this.questionsAsked++;
    try {
      return await ask();
    } catch (error) {
      if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) {
        throw cancelled ?? new InterruptedError(CANCELLED_AT_PROMPT);
      }
      throw error;
    }
  }
}

/** A write to stdout that failed (a full disk, a closed pipe, a closed descriptor): exit 8, for every writer of stdout. */
export function stdoutFailed(failure: NodeJS.ErrnoException, what = 'the output'): LocalError {
  const why =
    failure.code === 'EPIPE'
      ? 'the reader closed the pipe'
      : failure.code === 'ENOSPC'
        ? 'no space left on the device'
        : failure.code === 'EBADF'
          ? 'it is closed (EBADF)'
          : (failure.code ?? failure.message);
  return new LocalError(`could not write ${what} to standard output (${why})`, {
    code: 'output_failed',
    // Said for its cause: a reader that stopped early (`| head`) needs no disk space, and a full disk no reader.
    hint:
      failure.code === 'EPIPE'
        ? 'the reader stopped before the end (as head does): send the whole output to a file or to a reader that reads it all, then run the command again'
        : failure.code === 'ENOSPC'
          ? 'free some space on the disk stdout goes to, or send it elsewhere, then run the command again'
          : 'send stdout somewhere that can take it (a file on a disk with room, or a reader that reads to the end), then run the command again',
    cause: failure,
  });
}

/**
 * A descriptor closed when the process started (`exec 1>&-`): Node reopens it on /dev/null for reading and
 * writing, and every write then "succeeds". A shell's `>/dev/null` opens it for writing only, and is the
 * user's choice. Linux only (the flags come from /proc); elsewhere a closed stdout is not told apart.
 */
function closedAtStart(fd: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
    if (flags === undefined || (parseInt(flags, 8) & 3) !== 2) return false;
    const stat = fstatSync(fd);
    return stat.isCharacterDevice() && stat.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/**
 * Whether a terminal says it is no columns wide. A pty without a size (`docker exec -t`, `script` in CI, some IDE
 * shells) says 0, and ora divides by it: it cleared an endless count of lines, 27 MB of escapes in 20 s, and the
 * order it was waiting for was never printed (an adversarial review). No spinner there: the notices say the same.
 * A stream that says nothing of its width (not a terminal's) is drawn on at ora's 80.
 */
export function zeroWidth(stream: unknown): boolean {
  const columns = (stream as { columns?: unknown }).columns;
  return typeof columns === 'number' && !(Number.isFinite(columns) && columns >= 1);
}

/**
 * `new Date(ms).toISOString()`, written from the date's UTC fields. V8's toISOString looks up the machine's time
 * zone and its display name (ICU's zone tables) although an ISO time never shows them: the first stamped line
 * mapped ~1 MiB of ICU's code and data that nothing else of an export reads (BENCHMARKS.md, issue 33). Years
 * outside 0–9999, which toISOString writes with a sign and six digits, and an invalid time go to it as before.
 */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) return d.toISOString();
  return `${pad(year, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(
    d.getUTCMinutes(),
    2,
  )}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
