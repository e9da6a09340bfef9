// The tests' own reading of the journal (test/helpers/e2e.ts journalIntents, as scripts/chaos.mjs reads it)
// must count what giftcodes counts: an intent a log ended is gone, and only that one (key and createdAt), so
// an ended K(t2) never hides a pending K(t1) from a test that asserts nothing is left.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { newIntent, type Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { intentFile, intentText } from '../../src/journal/log.js';
import { currentOwner } from '../../src/journal/owner.js';
import { journalIntents, tempDir } from '../helpers/e2e.js';

const deadPid = (): number =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

const spec = {
  profile: 'default',
  environment: 'test' as const,
  baseUrl: 'http://127.0.0.1:4010',
  keyId: 'k1',
  productId: 'amazon-us-25',
  quantity: 1,
};

function intent(key: string, createdAt: string, owner = { pid: deadPid(), boot: currentOwner().boot }): Intent {
  return { ...newIntent(spec, key, Date.parse(createdAt)), phase: 'accepted', orderId: 'ord_1', owner };
}

it('an ended K(t2) in a log leaves the pending K(t1) file counted, as giftcodes counts it', () => {
  const configDir = tempDir();
  const dir = join(configDir, 'journal');
  mkdirSync(dir, { recursive: true });
  const t1 = '2026-06-01T12:00:00.000Z';
  const t2 = '2026-06-01T12:00:05.000Z';
  writeFileSync(intentFile(dir, 'K'), intentText(intent('K', t1)));
  const pid = deadPid();
  const owner = { pid, boot: currentOwner().boot };
  const lines = [
    { log: 1, owner },
    { key: 'K', intent: intent('K', t2, owner) },
    { key: 'K', ended: t2 },
  ];
  writeFileSync(join(dir, `${pid}-0123456789ab.log`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  expect(new Journal(dir).read().intents.map((i) => i.createdAt)).toEqual([t1]);
  expect(journalIntents(configDir).map((i) => [i.key, i.createdAt])).toEqual([['K', t1]]);
});

it('a log line the helper cannot read is counted as left, never thrown over or passed by', () => {
  const configDir = tempDir();
  const dir = join(configDir, 'journal');
  mkdirSync(dir, { recursive: true });
  const pid = deadPid();
  writeFileSync(
    join(dir, `${pid}-0123456789ab.log`),
    `${JSON.stringify({ log: 1, owner: { pid, boot: currentOwner().boot } })}\nnot json\n`,
  );
  expect(journalIntents(configDir).map((i) => i.phase)).toEqual(['unreadable']);
});
