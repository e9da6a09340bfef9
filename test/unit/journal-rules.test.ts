// The journal's finer rules, on real directories: what is read and how it is named, which orphan is taken,
// what a record keeps, the schema's refusals, owner liveness, and the history's pruning and order.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { History, historyDir, type OrderRecord } from '../../src/journal/history.js';
import { ageMs, keyIdOf, sameOrder, sameRequest, sha256, type Intent } from '../../src/journal/intent.js';
import { Journal, staleError } from '../../src/journal/journal.js';
import { LOCK_WAIT_MS, withDirLock } from '../../src/journal/lock.js';
import { bootId, currentOwner, isAlive, isSameProcess, pidAlive } from '../../src/journal/owner.js';
import { intentSchema } from '../../src/journal/schema.js';
import { deadPid, tempDir } from '../helpers/e2e.js';
import { spec, dead } from '../helpers/journal.js';

function journal(options: { historyDays?: number } = {}): Journal {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return new Journal(dir, options);
}

const T0 = Date.parse('2026-06-01T12:00:00.000Z');

describe('intent identity', () => {
  it('a key id is stable across versions (intents on disk compare it): 16 hex of sha256("giftcodes-key-id:" + key)', () => {
    expect(keyIdOf('sc_test_demo_4f3c9a1b7e2d')).toBe(
      sha256('giftcodes-key-id:sc_test_demo_4f3c9a1b7e2d').slice(0, 16),
    );
    expect(keyIdOf('sc_test_demo_4f3c9a1b7e2d')).toBe('139357825e679305');
    expect(keyIdOf('x')).toMatch(/^[0-9a-f]{16}$/);
    expect(keyIdOf('x')).not.toBe(keyIdOf('y'));
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('sameRequest and sameOrder compare every field they name, and only those', () => {
    const intent = { ...spec } as Intent;
    expect(sameRequest(intent, spec)).toBe(true);
    expect(sameOrder(intent, spec)).toBe(true);
    for (const change of [{ productId: 'x' }, { quantity: 4 }, { profile: 'p' }, { environment: 'live' as const }]) {
      expect(sameRequest(intent, { ...spec, ...change }), JSON.stringify(change)).toBe(false);
      expect(sameOrder(intent, { ...spec, ...change }), JSON.stringify(change)).toBe(false);
    }
    for (const change of [{ baseUrl: 'http://other' }, { keyId: 'k2' }]) {
      expect(sameRequest(intent, { ...spec, ...change }), JSON.stringify(change)).toBe(true);
      expect(sameOrder(intent, { ...spec, ...change }), JSON.stringify(change)).toBe(false);
    }
  });

  it('ageMs counts from createdAt', () => {
    expect(ageMs({ createdAt: new Date(T0 - 1234).toISOString() } as Intent, T0)).toBe(1234);
  });
});

describe('journal files', () => {
  it('a live run keeps its intents in its own log, no file per key; other names are ignored; a directory named .json is reported', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, key: 'my/../key' });
    expect(readdirSync(j.dir).filter((n) => n.endsWith('.json'))).toEqual([]);
    expect(readdirSync(j.dir).filter((n) => n.endsWith('.log'))).toEqual([
      expect.stringMatching(new RegExp(`^${process.pid}-[0-9a-f]+\\.log$`)),
    ]);
    expect(intent.key).toBe('my/../key');
    writeFileSync(join(j.dir, 'notes.txt'), 'not json');
    mkdirSync(join(j.dir, 'dir.json'));
    const { intents, unreadable } = j.read();
    expect(intents.map((i) => i.key)).toEqual(['my/../key']);
    expect(unreadable).toEqual([{ file: join(j.dir, 'dir.json'), reason: 'EISDIR' }]);
  });

  it('reasons: not valid JSON, not an intent of this version', () => {
    const j = journal();
    writeFileSync(join(j.dir, 'a.json'), '{');
    writeFileSync(join(j.dir, 'b.json'), '{"version":2}');
    expect(j.read().unreadable.sort((x, y) => x.file.localeCompare(y.file))).toEqual([
      { file: join(j.dir, 'a.json'), reason: 'not valid JSON' },
      { file: join(j.dir, 'b.json'), reason: 'not an intent of this version' },
    ]);
  });

  it('intents are read oldest first', async () => {
    const j = journal();
    await j.begin({ ...spec, key: 'late' }, T0 + 2000);
    await j.begin({ ...spec, key: 'early' }, T0);
    await j.begin({ ...spec, key: 'mid' }, T0 + 1000);
    expect(j.read().intents.map((i) => i.key)).toEqual(['early', 'mid', 'late']);
  });

  it('a journal that cannot be read is exit 8 journal_unwritable, naming it', () => {
    const j = new Journal(join(tempDir(), 'missing', 'journal'));
    expect(() => j.read()).toThrow(
      expect.objectContaining({
        exitCode: 8,
        code: 'journal_unwritable',
        message: `cannot read the order journal ${j.dir}: ENOENT`,
      }),
    );
  });

  it('a journal read where its config directory is not there (order show) holds nothing, and makes nothing', () => {
    const missing = join(tempDir(), 'missing');
    const j = new Journal(join(missing, 'journal'), { absent: true });
    expect(j.read()).toEqual({ intents: [], unreadable: [] });
    expect(j.history.list()).toEqual([]);
    expect(existsSync(missing)).toBe(false);
  });

  it('a journal that cannot be written is exit 8, with the reason in words', async () => {
    const base = tempDir();
    writeFileSync(join(base, 'journal'), 'a file, not a directory');
    const j = new Journal(join(base, 'journal'));
    expect(() => j.save({ ...spec, key: 'k' } as Intent)).toThrow(
      expect.objectContaining({ exitCode: 8, message: expect.stringContaining('(ENOTDIR)') }),
    );
    await expect(j.begin(spec)).rejects.toMatchObject({ exitCode: 8 });
  });

  it('save stamps updatedAt and writes no key-shaped string', async () => {
    const j = journal();
    const { intent } = await j.begin(spec, T0);
    expect(intent).toMatchObject({
      createdAt: '2026-06-01T12:00:00.000Z',
      updatedAt: '2026-06-01T12:00:00.000Z',
      phase: 'prepared',
      version: 2,
      fingerprint: sha256(intent.body),
    });
    const saved = j.save({ ...intent, status: 'server said sc_live_demo_9b1e6d2c8a7f' }, T0 + 5000);
    expect(saved.updatedAt).toBe('2026-06-01T12:00:05.000Z');
    expect(saved.createdAt).toBe('2026-06-01T12:00:00.000Z');
    const text = readFileSync(
      join(
        j.dir,
        readdirSync(j.dir).find((n) => n.endsWith('.log'))!,
      ),
      'utf8',
    );
    expect(text).not.toContain('sc_live_demo_9b1e6d2c8a7f');
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('a new intent keeps --wait and --out only when given', async () => {
    const j = journal();
    const out = { path: '/x/c.csv', force: true, csvRaw: false };
    const plain = (await j.begin({ ...spec, key: 'a', wait: false })).intent;
    expect(plain).not.toHaveProperty('wait');
    expect(plain).not.toHaveProperty('out');
    const full = (await j.begin({ ...spec, key: 'b', wait: true, out })).intent;
    expect(full).toMatchObject({ wait: true, out });
    expect(j.find('b')).toMatchObject({ wait: true, out });
  });
});

describe('which intent begin() takes', () => {
  it('a user key not seen before is a new intent with that key', async () => {
    const j = journal();
    expect(await j.begin({ ...spec, key: 'fresh-key' })).toMatchObject({
      resumed: false,
      intent: { key: 'fresh-key', phase: 'prepared' },
    });
  });

  it('a user key held by a live process is busy; a stale one is refused', async () => {
    const j = journal();
    const held = (await j.begin({ ...spec, key: 'held' })).intent;
    j.save({ ...held, owner: { pid: process.ppid } });
    await expect(j.begin({ ...spec, key: 'held' })).rejects.toMatchObject({
      exitCode: 2,
      code: 'intent_busy',
      message: `another giftcodes process (pid ${process.ppid}) is working on the order with key held`,
    });
    j.save({ ...held, owner: dead(), createdAt: new Date(T0 - 86_400_001).toISOString() });
    await expect(j.begin({ ...spec, key: 'held' }, T0)).rejects.toMatchObject({ code: 'stale_intent' });
    await expect(j.begin({ ...spec, key: 'held' }, T0 - 2)).resolves.toMatchObject({ resumed: true });
  });

  it('a user key of this very process is taken over, with the new --wait and --out', async () => {
    const j = journal();
    await j.begin({ ...spec, key: 'mine' });
    const out = { path: '/o', force: false, csvRaw: true };
    const again = await j.begin({ ...spec, key: 'mine', wait: true, out });
    expect(again).toMatchObject({ resumed: true, intent: { wait: true, out } });
    const kept = await j.begin({ ...spec, key: 'mine' });
    expect(kept.intent).toMatchObject({ wait: true, out });
  });

  it('a fresh orphan is taken before a stale one, whatever their order', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'stale' }, T0 - 90_000_000)).intent, owner: dead() });
    j.save({ ...(await j.begin({ ...spec, key: 'fresh' }, T0 - 1000)).intent, owner: dead() });
    expect(await j.begin(spec, T0)).toMatchObject({ resumed: true, intent: { key: 'fresh' } });
  });

  it('only a stale orphan: refused, naming it; a stale orphan of another order does not count', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'stale' }, T0 - 90_000_000)).intent, owner: dead() });
    await expect(j.begin(spec, T0)).rejects.toMatchObject({
      code: 'stale_intent',
      message: expect.stringContaining('(key stale)'),
    });
    expect(await j.begin({ ...spec, quantity: 4 }, T0)).toMatchObject({ resumed: false });
  });

  it("another key's or server's orphan held by a live process is not a conflict", async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'live' })).intent, owner: { pid: process.ppid } });
    expect(await j.begin({ ...spec, keyId: 'k2' })).toMatchObject({ resumed: false });
  });

  it('the conflict message names the order and its server', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'other' })).intent, owner: dead() });
    await expect(j.begin({ ...spec, keyId: 'k2' })).rejects.toMatchObject({
      message:
        'an interrupted order for 3 × amazon-us-25 in profile "default" (test) was made with another API key or base URL (http://127.0.0.1:4010), so it is not resumed with this one',
      // The profile holds the new key now: the old one is given for the run. Never sent, so dropping it charges nothing.
      hint: "resume it with the API key and base URL it was placed with (that key in GIFTCODES_API_KEY: this run's key is another one): giftcodes order resume other   or drop it: giftcodes order abandon other (it was never sent)",
    });
  });

  it('a reused key names the order it belongs to', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'k' })).intent, owner: dead() });
    await expect(j.begin({ ...spec, productId: 'p2', key: 'k' })).rejects.toMatchObject({
      message:
        'the idempotency key k already belongs to another order (3 × amazon-us-25), still interrupted: it was never sent',
      hint: 'finish it as it was (the same command with 3 × amazon-us-25, or giftcodes order resume k) or drop it (giftcodes order abandon k); this order wants a new key',
    });
  });
});

describe('claim, settle, end', () => {
  it('claim: an unknown key is intent_not_found; a claimed intent is owned by this process', async () => {
    const j = journal();
    await expect(j.claim('nope')).rejects.toMatchObject({
      exitCode: 2,
      code: 'intent_not_found',
      message: 'no unresolved order with the key nope',
      hint: 'list them with: giftcodes order pending',
    });
    const { intent } = await j.begin(spec);
    j.save({ ...intent, owner: dead() });
    const { intent: claimed } = await j.claim(intent.key, {}, Date.now());
    expect(isSameProcess(claimed.owner, currentOwner())).toBe(true);
    expect(j.find(intent.key)?.owner.pid).toBe(process.pid);
  });

  it('settleWhere ends only dead owners the function gives an ending, with that ending', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'a' })).intent, owner: dead() });
    j.save({ ...(await j.begin({ ...spec, key: 'b' })).intent, owner: dead() });
    await j.begin({ ...spec, key: 'c' });
    const settled = await j.settleWhere((i) => (i.key !== 'b' ? 'delivered' : undefined));
    expect(settled.map((i) => i.key)).toEqual(['a']);
    expect(
      j
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual(['b', 'c']);
    expect(j.history.list()).toMatchObject([{ key: 'a', outcome: 'delivered' }]);
  });

  it('end writes the whole record: ids, status, out path and the error code and message only', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, out: { path: '/x/c.csv', force: false, csvRaw: false } }, T0);
    const [record] = await j.end([{ ...intent, orderId: 'ord_1', status: 'failed' }], 'refused', {
      error: new UsageError('bad product', { code: 'product_not_found', hint: 'h' }),
      now: T0 + 1000,
    });
    const expected: OrderRecord = {
      key: intent.key,
      keyId: spec.keyId,
      orderId: 'ord_1',
      productId: 'amazon-us-25',
      quantity: 3,
      status: 'failed',
      environment: 'test',
      profile: 'default',
      baseUrl: 'http://127.0.0.1:4010',
      createdAt: '2026-06-01T12:00:00.000Z',
      updatedAt: '2026-06-01T12:00:00.000Z',
      endedAt: '2026-06-01T12:00:01.000Z',
      outcome: 'refused',
      out: '/x/c.csv',
      error: { code: 'product_not_found', message: 'bad product' },
    };
    expect(record).toEqual(expected);
    expect(j.history.list()).toEqual([expected]);
    const [bare] = await j.end([(await j.begin({ ...spec, key: 'bare' }, T0)).intent], 'abandoned', { now: T0 });
    expect(Object.keys(bare!).sort()).toEqual([
      'baseUrl',
      'createdAt',
      'endedAt',
      'environment',
      'key',
      'keyId',
      'outcome',
      'productId',
      'profile',
      'quantity',
      'updatedAt',
    ]);
  });

  it('end prunes the history once per journal, by its days', async () => {
    const j = journal({ historyDays: 2 });
    j.history.record({
      key: 'old',
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'd',
      baseUrl: 'u',
      createdAt: 'x',
      updatedAt: 'x',
      endedAt: new Date(T0 - 2 * 86_400_000 - 1).toISOString(),
      outcome: 'delivered',
    });
    j.history.record({
      key: 'edge',
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'd',
      baseUrl: 'u',
      createdAt: 'x',
      updatedAt: 'x',
      endedAt: new Date(T0 - 2 * 86_400_000).toISOString(),
      outcome: 'delivered',
    });
    await j.end([(await j.begin({ ...spec, key: 'a' }, T0)).intent], 'abandoned', { now: T0 });
    expect(
      j.history
        .list()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['a', 'edge']);
    j.history.record({
      key: 'older',
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'd',
      baseUrl: 'u',
      createdAt: 'x',
      updatedAt: 'x',
      endedAt: new Date(T0 - 30 * 86_400_000).toISOString(),
      outcome: 'delivered',
    });
    await j.end([(await j.begin({ ...spec, key: 'b' }, T0)).intent], 'abandoned', { now: T0 });
    expect(j.history.list().map((r) => r.key)).toContain('older');
    const defaults = journal();
    defaults.history.record({
      key: 'd89',
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'd',
      baseUrl: 'u',
      createdAt: 'x',
      updatedAt: 'x',
      endedAt: new Date(T0 - 89 * 86_400_000).toISOString(),
      outcome: 'delivered',
    });
    defaults.history.record({
      key: 'd91',
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'd',
      baseUrl: 'u',
      createdAt: 'x',
      updatedAt: 'x',
      endedAt: new Date(T0 - 91 * 86_400_000).toISOString(),
      outcome: 'delivered',
    });
    await defaults.end([(await defaults.begin(spec, T0)).intent], 'abandoned', { now: T0 });
    expect(defaults.history.list().map((r) => r.key)).toContain('d89');
    expect(defaults.history.list().map((r) => r.key)).not.toContain('d91');
  });

  it('a record that cannot be written never keeps the intent open; an intent already gone is no error', async () => {
    const j = journal();
    writeFileSync(join(j.dir, '..', 'history'), 'a file where the directory goes');
    const { intent } = await j.begin(spec);
    await expect(j.end([intent], 'delivered')).resolves.toMatchObject([{ key: intent.key }]);
    expect(j.read().intents).toEqual([]);
    await expect(j.end([intent], 'delivered')).resolves.toMatchObject([{ key: intent.key }]);
  });

  it('a key the API answered with an order placed elsewhere is never sent from here again: refused before any request, exit 4', async () => {
    // A review ran the same plan from a second config directory (refused: placed elsewhere), then again a day later,
    // when the server had forgotten the key: the row was sent again and charged a second time under one key.
    const j = journal();
    const record: OrderRecord = {
      key: 'plan-k',
      keyId: spec.keyId,
      productId: spec.productId,
      quantity: spec.quantity,
      environment: spec.environment,
      profile: spec.profile,
      baseUrl: spec.baseUrl,
      createdAt: '2026-06-01T00:00:00.000Z',
      updatedAt: '2026-06-01T00:00:00.000Z',
      endedAt: '2026-06-01T00:00:01.000Z',
      outcome: 'refused',
      error: { code: 'order_placed_elsewhere', message: 'the API answered the key plan-k with order ord_1' },
    };
    j.history.record(record);
    await expect(j.begin({ ...spec, key: 'plan-k' })).rejects.toMatchObject({
      exitCode: 4,
      code: 'order_placed_elsewhere',
      message: expect.stringContaining(
        'the key plan-k was answered at 2026-06-01T00:00:01.000Z with an order placed under it elsewhere',
      ),
      hint: expect.stringContaining('to order 3 × amazon-us-25 here too, as a second order'),
    });
    expect(j.read().intents).toEqual([]);
    // Another refusal (a wallet short of funds) keeps its key for the next run: sent again once fixed.
    j.history.record({ ...record, key: 'plan-funds', error: { code: 'insufficient_funds', message: 'm' } });
    await expect(j.begin({ ...spec, key: 'plan-funds' })).resolves.toMatchObject({ intent: { key: 'plan-funds' } });
    // A single order's key (--idempotency-key): its hint names no plan.
    j.history.record({ ...record, key: 'inv-77' });
    await expect(j.begin({ ...spec, key: 'inv-77' })).rejects.toMatchObject({
      hint: expect.stringContaining('as a second order: order place without --idempotency-key (or with a new one)'),
    });
    // A refused record without an error (an older version's) is no refusal of this kind.
    const { error: _error, ...bare } = record;
    j.history.record({ ...bare, key: 'plan-bare' });
    await expect(j.begin({ ...spec, key: 'plan-bare' })).resolves.toMatchObject({ intent: { key: 'plan-bare' } });
    // Another scope's record (the same key under live) is another order's.
    await expect(j.begin({ ...spec, environment: 'live', key: 'plan-k' })).resolves.toMatchObject({
      intent: { key: 'plan-k' },
    });
  });

  it('staleError words: old or future, with the key and both ways out, each as far as the order got (one with its order id is never stale)', () => {
    const old = { ...spec, key: 'k', phase: 'sending', createdAt: '2026-05-31T11:59:59.999Z' } as Intent;
    // Sent without an answer: the API cannot be asked by key (a review was told to "check the server for it").
    expect(staleError(old, T0)).toMatchObject({
      exitCode: 2,
      code: 'stale_intent',
      message:
        'the interrupted order for 3 × amazon-us-25 (key k) was started 2026-05-31T11:59:59.999Z, more than 24 hours ago: the server may have forgotten its key, so it is not resumed silently',
      hint: "it was sent without an answer, and the API cannot be asked by key: look in the provider's dashboard for an order of 3 × amazon-us-25 placed about 2026-05-31T11:59:59.999Z; if there is one, drop this with giftcodes order abandon k; if none, giftcodes order resume k --force-stale sends it again (a second order if the first went through after all)",
    });
    expect(staleError({ ...old, phase: 'prepared' }, T0).hint).toBe(
      'it was never sent: send it now with giftcodes order resume k --force-stale, or drop it with: giftcodes order abandon k',
    );
    expect(staleError({ ...old, createdAt: '2026-06-01T12:05:00.001Z' }, T0).message).toBe(
      'the interrupted order for 3 × amazon-us-25 (key k) is dated 2026-06-01T12:05:00.001Z, in the future (more than 5 minutes ahead of this clock): it was written under another clock, so it is not resumed silently',
    );
  });
});

describe('intent schema', () => {
  const valid = {
    version: 2,
    key: 'k',
    ...spec,
    body: '{}',
    fingerprint: 'f',
    phase: 'accepted',
    createdAt: 'c',
    updatedAt: 'u',
    owner: { pid: 1 },
  };
  it('accepts the minimal intent and every optional field', () => {
    expect(intentSchema.safeParse(valid).success).toBe(true);
    const full = {
      ...valid,
      owner: { pid: 1, start: 's', boot: 'b', host: 'h' },
      orderId: 'o',
      status: 's',
      wait: true,
      out: { path: 'p', format: 'csv', force: false, csvRaw: true },
      files: [
        { orderId: 'o', path: 'p', dev: 1, ino: 2, size: 3, sha256: 'x', count: 4, format: 'jsonl' },
        { orderId: 'o', path: 'p', dev: 1, ino: 2, size: 3, sha256: 'x' },
      ],
    };
    expect(intentSchema.safeParse(full)).toEqual({ success: true, data: full });
  });

  it('refuses each field of the wrong kind', () => {
    const bad: Record<string, unknown>[] = [
      { key: '' },
      { key: 1 },
      { environment: 'prod' },
      { quantity: 1.5 },
      { phase: 'resolved' },
      { phase: 'placed' },
      { owner: { pid: 1.5 } },
      { owner: { pid: 1, start: 5 } },
      { owner: { pid: 1, boot: 5 } },
      { owner: { pid: 1, host: 5 } },
      { version: 3 },
      { profile: 1 },
      { baseUrl: 1 },
      { keyId: 1 },
      { productId: 1 },
      { body: 1 },
      { fingerprint: 1 },
      { createdAt: 1 },
      { updatedAt: 1 },
      { orderId: 1 },
      { status: 1 },
      { wait: 'yes' },
      { out: { path: 'p', force: false } },
      { out: { path: 'p', force: false, csvRaw: false, format: 'xml' } },
      { out: { path: 1, force: false, csvRaw: false } },
      { out: { path: 'p', force: 'no', csvRaw: false } },
      { files: [{ orderId: 'o', path: 'p', dev: 1, ino: 2, size: 3 }] },
      { files: [{ orderId: 'o', path: 'p', dev: '1', ino: 2, size: 3, sha256: 'x' }] },
      { files: [{ orderId: 'o', path: 'p', dev: 1, ino: '2', size: 3, sha256: 'x' }] },
      { files: [{ orderId: 'o', path: 'p', dev: 1, ino: 2, size: '3', sha256: 'x' }] },
      { files: [{ orderId: 1, path: 'p', dev: 1, ino: 2, size: 3, sha256: 'x' }] },
      { files: [{ orderId: 'o', path: 1, dev: 1, ino: 2, size: 3, sha256: 'x' }] },
      { files: [{ orderId: 'o', path: 'p', dev: 1, ino: 2, size: 3, sha256: 'x', count: '4' }] },
      { files: [{ orderId: 'o', path: 'p', dev: 1, ino: 2, size: 3, sha256: 'x', format: 'xml' }] },
      { files: {} },
    ];
    for (const change of bad)
      expect(intentSchema.safeParse({ ...valid, ...change }).success, JSON.stringify(change)).toBe(false);
    for (const env of ['test', 'live'])
      expect(intentSchema.safeParse({ ...valid, environment: env }).success).toBe(true);
    for (const phase of ['prepared', 'sending', 'accepted', 'delivered'])
      expect(intentSchema.safeParse({ ...valid, phase }).success, phase).toBe(true);
    for (const format of ['csv', 'json', 'jsonl', 'xlsx'])
      expect(
        intentSchema.safeParse({ ...valid, out: { path: 'p', force: false, csvRaw: false, format } }).success,
        format,
      ).toBe(true);
    expect(intentSchema.safeParse(null)).toEqual({ success: false });
    expect(intentSchema.safeParse('text')).toEqual({ success: false });
  });

  it('version 1: only `placed` is renamed; `delivering` is dropped; other phases kept', () => {
    const v1 = { ...valid, version: 1 };
    expect(intentSchema.safeParse({ ...v1, phase: 'placed', delivering: { temp: 't' } })).toEqual({
      success: true,
      data: { ...valid, version: 2, phase: 'accepted' },
    });
    expect(intentSchema.safeParse({ ...v1, phase: 'prepared' })).toMatchObject({ data: { phase: 'prepared' } });
    expect(intentSchema.safeParse({ ...valid, phase: 'placed' }).success).toBe(false);
  });
});

describe('owner liveness', () => {
  it('the same process: same pid, and boot and start equal where both are known', () => {
    const me = currentOwner();
    expect(me.pid).toBe(process.pid);
    expect(me.boot).toBe(bootId());
    expect(me.start).toMatch(/^\d+$/);
    expect(isSameProcess(me, me)).toBe(true);
    expect(isSameProcess(me, { pid: process.pid })).toBe(true);
    expect(isSameProcess({ pid: process.pid }, me)).toBe(true);
    expect(isSameProcess(me, { ...me, pid: process.pid + 1 })).toBe(false);
    expect(isSameProcess(me, { ...me, start: '1' })).toBe(false);
    expect(isSameProcess(me, { ...me, boot: 'other' })).toBe(false);
    expect(isSameProcess({ pid: 1, boot: 'a' }, { pid: 1, boot: 'a', start: '9' })).toBe(true);
    expect(isSameProcess({ pid: 1, start: '9' }, { pid: 1, boot: 'x' })).toBe(true);
  });

  it('alive: this process by its start; another by pid, start and state; a dead pid is not', () => {
    const me = currentOwner();
    expect(isAlive({ pid: process.pid, start: '1' })).toBe(false);
    expect(isAlive({ pid: process.pid })).toBe(true);
    expect(isAlive({ pid: process.ppid })).toBe(true);
    expect(isAlive({ pid: process.ppid, boot: me.boot })).toBe(true);
    expect(isAlive({ pid: process.ppid, start: '1' })).toBe(false);
    expect(isAlive({ pid: deadPid() })).toBe(false);
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(deadPid())).toBe(false);
  });

  it('a zombie (exited, not yet reaped) is dead', async () => {
    // Python forks a child that exits at once and never reaps it: the child stays a zombie as long as its parent
    // lives. The parent lives until the test kills it: were it to end first, init would reap the zombie before the
    // test looked at it. (Not `sh -c 'sleep 0 & exec sleep 3600'`: sh may reap the child before its exec, as it did
    // on a fresh CI machine.)
    const { spawn } = await import('node:child_process');
    const script =
      'import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(3600)';
    const parent = spawn('python3', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (c: Buffer) => resolve(c.toString()))),
      );
      const state = (): string => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0]!;
      while (state() !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10));
      expect(pidAlive(pid)).toBe(true);
      expect(isAlive({ pid })).toBe(false);
    } finally {
      parent.kill();
    }
  });
});

describe('journal lock, more', () => {
  it('waits 60 s by default and names the seconds it waited', async () => {
    expect(LOCK_WAIT_MS).toBe(60_000);
    const dir = tempDir();
    mkdirSync(join(dir, '.lock'));
    writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify({ pid: process.ppid }));
    await expect(withDirLock(dir, () => 1, 1600)).rejects.toMatchObject({
      message: `the order journal in ${dir} stayed locked by a running giftcodes process for 2s`,
      hint: 'another giftcodes process is busy with it (perhaps stopped): see ps, then try again',
    });
  });

  it('an ownerless lock younger than 5 s is kept', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.lock'));
    // A fake clock 4 s past the lock's making: 4 s old whatever the machine's speed (a lock made 4 s back on the
    // real clock was over 5 s old when a loaded machine stalled the test before it looked).
    vi.useFakeTimers({ now: statSync(join(dir, '.lock')).mtimeMs + 4000 });
    try {
      const kept = withDirLock(dir, () => 'ran', 20).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(100);
      expect(await kept).toMatchObject({ code: 'journal_locked' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a half-written owner is a lock being made; an owner without a pid is treated as alive', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.lock'));
    writeFileSync(join(dir, '.lock', 'owner'), '{"pid":');
    await expect(withDirLock(dir, () => 'ran', 20)).rejects.toMatchObject({ code: 'journal_locked' });
    writeFileSync(join(dir, '.lock', 'owner'), '{"host":"h"}');
    await expect(withDirLock(dir, () => 'ran', 20)).rejects.toMatchObject({ code: 'journal_locked' });
  });

  it('the lock names this process while held, and is removed after, even when fn throws', async () => {
    const dir = tempDir();
    const owner = await withDirLock(
      dir,
      () => JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8')) as { pid: number },
    );
    expect(owner.pid).toBe(process.pid);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    await expect(
      withDirLock(dir, () => {
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('release leaves a lock that names another process (taken over meanwhile)', async () => {
    const dir = tempDir();
    await withDirLock(dir, () => writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify({ pid: process.ppid })));
    expect(JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8'))).toEqual({ pid: process.ppid });
  });

  it('a directory where the lock cannot be made is exit 8 journal_unwritable', async () => {
    const dir = join(tempDir(), 'missing');
    await expect(withDirLock(dir, () => 1)).rejects.toMatchObject({ exitCode: 8, code: 'journal_unwritable' });
  });

  it('the lock directory is private (0700), its owner file 0600', async () => {
    const dir = tempDir();
    const modes = await withDirLock(dir, async () => {
      const { statSync } = await import('node:fs');
      return [statSync(join(dir, '.lock')).mode & 0o777, statSync(join(dir, '.lock', 'owner')).mode & 0o777];
    });
    expect(modes).toEqual([0o700, 0o600]);
    chmodSync(dir, 0o700);
  });
});

describe('history, more', () => {
  const rec = (key: string, at: string, extra: Partial<OrderRecord> = {}): OrderRecord => ({
    key,
    productId: 'p1',
    quantity: 2,
    environment: 'test',
    profile: 'default',
    baseUrl: 'u',
    createdAt: at,
    updatedAt: at,
    outcome: 'delivered',
    ...extra,
  });

  it('lives beside the journal', () => {
    expect(historyDir('/c')).toBe('/c/history');
    expect(new Journal('/c/journal').history.dir).toBe('/c/history');
  });

  it('orders by creation time, newest first, whenever each ended; ties by key descending', () => {
    const h = new History(join(tempDir(), 'history'));
    h.record(rec('a', '2026-01-01T00:00:00.000Z', { endedAt: '2026-01-05T00:00:00.000Z' }));
    h.record(rec('b', '2026-01-03T00:00:00.000Z'));
    h.record(rec('c', '2026-01-03T00:00:00.000Z'));
    expect(h.list().map((r) => r.key)).toEqual(['c', 'b', 'a']);
  });

  it('prunes by the last update when a record has no end; a missing directory is no error', () => {
    const h = new History(join(tempDir(), 'history'));
    h.prune(1, T0);
    h.record(rec('old', new Date(T0 - 2 * 86_400_000).toISOString()));
    h.record(rec('new', new Date(T0).toISOString()));
    writeFileSync(join(h.dir, 'old.txt'), '{}');
    writeFileSync(join(h.dir, 'bad.json'), '{"key":"x"}');
    h.prune(1, T0);
    expect(h.list().map((r) => r.key)).toEqual(['new']);
    expect(readdirSync(h.dir).sort()).toEqual(
      ['.pruned', 'bad.json', `${sha256('new').slice(0, 2)}.jsonl`, 'old.txt'].sort(),
    );
  });

  it('skips a record missing any required field or with an unknown outcome', () => {
    const h = new History(join(tempDir(), 'history'));
    const good = rec('g', '2026-01-01T00:00:00.000Z');
    h.record(good);
    const broken: Record<string, unknown>[] = [
      { key: 1 },
      { productId: 1 },
      { quantity: '2' },
      { profile: 1 },
      { baseUrl: 1 },
      { createdAt: 1 },
      { updatedAt: 1 },
      { environment: 'prod' },
      { outcome: 'lost' },
      { outcome: 1 },
    ];
    broken.forEach((change, i) =>
      writeFileSync(join(h.dir, `b${i}.json`), JSON.stringify({ ...good, key: `b${i}`, ...change })),
    );
    writeFileSync(join(h.dir, 'null.json'), 'null');
    writeFileSync(
      join(h.dir, 'live.json'),
      JSON.stringify({ ...good, key: 'live', environment: 'live', outcome: 'pending' }),
    );
    writeFileSync(join(h.dir, 'notes.txt'), JSON.stringify({ ...good, key: 'txt' }));
    expect(
      h
        .list()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['g', 'live']);
  });

  it('keeps only the fields of a record, the error only its code and message; the directory is private', () => {
    const h = new History(join(tempDir(), 'history'));
    h.record({
      ...rec('k', '2026-01-01T00:00:00.000Z', { endedAt: 'e', orderId: 'o', status: 's', out: '/o' }),
      error: { code: 'c', message: 'm', stack: 'secret' },
    } as OrderRecord);
    expect(h.list()).toEqual([
      {
        ...rec('k', '2026-01-01T00:00:00.000Z'),
        endedAt: 'e',
        orderId: 'o',
        status: 's',
        out: '/o',
        error: { code: 'c', message: 'm' },
      },
    ]);
    expect(readFileSync(join(h.dir, `${sha256('k').slice(0, 2)}.jsonl`), 'utf8')).not.toContain('secret');
  });
});
