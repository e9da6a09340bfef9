// Journal rules that mutation testing found unchecked (docs/mutation.md): the clock an intent's end is stamped
// with, a codes file found at --out though its rename mark was never written, the log compacted only once
// every intent in it has ended, another machine's intent for another order, a key in another API key's
// scope named as such, a legacy delivery without an order id, and the temporary files begin sweeps.
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileIdentity } from '../../src/journal/codes-file.js';
import { scopeOf } from '../../src/journal/history.js';
import type { Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { endedRecord } from '../../src/orders/lifecycle.js';
import { deadPid, tempDir } from '../helpers/e2e.js';
import { spec, dead, outTo, journal } from '../helpers/journal.js';

/** A fixed clock, far from the real one, so an end stamped with Date.now() shows. */
const NOW = Date.parse('2026-03-01T12:00:00.000Z');

/** An interrupted intent of a dead run, accepted as `ord_1`. */
async function interrupted(j: Journal, o: { key?: string; out?: string } = {}): Promise<Intent> {
  const { intent } = await j.begin(
    { ...spec, ...(o.key ? { key: o.key } : {}), ...(o.out ? { out: outTo(o.out) } : {}) },
    NOW,
  );
  return j.save({ ...intent, phase: 'accepted', orderId: 'ord_1', status: 'completed', owner: dead() }, NOW);
}

const endedAt = (j: Journal, key: string): string | undefined => j.history.get(key, scopeOf(spec))?.endedAt;

describe("an intent's end is stamped with the command's clock", () => {
  it('abandon, claim of a delivered intent, settleWhere and begin settling one: endedAt is the now they were given', async () => {
    const stamp = new Date(NOW).toISOString();
    const a = journal();
    await a.abandon((await interrupted(a, { key: 'a' })).key, NOW);
    expect(endedAt(a, 'a')).toBe(stamp);

    const c = journal();
    const forClaim = await interrupted(c, { key: 'c' });
    c.save({ ...forClaim, phase: 'delivered' }, NOW);
    await expect(c.claim('c', {}, NOW)).resolves.toMatchObject({ reached: 'delivered' });
    expect(endedAt(c, 'c')).toBe(stamp);

    const s = journal();
    await interrupted(s, { key: 's' });
    await s.settleWhere(() => 'failed', NOW);
    expect(endedAt(s, 's')).toBe(stamp);

    const b = journal();
    const forBegin = await interrupted(b);
    b.save({ ...forBegin, phase: 'delivered' }, NOW);
    const begun = await b.begin(spec, NOW);
    expect(begun.settled.map((i) => i.key)).toEqual([forBegin.key]);
    expect(endedAt(b, forBegin.key)).toBe(stamp);
  });

  it('end with recorded: true leaves the record recordDelivery wrote as it is', async () => {
    const j = journal();
    const intent = await interrupted(j, { key: 'r' });
    await j.recordDelivery([endedRecord(intent, 'delivered', NOW)]);
    await j.end([intent], 'delivered', { recorded: true, now: NOW + 60_000 });
    expect(endedAt(j, 'r')).toBe(new Date(NOW).toISOString());
  });

  it("the record of a key's new order replaces the record of its earlier order in the same scope", async () => {
    const j = journal();
    j.history.record({ ...endedRecord(await interrupted(j, { key: 'k' }), 'delivered', NOW), orderId: 'ord_0' });
    const again = j.save({ ...(await j.claim('k', {}, NOW)).intent, orderId: 'ord_2' }, NOW);
    await j.end([again], 'delivered', { now: NOW });
    expect(j.history.get('k', scopeOf(spec))?.orderId).toBe('ord_2');
  });
});

describe("an intent's codes file, found by what is on disk", () => {
  it('renamed into place, its mark never written: reached says delivered; a file not there yet is not', async () => {
    const j = journal();
    const dir = tempDir();
    const out = join(dir, 'codes.json');
    const intent = await interrupted(j, { out });
    expect(j.reached(intent)).toBeUndefined();
    const temp = join(dir, '.codes.json.1-aa.tmp');
    writeFileSync(temp, '[{"code":"A"}]\n');
    const recorded = j.save({ ...intent, files: [{ ...fileIdentity(temp, 'ord_1', out), count: 1 }] }, NOW);
    // Recorded, not yet renamed: not delivered.
    expect(j.reached(recorded)).toBeUndefined();
    renameSync(temp, out);
    expect(j.reached(recorded)).toBe('delivered');
  });

  it('begin without --out, the interrupted order having written its codes to a file: refused naming that file', async () => {
    const j = journal();
    const out = join(tempDir(), 'codes.json');
    const intent = await interrupted(j, { out });
    writeFileSync(out, '[{"code":"A"}]\n');
    j.save({ ...intent, files: [{ ...fileIdentity(out, 'ord_1', out), count: 1, renamed: true }] }, NOW);
    await expect(j.begin(spec, NOW)).rejects.toMatchObject({ code: 'codes_delivered', exitCode: 2 });
  });
});

describe("this process's log", () => {
  const logs = (j: Journal): string[] => readdirSync(j.dir).filter((n) => !n.endsWith('.lock'));

  it('holds its intents while any is open, no file per key; once the last has ended, nothing is left', async () => {
    const j = journal();
    const a = (await j.begin({ ...spec, key: 'a' }, NOW)).intent;
    const b = (await j.begin({ ...spec, key: 'b' }, NOW)).intent;
    const before = logs(j);
    expect(before).toHaveLength(1);
    await j.end([a], 'abandoned', { now: NOW });
    expect(logs(j)).toEqual(before);
    expect(new Journal(j.dir).find('b')?.key).toBe('b');
    await j.end([b], 'abandoned', { now: NOW });
    expect(logs(j)).toEqual([]);
    expect(j.read().intents).toEqual([]);
  });
});

describe('begin and intents of another machine', () => {
  it("another machine's intent for another order, or for this request on another server, stops nothing", async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, quantity: 9 }, NOW);
    j.save({ ...intent, phase: 'sending', owner: { pid: deadPid(), machine: 'elsewhere-2' } }, NOW);
    const { intent: other } = await j.begin({ ...spec, baseUrl: 'http://127.0.0.1:4011' }, NOW);
    j.save({ ...other, phase: 'sending', owner: { pid: deadPid(), machine: 'elsewhere-2' } }, NOW);
    await expect(j.begin(spec, NOW)).resolves.toMatchObject({ resumed: false, settled: [] });
  });
});

describe('what a refusal names', () => {
  it('a key interrupted on the same server and environment under another API key: says "with another API key"', async () => {
    const j = journal();
    await interrupted(j, { key: 'shared' });
    await expect(j.begin({ ...spec, keyId: 'k2', key: 'shared' }, NOW)).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      message: `the idempotency key shared already belongs to another order (3 × amazon-us-25, test on ${spec.baseUrl} with another API key), still interrupted: it may have been charged`,
    });
  });

  it('a key whose interrupted order reached the user in a version without order ids: "(unknown)", shown by its key', async () => {
    const j = journal();
    const intent = await interrupted(j, { key: 'legacy' });
    j.save({ ...intent, phase: 'delivered', orderId: undefined }, NOW);
    await expect(j.begin({ ...spec, key: 'legacy' }, NOW)).rejects.toMatchObject({
      code: 'idempotency_key_used',
      message:
        'the idempotency key legacy already placed order (unknown), which reached you; a key names one order, so nothing was sent',
      hint: 'see it with: giftcodes order show legacy; for a new order, use a new key (or give none, and one is made)',
    });
  });

  it('a journal that cannot be written names it as the order journal', () => {
    const base = tempDir();
    writeFileSync(join(base, 'journal'), 'a file, not a directory');
    const j = new Journal(join(base, 'journal'));
    expect(() => j.save({ ...spec, key: 'k' } as Intent)).toThrow(
      `cannot write the order journal ${join(base, 'journal')}`,
    );
  });
});

describe('the temporary files begin sweeps', () => {
  it("only a dead writer's own (.<name>.<pid>-<hex>.tmp): a name without the dot or with more after .tmp stays", async () => {
    const j = journal();
    const pid = deadPid();
    const swept = `.x.json.${pid}-ab12.tmp`;
    const kept = [`x.json.${pid}-ab12.tmp`, `.x.json.${pid}-ab12.tmp.bak`];
    for (const name of [swept, ...kept]) writeFileSync(join(j.dir, name), '{}');
    await j.begin(spec, NOW);
    const names = readdirSync(j.dir);
    expect(names).not.toContain(swept);
    for (const name of kept) expect(names).toContain(name);
  });
});
