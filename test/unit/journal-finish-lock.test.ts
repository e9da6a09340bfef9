// The end-of-run compaction (IntentLog.finish, from cli.ts as a command ends) turns a live run's log into
// intent files: an intent moves from the log to its file. A reader holding the journal lock (a keyed begin:
// the key's file, then the logs) must never see it in neither place, or it creates a second intent for the
// key. So the compaction takes the lock like every other change of the journal's files, and waits for it.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { newIntent, sha256, type Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { withDirLock } from '../../src/journal/lock.js';
import { intentFile, IntentLog } from '../../src/journal/log.js';
import { currentOwner } from '../../src/journal/owner.js';
import { tempDir } from '../helpers/e2e.js';
import { smallSpec as spec } from '../helpers/journal.js';

function accepted(key: string): Intent {
  return {
    ...newIntent(spec, key, Date.now() - 60_000),
    phase: 'accepted',
    orderId: 'ord_1',
    owner: { pid: process.ppid, boot: currentOwner().boot },
  };
}

it('a run’s log is compacted at its end only under the journal lock: a holder of the lock sees the intent in the log throughout', async () => {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  // Run A (its intent owned by a live process other than this one): its log holds K, accepted and waiting
  // for codes, as its command ends.
  const a = new IntentLog(dir);
  await a.append([{ key: 'K', intent: accepted('K') }]);
  const log = a.file!;
  let finished: Promise<void> | undefined;
  await withDirLock(dir, async () => {
    finished = a.finish();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Still A's log, never its file: what a keyed begin reads meanwhile (it holds the lock) finds K in it.
    expect(existsSync(log)).toBe(true);
    expect(existsSync(intentFile(dir, 'K'))).toBe(false);
    expect(new Journal(dir).find('K')?.phase).toBe('accepted');
  });
  await finished;
  expect(readdirSync(dir)).toEqual([`${sha256('K').slice(0, 40)}.json`]);
  // And once it is a file, a keyed begin is refused as before: K's owner lives.
  await expect(new Journal(dir).begin({ ...spec, key: 'K' })).rejects.toMatchObject({ code: 'intent_busy' });
});
