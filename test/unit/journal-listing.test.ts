// A keyed begin (a plan's row) lists the journal's directory at most once: the lock's turn compacts dead logs and
// looks the key up from one listing (issue 33: two listings a row, 2,000 for a 1,000-row plan), and the turns
// after it, while this process keeps the lock, use the same listing (log.ts keptListing: four listings a row had
// come back, 4,000 for 1,000 rows). A compaction, or the lock let go and taken again, lists again, so what
// changed is seen.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const listed: string[] = [];
// The journal's lock made (its directory renamed into place, lock.ts tryAcquire): each tenure begins with one.
const locked: string[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readdirSync = ((dir: unknown, ...rest: unknown[]) => {
    if (typeof dir === 'string') listed.push(dir);
    return (fs.readdirSync as (...a: unknown[]) => unknown)(dir, ...rest);
  }) as typeof fs.readdirSync;
  const renameSync = ((from: string, to: string) => {
    fs.renameSync(from, to);
    if (typeof to === 'string' && to.endsWith('/.lock')) locked.push(to);
  }) as typeof fs.renameSync;
  return { ...fs, default: { ...fs, readdirSync, renameSync }, readdirSync, renameSync };
});

const { newIntent } = await import('../../src/journal/intent.js');
const { Journal } = await import('../../src/journal/journal.js');
const { currentOwner } = await import('../../src/journal/owner.js');
const { letGoOfKept } = await import('../../src/journal/lock.js');
const { sentAgainKey } = await import('../../src/orders/plan.js');
const { deadPid, journalDir } = await import('../helpers/e2e.js');
const { smallSpec: spec } = await import('../helpers/journal.js');

const listingsOf = (dir: string): number => listed.filter((d) => d === dir).length;

describe("a plan's rows and the journal's listing", () => {
  it('one listing of the journal per keyed begin, rows one after another or all at once', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    // The first turn of a process also sweeps what dead writers left (one more listing, once per process).
    await j.begin({ ...spec, key: 'first' });
    // At most one listing a tenure of the lock: one for the ten rows, unless this machine was so slow that the lock
    // was let go between them (held 250 ms at most, or 100 ms without a turn: lock.ts), and each tenure lists again.
    const tenures = (): number => Math.max(1, locked.filter((l) => l === join(dir, '.lock')).length);
    listed.length = 0;
    locked.length = 0;
    for (let i = 0; i < 10; i++) await j.begin({ ...spec, key: `one-${i}` });
    expect(listingsOf(dir)).toBeLessThanOrEqual(tenures());
    listed.length = 0;
    locked.length = 0;
    await Promise.all(Array.from({ length: 10 }, (_, i) => j.begin({ ...spec, key: `many-${i}` })));
    expect(listingsOf(dir)).toBeLessThanOrEqual(tenures());
    expect(j.read().intents).toHaveLength(21);
  });

  it('the lock let go and taken again lists again: a file put in meanwhile is found', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const first = (await j.begin({ ...spec, key: 'first' })).intent;
    await j.begin({ ...spec, key: 'second' });
    listed.length = 0;
    await j.begin({ ...spec, key: 'third' });
    expect(listingsOf(dir)).toBe(0);
    // A look outside the lock lists for itself, and leaves the tenure's listing as it was.
    expect(j.find('nowhere')).toBeUndefined();
    await j.begin({ ...spec, key: 'fourth' });
    expect(listingsOf(dir)).toBe(1);
    // Let go (as after HAND_OFF_MS, or for another process's waiter): whatever happened meanwhile is listed.
    letGoOfKept();
    const hand = { ...first, key: 'hand', owner: { pid: deadPid(), boot: currentOwner().boot } };
    writeFileSync(join(dir, 'copied.json'), JSON.stringify(hand));
    const resumed = await j.begin({ ...spec, key: 'hand' });
    expect(listingsOf(dir)).toBe(2);
    expect(resumed).toMatchObject({ resumed: true, intent: { key: 'hand', createdAt: first.createdAt } });
  });

  it("a dead process's log compacted in one turn is seen by the next turn of the same tenure: matched, not begun twice", async () => {
    const dir = journalDir();
    const pid = deadPid();
    const owner = { pid, boot: currentOwner().boot };
    const j = new Journal(dir);
    await j.begin({ ...spec, key: 'first' });
    await j.begin({ ...spec, key: 'second' });
    // A run that died while this one kept the lock (it wrote its log before, under the lock).
    const left = { ...newIntent(spec, 'unkeyed-left', Date.now() - 60_000), phase: 'prepared' as const, owner };
    writeFileSync(
      join(dir, `${pid}-0123456789ad.log`),
      `${JSON.stringify({ log: 1, owner })}\n${JSON.stringify({ key: 'unkeyed-left', intent: left })}\n`,
    );
    letGoOfKept();
    // This tenure's first turn compacts that log into an intent file; its next turn matches the unkeyed order to it.
    await j.begin({ ...spec, key: 'third' });
    listed.length = 0;
    const matched = await j.begin({ ...spec, quantity: spec.quantity });
    expect(matched.resumed).toBe(true);
    expect(matched.intent.key).toBe('unkeyed-left');
  });

  it('a turn that compacted its own log: the next turn of the same tenure lists again (its log is gone)', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const a = (await j.begin({ ...spec, key: 'a' })).intent;
    await j.begin({ ...spec, key: 'b' });
    listed.length = 0;
    // Its last live intent ended: the log is compacted away in that turn, after the turn's listing.
    await j.end([a, (await j.begin({ ...spec, key: 'b' })).intent], 'delivered');
    expect(readdirSync(dir).filter((name) => name.endsWith('.log'))).toEqual([]);
    const before = listingsOf(dir);
    await j.begin({ ...spec, key: 'c' });
    expect(listingsOf(dir)).toBe(before + 1);
  });

  it('a file gone from a listing kept for the tenure (removed by hand): read again from a new listing, not "kept changing"', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const first = (await j.begin({ ...spec, key: 'first' })).intent;
    letGoOfKept();
    const hand = {
      ...first,
      key: 'hand',
      productId: 'other-product',
      owner: { pid: deadPid(), boot: currentOwner().boot },
    };
    writeFileSync(join(dir, 'copied.json'), JSON.stringify(hand));
    await j.begin({ ...spec, key: 'second' });
    rmSync(join(dir, 'copied.json'));
    // Unkeyed: matched against every intent, read under the lock from the listing this tenure keeps.
    const begun = await j.begin({ ...spec });
    expect(begun.resumed).toBe(false);
    expect(j.read().intents.map((i) => i.key)).not.toContain('hand');
  });

  it("a fresh plan row's generations of its key are looked up from one listing", async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const scope = { baseUrl: spec.baseUrl, environment: spec.environment, keyId: spec.keyId! };
    listed.length = 0;
    expect(sentAgainKey('plan-0123456789abcdef01234567', j, scope)).toBe('plan-0123456789abcdef01234567');
    expect(listingsOf(dir)).toBe(1);
    // Its next generation interrupted (its first one's record pruned): found from the same listing.
    await j.begin({ ...spec, key: 'plan-0123456789abcdef01234568-g2' });
    letGoOfKept();
    listed.length = 0;
    expect(sentAgainKey('plan-0123456789abcdef01234568', j, scope)).toBe('plan-0123456789abcdef01234568-g2');
    expect(listingsOf(dir)).toBe(1);
    // The shared listing ends with the look: a file put there since is found by the next one.
    const copied = { ...(j.find('plan-0123456789abcdef01234568-g2') as object), key: 'copied-by-hand' };
    writeFileSync(join(dir, 'copied.json'), JSON.stringify(copied));
    expect(j.find('copied-by-hand')?.key).toBe('copied-by-hand');
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
