// A keyed begin (a plan's row) lists the journal's directory once: the lock's turn compacts dead logs and
// looks the key up from one listing (issue 33: two listings a row, 2,000 for a 1,000-row plan). A compaction
// made in the turn lists again, so what it wrote is seen.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const listed: string[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readdirSync = ((dir: unknown, ...rest: unknown[]) => {
    if (typeof dir === 'string') listed.push(dir);
    return (fs.readdirSync as (...a: unknown[]) => unknown)(dir, ...rest);
  }) as typeof fs.readdirSync;
  return { ...fs, default: { ...fs, readdirSync }, readdirSync };
});

const { newIntent } = await import('../../src/journal/intent.js');
const { Journal } = await import('../../src/journal/journal.js');
const { currentOwner } = await import('../../src/journal/owner.js');
const { deadPid, journalDir } = await import('../helpers/e2e.js');
const { smallSpec: spec } = await import('../helpers/journal.js');

const listingsOf = (dir: string): number => listed.filter((d) => d === dir).length;

describe("a plan's rows and the journal's listing", () => {
  it('one listing of the journal per keyed begin, rows one after another or all at once', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    // The first turn of a process also sweeps what dead writers left (one more listing, once per process).
    await j.begin({ ...spec, key: 'first' });
    listed.length = 0;
    for (let i = 0; i < 10; i++) await j.begin({ ...spec, key: `one-${i}` });
    expect(listingsOf(dir)).toBe(10);
    listed.length = 0;
    await Promise.all(Array.from({ length: 10 }, (_, i) => j.begin({ ...spec, key: `many-${i}` })));
    expect(listingsOf(dir)).toBe(10);
    expect(j.read().intents).toHaveLength(21);
  });

  it("a dead process's log compacted in the turn is listed again: its intent is found and resumed, not begun twice", async () => {
    const dir = journalDir();
    const pid = deadPid();
    const owner = { pid, boot: currentOwner().boot };
    const intent = { ...newIntent(spec, 'left', Date.now() - 60_000), phase: 'sending' as const, owner };
    writeFileSync(
      join(dir, `${pid}-0123456789ab.log`),
      `${JSON.stringify({ log: 1, owner })}\n${JSON.stringify({ key: 'left', intent })}\n`,
    );
    const j = new Journal(dir);
    const begun = await j.begin({ ...spec, key: 'left' });
    expect(begun.resumed).toBe(true);
    expect(begun.intent.createdAt).toBe(intent.createdAt);
    // Unkeyed, the same order is matched from the listing made after the compaction.
    const other = new Journal(journalDir());
    const otherDir = other.dir;
    writeFileSync(
      join(otherDir, `${pid}-0123456789ac.log`),
      `${JSON.stringify({ log: 1, owner })}\n${JSON.stringify({ key: 'unkeyed', intent: { ...intent, key: 'unkeyed' } })}\n`,
    );
    const matched = await other.begin({ ...spec });
    expect(matched.resumed).toBe(true);
    expect(matched.intent.key).toBe('unkeyed');
    expect(other.read().intents.map((i) => i.key)).toEqual(['unkeyed']);
  });
});
