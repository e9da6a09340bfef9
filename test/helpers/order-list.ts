// `order list`'s run(options, deps) over a record of given orders in a fresh config directory, with every way to
// the API failing the test: what it printed, and where.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run, type ListOptions } from '../../src/commands/order/list.js';
import type { OrderRecord } from '../../src/journal/history.js';
import { Journal } from '../../src/journal/journal.js';
import { capturedIo } from './inprocess.js';
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
