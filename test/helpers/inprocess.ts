// The in-process side of the unit tests that drive orders: the reference server started in this process, a
// client for it without retries, a fresh journal directory, and an Io over buffers that records what it
// printed. (The end-to-end tests run the built CLI instead: test/helpers/e2e.ts.)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import { DEFAULT_REQUEST_TIMEOUT_S, DEFAULT_RETRIES, Factory, type GlobalOptions } from '../../src/factory.js';
import { keyIdOf, type Intent, type OrderSpec } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import type { MachineDeps } from '../../src/orders/machine.js';
import { useQuery } from '../../src/output/exporter.js';
import { Io } from '../../src/output/io.js';
import { defaultServerOptions, startServer, type RunningServer, type ServerOptions } from '../../src/server/index.js';
import { DEMO_KEYS, tempDir } from './e2e.js';

export const KEY = DEMO_KEYS.test;

/** The reference server on a free port, its admin routes on, orders fulfilled at once unless `o` says otherwise. */
export function inProcessServer(o: Partial<ServerOptions> = {}): Promise<RunningServer> {
  return startServer({ ...defaultServerOptions(), port: 0, admin: true, fulfilAfterMs: 0, ...o });
}

/**
 * In-process servers for the tests of the enclosing describe (or file), one per name with its options: started
 * before them, closed after. Read them inside a test or a hook. `start` for other defaults (the server suite's).
 */
export function inProcessServers<N extends string>(
  options: Record<N, Partial<ServerOptions>>,
  start: (o: Partial<ServerOptions>) => Promise<RunningServer> = inProcessServer,
): Record<N, RunningServer> {
  const running = new Map<N, RunningServer>();
  const names = Object.keys(options) as N[];
  beforeAll(async () => {
    for (const name of names) running.set(name, await start(options[name]));
  });
  afterAll(async () => {
    await Promise.all([...running.values()].map((server) => server.close()));
  });
  const servers = {} as Record<N, RunningServer>;
  for (const name of names) {
    Object.defineProperty(servers, name, {
      enumerable: true,
      get: () => {
        const server = running.get(name);
        if (server === undefined)
          throw new Error(`inProcessServers: ${name} starts before the tests; read it inside a test or a hook`);
        return server;
      },
    });
  }
  return servers;
}

/**
 * A client of `url` with the demo test key, one attempt per request. Its deadline is a safety net, not a rule of
 * any test here: an attempt's deadline covers the first request's import of undici (src/api/transport.ts
 * loadUndici), and a fresh worker on a loaded machine took over 5 s for it ("no complete answer within 5s" from the
 * in-process server, the files run under `nice -n 19` beside two busy loops).
 */
export function clientOf(url: string): ApiClient {
  return new ApiClient({
    baseUrl: url,
    apiKey: KEY,
    requestTimeoutMs: 60_000,
    retry: { ...DEFAULT_RETRY_POLICY, retries: 0 },
  });
}

/** A journal in a new temporary directory. */
export function freshJournal(): Journal {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return new Journal(dir);
}

/** An Io whose streams are all terminals `columns` wide, without colour: what a table looks like there. */
export function terminalIo(columns: number): Io {
  return new Io({
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: { NO_COLOR: '1' },
    stdinIsTTY: true,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    columns,
  });
}

/** An Io over buffers (or over `stdout` when given; stderr a terminal when asked), and what it wrote to each stream. */
export function capturedIo(
  o: { json?: boolean; stdout?: Writable; stderrIsTTY?: boolean; env?: NodeJS.ProcessEnv } = {},
): {
  io: Io;
  out: () => string;
  err: () => string;
} {
  const stdout = o.stdout ?? new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const io = new Io({
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: o.env ?? {},
    stdinIsTTY: false,
    stdoutIsTTY: false,
    // A terminal on stderr: spinners and progress lines are drawn (and captured).
    stderrIsTTY: o.stderrIsTTY === true,
  });
  if (o.json) io.setMode({ json: true, quiet: false, verbose: false });
  return { io, out: () => out, err: () => err };
}

/** The order the order-machine tests place: 2 × amazon-us-25 with the demo test key, on `url`. */
export function testOrderSpec(url: string): OrderSpec {
  return {
    profile: 'default',
    environment: 'test',
    baseUrl: url,
    keyId: keyIdOf(KEY),
    productId: 'amazon-us-25',
    quantity: 2,
  };
}

/** What the order machine runs on in one test: a fresh journal, a client of `url`, an Io over `stdout`, and a clock when given. */
export function machineSetup(
  url: string,
  o: { stdout?: Writable; now?: () => number } = {},
): { deps: MachineDeps; journal: Journal; spec: OrderSpec } {
  const journal = freshJournal();
  const { io } = capturedIo({ stdout: o.stdout });
  const deps: MachineDeps = {
    io,
    api: clientOf(url),
    journal,
    signal: new AbortController().signal,
    ...(o.now ? { now: o.now } : {}),
  };
  return { deps, journal, spec: testOrderSpec(url) };
}

/** machineSetup, with an intent for its spec begun in the journal. */
export async function machineWithIntent(
  url: string,
  o: { stdout?: Writable; now?: () => number } = {},
): Promise<ReturnType<typeof machineSetup> & { intent: Intent }> {
  const setup = machineSetup(url, o);
  const { intent } = await setup.journal.begin(setup.spec);
  return { ...setup, intent };
}

/**
 * An API whose order has two pages of codes; `between` runs after the first page was written (something
 * planted at the target meanwhile). The export offers each page's bytes to its fast path first
 * (rawCodePages); these pages are records already.
 */
export function twoPageApi(between: () => void): ApiClient {
  async function* codePages() {
    yield [{ code: 'A-1' }];
    between();
    yield [{ code: 'A-2' }];
  }
  return { codePages, rawCodePages: codePages } as unknown as ApiClient;
}

/**
 * A verb's run(options, deps) in this process, with the dependencies a CLI run builds (src/factory.ts) over a config
 * dir (the run's environment: GIFTCODES_CONFIG_DIR and `env`; its global options: `globals`, the CLI's defaults
 * otherwise, --query compiled as the CLI's hook does) and an Io over buffers: for the end-to-end tests' checks of
 * what one verb says, where neither the exit code, the split of stdout and stderr, a signal, nor a file a real run
 * writes is what is checked. What `verb` throws is the caller's to read (the CLI would print it and exit with its
 * exitCode). A CLI run costs ~0.1 s of CPU; this, a few ms once the worker has loaded the verbs' modules (~1.8 s of
 * CPU for a file run alone, once; npm test's workers share them from file to file: vitest.config.ts).
 */
export async function ranHere(
  configDir: string,
  verb: (deps: Factory) => Promise<void>,
  o: { globals?: Partial<GlobalOptions>; env?: NodeJS.ProcessEnv } = {},
): Promise<{ out: string; err: string }> {
  const globals: GlobalOptions = { requestTimeout: DEFAULT_REQUEST_TIMEOUT_S, retries: DEFAULT_RETRIES, ...o.globals };
  const { io, out, err } = capturedIo({ env: { ...o.env, GIFTCODES_CONFIG_DIR: configDir } });
  io.setMode({ json: globals.json === true, quiet: globals.quiet === true, verbose: globals.verbose === true });
  if (globals.query !== undefined) await useQuery(io, globals.query);
  const deps = new Factory(io, globals, new AbortController().signal);
  try {
    await verb(deps);
    await io.flushOut();
  } finally {
    await deps.close();
  }
  return { out: out(), err: err() };
}
