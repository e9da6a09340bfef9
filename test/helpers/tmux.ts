// A real terminal for interactive tests: tmux runs a command on its own server (-L, unique per
// terminal), send-keys types, capture-pane reads what a person would see. Screens go to the leak check.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { BIN } from './e2e.js';
import { recordOutput } from './leaks.js';

export interface Terminal {
  /** Types text literally (no key names). */
  type(text: string): void;
  /** Presses keys by tmux name: 'Enter', 'Tab', 'C-c'. */
  press(...keys: string[]): void;
  /** Types text literally, then presses Enter: an answer to a prompt. */
  answer(text: string): void;
  /** Text and Enter in one write, as a paste of a line arrives (the program reads them at once). */
  pasteLine(text: string): void;
  /** What the screen shows now, trailing blank lines dropped. */
  screen(): string;
  /** Waits until the screen matches; fails with the screen when it never does. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** The pid of the program the terminal's shell runs (keepingExit's child), to signal it as `kill` would. */
  programPid(): number;
  close(): void;
}

/** Runs `argv` in a fresh terminal (120x40 unless `size` says) with exactly `env` (nothing inherited: no CI, no developer config). */
export function openTerminal(
  argv: readonly string[],
  env: Record<string, string>,
  size: { columns: number; rows: number } = { columns: 120, rows: 40 },
  cwd?: string,
): Terminal {
  const socket = `giftcodes-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const assignments = Object.entries({ TERM: 'xterm-256color', ...env }).map(([name, value]) => `${name}=${value}`);
  tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-x',
    String(size.columns),
    '-y',
    String(size.rows),
    ...(cwd !== undefined ? ['-c', cwd] : []),
    '--',
    'env',
    '-i',
    ...assignments,
    ...argv,
  );
  // What the program writes reaches this file too (pipe-pane), so that waitFor reads the screen when it changed (at
  // most every 50 ms) rather than every 50 ms whatever: each capture-pane is a tmux client started (~4 ms of CPU) and
  // a screen rendered by the tmux server, hundreds a file, most of them while the program waits (on a server, a prompt).
  const output = join(mkdtempSync(join(tmpdir(), 'giftcodes-tmux-')), 'output');
  writeFileSync(output, '');
  tmux('pipe-pane', '-o', `cat >> '${output}'`);
  let closed = false;
  const screen = (): string => {
    const text = tmux('capture-pane', '-p', '-J').replace(/\s+$/, '');
    recordOutput(`tmux: ${argv.join(' ')}`, text, '');
    return text;
  };
  const type = (text: string): void => void tmux('send-keys', '-l', '--', text);
  const press = (...keys: string[]): void => void tmux('send-keys', ...keys);
  return {
    type,
    press,
    answer(text) {
      type(text);
      press('Enter');
    },
    pasteLine(text) {
      tmux('send-keys', '--', text, 'Enter');
    },
    screen,
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const seen = statSync(output).size;
        const text = screen();
        if (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(pattern)}; it shows:\n${text}`);
        const looked = Date.now();
        await outputAfter(output, seen);
        // At most a look every 50 ms while the program writes on (a spinner's frames), as before.
        const since = Date.now() - looked;
        if (since < 50) await new Promise((resolve) => setTimeout(resolve, 50 - since));
      }
    },
    programPid() {
      const shell = tmux('display-message', '-p', '#{pane_pid}').trim();
      const [child] = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/);
      if (!child) throw new Error(`the terminal's shell (pid ${shell}) runs no program`);
      return Number(child);
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        tmux('kill-server');
      } catch {
        // Already gone: the command ended and took the server with it.
      }
    },
  };
}

/**
 * Resolves once the terminal's output file has grown past `seen` bytes, or after 250 ms: tmux may copy output to the
 * file a moment before the screen shows it, so a screen read just after can miss it, and the next look is at most
 * that much later. A look every 250 ms while nothing is written, not every 50 ms.
 */
function outputAfter(file: string, seen: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    const watcher = watch(file, () => done());
    const timer = setTimeout(done, 250);
    // Written between the size read and the watch: no event would come for it.
    if (statSync(file).size > seen) done();
  });
}

/** argv run by sh, which then prints `[exit N]` and stays, so the screen and the exit code can be read. */
export function keepingExit(argv: readonly string[]): string[] {
  return ['sh', '-c', '"$@"; echo "[exit $?]"; exec sleep 3600', 'sh', ...argv];
}

/**
 * For the tests of the enclosing describe (or file): opens the built giftcodes in a terminal as a person at a
 * shell runs it (no CI; HOME and the config in `configDir`); the screen ends with `[exit N]`. Every terminal a
 * test opened is closed after it.
 */
export function giftcodesTerminals(): (
  args: string[],
  configDir: string,
  env?: Record<string, string>,
  size?: { columns: number; rows: number },
  cwd?: string,
) => Terminal {
  let opened: Terminal[] = [];
  afterEach(() => {
    for (const terminal of opened) terminal.close();
    opened = [];
  });
  return (args, configDir, env = {}, size, cwd) => {
    const terminal = openTerminal(
      keepingExit([process.execPath, BIN, ...args]),
      {
        PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
        HOME: configDir,
        GIFTCODES_CONFIG_DIR: configDir,
        NO_COLOR: '1',
        // The run's cache (test/global-setup.ts), as every other CLI run of the suite has: Node's compile cache of the
        // program kept there. Under HOME (a fresh config dir) each terminal's run compiled every module and wrote it.
        ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
        ...env,
      },
      size,
      cwd,
    );
    opened.push(terminal);
    return terminal;
  };
}
