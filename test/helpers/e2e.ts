// End-to-end harness: the built bin/giftcodes as a child process against `giftcodes serve --port 0`,
// each test with its own temporary GIFTCODES_CONFIG_DIR. Every output is recorded for the key-leak check.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect } from 'vitest';
import { recordOutput, registerSecret } from './leaks.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin', 'giftcodes');

export const DEMO_KEYS = {
  test: 'sc_test_demo_4f3c9a1b7e2d',
  live: 'sc_live_demo_9b1e6d2c8a7f',
  smallTest: 'sc_test_small_2a7c5e9d1b3f',
  smallLive: 'sc_live_small_6d8f0a3c5e1b',
} as const;
for (const key of Object.values(DEMO_KEYS)) registerSecret(key);

export interface TestServer {
  url: string;
  port: number;
  keys: { resellerId: string; env: 'test' | 'live'; key: string }[];
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `giftcodes serve --port 0 --admin <args>` and waits for its listening line; `bin` for another install. */
export async function startServer(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  bin: string = BIN,
): Promise<TestServer> {
  const proc = spawn(process.execPath, [bin, 'serve', '--port', '0', '--admin', ...args], {
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: proc.stdout! });
  const keys: TestServer['keys'] = [];
  const url = await new Promise<string>((resolvePromise, reject) => {
    let found: string | undefined;
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 60_000);
    proc.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
    lines.on('line', (line) => {
      const listening = /listening on (https?:\/\/\S+)/.exec(line);
      if (listening) found = listening[1];
      const key = /^\s+(\S+)\s+(test|live)\s+(sc_\S+)$/.exec(line);
      if (key) {
        keys.push({ resellerId: key[1]!, env: key[2] as 'test' | 'live', key: key[3]! });
        registerSecret(key[3]!);
      }
      // The address and the keys come in one write, so in one chunk: its lines are all read before the next turn.
      if (found) {
        clearTimeout(timer);
        setImmediate(() => resolvePromise(found!));
      }
    });
  });
  const server: TestServer = {
    url,
    port: Number(new URL(url).port),
    keys,
    proc,
    stop: () =>
      new Promise<void>((resolvePromise) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolvePromise();
        proc.once('exit', () => resolvePromise());
        proc.kill('SIGTERM');
      }),
  };
  if (!args.some((arg) => LOGIN_TOUCHES.test(arg))) kinds.set(server, JSON.stringify({ bin, args, env }));
  return server;
}

/** What servedApi gives the tests of its describe (or file); read inside a test or a hook, once it started. */
export interface ServedApi {
  readonly server: TestServer;
  readonly url: string;
  /** A config dir logged in to the server (servedApi with `login`); a test that changes it takes its own with loggedIn(). */
  readonly configDir: string;
}

/**
 * A served API for the tests of the enclosing describe (or file): `giftcodes serve --admin <args>` started
 * before them and stopped after; with `login`, a config dir logged in to it with that key or keys (true: the
 * demo test key).
 * `args` may be a function, called when the server starts, for arguments made first (a free port, a seed file).
 */
export function servedApi(
  args: string[] | (() => string[] | Promise<string[]>) = [],
  o: { login?: boolean | string | readonly string[]; env?: NodeJS.ProcessEnv; bin?: string | (() => string) } = {},
): ServedApi {
  let server: TestServer | undefined;
  let configDir: string | undefined;
  beforeAll(async () => {
    server = await startServer(
      typeof args === 'function' ? await args() : args,
      o.env,
      typeof o.bin === 'function' ? o.bin() : o.bin,
    );
    if (o.login) configDir = await loggedIn(server, o.login === true ? DEMO_KEYS.test : o.login);
  });
  afterAll(() => server?.stop());
  const started = (): TestServer => {
    if (server === undefined)
      throw new Error('servedApi: the server starts before the tests; read it inside a test or a hook');
    return server;
  };
  return {
    get server() {
      return started();
    },
    get url() {
      return started().url;
    },
    get configDir() {
      if (configDir === undefined) throw new Error('servedApi: pass { login: true } for a logged-in config dir');
      return configDir;
    },
  };
}

/** Runs `fn` with a served API of its own (`giftcodes serve --admin <args>`), stopped whatever `fn` did. */
export async function withServer<T>(
  args: string[],
  fn: (server: TestServer) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
): Promise<T> {
  const server = await startServer(args, env);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

export function tempDir(prefix = 'giftcodes-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A config directory of its own, copied from `from` (a served API's logged-in one): each case of a matrix keeps its
 * journal and history apart from the others', with the same profile and key.
 */
export function configCopy(from: string, prefix?: string): string {
  const configDir = tempDir(prefix);
  cpSync(from, configDir, { recursive: true });
  return configDir;
}

/** An empty order journal directory (`<temp>/journal`), as the journal's unit tests start from. */
export function journalDir(): string {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface RunOptions {
  /** GIFTCODES_CONFIG_DIR; a fresh one when omitted. */
  configDir?: string;
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
  cwd?: string;
  /** stdout on /dev/full: every write to it fails with ENOSPC (the result's stdout stays empty). */
  stdoutFull?: boolean;
  /** Node's own flags, before the CLI (`--trace-gc`). */
  nodeArgs?: string[];
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  configDir: string;
}

/** Runs the built CLI; never inherits a developer's real config, key or CA settings. */
export function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const { proc, result } = spawnCli(args, options);
  if (options.input !== undefined) proc.stdin?.end(options.input);
  else proc.stdin?.end();
  return result;
}

export function spawnCli(args: string[], options: RunOptions = {}): { proc: ChildProcess; result: Promise<RunResult> } {
  const configDir = options.configDir ?? tempDir();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIFTCODES_API_KEY: undefined,
    GIFTCODES_PROFILE: undefined,
    GIFTCODES_BASE_URL: options.baseUrl,
    CI: 'true',
    NO_COLOR: '1',
    FORCE_COLOR: undefined,
    // The machine's own trust settings (often the system bundle) are no part of a test: a test gives its own.
    SSL_CERT_FILE: undefined,
    SSL_CERT_DIR: undefined,
    ...options.env,
    GIFTCODES_CONFIG_DIR: configDir,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const full = options.stdoutFull ? openSync('/dev/full', 'w') : undefined;
  const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    env,
    cwd: options.cwd ?? ROOT,
    stdio: ['pipe', full ?? 'pipe', 'pipe'],
  });
  if (full !== undefined) closeSync(full);
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A safety net against a hung CLI, generous for a loaded machine: a run that is slow is no failure.
  const timeoutMs = options.timeoutMs ?? 90_000;
  const result = new Promise<RunResult>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(
        new Error(
          `giftcodes ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, timeoutMs);
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      recordOutput(`giftcodes ${args.join(' ')}`, stdout, stderr);
      resolvePromise({ code, signal, stdout, stderr, configDir });
    });
  });
  return { proc, result };
}

/** What a real login with a key did to a config dir's files (`dir`, logged in to `url`), keyed by those files and the key. */
type Logins = Map<string, { dir: string; url: string }>;
/** Per server: its logins. */
const logins = new WeakMap<TestServer, Logins>();
/**
 * Per kind of server, `giftcodes serve` with the same bin, arguments and environment: the logins of any one of them.
 * Such servers answer a login alike; only their URL differs, and the login writes it in the files as the profile's
 * base URL, so another server of the kind gets the files with its own URL in its place. A server whose arguments
 * keep a state a login's requests would change (a rate limit, a share of failed requests, a request log a test reads),
 * or name a file or a certificate, is a kind of its own (its logins stay its own). Kept from one file to the next
 * in a worker: the copies it holds are never changed, and the files of a login do not depend on the tests before it.
 */
const kinds = new WeakMap<TestServer, string>();
const loginsByKind = new Map<string, Logins>();
const LOGIN_TOUCHES = /^--(rate-limit|fail-rate|drop-after-commit|log|seed|tls-cert|tls-key)(=|$)/;

/** The files under `dir` (path, mode, content) as one string; undefined when `dir` does not exist. */
function dirState(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const parts: string[] = [];
  const walk = (current: string): void => {
    for (const name of readdirSync(current).sort()) {
      const path = join(current, name);
      const stats = statSync(path);
      parts.push(`${relative(dir, path)} ${stats.mode.toString(8)}`);
      if (stats.isDirectory()) walk(path);
      else parts.push(readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return parts.join('\0');
}

/**
 * Saves a key (or each of several, in turn) into a config dir through the real `login --api-key-stdin`. Each CLI process costs CPU the
 * suite is short of, so per kind of server (the same `serve` arguments: `kinds` below) only the first login from a
 * given state of the dir (empty, or holding the test key) is run; a later one from the same state copies the files
 * that login wrote, with its server's URL in place of the one logged in to (about 0.15 s of CPU a login saved). What login
 * itself does is tested where it is the subject (foundation, config, secrets, keyring: with a dir that does
 * not exist yet, or a key the server rejects, it always runs).
 */
export async function loggedIn(
  server: TestServer,
  key: string | readonly string[] = DEMO_KEYS.test,
  configDir = tempDir(),
): Promise<string> {
  for (const one of typeof key === 'string' ? [key] : key) await loginOnce(server, one, configDir);
  return configDir;
}

/** Both demo keys of the default profile, test then live: loggedIn(server, BOTH_KEYS) holds both. */
export const BOTH_KEYS: readonly string[] = [DEMO_KEYS.test, DEMO_KEYS.live];

async function loginOnce(server: TestServer, key: string, configDir: string): Promise<void> {
  const kind = kinds.get(server);
  const byState = (kind === undefined ? logins.get(server) : loginsByKind.get(kind)) ?? new Map();
  if (kind === undefined) logins.set(server, byState);
  else loginsByKind.set(kind, byState);
  const before = dirState(configDir);
  // The server's own URL in the files is said as any server of its kind would be.
  const id = before === undefined ? undefined : `${key}\0${anyUrl(before, server.url)}`;
  const saved = id === undefined ? undefined : byState.get(id);
  if (saved !== undefined) {
    cpSync(saved.dir, configDir, { recursive: true });
    if (saved.url !== server.url) rebase(saved.dir, configDir, saved.url, server.url);
    return;
  }
  const result = await runCli(['login', '--api-key-stdin', '--base-url', server.url], { configDir, input: key });
  if (result.code !== 0) throw new Error(`login failed: ${result.stderr}`);
  if (id !== undefined) {
    const copy = tempDir('giftcodes-login-');
    cpSync(configDir, copy, { recursive: true });
    byState.set(id, { dir: copy, url: server.url });
  }
}

/** `text` with `url` (not followed by another digit of a port) said as ANY_URL. */
function anyUrl(text: string, url: string): string {
  return text.replace(urlPattern(url), ANY_URL);
}
const ANY_URL = '\0<the server of this kind>';
const urlPattern = (url: string): RegExp => new RegExp(`${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\d)`, 'g');

/** Each file of `saved` copied into `dir` with `from`, the URL it was logged in to, replaced by `to`. */
function rebase(saved: string, dir: string, from: string, to: string): void {
  const walk = (relativeDir: string): void => {
    for (const entry of readdirSync(join(saved, relativeDir), { withFileTypes: true })) {
      const path = join(relativeDir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const text = readFileSync(join(dir, path), 'utf8');
        const rebased = text.replace(urlPattern(from), to);
        if (rebased !== text) writeFileSync(join(dir, path), rebased);
      }
    }
  };
  walk('');
}

/**
 * A catalog cache that still lists products the catalog has dropped since (`ids`): `catalog list` run, then its
 * cache given them too. A plan's rows of such a product pass the check before sending and are refused by the API,
 * row by row: how the tests reach a row the API refuses.
 */
export async function staleCatalog(configDir: string, ids: readonly string[]): Promise<void> {
  const listed = await runCli(['catalog', 'list', '--json'], { configDir });
  if (listed.code !== 0) throw new Error(`catalog list failed (exit ${listed.code}): ${listed.stderr}`);
  const name = readdirSync(configDir).find((file) => /^catalog-cache-.*\.json$/.test(file));
  if (!name) throw new Error('catalog list saved no cache');
  const cache = JSON.parse(readFileSync(join(configDir, name), 'utf8')) as { ids: string[] };
  cache.ids.push(...ids);
  writeFileSync(join(configDir, name), JSON.stringify(cache));
}

export async function ledger(
  server: TestServer,
): Promise<{ orders: Record<string, unknown>[] } & Record<string, unknown>> {
  // A GET: asked once more when the server closed the idle keep-alive socket just as fetch reused it ('other side
  // closed'), which a loaded machine met once in a failpoint case (npm test at ec5cd70).
  const get = (): Promise<Response> => fetch(`${server.url}/_admin/ledger`);
  const res = await get().catch(() => get());
  return (await res.json()) as { orders: Record<string, unknown>[] } & Record<string, unknown>;
}

/** Resolves once the server (run with `--hold`) keeps `count` order requests in progress (GET /_admin/held). */
export async function heldRequests(server: TestServer, count = 1): Promise<void> {
  await until(async () => {
    const { held } = (await (await fetch(`${server.url}/_admin/held`)).json()) as { held: number };
    return held >= count ? true : undefined;
  });
}

/** Ends every `--hold` of the server now (POST /_admin/release); returns how many requests it held. */
export async function releaseHeld(server: TestServer): Promise<number> {
  const res = await fetch(`${server.url}/_admin/release`, { method: 'POST' });
  return ((await res.json()) as { released: number }).released;
}

/**
 * `ran` (a run, or a terminal's wait for its end) with every order request `server` holds meanwhile let go at once
 * (POST /_admin/release, every 25 ms until it settles): a `--hold` there for one run's interruption need not be
 * waited out by the runs after it, whose tests are not about it.
 */
export async function releasingHolds<T>(server: TestServer, ran: Promise<T>): Promise<T> {
  let over = false;
  const ended = ran.finally(() => (over = true));
  while (!over) {
    await releaseHeld(server);
    await Promise.race([ended.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 25))]);
  }
  return ended;
}

/** The ids of the orders the server charged for `quantity` × `productId`, from its ledger. */
export async function chargesFor(server: TestServer, productId: string, quantity: number): Promise<string[]> {
  return (await ledger(server)).orders
    .filter((o) => o.product_id === productId && o.quantity === quantity)
    .map((o) => String(o.order_id));
}

/** Places an order straight on the server, as another client would (not through the CLI); its id. */
export async function placedOnServer(
  server: TestServer,
  productId = 'amazon-us-25',
  quantity = 1,
  key: string = DEMO_KEYS.test,
): Promise<string> {
  const res = await fetch(`${server.url}/v1/orders`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    body: JSON.stringify({ product_id: productId, quantity }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The server's orders whose idempotency key starts with `prefix` (a plan's rows share one). */
export async function ordersWithKeyPrefix(server: TestServer, prefix: string): Promise<Record<string, unknown>[]> {
  return (await ledger(server)).orders.filter((o) => String(o.idempotency_key).startsWith(prefix));
}

/** A row of `order pending --json` (the fields a test reads). */
export interface PendingIntent {
  key: string;
  productId: string;
  orderId: string | null;
  phase: string;
  state: string;
}

/**
 * The intents `order pending --json` lists for a config dir, by running it (its lock turns a dead run's log into intent
 * files, and it settles what had reached the user); a failing command fails the test. Only to look: pendingNow
 * (test/helpers/journal.ts) reads the same rows without a process.
 */
export async function pendingIntents(configDir: string): Promise<PendingIntent[]> {
  const result = await runCli(['order', 'pending', '--json'], { configDir });
  if (result.code !== 0) throw new Error(`order pending failed (exit ${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as PendingIntent[];
}

/** An unresolved intent as the journal's files hold it (the fields a test reads). */
export interface JournalIntent {
  key: string;
  phase: string;
  createdAt: string;
  updatedAt: string;
  orderId?: string;
  [field: string]: unknown;
}

/**
 * The unresolved intents in a config dir's journal, read from its files, never through giftcodes (docs/architecture.md,
 * "The journal's files"): the intent files (*.json), then each process's log (<pid>-<random>.log) folded over
 * them. A log's state is newer than a file's (of two logs, the later updatedAt); an intent that any log
 * ended is gone wherever a copy of it lies; a last line without its newline was never written whole.
 * Unreadable files and log lines, and logs set aside as unreadable, count as intents (named by where they
 * are), so that nothing left is missed.
 */
export function journalIntents(configDir: string): JournalIntent[] {
  const dir = join(configDir, 'journal');
  const names = existsSync(dir) ? readdirSync(dir) : [];
  const unreadable = (what: string): JournalIntent => ({
    key: `unreadable ${what}`,
    phase: 'unreadable',
    createdAt: '',
    updatedAt: '',
  });
  // Every log's ends first: an end names one intent (key and createdAt), and only that one leaves the count,
  // so an ended K(t2) never hides a pending K(t1) (giftcodes' foldIntents drops ended ones before it folds).
  const ended = new Set<string>();
  const logs: JournalIntent[][] = [];
  const left: JournalIntent[] = [];
  for (const name of names.filter((n) => /^\d+-[0-9a-f]+\.log$/.test(n))) {
    const last = new Map<string, JournalIntent>();
    readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .slice(0, -1)
      .forEach((line, index) => {
        let entry: { key?: string; intent?: JournalIntent; ended?: string };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          return void left.push(unreadable(`line ${index + 1} of ${name}`));
        }
        if (entry.key === undefined) return; // the header
        if (entry.intent) last.set(entry.key, entry.intent);
        else if (entry.ended !== undefined) ended.add(`${entry.key}\n${entry.ended}`);
      });
    logs.push([...last.values()]);
  }
  // A log giftcodes set aside for its unreadable lines is there for a person to see: it counts as left.
  for (const name of names.filter((n) => n.endsWith('.unreadable'))) left.push(unreadable(name));
  const found = new Map<string, { intent: JournalIntent; fromLog: boolean }>();
  const offer = (intent: JournalIntent, fromLog: boolean): void => {
    if (ended.has(`${intent.key}\n${intent.createdAt}`)) return;
    const held = found.get(intent.key);
    if (held && ((held.fromLog && !fromLog) || (held.fromLog && fromLog && held.intent.updatedAt > intent.updatedAt)))
      return;
    found.set(intent.key, { intent, fromLog });
  };
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    try {
      offer(JSON.parse(readFileSync(join(dir, name), 'utf8')) as JournalIntent, false);
    } catch {
      left.push(unreadable(`file ${name}`));
    }
  }
  for (const intents of logs) for (const intent of intents) offer(intent, true);
  return [...[...found.values()].map((f) => f.intent), ...left];
}

/** The keys of the unresolved intents in a config dir's journal, from its files (journalIntents); none without a journal. */
export function journalFiles(configDir: string): string[] {
  return journalIntents(configDir).map((intent) => intent.key);
}

/** Polls until `check` gives something other than undefined; fails after `ms`. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The pid of a process that has already exited: a dead owner of an intent, a lock or a codes file. */
export function deadPid(): number {
  return Number(
    spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
  );
}

/** An ISO 8601 time and a space: how every stderr line starts when stderr is not a terminal (a cron log). */
export const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;

/** stderr without the time at the start of each line, for tests about what the lines say. */
/** A `giftcodes serve --seed` file of `seed` (resellers, products), in a directory of its own: its path. */
export function seedFile(seed: unknown): string {
  const file = join(tempDir(), 'seed.json');
  writeFileSync(file, JSON.stringify(seed));
  return file;
}

export function unstamped(stderr: string): string {
  return stderr.replace(new RegExp(STAMP.source, 'gm'), '');
}

/**
 * A hint's words without the variables said beside "the same command again" (src/output/pinned-hint.ts: the run's
 * GIFTCODES_CONFIG_DIR, as every test run has one), for tests about the rest of the hint.
 */
export function asRun(stderr: string): string {
  return stderr.replace(/ \(with GIFTCODES_[A-Z_]+=.*? in its environment, as this run had\)/g, '');
}
