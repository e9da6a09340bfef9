// An fsync of the log fails: every caller waiting on it is told so (exit 8) and takes no step after its line,
// so that line must not outlive the failure as a state a later run acts on. A new intent whose begin failed
// was never sent: nothing of it is left for `order pending` or `order resume --all`. A state confirmed by an
// earlier fsync (`sending`: the order may have been charged) stays, for the next run to resume.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { finishJournal } from '../../src/journal/at-exit.js';
import { Journal } from '../../src/journal/journal.js';
import { readLog } from '../../src/journal/log.js';
import { journalDir } from '../helpers/e2e.js';
import { failingLog, smallSpec as spec } from '../helpers/journal.js';

const deadPid = (): number =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

/** The log as the next run finds it once this process is gone: in a journal of its own, under a dead pid. */
function leftBehind(text: string): Journal {
  const dir = journalDir();
  const pid = deadPid();
  writeFileSync(
    join(dir, `${pid}-0123456789ab.log`),
    text.replaceAll(`"pid":${process.pid}`, `"pid":${pid}`).replace(/"start":"\d+",?/g, ''),
  );
  return new Journal(dir);
}

it('a new intent whose first fsync failed (exit 8, nothing sent) leaves nothing a later run would send', async () => {
  const dir = journalDir();
  const { file, failing } = failingLog(dir);
  failing.now = true;
  await expect(new Journal(dir).begin(spec)).rejects.toMatchObject({ exitCode: 8, code: 'journal_unwritable' });
  await finishJournal(); // as cli.ts does as the command ends
  expect(new Journal(dir).read().intents).toEqual([]); // nor pending for this process
  const next = leftBehind(readFileSync(file(), 'utf8'));
  await next.settleWhere(() => undefined); // the next lock holder compacts it
  expect(next.read()).toEqual({ intents: [], unreadable: [] });
});

it('a state an earlier fsync confirmed stays through a later failed one: the maybe-charged `sending` is resumed', async () => {
  const dir = journalDir();
  const { file, failing } = failingLog(dir);
  const j = new Journal(dir);
  const { intent } = await j.begin(spec);
  const sending = await j.saveAsync({ ...intent, phase: 'sending' });
  failing.now = true;
  await expect(j.saveAsync({ ...sending, phase: 'accepted', orderId: 'ord_1' })).rejects.toMatchObject({ exitCode: 8 });
  expect(readLog(file()).live.get(intent.key)).toEqual(sending);
  expect(j.read().intents).toEqual([sending]);
  const next = leftBehind(readFileSync(file(), 'utf8'));
  await next.settleWhere(() => undefined);
  expect(next.read().intents.map((i) => [i.key, i.phase])).toEqual([[intent.key, 'sending']]);
});
