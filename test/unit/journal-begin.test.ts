// Journal.begin with interrupted intents whose outcome had, or had not, reached the user (issue 21): a
// delivered one is settled and never resumed, so a new order is placed; its codes are never written into a
// second file; the one exception is the same command run again (its own file at this --out, unchanged).
// Journal.reached reads that from the files alone; recordDelivery's failure is exit 8.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileIdentity } from '../../src/journal/codes-file.js';
import { scopeOf } from '../../src/journal/history.js';
import type { Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { endedRecord, settleReached } from '../../src/orders/lifecycle.js';
import { capturedIo } from '../helpers/inprocess.js';
import { tempDir } from '../helpers/e2e.js';
import { spec, dead, outTo, journal } from '../helpers/journal.js';

/** An interrupted intent of a dead run, accepted as `ord_1`; with `file`, its codes file renamed into place there. */
async function interrupted(j: Journal, o: { key?: string; file?: string; delivered?: boolean } = {}): Promise<Intent> {
  const { intent } = await j.begin({
    ...spec,
    ...(o.key ? { key: o.key } : {}),
    ...(o.file ? { out: outTo(o.file) } : {}),
  });
  let saved = j.save({ ...intent, phase: 'accepted', orderId: 'ord_1', status: 'completed', owner: dead() });
  if (o.file) {
    writeFileSync(o.file, '[{"code":"A"}]\n');
    saved = j.save({ ...saved, files: [{ ...fileIdentity(o.file, 'ord_1', o.file), count: 1, renamed: true }] });
  }
  if (o.delivered) await j.recordDelivery([endedRecord(saved, 'delivered', Date.now())]);
  return saved;
}

// Review F8: what tells a run finishing an interrupted order from the run that began it (recover.ts resumingNow).
describe('resumedAt', () => {
  it('is written when a run takes an interrupted intent over (by its key or by matching), never on a new one', async () => {
    const j = journal();
    const fresh = await j.begin(spec);
    expect(fresh.intent.resumedAt).toBeUndefined();
    await interrupted(j, { key: 'by-key' });
    const byKey = await j.begin({ ...spec, key: 'by-key' });
    expect(byKey).toMatchObject({ resumed: true });
    expect(byKey.intent.resumedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(j.find('by-key')?.resumedAt).toBe(byKey.intent.resumedAt);
    const other = journal();
    await interrupted(other);
    const matched = await other.begin(spec);
    expect(matched).toMatchObject({ resumed: true });
    expect(matched.intent.resumedAt).toBeDefined();
  });

  // resumingNow reads resumedBy: beside `order resume` (which may be asking a person) a nightly run goes on; beside an
  // order place that took the note over it places nothing. A mutation run found no test that it is written.
  it('resumedBy names order resume when it claims the note, and is dropped when an order place takes it over', async () => {
    const j = journal();
    await interrupted(j, { key: 'r-1' });
    const claimed = await j.claim('r-1');
    expect(claimed.intent.resumedBy).toBe('order resume');
    expect(j.find('r-1')?.resumedBy).toBe('order resume');
    j.save({ ...claimed.intent, owner: dead() });
    const placed = await j.begin({ ...spec, key: 'r-1' });
    expect(placed).toMatchObject({ resumed: true });
    expect(placed.intent.resumedBy).toBeUndefined();
    expect(j.find('r-1')?.resumedBy).toBeUndefined();
    expect('resumedBy' in j.find('r-1')!).toBe(false);
  });

  it('origin keeps what the run that began it was to do, from its first takeover on', async () => {
    const j = journal();
    const file = join(tempDir(), 'first.csv');
    const { intent } = await j.begin({ ...spec, key: 'o-1', out: outTo(file), wait: true });
    j.save({ ...intent, owner: dead() });
    const second = await j.begin({ ...spec, key: 'o-1', out: outTo(join(tempDir(), 'second.csv')), wait: true });
    expect(second.intent.origin).toEqual({ out: outTo(file), wait: true });
    j.save({ ...second.intent, owner: dead() });
    const third = await j.begin({ ...spec, key: 'o-1', out: outTo(file), wait: true });
    expect(third.intent.origin).toEqual({ out: outTo(file), wait: true });
    expect(third.intent.out?.path).toBe(file);
  });
});

describe('begin with resumeOnly (a live order resumed without being asked again)', () => {
  it('takes over the interrupted intent of its key', async () => {
    const j = journal();
    const old = await interrupted(j, { key: 'live-1' });
    const begun = await j.begin({ ...spec, key: 'live-1', resumeOnly: true });
    expect(begun).toMatchObject({ resumed: true, intent: { key: old.key, orderId: 'ord_1' } });
  });

  it('never creates one: the intent gone meanwhile (finished or abandoned by another run), nothing is written', async () => {
    const j = journal();
    await expect(j.begin({ ...spec, key: 'gone', resumeOnly: true })).rejects.toMatchObject({
      exitCode: 2,
      code: 'intent_not_found',
      hint: 'see giftcodes order list and giftcodes order pending',
      message: expect.stringContaining(
        'the interrupted order with key gone was finished or abandoned by another run meanwhile; nothing was sent',
      ),
    });
    expect(j.read().intents).toEqual([]);
    // Without resumeOnly the same key is a new order.
    expect((await j.begin({ ...spec, key: 'gone' })).resumed).toBe(false);
  });
});

describe('begin with an interrupted intent of the same order', () => {
  it('that did not reach the user: resumed, the same key, nothing settled', async () => {
    const j = journal();
    const old = await interrupted(j);
    const begun = await j.begin(spec);
    expect(begun).toMatchObject({ resumed: true, settled: [], intent: { key: old.key, orderId: 'ord_1' } });
    expect(begun.intent.owner.pid).toBe(process.pid);
  });

  it('that reached the user (its record says so): settled, and a new order is placed beside it', async () => {
    const j = journal();
    const old = await interrupted(j, { delivered: true });
    const begun = await j.begin(spec);
    expect(begun.resumed).toBe(false);
    expect(begun.intent.key).not.toBe(old.key);
    expect(begun.intent.phase).toBe('prepared');
    expect(begun.settled.map((i) => i.key)).toEqual([old.key]);
    expect(j.read().intents.map((i) => i.key)).toEqual([begun.intent.key]);
    expect(j.history.get(old.key, scopeOf(old))).toMatchObject({ outcome: 'delivered', orderId: 'ord_1' });
  });

  it('with --idempotency-key: a delivered intent of that key is settled, and the key is refused (it names that one order)', async () => {
    const j = journal();
    await interrupted(j, { key: 'nightly', delivered: true });
    await expect(j.begin({ ...spec, key: 'nightly' })).rejects.toMatchObject({
      exitCode: 2,
      code: 'idempotency_key_used',
    });
    expect(j.read().intents).toEqual([]);
    await expect(j.begin({ ...spec, key: 'nightly' })).rejects.toMatchObject({ code: 'idempotency_key_used' });
  });

  // A review: abandoned after the API placed it, the same key a day later was a second order without a word.
  it('a key whose order the API placed and a person abandoned here is refused as used; another request under it is not', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, key: 'inv-7' });
    j.save({ ...intent, phase: 'accepted', orderId: 'ord_7', owner: dead() });
    await j.abandon('inv-7');
    await expect(j.begin({ ...spec, key: 'inv-7' })).rejects.toMatchObject({
      exitCode: 2,
      code: 'idempotency_key_used',
      message: expect.stringMatching(/^the idempotency key inv-7 already placed order ord_7, abandoned here at /),
      hint: expect.stringContaining('giftcodes codes get ord_7 --out CODES_FILE'),
    });
    // Another quantity under the key is the server's to refuse (422 reused), as for a delivered one.
    await expect(j.begin({ ...spec, quantity: spec.quantity + 1, key: 'inv-7' })).resolves.toMatchObject({
      resumed: false,
    });
    // Abandoned before any answer (no order id): followed under its key as before, never refused here.
    const k = journal();
    const other = await k.begin({ ...spec, key: 'inv-8' });
    k.save({ ...other.intent, phase: 'sending', owner: dead() });
    await k.abandon('inv-8');
    await expect(k.begin({ ...spec, key: 'inv-8' })).resolves.toMatchObject({ resumed: false });
  });

  // A review: a key given at localhost after it placed an order at 127.0.0.1 placed a second order under it.
  it('a given key that placed an order at another spelling of the address (or under a rotated key) is refused too', async () => {
    const placedThere = (): Journal => {
      const j = journal();
      const at = new Date().toISOString();
      j.history.record({
        ...spec,
        baseUrl: 'http://localhost:4010',
        key: 'inv-9',
        orderId: 'ord_9',
        outcome: 'delivered',
        createdAt: at,
        updatedAt: at,
        endedAt: at,
      });
      return j;
    };
    await expect(placedThere().begin({ ...spec, key: 'inv-9' })).rejects.toMatchObject({
      code: 'idempotency_key_used',
      message: expect.stringMatching(
        /^the idempotency key inv-9 already placed order ord_9 at http:\/\/localhost:4010;/,
      ),
    });
    await expect(placedThere().begin({ ...spec, keyId: 'rotated', key: 'inv-9' })).rejects.toMatchObject({
      code: 'idempotency_key_used',
    });
    // The same API key under another profile is the same reseller (a review): refused too.
    await expect(placedThere().begin({ ...spec, profile: 'other', key: 'inv-9' })).rejects.toMatchObject({
      code: 'idempotency_key_used',
    });
    // Another profile's other key (another reseller), another quantity, or another environment: not this key's order.
    await expect(placedThere().begin({ ...spec, profile: 'other', keyId: 'k9', key: 'inv-9' })).resolves.toBeDefined();
    await expect(placedThere().begin({ ...spec, quantity: spec.quantity + 1, key: 'inv-9' })).resolves.toBeDefined();
    await expect(placedThere().begin({ ...spec, environment: 'live', key: 'inv-9' })).resolves.toBeDefined();
    // Sent there without an answer and abandoned (a review: the replay here read as another run's order, and the
    // hint's order place without the key was a second charge): sent where it went instead.
    const sentThere = journal();
    const at = new Date().toISOString();
    sentThere.history.record({
      ...spec,
      baseUrl: 'http://localhost:4010',
      key: 'inv-6',
      outcome: 'abandoned',
      sent: true,
      createdAt: at,
      updatedAt: at,
      endedAt: at,
    });
    await expect(sentThere.begin({ ...spec, key: 'inv-6' })).rejects.toMatchObject({
      code: 'idempotency_key_used',
      message: expect.stringMatching(
        /^the idempotency key inv-6 was sent at http:\/\/localhost:4010 and abandoned there/,
      ),
      hint: expect.stringContaining('--idempotency-key inv-6 --base-url http://localhost:4010'),
    });
    // An abandoned key sent again on purpose (keyReused: its request went out without an answer) is that key's own run.
    await expect(placedThere().begin({ ...spec, key: 'inv-9', keyReused: true })).resolves.toBeDefined();
  });

  // A fourth review: a key abandoned while its request was out, given again (or its plan run again) a day later, was
  // a second order under one key, without a word.
  it('a key abandoned without an answer over a day ago is never sent again; within the day it is', async () => {
    const abandonedSent = (ago: number): Journal => {
      const j = journal();
      const at = new Date(Date.now() - ago).toISOString();
      j.history.record({
        ...spec,
        key: 'inv-3',
        outcome: 'abandoned',
        sent: true,
        createdAt: at,
        updatedAt: at,
        endedAt: at,
      });
      return j;
    };
    await expect(abandonedSent(25 * 3_600_000).begin({ ...spec, key: 'inv-3' })).rejects.toMatchObject({
      exitCode: 2,
      code: 'stale_intent',
      message: expect.stringMatching(
        /^the key inv-3 was first sent .* and abandoned without an answer, more than 24 hours ago/,
      ),
      hint: expect.stringContaining('give a new key'),
    });
    await expect(abandonedSent(3_600_000).begin({ ...spec, key: 'inv-3' })).resolves.toMatchObject({ resumed: false });
  });

  // Review F1: the key given again for another quantity got the server's 422, and a note "may have been charged" that
  // no resume could finish. Refused here, naming that order; the same request (and a plan's row key) go on.
  it('a key abandoned without an answer, given for another request, is refused before anything is sent', async () => {
    const abandonedSent = (key = 'inv-4'): Journal => {
      const j = journal();
      const at = new Date(Date.now() - 3_600_000).toISOString();
      j.history.record({ ...spec, key, outcome: 'abandoned', sent: true, createdAt: at, updatedAt: at, endedAt: at });
      return j;
    };
    await expect(abandonedSent().begin({ ...spec, key: 'inv-4', quantity: spec.quantity + 1 })).rejects.toMatchObject({
      exitCode: 2,
      code: 'idempotency_key_used',
      message: expect.stringContaining(`the idempotency key inv-4 was sent at `),
      hint: expect.stringContaining(`--quantity ${spec.quantity} --idempotency-key inv-4`),
    });
    await expect(abandonedSent().begin({ ...spec, key: 'inv-4', productId: 'another-product' })).rejects.toMatchObject({
      code: 'idempotency_key_used',
    });
    await expect(abandonedSent().begin({ ...spec, key: 'inv-4' })).resolves.toMatchObject({ resumed: false });
    await expect(
      abandonedSent('plan-0123456789abcdef01234567').begin({
        ...spec,
        key: 'plan-0123456789abcdef01234567',
        quantity: spec.quantity + 1,
      }),
    ).resolves.toMatchObject({ resumed: false });
  });

  it("a plan row's key is its plan's to check (its scope is in the key): never refused for another scope here", async () => {
    const j = journal();
    const key = `plan-${'c'.repeat(24)}`;
    const at = new Date().toISOString();
    j.history.record({
      ...spec,
      baseUrl: 'http://localhost:4010',
      key,
      orderId: 'ord_p',
      outcome: 'delivered',
      createdAt: at,
      updatedAt: at,
      endedAt: at,
    });
    await expect(j.begin({ ...spec, key })).resolves.toMatchObject({ resumed: false });
  });

  it('an abandoned key of another request (another product) is the server’s to refuse, not the journal’s', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, key: 'inv-5' });
    j.save({ ...intent, phase: 'accepted', orderId: 'ord_5', owner: dead() });
    await j.abandon('inv-5');
    await expect(j.begin({ ...spec, key: 'inv-5' })).rejects.toMatchObject({
      message: expect.stringMatching(/abandoned here at \d{4}-\d\d-\d\dT/),
    });
    await expect(j.begin({ ...spec, productId: 'steam-us-20', key: 'inv-5' })).resolves.toMatchObject({
      resumed: false,
    });
  });

  it('whose codes file is at this --out, unchanged: the same command run again, resumed', async () => {
    const j = journal();
    const file = join(tempDir(), 'mon.json');
    const old = await interrupted(j, { file });
    const begun = await j.begin({ ...spec, out: outTo(file) });
    expect(begun).toMatchObject({ resumed: true, settled: [], intent: { key: old.key, out: { path: file } } });
  });

  it('whose codes went to another file: refused (exit 2, codes_delivered) naming that file; settled; nothing new begun', async () => {
    const j = journal();
    const mon = join(tempDir(), 'mon.json');
    const tue = join(tempDir(), 'tue.json');
    const old = await interrupted(j, { file: mon });
    const error = await j.begin({ ...spec, out: outTo(tue) }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'codes_delivered',
      message: `the interrupted order ord_1 for 3 × amazon-us-25 had already reached you: its codes were written to ${mon}. They are never written into a second file, and nothing was charged now`,
      hint: 'to write them again on purpose: giftcodes codes get ord_1 --out CODES_FILE; to place a new order for 3 × amazon-us-25: run the same command again',
    });
    expect(j.read().intents).toEqual([]);
    expect(j.history.get(old.key, scopeOf(old))).toMatchObject({ outcome: 'delivered' });
    // Run again: the interrupted order is over, this is a new order.
    expect(await j.begin({ ...spec, out: outTo(tue) })).toMatchObject({ resumed: false, settled: [] });
    // With a key the user gave, the same command again is refused (the key names that order): the hint says to give
    // another (a third review, stop 78, followed "run the same command again" twice).
    const keyed = journal();
    await interrupted(keyed, { file: mon, key: 'inv-9' });
    const refused = await keyed.begin({ ...spec, key: 'inv-9', out: outTo(tue) }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'codes_delivered',
      hint: expect.stringMatching(
        /run the same command again with another --idempotency-key \(inv-9 names this one\)$/,
      ),
    });
  });

  it('whose file at this --out was changed since (sold from): refused as delivered, never written again', async () => {
    const j = journal();
    const file = join(tempDir(), 'mon.json');
    await interrupted(j, { file });
    writeFileSync(file, '[]\n');
    await expect(j.begin({ ...spec, out: outTo(file) })).rejects.toMatchObject({ code: 'codes_delivered' });
  });

  it('delivered to stdout (--out -) or without a file: settled without a refusal', async () => {
    const j = journal();
    const old = await interrupted(j, { delivered: true });
    j.save({ ...j.find(old.key)!, out: outTo('-') });
    const begun = await j.begin({ ...spec, out: outTo(join(tempDir(), 'x.json')) });
    expect(begun).toMatchObject({ resumed: false, settled: [{ key: old.key }] });
  });

  it('a failed order that reached the user is settled as failed, never refused', async () => {
    const j = journal();
    const old = await interrupted(j, { file: join(tempDir(), 'never.json') });
    const withoutFile = j.save({ ...old, files: [] });
    await j.recordDelivery([endedRecord(withoutFile, 'failed', Date.now())]);
    const begun = await j.begin({ ...spec, out: outTo(join(tempDir(), 'other.json')) });
    expect(begun).toMatchObject({ resumed: false, settled: [{ key: old.key }] });
    expect(j.history.get(old.key, scopeOf(old))).toMatchObject({ outcome: 'failed' });
  });
});

describe('reached', () => {
  it("from the files alone: the legacy phase, this very intent's record, or its own codes file", async () => {
    const j = journal();
    const base = await interrupted(j);
    expect(j.reached(base)).toBeUndefined();
    expect(j.reached({ ...base, phase: 'delivered', orderId: undefined })).toBe('delivered');
    const record = (
      over: Partial<ReturnType<typeof endedRecord>>,
      outcome: 'delivered' | 'failed' | 'refused' = 'delivered',
    ) => j.history.record({ ...endedRecord(base, outcome, Date.now()), ...over });
    record({ createdAt: '2020-01-01T00:00:00.000Z' });
    expect(j.reached(base)).toBeUndefined();
    record({ baseUrl: 'http://127.0.0.1:1' });
    expect(j.reached(base)).toBeUndefined();
    record({ orderId: 'ord_2' });
    expect(j.reached(base)).toBeUndefined();
    record({}, 'refused');
    expect(j.reached(base)).toBeUndefined();
    record({}, 'failed');
    expect(j.reached(base)).toBe('failed');
    expect(j.reached({ ...base, orderId: undefined })).toBeUndefined();
  });

  it('a codes file counts only at a real path: an identity recorded for stdout proves nothing', async () => {
    const j = journal();
    const file = join(tempDir(), 'c.json');
    const withFile = await interrupted(j, { file });
    expect(j.reached(withFile)).toBe('delivered');
    expect(j.reached({ ...withFile, out: outTo('-') })).toBeUndefined();
    expect(j.reached({ ...withFile, out: undefined })).toBeUndefined();
  });
});

describe('recordDelivery', () => {
  it('a record that cannot be written is exit 8 naming history/, in words', async () => {
    const j = journal();
    const intent = await interrupted(j);
    const errno = (code: string) => Object.assign(new Error(code), { code });
    for (const [code, words] of [
      ['ENOSPC', 'no space left on the device'],
      ['EROFS', 'read-only file system'],
      ['EACCES', 'permission denied'],
      ['EPERM', 'permission denied'],
      ['EIO', 'EIO'],
    ]) {
      (j.history as unknown as { recordAll: () => Promise<void> }).recordAll = () => Promise.reject(errno(code!));
      await expect(j.recordDelivery([endedRecord(intent, 'delivered', Date.now())])).rejects.toMatchObject({
        exitCode: 8,
        code: 'journal_unwritable',
        message: `cannot write the order record ${j.history.dir}: ${words}`,
        hint: 'free space or fix the permissions of the config directory, then run the command again',
      });
    }
    expect(j.find(intent.key)).toBeDefined();
  });

  it('many records at once, each in history/', async () => {
    const j = journal();
    const records = Array.from({ length: 40 }, (_, i) => ({
      ...endedRecord(
        {
          ...spec,
          key: `k${i}`,
          orderId: `ord_${i}`,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
          phase: 'accepted',
        } as unknown as Intent,
        'delivered',
        Date.now(),
      ),
    }));
    await j.recordDelivery(records);
    expect(j.history.list()).toHaveLength(40);
  });
});

describe('one key in two scopes (issue 29)', () => {
  it("a key whose order was delivered under test is free live; live's own delivery then refuses it", async () => {
    const j = journal();
    const test = await interrupted(j, { key: 'K', delivered: true });
    await j.end([test], 'delivered', { recorded: true });
    const live = { ...spec, environment: 'live' as const, keyId: 'k-live', key: 'K' };
    const begun = await j.begin(live);
    expect(begun).toMatchObject({ resumed: false, intent: { key: 'K', environment: 'live' } });
    const accepted = j.save({ ...begun.intent, phase: 'accepted', orderId: 'ord_live', status: 'completed' });
    await j.recordDelivery([endedRecord(accepted, 'delivered', Date.now())]);
    await j.end([accepted], 'delivered', { recorded: true });
    await expect(j.begin(live)).rejects.toMatchObject({
      code: 'idempotency_key_used',
      message: expect.stringContaining('ord_live'),
    });
    // Under test the key's own delivered order refuses it too, and each record is still its own.
    await expect(j.begin({ ...spec, key: 'K' })).rejects.toMatchObject({
      code: 'idempotency_key_used',
      message: expect.stringContaining('ord_1'),
    });
    expect(j.history.get('K', scopeOf(accepted))?.orderId).toBe('ord_live');
    expect(j.history.get('K', scopeOf(test))?.orderId).toBe('ord_1');
  });

  it('a key still interrupted in another scope is refused with where it is and how to finish it', async () => {
    const j = journal();
    await interrupted(j, { key: 'K' });
    const error = await j.begin({ ...spec, environment: 'live', keyId: 'k-live', key: 'K' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'idempotency_key_reused',
      hint: expect.stringContaining('giftcodes order resume K'),
    });
    expect((error as Error).message).toContain(
      'test on http://127.0.0.1:4010 with another API key), still interrupted: it may have been charged',
    );
    // In its own scope too: it is still interrupted, and may have been charged (a review was told only "a new key").
    const same = await j.begin({ ...spec, quantity: 9, key: 'K' }).catch((e: unknown) => e);
    expect((same as Error).message).toBe(
      'the idempotency key K already belongs to another order (3 × amazon-us-25), still interrupted: it may have been charged',
    );
  });
});

// An adversarial review: `order pending` settled an order whose codes had reached the user (its file moved since), and
// the same command, as its run's hint said, then placed a second order without a word. The settle is now recorded as
// finishing it in that command's place; a plan's row is left to its plan's own rules.
describe('settleReached by another command than the one that placed it', () => {
  it("records that command as the one that finished a single order, never a plan's row, and says so of each", async () => {
    const j = journal();
    const single = await interrupted(j, { key: 'one-1', delivered: true });
    const row = await interrupted(j, { key: 'plan-0123456789abcdef0123', delivered: true });
    const c = capturedIo();
    await settleReached(c.io, j, { by: 'order pending' });
    expect(j.read().intents).toEqual([]);
    expect(j.history.get(single.key, scopeOf(single))?.finishedBy).toBe('order pending');
    expect(j.history.get(row.key, scopeOf(row))?.finishedBy).toBeUndefined();
    const lines = c.err().trimEnd().split('\n');
    // Its key the user gave: that command again is refused, not a new order (a third review, stop 78).
    expect(lines.map((l) => l.replace(/^\S+ /, ''))).toContain(
      'the interrupted order ord_1 had already reached you; it is complete, and its command run again is refused (its --idempotency-key one-1 names this order)',
    );
    expect(lines.filter((l) => l.endsWith('it is complete'))).toHaveLength(1);
    // A key made here: that command again places a new order. Named by its order id (none has an --out): the whole line.
    const made = journal();
    await interrupted(made, { delivered: true });
    const d = capturedIo();
    await settleReached(d.io, made, { by: 'order pending' });
    expect(d.err().trimEnd().replace(/^\S+ /, '')).toBe(
      'the interrupted order ord_1 had already reached you; it is complete, and its command run again places a new order',
    );
  });

  it('without a command named (its own run settling it): no finishedBy, nothing more said', async () => {
    const j = journal();
    const file = join(tempDir(), 'codes.json');
    const single = await interrupted(j, { key: 'one-2', delivered: true, file });
    const c = capturedIo();
    await settleReached(c.io, j);
    expect(j.history.get(single.key, scopeOf(single))?.finishedBy).toBeUndefined();
    expect(c.err().trimEnd()).toMatch(new RegExp(` had already reached you \\(codes in ${file}\\); it is complete$`));
  });
});
