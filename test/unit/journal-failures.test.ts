// The journal's own writes failing after an intent exists: an end whose line cannot be made durable, a dead
// run's log that cannot become intent files. Each is exit 8 naming what failed, never a step taken as if it
// had been written. And a lookup beside a damaged intent file is no crash.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { intentFile } from '../../src/journal/log.js';
import { deadPid, journalDir } from '../helpers/e2e.js';
import { failingLog, smallSpec as spec } from '../helpers/journal.js';

const logsIn = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.log'));

describe("the journal's writes failing", () => {
  it('an end whose line cannot be made durable is exit 8 naming the journal: the intent is not taken as ended', async () => {
    const dir = journalDir();
    const { failing } = failingLog(dir);
    const j = new Journal(dir);
    const { intent } = await j.begin({ ...spec, key: 'e1' });
    failing.now = true;
    await expect(j.end([intent], 'abandoned')).rejects.toMatchObject({
      exitCode: 8,
      code: 'journal_unwritable',
      message: expect.stringContaining(`cannot write the order journal ${dir}`),
    });
  });

  it("a dead run's log whose intent cannot become a file: exit 8 with the writer's own words, and nothing begun", async () => {
    const source = journalDir();
    await new Journal(source).begin({ ...spec, key: 'e3' });
    const text = readFileSync(join(source, logsIn(source)[0]!), 'utf8');
    const dir = journalDir();
    const pid = deadPid();
    writeFileSync(
      join(dir, `${pid}-0123456789ab.log`),
      text.replaceAll(`"pid":${process.pid}`, `"pid":${pid}`).replace(/"start":"\d+",?/g, ''),
    );
    mkdirSync(join(intentFile(dir, 'e3'), 'in-the-way'), { recursive: true });
    const j = new Journal(dir);
    await expect(j.begin({ ...spec, key: 'other' })).rejects.toMatchObject({
      exitCode: 8,
      message: expect.stringContaining(`cannot write the journal file ${intentFile(dir, 'e3')}`),
    });
    expect(logsIn(dir)).toEqual([`${pid}-0123456789ab.log`]);
  });
});

describe('find beside a damaged intent file', () => {
  it('a key that is nowhere is undefined, the damaged file left alone', () => {
    const dir = journalDir();
    writeFileSync(join(dir, 'damaged.json'), '{"key": ');
    expect(new Journal(dir).find('nowhere')).toBeUndefined();
    expect(readdirSync(dir)).toContain('damaged.json');
  });
});
