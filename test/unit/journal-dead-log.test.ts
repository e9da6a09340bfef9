// A dead process's log with a line this version cannot read (damage, or a line of another version): its
// readable intents are the only copy of interrupted orders, so the next lock holder still makes them intent
// files (resumable, abandonable, found by the same `order place`), and the log itself, with the line nobody
// could read, is set aside whole (<log>.unreadable) for a person, reported by `order pending`: nothing deleted.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { newIntent, type Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { currentOwner } from '../../src/journal/owner.js';
import { tempDir } from '../helpers/e2e.js';

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

function intent(key: string, o: Partial<Intent> = {}): Intent {
  return { ...newIntent(spec, key, Date.now() - 60_000), ...o };
}

/** A dead run's log: x sent (maybe charged), z ended, then a line nobody can read. */
function deadLogWithBadLine(): { dir: string; file: string; text: string } {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  const pid = deadPid();
  const owner = { pid, boot: currentOwner().boot };
  const file = join(dir, `${pid}-0123456789ab.log`);
  const z = intent('z', { owner });
  const lines = [
    { log: 1, owner },
    { key: 'x', intent: intent('x', { phase: 'sending', owner }) },
    { key: 'z', intent: z },
    { key: 'z', ended: z.createdAt },
    { key: 'y', intent: { version: 3 } },
  ];
  const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
  writeFileSync(file, text);
  return { dir, file, text };
}

it('its readable intent is resumed by `order resume`, and the log is set aside whole and reported', async () => {
  const { dir, file, text } = deadLogWithBadLine();
  const journal = new Journal(dir);
  expect(journal.read().intents.map((i) => i.key)).toEqual(['x']);
  const { intent: claimed } = await journal.claim('x');
  expect([claimed.key, claimed.phase, claimed.owner.pid]).toEqual(['x', 'sending', process.pid]);
  expect(existsSync(file)).toBe(false);
  expect(readFileSync(`${file}.unreadable`, 'utf8')).toBe(text);
  const { intents, unreadable } = new Journal(dir).read();
  expect(intents.map((i) => i.key)).toEqual(['x']);
  expect(unreadable).toEqual([{ file: `${file}.unreadable`, reason: expect.stringContaining('line 5') as unknown }]);
});

it('its readable intent can be abandoned', async () => {
  const { dir } = deadLogWithBadLine();
  await expect(new Journal(dir).abandon('x')).resolves.toMatchObject({ key: 'x' });
  expect(new Journal(dir).read().intents).toEqual([]);
});

it('the same order placed again resumes the interrupted one instead of placing a second', async () => {
  const { dir } = deadLogWithBadLine();
  const begun = await new Journal(dir).begin(spec);
  expect([begun.resumed, begun.intent.key]).toEqual([true, 'x']);
});
