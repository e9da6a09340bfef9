// `giftcodes doctor`: what a cron job needs, checked in the environment it runs in (cron's PATH, no terminal,
// no D-Bus session), one line each; exit 0 only when every check holds. It never prompts.
import { wrapWords } from '../output/wrap.js';
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CliError, ExitCode } from '../errors.js';
import { examples, type App } from './app.js';
import type { Deps } from './deps.js';
import type { Outcome } from './doctor-checks.js';
import { exportResult, gathersItems } from '../output/exporter.js';

export interface DoctorOptions {
  /**
   * Retries of the ping: the run's --retries (DEFAULT_RETRIES, src/factory.ts) with the client's backoff
   * (src/api/retry.ts), as `order place` retries its requests: doctor gates a cron job, and an API restart the
   * order would have waited out must not skip the night's restock.
   */
  retries: number;
}

/** The dependencies doctor uses, and where this program and the Node running it live. */
export interface DoctorDeps extends Pick<
  Deps,
  'io' | 'configDir' | 'journalDir' | 'config' | 'connection' | 'clientFor' | 'now'
> {
  /** This install's launcher (bin/giftcodes): the absolute path a crontab can call, its links resolved. */
  programPath: string;
  /** The script as it was invoked (process.argv[1]), its links kept: a global install's bin/ link, not its target. */
  programArgv?: string;
  /** This Node's resolved path (process.execPath). */
  nodePath: string;
  /** This Node as it was invoked (process.argv0): `node`, or a path that may be a link. */
  nodeArgv0?: string;
  nodeVersion: string;
  /** The profile this run would use (its encrypt-to is checked). */
  profileName?: () => Promise<string>;
}

export function register(parent: Command, app: App): void {
  const command = parent
    .command('doctor')
    .summary('check that a cron job can run here: PATH, key, directories, API, clock')
    .description(
      'check what a cron job needs where it runs: the command on PATH, a key readable without a terminal, the config and journal directories, the API, the clock',
    )
    .action(async (_flags: object, cmd: Command) => {
      const { globals, deps: f } = app.context(cmd);
      await run(
        { retries: globals.retries },
        {
          io: f.io,
          configDir: f.configDir,
          journalDir: f.journalDir,
          config: () => f.config(),
          profileName: () => f.currentTarget().then((target) => target.profile),
          connection: () => f.connection(),
          clientFor: (baseUrl, apiKey, tries, refusedHint, baseUrlFrom) =>
            f.clientFor(baseUrl, apiKey, tries, refusedHint, baseUrlFrom),
          // dist/ sits beside bin/ in every install, and this module is bundled into dist/.
          programPath: fileURLToPath(new URL('../bin/giftcodes', import.meta.url)),
          programArgv: process.argv[1],
          nodePath: process.execPath,
          nodeArgv0: process.argv0,
          nodeVersion: process.versions.node,
          // The clock the API's Date header is compared with.
          now: () => f.now(),
        },
      );
    });
  examples(command, [
    'giftcodes doctor',
    'giftcodes doctor -q && giftcodes order place --plan "$PLAN" --env live --yes',
    'giftcodes doctor --json --env live',
  ]);
}

export async function run(options: DoctorOptions, deps: DoctorDeps): Promise<void> {
  const { commandCheck, directoryCheck, keyCheck, apiCheck, clockCheck, encryptToCheck, notChecked } =
    await import('./doctor-checks.js');
  const { pinnedHint } = await import('../output/pinned-hint.js');
  // A hint's giftcodes commands reach this run's config directory (a cron job's GIFTCODES_CONFIG_DIR), as the
  // error printer's do.
  const place = { configDir: deps.io.env.GIFTCODES_CONFIG_DIR };
  const pinned = (result: Outcome): Outcome =>
    result.hint ? { ...result, hint: pinnedHint(result.hint, place) } : result;
  // The local checks first (the command's `node --version` beside them); the API, which may take its time, last.
  const command = commandCheck(deps);
  const config = directoryCheck('config', deps.configDir);
  const journal = await withLeftOrders(directoryCheck('journal', deps.journalDir), deps.journalDir, place.configDir);
  const key = config.ok
    ? await keyCheck(deps)
    : { outcome: notChecked('key', 'the config directory is refused (above)') };
  const encryption = config.ok ? await encryptToCheck(deps) : undefined;
  const results: Outcome[] = [await command, config, journal, key.outcome].map(pinned);
  // On a terminal each line is printed as its check ends, so a slow API is seen being waited for, not as a blank
  // screen. A pipe or a file gets every line at once when all have ended, as before: a reader that stops early
  // (`| head -n 3`) then never turns a healthy machine's exit 0 into a failed write's exit 8.
  const width = Math.max(...['command', 'journal', ...(encryption ? [encryption.check] : [])].map((n) => n.length));
  const streaming = !gathersItems(deps.io) && deps.io.stdoutIsTTY;
  if (streaming) await report(deps.io, results, width);
  let api: Awaited<ReturnType<typeof apiCheck>>;
  if (key.connection) {
    const spinner = await deps.io.spinner(`${'api'.padEnd(width)}  asking ${key.connection.baseUrl} (GET /v1/ping)`);
    try {
      api = await apiCheck(deps, key.connection, options.retries);
    } finally {
      spinner.stop();
    }
  } else {
    api = { outcome: notChecked('api', 'no key to ping with') };
  }
  const rest = [
    api.outcome,
    api.answered ? clockCheck(api.answered) : notChecked('clock', 'no answer from the API to compare with'),
    ...(encryption ? [encryption] : []),
  ].map(pinned);
  if (streaming) await report(deps.io, rest, width);
  results.push(...rest);
  if (!streaming) await report(deps.io, results, width);
  const failed = results.filter((result) => !result.ok && !result.notChecked);
  const skipped = results.filter((result) => result.notChecked);
  if (failed.length + skipped.length > 0) {
    const first = failed[0];
    // The first failed check named with what it found, so that the error line alone (mailed by the cron recipe's
    // `tail -n 2`, README.md) says what failed, not only which check.
    const names = failed.map((result, i) => (i === 0 ? `${result.check} (${result.detail})` : result.check));
    const message = `${failed.length} of ${results.length} checks failed: ${names.join(', ')}${skipped.length > 0 ? `; not checked: ${skipped.map((result) => result.check).join(', ')}` : ''}`;
    // Every failed check carries its kind's code; one without would be a bug here.
    throw new CliError(first?.exitCode ?? ExitCode.internal, message, {
      code: 'doctor_failed',
      // The recipe's two lines are this error and its hint, --quiet or not (a review mailed a `skip` row and the
      // error with the hint joined to it).
      hintLine: true,
      // The first failed check's own way on, so that the last two lines of a log (the cron recipe's `tail -n 2`, mailed)
      // say what to do: "each failed line says what to do" sent a person to a log they did not have (a person's day).
      hint: first?.hint
        ? `${first.check}: ${first.hint}${failed.length > 1 ? '; each other failed line above says its own' : ''}`
        : `the first failed check (${first?.check ?? 'none'}) decides the exit code; each failed line says what to do`,
    });
  }
}

/**
 * Through the exporter: --json (and --query) the array of every check, printed once they all ended; text one line
 * a check, with its hint under a failed one (--quiet leaves only the failed ones), in one write.
 */
async function report(io: DoctorDeps['io'], results: readonly Outcome[], width: number): Promise<void> {
  // A check an earlier failure left nothing to run on says so (the text's `skip`): `ok: false` alone read as a failure
  // to a script, two of them where the error counted one (a walkthrough's `jq 'select(.ok == false)'`).
  const document = results.map(({ check, ok, detail, hint, notChecked }) => ({
    check,
    ok,
    detail,
    ...(hint === undefined ? {} : { hint }),
    ...(notChecked ? { skipped: true } : {}),
  }));
  await exportResult(io, document, { text: () => linesText(io, results, width), pager: false });
}

function linesText(io: DoctorDeps['io'], results: readonly Outcome[], width: number): string {
  const c = io.c;
  return results
    .filter((line) => !io.quiet || !line.ok)
    .map((line) => {
      const mark = io.stdoutIsTTY
        ? line.ok
          ? c.green('✓')
          : line.notChecked
            ? c.dim('-')
            : c.red('✗')
        : line.ok
          ? 'ok  '
          : line.notChecked
            ? 'skip'
            : 'FAIL';
      // At a terminal a long detail or hint is broken at its spaces under its first word (the terminal cut
      // `…node v22.11.0 /usr/local/bin/n` / `ode` at 80 columns: a person's day); a pipe or a log keeps one line.
      const columns = io.terminalWidth;
      const fit = (text: string, indent: number): string =>
        columns === undefined ? text : wrapWords(text, columns, indent, indent);
      const hint =
        !line.ok && line.hint
          ? `\n${' '.repeat(io.stdoutIsTTY ? 2 : 5)}${c.dim('hint:')} ${fit(line.hint, 2 + 'hint: '.length)}`
          : '';
      return `${mark} ${line.check.padEnd(width)}  ${fit(line.detail, 2 + width + 2)}${hint}`;
    })
    .join('\n');
}

/**
 * The journal's check, with the orders earlier runs left interrupted named in it: still a pass (a cron job's
 * `doctor && order place` goes on, and that run names them too), but a person asking whether all is well is told,
 * with the command that finishes them. A journal that cannot be read is the order commands' to report.
 */
async function withLeftOrders(journal: Outcome, dir: string, configDir: string | undefined): Promise<Outcome> {
  if (!journal.ok || !existsSync(dir)) return journal;
  const [{ Journal }, { leftByEarlierRuns }] = await Promise.all([
    import('../journal/journal.js'),
    import('../orders/recover.js'),
  ]);
  let left: string | undefined;
  try {
    left = leftByEarlierRuns(new Journal(dir), () => false, configDir);
  } catch {
    return journal;
  }
  return left ? { ...journal, detail: `${journal.detail}; but ${left}` } : journal;
}
