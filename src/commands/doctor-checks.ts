// The checks of `giftcodes doctor` (doctor.ts), loaded only when it runs. Each returns one line of the report;
// a failed one carries the exit code of its kind, the one the job itself would exit with where there is one.
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { realPath } from '../files/real-path.js';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pingFacts } from '../api/outcome.js';
import { checkOwnership, configFile, notADirectory, OTHER_CONFIG_DIR, permissionHint } from '../config/paths.js';
import type { Connection } from '../config/resolve.js';
import { ExitCode, isCliError, LocalError, type ExitCodeValue } from '../errors.js';
import { shellWord } from '../output/pinned-hint.js';
import { display } from '../output/table.js';
import { environmentOfKey, maskKey } from '../secrets.js';
import type { DoctorDeps } from './doctor.js';

export type CheckName = 'command' | 'config' | 'journal' | 'key' | 'api' | 'clock' | 'encrypt-to';

/** One line of the report: `--json` prints an array of these. */
export interface CheckResult {
  check: CheckName;
  ok: boolean;
  detail: string;
  hint?: string;
}

/** A failed check with the exit code of its kind (docs/commands.md, doctor, lists them); one not run says why. */
export type Outcome = CheckResult & { exitCode?: ExitCodeValue; notChecked?: true };

/** A check that cannot run because an earlier one failed: not a pass, and not a cause of its own. */
export function notChecked(check: CheckName, why: string): Outcome {
  return { check, ok: false, detail: `not checked: ${why}`, notChecked: true };
}

/**
 * The profile's encrypt-to, when it has one: each recipient one age can encrypt to, else the line the job would
 * fail with (exit 2) before its order. No line for a profile without it (its codes files are plaintext).
 */
export async function encryptToCheck(deps: DoctorDeps): Promise<Outcome | undefined> {
  let profile: string;
  let recipients: readonly string[] | undefined;
  try {
    const store = await deps.config();
    profile = deps.profileName ? await deps.profileName() : store.defaultProfile;
    recipients = store.profile(profile).encryptTo;
  } catch {
    return undefined; // the config's own problem is the config and key lines' to say
  }
  if (!recipients?.length) return undefined;
  const { checkRecipients } = await import('../export/age.js');
  try {
    await checkRecipients(recipients, `the encrypt-to of profile "${profile}"`);
  } catch (error) {
    return failure('encrypt-to', error);
  }
  const count = recipients.length === 1 ? 'one recipient' : `${recipients.length} recipients`;
  return { check: 'encrypt-to', ok: true, detail: `codes files are encrypted to ${count} (profile "${profile}")` };
}

/** The webhook receiver's tolerance: a clock further off than this fails signed deliveries as well. */
export const CLOCK_TOLERANCE_S = 300;
/** The oldest Node the launcher (bin/giftcodes) runs on, as package.json's engines say: doctor-node.test.ts keeps them in step. */
export const MIN_NODE = [22, 1, 0] as const;
const NODE_VERSION_TIMEOUT_MS = 5_000;

/** The outcome of a step that threw one of our errors: its message, hint and exit code. */
function failure(check: CheckName, error: unknown): Outcome {
  if (!isCliError(error)) throw error;
  return {
    check,
    ok: false,
    detail: error.message,
    ...(error.hint ? { hint: error.hint } : {}),
    exitCode: error.exitCode,
  };
}

/** The first executable file called `name` in the directories of `path`, as a shell would find it. */
export function findOnPath(name: string, path: string, env: NodeJS.ProcessEnv): string | undefined {
  const extensions = process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD').split(';')] : [''];
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    for (const extension of extensions) {
      const candidate = join(dir, `${name}${extension}`);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // Not here: the next directory.
      }
    }
  }
  return undefined;
}

function versionOf(text: string): number[] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? match.slice(1).map(Number) : undefined;
}

function atLeast(version: readonly number[], minimum: readonly number[]): boolean {
  for (let i = 0; i < minimum.length; i++) {
    const [have, want] = [version[i] ?? 0, minimum[i] ?? 0];
    if (have !== want) return have > want;
  }
  return true;
}

/** `node --version` of a node other than this one, bounded: a broken shim must not hang the check. */
function nodeVersion(node: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(node, ['--version'], { env, timeout: NODE_VERSION_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) =>
      error ? reject(error) : resolve(stdout.trim()),
    );
  });
}

/**
 * This Node and this giftcodes by the names they were invoked by, where those name the same files: a link's
 * directory (Homebrew's /opt/homebrew/bin, a version manager's, npm's global bin/) outlives an upgrade, the file it
 * resolves to (a versioned Cellar or npx cache directory, as docs/cron-and-plans.md warns) does not. This Node: the
 * `node` PATH finds (`pathNode`), else the path it was started by (argv0), when either is this Node; else its
 * resolved path. This giftcodes: the script as invoked (argv[1]) when it is this install's launcher; else the launcher.
 */
export function invokedPaths(
  deps: Pick<DoctorDeps, 'nodePath' | 'nodeArgv0' | 'programPath' | 'programArgv'>,
  pathNode: string | undefined,
): { node: string; program: string } {
  const same = (candidate: string | undefined, target: string): candidate is string =>
    candidate !== undefined && candidate !== '' && realPath(candidate) === realPath(target);
  // An argv0 without a slash (`node`) was found on the invoking shell's PATH, which is not this one's to read.
  const started = deps.nodeArgv0?.includes('/') ? resolve(deps.nodeArgv0) : undefined;
  const node = [pathNode, started].find((candidate) => same(candidate, deps.nodePath)) ?? deps.nodePath;
  const invoked = deps.programArgv === undefined || deps.programArgv === '' ? undefined : resolve(deps.programArgv);
  return { node, program: same(invoked, deps.programPath) ? invoked : deps.programPath };
}

/**
 * `giftcodes` and `node` found on PATH as cron would find them (bin/giftcodes runs `env node`), with a
 * version giftcodes supports. A failure is configuration (exit 3): the job's environment, not its data.
 */
export async function commandCheck(deps: DoctorDeps): Promise<Outcome> {
  const env = deps.io.env;
  const path = env.PATH ?? '';
  const giftcodes = findOnPath('giftcodes', path, env);
  const node = findOnPath('node', path, env);
  const { node: thisNode, program } = invokedPaths(deps, node);
  // The directory of this Node usually holds the global `giftcodes` too (npm's prefix, nvm, volta); else the directory
  // giftcodes was invoked from.
  const nodeDir = dirname(thisNode);
  const dirs = new Set([
    nodeDir,
    ...(findOnPath('giftcodes', nodeDir, env) ? [] : [dirname(program)]),
    '/usr/bin',
    '/bin',
  ]);
  // Quoted where a path holds a space: pasted into a crontab as it was, `/tmp/sp ace/giftcodes` was two words (a review).
  const fix = `put PATH=${shellWord([...dirs].join(':'))} in the crontab, or call both by absolute path: ${shellWord(thisNode)} ${shellWord(program)}`;
  const missing = [giftcodes ? undefined : 'giftcodes', node ? undefined : 'node'].filter((name) => name !== undefined);
  if (!giftcodes || !node) {
    return {
      check: 'command',
      ok: false,
      detail: `${missing.join(' and ')} not found on PATH (${path || 'empty'})`,
      hint: fix,
      exitCode: ExitCode.auth,
    };
  }
  let version = deps.nodeVersion;
  if (realPath(node) !== realPath(deps.nodePath)) {
    try {
      version = await nodeVersion(node, env);
    } catch (error) {
      const why =
        (error as NodeJS.ErrnoException).code ??
        (error instanceof Error ? error.message.split('\n')[0] : String(error));
      return {
        check: 'command',
        ok: false,
        detail: `${node} (the node on PATH) did not run: ${why}`,
        hint: fix,
        exitCode: ExitCode.auth,
      };
    }
  }
  const parsed = versionOf(version);
  if (!parsed || !atLeast(parsed, MIN_NODE)) {
    return {
      check: 'command',
      ok: false,
      detail: `the node on PATH (${node}) is ${display(version)}; giftcodes needs ${MIN_NODE.join('.')} or later`,
      hint: fix,
      exitCode: ExitCode.auth,
    };
  }
  const other = realPath(giftcodes) === realPath(deps.programPath) ? '' : ` (not this one: ${program})`;
  return {
    check: 'command',
    ok: true,
    detail: `giftcodes ${giftcodes}${other}, node v${version.replace(/^v/, '')} ${node}`,
  };
}

/** Why this user cannot write `path`, or undefined when it can (EROFS included: access(2) checks the mount too). */
function notWritable(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'not writable';
  }
}

function nearestExisting(path: string): string {
  let current = path;
  while (!statSync(current, { throwIfNoEntry: false }) && dirname(current) !== current) current = dirname(current);
  return current;
}

/**
 * The config or journal directory: owned by this user (or root) and writable by no one else, by the same
 * rule every command applies (exit 8 otherwise), and writable by this user. One not made yet is fine if
 * it can be: the first command creates it 0700. Nothing is created here.
 */
export function directoryCheck(check: 'config' | 'journal', dir: string): Outcome {
  const what = `${check} directory`;
  const elsewhere = `or ${OTHER_CONFIG_DIR}`;
  try {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (!stats) {
      const parent = nearestExisting(dirname(dir));
      const why = notWritable(parent);
      if (why)
        throw new LocalError(`the ${what} ${dir} does not exist, and ${parent} cannot be written to make it (${why})`, {
          code: 'config_unwritable',
          hint: OTHER_CONFIG_DIR,
        });
      return {
        check,
        ok: true,
        // The journal is made by the order commands alone (login and config set write the config directory).
        detail:
          check === 'journal'
            ? `${dir} does not exist yet; the first order placed here makes it (mode 0700)`
            : `${dir} does not exist yet; the first command that saves there (login, config set, an order) makes it (mode 0700)`,
      };
    }
    // Every command refuses it in the same words (src/config/paths.ts).
    if (!stats.isDirectory()) throw notADirectory(dir, what);
    const warnings = [checkOwnership(dir, stats, what)];
    const why = notWritable(dir);
    if (why)
      throw new LocalError(`the ${what} ${dir} is not writable (${why})`, {
        code: 'config_unwritable',
        // Permissions mend a directory that refuses this user; no chmod mends a read-only file system.
        hint:
          why === 'EROFS'
            ? `its file system is read-only: remount it read-write, ${elsewhere}`
            : `run: chmod 700 ${dir}, ${elsewhere}`,
      });
    if (check === 'config') {
      const file = configFile(dir);
      const fileStats = statSync(file, { throwIfNoEntry: false });
      if (fileStats) warnings.push(checkOwnership(file, fileStats, 'config file'));
    }
    const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
    const warning = warnings.filter((text) => text !== undefined).join('; ');
    return {
      check,
      ok: true,
      detail: `${dir}: mode ${mode}, writable, no one else can write it${warning ? ` (but ${warning})` : ''}`,
    };
  } catch (error) {
    // A directory above it this user may not enter (a config directory made chmod 000): a failed check, not a crash.
    const errno = (error as NodeJS.ErrnoException).code;
    if (!isCliError(error) && errno !== undefined)
      return failure(
        check,
        new LocalError(`cannot use the ${what} ${dir} (${errno})`, {
          code: 'config_unwritable',
          hint: permissionHint(dir),
        }),
      );
    return failure(check, error);
  }
}

const KEY_SOURCES: Record<Connection['keySource'], string> = {
  flag: '--api-key',
  environment: 'GIFTCODES_API_KEY',
  profile: 'the config file',
  keyring: 'the credential store',
};

/**
 * The key the job would use, read as it would read it: from the flag, the environment, the 0600 config file
 * or the credential store (which a cron job without a D-Bus session cannot reach). Shown masked only.
 */
export async function keyCheck(deps: DoctorDeps): Promise<{ outcome: Outcome; connection?: Connection }> {
  try {
    const [connection, store] = await Promise.all([deps.connection(), deps.config()]);
    const from =
      connection.keySource === 'profile' ? `${KEY_SOURCES.profile} ${store.path}` : KEY_SOURCES[connection.keySource];
    return {
      outcome: {
        check: 'key',
        ok: true,
        detail: `${maskKey(connection.apiKey)} (${connection.environment}, profile "${connection.profile}") from ${from}`,
      },
      connection,
    };
  } catch (error) {
    return { outcome: failure('key', error) };
  }
}

/** When the ping was sent and answered, and the Date the API answered with. */
export interface Answered {
  date: string | undefined;
  sentAt: number;
  receivedAt: number;
}

/** One ping with the key: a failure is the ping's own error (5 unreachable, 3 key refused, 4 refused). */
export async function apiCheck(
  deps: DoctorDeps,
  connection: Connection,
  retries: number,
): Promise<{ outcome: Outcome; answered?: Answered }> {
  try {
    // A refused key's hint says where the key came from (GIFTCODES_API_KEY overrides the profile), as ping's does.
    const { refusedKeyHint } = await import('../config/refused-key.js');
    const client = await deps.clientFor(
      connection.baseUrl,
      connection.apiKey,
      retries,
      refusedKeyHint(connection, deps.io.env),
      connection.baseUrlFrom,
    );
    const sentAt = deps.now();
    const { ping, date } = await client.pingWithDate();
    const receivedAt = deps.now();
    const facts = pingFacts(ping);
    const expected = environmentOfKey(connection.apiKey);
    const differs =
      facts.known && expected !== undefined && facts.environment !== expected
        ? `; the API says ${facts.environment}, the key's prefix ${expected}`
        : '';
    const detail = `${connection.baseUrl} answered ping in ${receivedAt - sentAt} ms: ${display(facts.environment)}, reseller ${display(facts.resellerId)}${differs}`;
    return { outcome: { check: 'api', ok: true, detail }, answered: { date, sentAt, receivedAt } };
  } catch (error) {
    return { outcome: failure('api', error) };
  }
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86_400)} days`;
}

/**
 * This machine's clock against the API's Date header, read half way through the ping. Further off than the
 * tolerance fails (exit 8, the machine's own clock): intents are dated by it (one dated in the future or over
 * 24 h old is not resumed silently) and webhook signatures more than 300 s off are refused.
 */
export function clockCheck(answered: Answered): Outcome {
  const { date } = answered;
  if (date === undefined) return { check: 'clock', ok: true, detail: 'the API sent no Date header: not compared' };
  const server = Date.parse(date);
  if (Number.isNaN(server))
    return {
      check: 'clock',
      ok: true,
      detail: `the API's Date header (${display(date)}) cannot be read: not compared`,
    };
  const offset = Math.round(((answered.sentAt + answered.receivedAt) / 2 - server) / 1000);
  if (Math.abs(offset) <= CLOCK_TOLERANCE_S)
    // The Date header counts whole seconds: 0 is under a second apart ("within 0 s" read oddly: a person's day).
    return {
      check: 'clock',
      ok: true,
      detail: offset === 0 ? "under 1 s from the API's clock" : `within ${Math.abs(offset)} s of the API's clock`,
    };
  return {
    check: 'clock',
    ok: false,
    detail: `this machine's clock is ${duration(Math.abs(offset))} ${offset > 0 ? 'ahead of' : 'behind'} the API's (Date: ${display(date)}); more than ${CLOCK_TOLERANCE_S} s is refused`,
    hint: 'set the clock (e.g. timedatectl set-ntp true): interrupted orders are dated by it, and webhook signatures more than 300 s off are refused',
    exitCode: ExitCode.local,
  };
}
