// `order pending --json` read in this process: for the end-to-end tests that only look at what it lists.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pendingRows } from '../../src/commands/order/pending.js';
import { Journal } from '../../src/journal/journal.js';
import { writtenUnrecorded } from '../../src/orders/lifecycle.js';
import type { PendingIntent } from './e2e.js';

/**
 * What `order pending --json` lists for a config dir now, read by the code the verb lists with (pendingRows over
 * a Journal of the dir: the same fold of intent files and logs, the same states), as the document it prints.
 * Without the verb's writes: it settles nothing (an order whose outcome had reached the user is listed, where the
 * verb would settle it first) and leaves a dead run's log as it is (the verb's lock turns it into intent files:
 * a test that edits an intent file runs pendingIntents first). A CLI run costs ~0.1 s of CPU; this, about 1 ms.
 */
export async function pendingNow(configDir: string): Promise<PendingIntent[]> {
  const dir = join(configDir, 'journal');
  // The verb makes the directory, empty, where the config directory has none yet.
  if (!existsSync(dir)) return [];
  const journal = new Journal(dir);
  const { rows } = await pendingRows(journal, {}, await writtenUnrecorded(journal));
  return JSON.parse(JSON.stringify(rows)) as PendingIntent[];
}
