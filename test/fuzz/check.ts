// What every fuzz case must end with, whatever it was fed: a contract exit code, no stack trace, and on
// failure one `error: …` line (plus an optional `hint: …` line) last on stderr, or one JSON error with --json.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { BIN, ROOT, type RunResult, unstamped } from '../helpers/e2e.js';

/** The exit codes of docs/exit-codes.md, without 1 (a bug). */
export const DOCUMENTED_EXIT_CODES: readonly number[] = [0, 2, 3, 4, 5, 6, 7, 8, 130];

/** The problems with one run's ending; an empty list means it ended well. */
export function endingProblems(result: RunResult, o: { json: boolean; allowed?: readonly number[] }): string[] {
  const problems: string[] = [];
  const allowed = o.allowed ?? DOCUMENTED_EXIT_CODES;
  if (result.code === null || !allowed.includes(result.code))
    problems.push(`exit ${result.code ?? result.signal} is not one of ${allowed.join(', ')}`);
  for (const [name, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    if (/^\s+at /m.test(text)) problems.push(`a stack trace on ${name}`);
    if (/node:internal|\b(TypeError|RangeError|ReferenceError|SyntaxError)\b|Unhandled|Maximum call stack/.test(text))
      problems.push(`an internal error on ${name}`);
  }
  if (result.code === 0 || result.code === null) return problems;
  // Without a terminal each line starts with its time (a cron log); what follows it is checked.
  const lines = unstamped(result.stderr)
    .split('\n')
    .filter((line) => line !== '');
  if (o.json) {
    const last = lines.at(-1) ?? '';
    try {
      const parsed = JSON.parse(last) as { error?: { code?: unknown; message?: unknown; exitCode?: unknown } };
      if (typeof parsed.error?.message !== 'string' || typeof parsed.error.code !== 'string')
        problems.push('the JSON error lacks code or message');
      if (parsed.error?.exitCode !== result.code)
        problems.push(`the JSON error says exitCode ${String(parsed.error?.exitCode)}, the process ${result.code}`);
    } catch {
      problems.push(`the last stderr line is not a JSON error: ${last.slice(0, 200)}`);
    }
    return problems;
  }
  const errorLines = lines.filter((line) => line.startsWith('error: '));
  if (errorLines.length !== 1) problems.push(`${errorLines.length} lines start with "error: "`);
  const at = lines.findIndex((line) => line.startsWith('error: '));
  const after = at < 0 ? [] : lines.slice(at + 1);
  if (after.length > 1 || (after.length === 1 && !after[0]!.startsWith('hint: '))) {
    problems.push(
      `the error is not one line plus an optional hint: ${JSON.stringify(lines.slice(at).join('\n').slice(0, 300))}`,
    );
  }
  // eslint-disable-next-line no-control-regex
  if (at >= 0 && /[\u0000-\u0008\u000b-\u001f\u007f\u009b]/.test(lines.slice(at).join('')))
    problems.push('control characters in the error');
  return problems;
}

/** sha256 of every file under a directory (lock directories left out), keyed by relative path. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      if (name === '.lock') continue;
      const path = join(current, name);
      const stats = statSync(path);
      if (stats.isDirectory()) walk(path);
      else if (stats.isFile()) out[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

export function sha256File(path: string): string | undefined {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : undefined;
}

/** Runs jobs with at most `limit` in flight; results in input order. */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  job: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await job(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** One line per outcome that has problems, naming its case, for the failing test's message. */
export function failureLines<O extends { result: RunResult; problems: string[] }>(
  outcomes: readonly O[],
  name: (outcome: O) => string,
): string[] {
  return outcomes
    .filter((o) => o.problems.length > 0)
    .map(
      (o) =>
        `${name(o)} → exit ${o.result.code}: ${o.problems.join('; ')}\n  stderr: ${JSON.stringify(o.result.stderr.slice(-400))}`,
    );
}

/** How many outcomes ended with each exit code, keyed by the code as text; said on the console under `name`. */
export function exitCodeCounts(name: string, outcomes: readonly { result: RunResult }[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const o of outcomes) codes[String(o.result.code)] = (codes[String(o.result.code)] ?? 0) + 1;
  console.log(`fuzz ${name}: exit codes ${JSON.stringify(codes)}`);
  return codes;
}

/**
 * The seed and run count: fixed by default so a failure reproduces; GIFTCODES_FUZZ_SEED / _RUNS to explore.
 * `npm test` runs every suite at GIFTCODES_FUZZ_SCALE=0.3 to stay in its time budget; `npm run fuzz` runs the full counts.
 */
export function fuzzSettings(defaultRuns: number, o: { scaled?: boolean } = {}): { seed: number; runs: number } {
  const seed = Number(process.env.GIFTCODES_FUZZ_SEED ?? '20240607');
  const scale = o.scaled === false ? 1 : Number(process.env.GIFTCODES_FUZZ_SCALE ?? '1');
  const runs = Number(
    process.env.GIFTCODES_FUZZ_RUNS ?? String(Math.max(1, Math.round(defaultRuns * (scale > 0 ? scale : 1)))),
  );
  return { seed, runs };
}

/**
 * Draws `runs` cases from an arbitrary with a fixed seed. The cases are child processes, so they run a few
 * at a time in a pool rather than one by one inside fc.assert; a failure names its case and the seed.
 */
export function draw<T>(arbitrary: fc.Arbitrary<T>, settings: { seed: number; runs: number }): T[] {
  return fc.sample(arbitrary, { seed: settings.seed, numRuns: settings.runs });
}

/** Draws a fuzz suite's cases and runs them `concurrency` at a time; says how many there were and the seed (and `note`). */
export async function runFuzz<C, O>(
  name: string,
  arbitrary: fc.Arbitrary<C>,
  settings: { seed: number; runs: number },
  run: (c: C, index: number) => Promise<O>,
  o: { concurrency?: number; note?: string; first?: readonly C[] } = {},
): Promise<{ cases: C[]; outcomes: O[] }> {
  const cases = [...(o.first ?? []), ...draw(arbitrary, settings)];
  const outcomes = await pool(cases, o.concurrency ?? 4, run);
  console.log(
    `fuzz ${name}: ${cases.length} cases (seed ${settings.seed}${o.note === undefined ? '' : `, ${o.note}`})`,
  );
  return { cases, outcomes };
}

/** Strings that make good trouble (empty, blank, unicode, control characters, flags, huge numbers, long), or one of `extra` (not filtered). */
export function trouble(extra: readonly string[] = []): fc.Arbitrary<string> {
  const random = fc
    .oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          '',
          ' ',
          '0',
          '-1',
          '1e309',
          '99999999999999999999999',
          'NaN',
          'Infinity',
          '-0',
          '0x1f',
          '1.5',
          '+7',
          '--json',
          '-',
          '--',
          'true',
          'null',
          '{}',
          '[]',
        ),
      },
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'a\nb',
          'line\r\nbreak',
          '\u001b[31mred\u001b[0m',
          '\u001b]0;title\u0007',
          'tab\there',
          '\u202eevil',
          'ünïcødé-🎁',
          'x'.repeat(5000),
        ),
      },
      { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
      { weight: 1, arbitrary: fc.double().map(String) },
    )
    .filter(safeArg);
  return extra.length === 0
    ? random
    : fc.oneof({ weight: 3, arbitrary: random }, { weight: 2, arbitrary: fc.constantFrom(...extra) });
}

/** argv cannot carry NUL; and no value may name a path outside the case's own directory or a network host. */
export function safeArg(value: string): boolean {
  return (
    !value.includes('\u0000') && !/[/\\]/.test(value) && !value.startsWith('~') && !/[a-z][a-z0-9+.-]*:/i.test(value)
  );
}

/**
 * `giftcodes serve` prints its demo keys by design, which the harness's key-leak check (rightly) flags in
 * any other command: serve cases run through this, unrecorded, and check stderr for keys themselves.
 */
export function spawnServe(
  args: string[],
  o: { configDir: string; cwd: string; timeoutMs: number },
): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1', GIFTCODES_CONFIG_DIR: o.configDir };
  for (const name of ['GIFTCODES_API_KEY', 'GIFTCODES_PROFILE', 'GIFTCODES_BASE_URL', 'FORCE_COLOR']) delete env[name];
  const proc = spawn(process.execPath, [BIN, ...args], { env, cwd: o.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  // Stopped once it printed its first line (where it listens) and its SIGTERM handler is in (read from /proc), as a
  // person would: a SIGTERM before its handlers are set kills any Node process by the signal, which a loaded machine
  // made a failure when the stop came a fixed time after the line.
  let stop: NodeJS.Timeout | undefined;
  const stopWhenHandled = (): void => {
    if (catchesTerm(proc.pid)) proc.kill('SIGTERM');
    else stop = setTimeout(stopWhenHandled, 25);
  };
  proc.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stop === undefined) stopWhenHandled();
  });
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const kill = setTimeout(() => proc.kill('SIGKILL'), o.timeoutMs);
  return new Promise((resolve, reject) => {
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      clearTimeout(stop);
      clearTimeout(kill);
      if (signal === 'SIGKILL')
        reject(new Error(`giftcodes ${args.join(' ')} neither stopped on SIGTERM nor ended by itself`));
      else resolve({ code, signal, stdout, stderr, configDir: o.configDir });
    });
  });
}

/** Whether the process holds a listening TCP socket (Linux: its fds' socket inodes in /proc/net/tcp*); elsewhere, assumed. */
export function listening(pid: number | undefined): boolean {
  if (pid === undefined || process.platform !== 'linux') return true;
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields[3] === '0A' && inodes.has(fields[9] ?? '')) return true;
      }
    }
    return false;
  } catch {
    return false;
  }
}

/** Whether the process has a handler for SIGTERM (Linux: the SigCgt mask in /proc/<pid>/status); elsewhere, assumed. */
export function catchesTerm(pid: number | undefined): boolean {
  if (pid === undefined || process.platform !== 'linux') return true;
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) & (1n << 14n)) !== 0n;
  } catch {
    return false;
  }
}
