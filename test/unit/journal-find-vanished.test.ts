// The key's intent moves from a log to its file when the log is compacted (under the lock since the end-of-run
// compaction takes it; this is the reader's own guard): a keyed begin reads the key's file (not there yet),
// lists the directory (the log is), then reads the log (gone). It must still find the intent, in its file,
// and refuse (its owner lives), never create a second intent for the key.
//
// The interleaving is forced: the read of the other run's log is the instant that log is compacted.
import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';

const hook: { fn?: ((file: string) => void) | undefined } = {};
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openSync = ((file: string, ...rest: unknown[]) => {
    if (hook.fn && typeof file === 'string' && file.endsWith('.log')) hook.fn(file);
    return (fs.openSync as (...a: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.openSync;
  return { ...fs, default: { ...fs, openSync }, openSync };
});

const { newIntent, sha256 } = await import('../../src/journal/intent.js');
const { Journal } = await import('../../src/journal/journal.js');
const { currentOwner } = await import('../../src/journal/owner.js');
const { letGoOfKept } = await import('../../src/journal/lock.js');
const { intentFile, intentText } = await import('../../src/journal/log.js');
const { tempDir } = await import('../helpers/e2e.js');
type Intent = import('../../src/journal/intent.js').Intent;

it('a keyed begin that reads the key’s file before, and its log after, a compaction still finds the intent: refused, no second one', async () => {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  // Run A, alive (the test runner's parent): its log holds X (key K, accepted, waiting for codes).
  const owner = { pid: process.ppid, boot: currentOwner().boot };
  const spec = {
    profile: 'default',
    environment: 'test' as const,
    baseUrl: 'http://x',
    keyId: 'k',
    productId: 'p',
    quantity: 1,
    key: 'K',
  };
  const x: Intent = { ...newIntent(spec, 'K', Date.now() - 60_000), phase: 'accepted', orderId: 'ord_1', owner };
  const aLog = join(dir, `${process.ppid}-0123456789ab.log`);
  writeFileSync(aLog, `${JSON.stringify({ log: 1, owner })}\n${JSON.stringify({ key: 'K', intent: x })}\n`);

  // The first read of A's log is the lock holder's look for dead logs; the second is find()'s, after it read K's file.
  let reads = 0;
  hook.fn = (file) => {
    if (file !== aLog || ++reads < 2) return;
    hook.fn = undefined;
    writeFileSync(intentFile(dir, 'K'), intentText(x));
    unlinkSync(aLog);
  };
  await expect(new Journal(dir).begin(spec)).rejects.toMatchObject({ code: 'intent_busy' });
  expect(reads).toBe(2);
  letGoOfKept(); // as this process would at its exit
  expect(readdirSync(dir)).toEqual([`${sha256('K').slice(0, 40)}.json`]);
});
