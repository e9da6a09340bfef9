// `order list`'s run(options, deps) over a record of given orders in a fresh config directory, with every way to
// the API failing the test: what it printed, and where; and over a config directory an end-to-end test made.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run, type ListOptions } from '../../src/commands/order/list.js';
import type { OrderRecord } from '../../src/journal/history.js';
import { Journal } from '../../src/journal/journal.js';
import type { GlobalOptions } from '../../src/factory.js';
import { capturedIo, ranHere } from './inprocess.js';
import { tempDir } from './e2e.js';

export async function listed(
  options: ListOptions,
  records: readonly OrderRecord[],
  o: { json?: boolean; now: string },
): Promise<{ configDir: string; out: string; err: string }> {
  const configDir = tempDir();
  const journal = new Journal(join(configDir, 'journal'));
  mkdirSync(journal.dir, { recursive: true });
  for (const record of records) journal.history.record(record);
  const { io, out, err } = capturedIo(o.json ? { json: true } : {});
  const sent = (): never => {
    throw new Error('order list asked the API');
  };
  const deps = {
    io,
    journal: () => Promise.resolve(journal),
    connection: sent,
    connectionTo: sent,
    clientFor: sent,
    currentTarget: sent,
    now: () => Date.parse(o.now),
    configDir,
    journalDir: journal.dir,
  };
  await run(options, deps as unknown as Parameters<typeof run>[1]);
  await io.flushOut();
  return { configDir, out: out(), err: err() };
}

/**
 * What `order list --json <options>` prints for a config dir now, read by the verb's own run(options, deps) in this
 * process over that directory (ranHere: the dependencies a CLI run builds): for the end-to-end tests that only read
 * the record between their runs (what a filter keeps, an order's key or id). The exit code, the split of stdout and
 * stderr, and --refresh (which asks the API) stay with the built CLI.
 */
export async function listedHere<T = Record<string, unknown>>(
  configDir: string,
  options: Omit<ListOptions, 'refresh' | 'format'> = {},
): Promise<T[]> {
  const globals = { json: true, env: options.env as GlobalOptions['env'], profile: options.profile };
  const { out } = await ranHere(configDir, (deps) => run(options, deps), { globals });
  return JSON.parse(out) as T[];
}
