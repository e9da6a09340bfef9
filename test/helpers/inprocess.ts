// The in-process side of the unit tests that drive orders: the reference server started in this process, a
// client for it without retries, a fresh journal directory, and an Io over buffers that records what it
// printed. (The end-to-end tests run the built CLI instead: test/helpers/e2e.ts.)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { ApiClient } from '../../src/api/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import { Journal } from '../../src/journal/journal.js';
import { Io } from '../../src/output/io.js';
import { defaultServerOptions, startServer, type RunningServer, type ServerOptions } from '../../src/server/index.js';
import { DEMO_KEYS, tempDir } from './e2e.js';

export const KEY = DEMO_KEYS.test;

/** The reference server on a free port, its admin routes on, orders fulfilled at once unless `o` says otherwise. */
export function inProcessServer(o: Partial<ServerOptions> = {}): Promise<RunningServer> {
  return startServer({ ...defaultServerOptions(), port: 0, admin: true, fulfilAfterMs: 0, ...o });
}

/** A client of `url` with the demo test key, one attempt per request. */
export function clientOf(url: string): ApiClient {
  return new ApiClient({ baseUrl: url, apiKey: KEY, requestTimeoutMs: 5000, retry: { ...DEFAULT_RETRY_POLICY, retries: 0 } });
}

/** A journal in a new temporary directory. */
export function freshJournal(): Journal {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return new Journal(dir);
}

/** An Io over buffers (or over `stdout` when given), and what it wrote to each stream. */
export function capturedIo(o: { json?: boolean; stdout?: Writable } = {}): { io: Io; out: () => string; err: () => string } {
  const stdout = o.stdout ?? new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const io = new Io({ stdin: new PassThrough(), stdout, stderr, env: {}, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false });
  if (o.json) io.setMode({ json: true, quiet: false, verbose: false });
  return { io, out: () => out, err: () => err };
}
