// The journal's rules, on a real directory: who may take an intent over, when, and what is never resumed.
import { recordOf, scopeOf } from '../../src/journal/history.js';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  INTENT_MAX_AGE_MS,
  INTENT_MAX_FUTURE_MS,
  sha256,
  staleness,
  type Intent,
  type OrderSpec,
} from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { letGoOfKept } from '../../src/journal/lock.js';
import { currentOwner, isAlive } from '../../src/journal/owner.js';
import { deadPid, tempDir } from '../helpers/e2e.js';
import { outTo, spec, journal } from '../helpers/journal.js';

const T0 = Date.now();

function orphan(j: Journal, intent: Intent, changes: Partial<Intent> = {}): Intent {
  return j.save({ ...intent, owner: { pid: deadPid(), boot: currentOwner().boot }, ...changes });
}

describe('journal', () => {
  it('writes a new intent with a fresh key and the exact body before anything is sent', async () => {
    const j = journal();
    const { intent, resumed } = await j.begin(spec);
    expect(resumed).toBe(false);
    expect(intent.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(intent.body).toBe('{"product_id":"amazon-us-25","quantity":3}');
    expect(intent.phase).toBe('prepared');
    expect(j.read().intents.map((i) => i.key)).toEqual([intent.key]);
  });

  it("takes over a dead process's intent for the same order, with the same key and body", async () => {
    const j = journal();
    const first = (await j.begin(spec)).intent;
    orphan(j, first);
    const again = await j.begin(spec);
    expect(again.resumed).toBe(true);
    expect(again.intent.key).toBe(first.key);
    expect(again.intent.body).toBe(first.body);
    expect(isAlive(again.intent.owner)).toBe(true);
  });

  it('remembers each run that is gone, with the file it was to write, when a later run takes the intent over', async () => {
    const j = journal();
    // Each run's --out, then the runs gone that the next one takes over: a run writing to stdout left no file.
    const outs = ['/d/a.csv', '/d/a.csv', '-', '/d/b.csv', '/d/a.csv'];
    const pids = outs.map(() => deadPid());
    let key: string | undefined;
    const expected: { path: string; pid: number }[] = [];
    for (const [i, path] of outs.entries()) {
      const begun = await j.begin({ ...spec, out: outTo(path) });
      expect(begun.resumed).toBe(i > 0);
      key ??= begun.intent.key;
      expect(begun.intent.key).toBe(key);
      expect(begun.intent.out?.path).toBe(path);
      // None recorded is no field at all (an older version reads the intent as it always did).
      expect(begun.intent.leftBy).toEqual(expected.length > 0 ? expected : undefined);
      // As the journal reads it back (its schema keeps the field).
      expect(j.read().intents.find((intent) => intent.key === key)?.leftBy ?? []).toEqual(expected);
      orphan(j, begun.intent, { owner: { pid: pids[i]!, boot: currentOwner().boot } });
      if (path !== '-') expected.push({ path, pid: pids[i]! });
    }
    // Taken over once more without --out (a resume by key): the last run joins, and none twice.
    const resumed = await j.begin(spec);
    expect(resumed.intent.leftBy).toEqual(expected);
    // A pid met again at another file (pid reuse) is another run.
    const again = orphan(j, resumed.intent, { owner: { pid: pids[4]!, boot: currentOwner().boot } });
    j.save({ ...again, out: outTo('/d/e.csv') });
    const reused = await j.begin({ ...spec, out: outTo('/d/e.csv') });
    expected.push({ path: '/d/e.csv', pid: pids[4]! });
    expect(reused.intent.leftBy).toEqual(expected);
    // A run already recorded is not recorded twice (the same dead owner met again).
    orphan(j, reused.intent, { owner: { pid: pids[4]!, boot: currentOwner().boot } });
    expect((await j.begin({ ...spec, out: outTo('/d/e.csv') })).intent.leftBy).toEqual(expected);
    // Taken again by this process (its own run is not gone): nothing joins.
    const own = await j.begin({ ...spec, key: resumed.intent.key, out: outTo('/d/d.csv') });
    expect(own.intent.key).toBe(resumed.intent.key);
    expect(own.intent.leftBy).toEqual(expected);
  });

  it("sweeps, when the intent ends, just what its gone runs left beside their files: any ending, no one else's", async () => {
    const dir = tempDir();
    const [a, b] = [join(dir, 'a.csv'), join(dir, 'b.csv')];
    const hex = '0123456789ab';
    for (const [ending, end] of [
      ['delivered', (j: Journal, intent: Intent) => j.end([intent], 'delivered')],
      ['abandoned', (j: Journal, intent: Intent) => j.abandon(intent.key)],
    ] as const) {
      const j = journal();
      const [first, other] = [deadPid(), deadPid()];
      const begun = await j.begin({ ...spec, out: outTo(a) });
      orphan(j, begun.intent, { owner: { pid: first, boot: currentOwner().boot } });
      const ours = join(dir, `.a.csv.giftcodes-${first}-${hex}.tmp`);
      // Another order's run, dead too, killed writing the same path: its file is not this order's to judge.
      const theirs = join(dir, `.a.csv.giftcodes-${other}-${hex}.tmp`);
      const lock = join(dir, '.a.csv.giftcodes.lock');
      writeFileSync(ours, 'codes');
      writeFileSync(theirs, 'codes');
      writeFileSync(lock, JSON.stringify({ pid: first, boot: currentOwner().boot }));
      const taken = await j.begin({ ...spec, out: outTo(b) });
      expect(taken.intent.leftBy).toEqual([{ path: a, pid: first }]);
      // Not before it ends: its next run might still need them (a temporary file the journal records).
      expect(existsSync(ours), ending).toBe(true);
      await end(j, taken.intent);
      expect([existsSync(ours), existsSync(theirs), existsSync(lock)], ending).toEqual([false, true, false]);
      rmSync(theirs);
    }
  });

  it('an intent taken over from a run that wrote to stdout records no gone run (no field at all)', async () => {
    const j = journal();
    orphan(j, (await j.begin(spec)).intent);
    const taken = await j.begin(spec);
    expect(taken.resumed).toBe(true);
    expect('leftBy' in taken.intent).toBe(false);
  });

  it("an intent of another machine, abandoned here: what its run left is not judged by this machine's pids", async () => {
    const dir = tempDir();
    const j = journal();
    const begun = await j.begin({ ...spec, out: outTo(join(dir, 'a.csv')) });
    const pid = deadPid();
    const foreign = j.save({ ...begun.intent, owner: { pid, machine: 'another-machine' } });
    const temp = join(dir, `.a.csv.giftcodes-${pid}-0123456789ab.tmp`);
    writeFileSync(temp, 'codes');
    await j.abandon(foreign.key);
    expect(j.read().intents).toEqual([]);
    expect(existsSync(temp)).toBe(true);
  });

  it("leaves a live process's intent alone: that is another order", async () => {
    const j = journal();
    const first = (await j.begin(spec)).intent;
    const other = await j.begin(spec);
    // The first intent belongs to this (live) process, so a second begin is a second order.
    expect(other.resumed).toBe(false);
    expect(other.intent.key).not.toBe(first.key);
  });

  it('does not match another product, quantity, environment or profile', async () => {
    const j = journal();
    orphan(j, (await j.begin(spec)).intent);
    for (const change of [
      { productId: 'x' },
      { quantity: 4 },
      { environment: 'live' as const },
      // Another profile with another API key: another reseller's order.
      { profile: 'other', keyId: 'k-other' },
    ]) {
      const { resumed } = await j.begin({ ...spec, ...change });
      expect(resumed, JSON.stringify(change)).toBe(false);
    }
  });

  it('refuses, naming it, an orphan of the same request made with another key or server, or this key in another profile', async () => {
    // The same API key in another profile is one reseller to the API: placed anew there, it was charged twice (a review).
    for (const change of [{ baseUrl: 'http://127.0.0.1:1' }, { keyId: 'k2' }, { profile: 'shop2' }]) {
      const j = journal();
      // Its request went out (it may have charged): another profile's note counts only then.
      const first = orphan(j, (await j.begin(spec)).intent, { phase: 'sending' });
      await expect(j.begin({ ...spec, ...change }), JSON.stringify(change)).rejects.toMatchObject({
        exitCode: 2,
        code: 'intent_conflict',
        hint: expect.stringContaining(first.key),
        message: expect.stringContaining(
          'profile' in change
            ? 'which holds this same API key, and may have been charged; this run would place a second one beside it'
            : `was made with another API key or base URL (${spec.baseUrl}), so it is not resumed with this one`,
        ) as unknown,
      });
    }
    // One never sent, or past the day, charged nothing this run could finish: the other profile's order goes ahead.
    const unsent = journal();
    orphan(unsent, (await unsent.begin(spec)).intent, { phase: 'prepared' });
    expect((await unsent.begin({ ...spec, profile: 'shop2' })).resumed).toBe(false);
    const old = journal();
    orphan(old, (await old.begin(spec)).intent, {
      phase: 'sending',
      createdAt: new Date(Date.now() - INTENT_MAX_AGE_MS - 1000).toISOString(),
    });
    expect((await old.begin({ ...spec, profile: 'shop2' })).resumed).toBe(false);
    // One whose outcome already reached its user (its record says delivered): nothing to finish.
    const done = journal();
    const reached = orphan(done, (await done.begin(spec)).intent, { phase: 'accepted', orderId: 'ord_done' });
    done.history.record({ ...recordOf(reached, 'delivered'), endedAt: new Date().toISOString() });
    expect((await done.begin({ ...spec, profile: 'shop2' })).resumed).toBe(false);
    const j = journal();
    orphan(j, (await j.begin(spec)).intent, { phase: 'sending' });
    await expect(j.begin({ ...spec, profile: 'shop2' })).rejects.toThrow(
      `(${spec.environment}) was started in profile "${spec.profile}", which holds this same API key, and may have been charged; this run would place a second one beside it, so it placed nothing`,
    );
  });

  it('never resumes an intent older than 24 hours silently; by key with forceStale it can be claimed', async () => {
    const j = journal();
    const old = (await j.begin(spec)).intent;
    orphan(j, old, { createdAt: new Date(Date.now() - INTENT_MAX_AGE_MS - 1000).toISOString() });
    const refused = j.begin(spec);
    await expect(refused).rejects.toMatchObject({ exitCode: 2, code: 'stale_intent' });
    await expect(refused).rejects.toThrow(/more than 24 hours ago/);
    await expect(refused).rejects.toMatchObject({
      hint: expect.stringContaining(`giftcodes order resume ${old.key} --force-stale`),
    });
    await expect(refused).rejects.toMatchObject({
      hint: expect.stringContaining(`giftcodes order abandon ${old.key}`),
    });
    await expect(j.claim(old.key)).rejects.toMatchObject({ code: 'stale_intent' });
    const { intent: claimed } = await j.claim(old.key, { forceStale: true });
    expect(claimed.key).toBe(old.key);
  });

  it('the 24 h and 5 min limits are exact', () => {
    const now = Date.parse('2026-06-01T12:00:00.000Z');
    const at = (ms: number): Intent => ({ createdAt: new Date(now + ms).toISOString() }) as Intent;
    expect(staleness(at(-INTENT_MAX_AGE_MS), now)).toBeUndefined();
    expect(staleness(at(-INTENT_MAX_AGE_MS - 1), now)).toBe('old');
    expect(staleness(at(INTENT_MAX_FUTURE_MS), now)).toBeUndefined();
    expect(staleness(at(INTENT_MAX_FUTURE_MS + 1), now)).toBe('future');
    expect(staleness({ createdAt: 'yesterday' } as Intent, now)).toBe('future');
    // An order id known: finishing it only reads that order, whatever its age or date.
    expect(staleness({ ...at(-INTENT_MAX_AGE_MS - 1), orderId: 'ord_1' }, now)).toBeUndefined();
    expect(staleness({ ...at(INTENT_MAX_FUTURE_MS + 1), orderId: 'ord_1' }, now)).toBeUndefined();
    expect(INTENT_MAX_AGE_MS).toBe(86_400_000);
    expect(INTENT_MAX_FUTURE_MS).toBe(300_000);
  });

  it('never resumes a future-dated intent silently, and says why', async () => {
    const j = journal();
    const ahead = (await j.begin(spec)).intent;
    orphan(j, ahead, { createdAt: new Date(Date.now() + INTENT_MAX_FUTURE_MS + 60_000).toISOString() });
    const refused = j.begin(spec);
    await expect(refused).rejects.toMatchObject({ exitCode: 2, code: 'stale_intent' });
    await expect(refused).rejects.toThrow(/in the future/);
    await expect(j.claim(ahead.key)).rejects.toMatchObject({ code: 'stale_intent' });
    expect((await j.claim(ahead.key, { forceStale: true })).intent.key).toBe(ahead.key);
  });

  it('an intent of another boot (another host, a reboot) is resumable; its host name is never looked at', async () => {
    const j = journal();
    const first = (await j.begin(spec)).intent;
    j.save({ ...first, owner: { pid: process.pid, start: '1', boot: '00000000-0000-0000-0000-000000000000' } });
    const again = await j.begin(spec);
    expect(again).toMatchObject({ resumed: true, intent: { key: first.key } });
    // A version 1 owner on another host name, this very (alive) pid: checked by pid and start, not the name.
    j.save({ ...again.intent, owner: { pid: deadPid(), host: 'renamed-host' } });
    expect((await j.begin(spec)).intent.key).toBe(first.key);
    expect(isAlive({ pid: process.pid, host: 'another-name' })).toBe(true);
    expect(isAlive({ pid: process.pid, boot: 'other-boot' })).toBe(false);
    expect(isAlive({ ...currentOwner() })).toBe(true);
  });

  it('reads a version 1 intent (placed, delivering, host) as version 2', () => {
    const j = journal();
    const v1 = {
      version: 1,
      key: 'old-1',
      ...spec,
      body: '{"product_id":"amazon-us-25","quantity":3}',
      fingerprint: 'f',
      phase: 'placed',
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      owner: { pid: 1, start: '5', host: 'h' },
      orderId: 'ord_1',
      delivering: { temp: '/x' },
    };
    writeFileSync(join(j.dir, 'v1.json'), JSON.stringify(v1));
    const [intent] = j.read().intents;
    expect(intent).toMatchObject({ version: 2, key: 'old-1', phase: 'accepted', orderId: 'ord_1' });
    expect(intent).not.toHaveProperty('delivering');
    const sending = { ...v1, key: 'old-2', phase: 'sending' };
    writeFileSync(join(j.dir, 'v1b.json'), JSON.stringify(sending));
    expect(j.find('old-2')?.phase).toBe('sending');
  });

  it('finds a key at its own file name, and still under any other name (copied by hand); a file holding another key is not it', async () => {
    const j = journal();
    const mine = (await j.begin({ ...spec, key: 'row-1' })).intent;
    await j.begin({ ...spec, key: 'row-2' });
    // An orphan of key "hand" under a name save() never uses: found by begin and resumed, not replaced. Put there
    // while no turn of this process keeps the lock (one that does lists the journal once: journal-listing.test.ts).
    letGoOfKept();
    const hand = { ...mine, key: 'hand', owner: { pid: deadPid(), boot: currentOwner().boot } };
    writeFileSync(join(j.dir, 'copied.json'), JSON.stringify(hand));
    const resumed = await j.begin({ ...spec, key: 'hand' });
    expect(resumed).toMatchObject({ resumed: true, intent: { key: 'hand', createdAt: mine.createdAt } });
    // The file named for key "moved" holds row-1's intent: "moved" is not there, and begin creates it.
    const moved = join(j.dir, `${sha256('moved').slice(0, 40)}.json`);
    writeFileSync(moved, JSON.stringify({ ...mine, owner: { pid: deadPid() } }));
    expect(j.find('moved')).toBeUndefined();
    expect(j.find('row-1')?.key).toBe('row-1');
    expect((await j.begin({ ...spec, key: 'moved' })).resumed).toBe(false);
    // Taken over, "hand" lives under its own name; the copy it was found in is gone (it would stay pending).
    expect(
      j
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual(['hand', 'moved', 'row-1', 'row-2']);
    // row-1 was once read from the file now "moved"'s own: ending row-1 leaves "moved" alone.
    await j.end([mine], 'delivered');
    expect(
      j
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual(['hand', 'moved', 'row-2']);
  });

  it("begin removes the temporary files a writer killed mid-write left, and no live writer's", async () => {
    const j = journal();
    mkdirSync(j.dir, { recursive: true });
    const dead = `.${'a'.repeat(40)}.json.${deadPid()}-0a1b2c3d4e5f.tmp`;
    const live = `.${'b'.repeat(40)}.json.${process.ppid}-0a1b2c3d4e5f.tmp`;
    const other = 'notes.tmp';
    for (const name of [dead, live, other]) writeFileSync(join(j.dir, name), '{');
    await j.begin(spec);
    expect(
      readdirSync(j.dir)
        .filter((n) => n.endsWith('.tmp'))
        .sort(),
    ).toEqual([live, other].sort());
  });

  it('begin leaves no temporary file behind, whether it creates the intent or takes one over', async () => {
    const j = journal();
    const first = (await j.begin({ ...spec, key: 'k' })).intent;
    orphan(j, first);
    expect((await j.begin({ ...spec, key: 'k' })).resumed).toBe(true);
    await expect(j.begin({ ...spec, key: 'k', productId: 'other' })).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });
    await j.begin(spec);
    expect(readdirSync(j.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(j.read().intents).toHaveLength(2);
  });

  it('end of many records every intent, then removes them all; a record of an order is never replaced by one without', async () => {
    const j = journal();
    const a = j.save({ ...(await j.begin({ ...spec, key: 'a' })).intent, orderId: 'ord_a' });
    const b = (await j.begin({ ...spec, key: 'b' })).intent;
    // That key's record in the same scope (server, environment, API key); one in another scope is another order's.
    j.history.record({
      key: 'b',
      keyId: spec.keyId,
      orderId: 'ord_b',
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'default',
      baseUrl: spec.baseUrl,
      createdAt: 'x',
      updatedAt: 'x',
      outcome: 'delivered',
    });
    await j.end([a, b], 'abandoned');
    expect(j.read().intents).toEqual([]);
    expect(
      j.history
        .list()
        .map((r) => `${r.key} ${r.outcome} ${r.orderId}`)
        .sort(),
    ).toEqual(['a abandoned ord_a', 'b delivered ord_b']);
  });

  it('end() moves the intent to the order record, with its key id (the scope), without the body', async () => {
    const j = journal();
    const { intent } = await j.begin(spec);
    const [record] = await j.end([{ ...intent, orderId: 'ord_9', status: 'completed' }], 'delivered', {
      now: Date.parse('2026-01-01T00:00:00Z'),
    });
    expect(record).toMatchObject({
      key: intent.key,
      orderId: 'ord_9',
      outcome: 'delivered',
      endedAt: '2026-01-01T00:00:00.000Z',
      productId: 'amazon-us-25',
      quantity: 3,
    });
    expect(j.read().intents).toEqual([]);
    expect(j.history.list().map((r) => r.key)).toEqual([intent.key]);
    expect(j.history.list()[0]?.keyId).toBe(spec.keyId);
    expect(JSON.stringify(j.history.list())).not.toContain('product_id');
  });

  it('abandon ends the intent as abandoned in the record', async () => {
    const j = journal();
    const { intent } = await j.begin(spec);
    orphan(j, intent);
    await j.abandon(intent.key);
    expect(j.read().intents).toEqual([]);
    expect(j.history.list()[0]).toMatchObject({ key: intent.key, outcome: 'abandoned' });
    await expect(j.abandon(intent.key)).rejects.toMatchObject({ exitCode: 2, code: 'intent_not_found' });
  });

  // A run of the abandoned key (the same order placed again) killed before it sent, abandoned in turn: its record said
  // "never sent", the mark went, and the order the first request placed was lost (a fourth review).
  it('an abandoned record keeps that the key went out before: sent, and its mark, through a second abandon', async () => {
    const j = journal();
    const { intent } = await j.begin(spec);
    orphan(j, { ...intent, phase: 'sending' });
    await j.abandon(intent.key, T0);
    expect(j.history.list()[0]).toMatchObject({ key: intent.key, outcome: 'abandoned', sent: true });
    const again = await j.begin({ ...spec, key: intent.key, keyReused: true });
    orphan(j, again.intent);
    rmSync(join(j.history.dir, '.abandoned-sent'), { force: true });
    await j.abandon(intent.key, T0 + 1000);
    expect(j.history.list()[0]).toMatchObject({
      key: intent.key,
      outcome: 'abandoned',
      sent: true,
      endedAt: new Date(T0 + 1000).toISOString(),
    });
    expect(j.history.markedWithinDay('abandoned', T0 + 1000)).toBe(true);
    // Never sent, and no record before: not sent.
    const k = journal();
    const fresh = await k.begin(spec);
    orphan(k, fresh.intent);
    await k.abandon(fresh.intent.key, T0);
    expect(k.history.list()[0]?.sent).toBeUndefined();
    expect(k.history.markedWithinDay('abandoned', T0)).toBe(false);
  });

  // A review: the abandoned key's reuse met insufficient funds; kept abandoned, every run that day sent the key again
  // and met the server's stored refusal, after the wallet was topped up. An API's 4xx under the key settles it; a
  // refusal without an answer (the server out of reach) does not.
  it('a reuse of an abandoned key refused by the API settles it; refused unanswered, it stays abandoned, sent', async () => {
    const { ApiError, NetworkError } = await import('../../src/errors.js');
    for (const [error, outcome] of [
      [new ApiError('no funds', { code: 'insufficient_funds', status: 422 }), 'refused'],
      [new ApiError('no product', { code: 'product_not_found', status: 400 }), 'refused'],
      [new ApiError('no supply', { code: 'insufficient_supply', status: 499 }), 'refused'],
      [new NetworkError('unreachable', { code: 'connection_refused' }), 'abandoned'],
      [new ApiError('key revoked', { code: 'invalid_api_key', status: 401 }), 'abandoned'],
      [new ApiError('slow down', { code: 'rate_limited', status: 429 }), 'abandoned'],
      [new ApiError('server', { code: 'server_error', status: 500 }), 'abandoned'],
      // The order's refusal only as a 4xx, and not in the statuses that speak of this request alone.
      [new ApiError('server', { code: 'insufficient_funds', status: 500 }), 'abandoned'],
      [new ApiError('slow down', { code: 'insufficient_funds', status: 429 }), 'abandoned'],
      [new ApiError('key', { code: 'insufficient_funds', status: 401 }), 'abandoned'],
      [new ApiError('none', { code: 'insufficient_funds' }), 'abandoned'],
      [new ApiError('redirect', { code: 'moved', status: 399 }), 'abandoned'],
      // A page with no code of the API's own (a proxy's HTML 404): no answer about the key (a review lost an order).
      [new ApiError('proxy page', { code: 'http_404', status: 404 }), 'abandoned'],
      // A gateway's JSON 404 (Spring Boot's `"error":"Not Found"`): the reason phrase, not an API's code.
      [new ApiError('gateway', { code: 'Not Found', status: 404 }), 'abandoned'],
      [new ApiError('gateway', { code: '404', status: 404 }), 'abandoned'],
      // An order IS under a key answered "reused for another body" (a fourth review lost an order to it).
      [new ApiError('reused', { code: 'idempotency_key_reused', status: 422 }), 'abandoned'],
    ] as const) {
      const j = journal();
      const { intent } = await j.begin(spec, T0);
      orphan(j, { ...intent, phase: 'sending' });
      await j.abandon(intent.key, T0);
      // Dated from its first send by begin itself, from the abandoned record it finds under the key.
      const again = await j.begin({ ...spec, key: intent.key, keyReused: true }, T0 + 1000);
      expect(again.intent.keySince).toBe(intent.createdAt);
      await j.end([again.intent], 'refused', { error, now: T0 + 2000 });
      expect(j.history.list()[0], error.code).toMatchObject({ key: intent.key, outcome });
      if (outcome === 'abandoned') expect(j.history.list()[0]?.sent).toBe(true);
      else expect(j.history.list()[0]?.keySince).toBe(intent.createdAt);
    }
  });

  // endLocked's older keep rules, seen by no unit test before (a scoped Stryker run): an intent with an order id
  // always writes its record, whatever the key's record said; a refusal after a refusal is the key's record now.
  it('an intent with an order id writes its record over any; a refused run after a refused one is the record', async () => {
    const j = journal();
    const { intent } = await j.begin(spec, T0);
    j.history.record({ ...recordOf(intent, 'delivered'), orderId: 'ord_earlier', endedAt: new Date(T0).toISOString() });
    orphan(j, { ...intent, phase: 'accepted', orderId: 'ord_now' });
    await j.abandon(intent.key, T0 + 1000);
    expect(j.history.list()[0]).toMatchObject({ key: intent.key, outcome: 'abandoned', orderId: 'ord_now' });
    const { ApiError } = await import('../../src/errors.js');
    const k = journal();
    const first = (await k.begin({ ...spec, key: 'my-key' }, T0)).intent;
    await k.end([first], 'refused', { error: new ApiError('no funds', { code: 'insufficient_funds' }), now: T0 });
    const second = (await k.begin({ ...spec, key: 'my-key' }, T0 + 1000)).intent;
    await k.end([second], 'refused', { error: new ApiError('offline', { code: 'unreachable' }), now: T0 + 2000 });
    expect(k.history.list()[0]).toMatchObject({ key: 'my-key', outcome: 'refused', error: { code: 'unreachable' } });
  });

  it('staleness: a key sent again counts from its first send, or from this run, whichever is older', () => {
    const day = INTENT_MAX_AGE_MS;
    const iso = (ms: number): string => new Date(ms).toISOString();
    expect(staleness({ createdAt: iso(T0 - 1000), keySince: iso(T0 - day - 1000) }, T0)).toBe('old');
    expect(staleness({ createdAt: iso(T0 - day - 1000), keySince: iso(T0 - 1000) }, T0)).toBe('old');
    expect(staleness({ createdAt: iso(T0 - 1000), keySince: iso(T0 - 2000) }, T0)).toBeUndefined();
  });

  // A review: a cron job sent the abandoned key and delivered its order while the person's question waited; the
  // person's No then wrote a stale declined copy over the delivered record, and order list lost the order.
  it('decline marks the abandoned record declined only while it is still the key’s record', async () => {
    const j = journal();
    const { intent } = await j.begin(spec, T0);
    orphan(j, { ...intent, phase: 'sending' });
    await j.abandon(intent.key, T0);
    const abandoned = j.history.get(intent.key, scopeOf(spec))!;
    await j.decline(abandoned, spec);
    expect(j.history.get(intent.key, scopeOf(spec))).toMatchObject({
      outcome: 'abandoned',
      sent: true,
      declined: true,
    });
    const k = journal();
    const other = await k.begin(spec, T0);
    orphan(k, { ...other.intent, phase: 'sending' });
    await k.abandon(other.intent.key, T0);
    const seen = k.history.get(other.intent.key, scopeOf(spec))!;
    k.history.record({
      ...seen,
      outcome: 'delivered',
      orderId: 'ord_cron',
      endedAt: new Date(T0 + 5000).toISOString(),
    });
    await k.decline(seen, spec);
    expect(k.history.get(other.intent.key, scopeOf(spec))).toMatchObject({ outcome: 'delivered', orderId: 'ord_cron' });
    // Nor over an abandoned record of the key that never went out, or one ended again since.
    for (const change of [{ sent: undefined }, { endedAt: new Date(T0 + 9000).toISOString() }]) {
      const m = journal();
      const begun = await m.begin(spec, T0);
      orphan(m, { ...begun.intent, phase: 'sending' });
      await m.abandon(begun.intent.key, T0);
      const was = m.history.get(begun.intent.key, scopeOf(spec))!;
      m.history.record({ ...was, ...change });
      await m.decline(was, spec);
      expect(m.history.get(begun.intent.key, scopeOf(spec))?.declined, JSON.stringify(change)).toBeUndefined();
    }
    expect(k.history.get(other.intent.key, scopeOf(spec))?.declined).toBeUndefined();
  });

  // An adversarial review: an accepted plan row abandoned, its codes taken by id, and the plan's next run wrote them
  // to a second file; support saw "placed" for an order whose codes `order watch --out` had written.
  it('noteFetched: an abandoned order whose codes were written becomes delivered by that command; a delivered one gets its file', async () => {
    const j = journal();
    const { intent } = await j.begin(spec, T0);
    orphan(j, intent, { phase: 'accepted', orderId: 'ord_taken' });
    await j.abandon(intent.key, T0);
    const abandoned = j.history.get(intent.key, scopeOf(spec))!;
    await j.noteFetched(abandoned, { out: '/srv/mine.csv', by: 'codes get' }, T0 + 1000);
    expect(j.history.get(intent.key, scopeOf(spec))).toMatchObject({
      outcome: 'delivered',
      orderId: 'ord_taken',
      out: '/srv/mine.csv',
      finishedBy: 'codes get',
      endedAt: new Date(T0 + 1000).toISOString(),
    });
    // The same order place then asks about a second order (recover.ts ofThisRequest: finished).
    expect(j.history.markedWithinDay('finished', T0 + 1000)).toBe(true);
    // Delivered with its codes to no file: the file written since is named; to a file already: left as it is.
    const k = journal();
    k.history.record({ ...abandoned, key: 'k-out', outcome: 'delivered', out: undefined });
    const shown = k.history.get('k-out', scopeOf(spec))!;
    await k.noteFetched(shown, { out: '/srv/w.csv', by: 'order watch' }, T0 + 2000);
    // Written after the delivery: when, said by a second copy's warning and the refusal of another order's codes (a
    // docs review read the delivery's time there); the time it ended stays the delivery's.
    expect(k.history.get('k-out', scopeOf(spec))).toMatchObject({
      out: '/srv/w.csv',
      outAt: new Date(T0 + 2000).toISOString(),
      outcome: 'delivered',
    });
    expect(k.history.get('k-out', scopeOf(spec))?.endedAt).toBe(shown.endedAt);
    await k.noteFetched(k.history.get('k-out', scopeOf(spec))!, { out: '/srv/other.csv', by: 'codes get' }, T0 + 3000);
    expect(k.history.get('k-out', scopeOf(spec))?.out).toBe('/srv/w.csv');
    // Another file of the same codes is named beside it, once (a person's day met six copies, one named), with when.
    expect(k.history.get('k-out', scopeOf(spec))?.copies).toEqual(['/srv/other.csv']);
    expect(k.history.get('k-out', scopeOf(spec))?.copiedAt).toEqual({
      '/srv/other.csv': new Date(T0 + 3000).toISOString(),
    });
    await k.noteFetched(k.history.get('k-out', scopeOf(spec))!, { out: '/srv/other.csv', by: 'codes get' }, T0 + 3500);
    // Written again: its time moves.
    expect(k.history.get('k-out', scopeOf(spec))?.copiedAt).toEqual({
      '/srv/other.csv': new Date(T0 + 3500).toISOString(),
    });
    await k.noteFetched(k.history.get('k-out', scopeOf(spec))!, { out: '/srv/w.csv', by: 'codes get' }, T0 + 3600);
    expect(k.history.get('k-out', scopeOf(spec))?.copies).toEqual(['/srv/other.csv']);
    // Its own file written again (codes get into it, as a hint said, after another order's codes went there): when,
    // so that the file is known as this order's again (a review was told it held the other order's codes).
    expect(k.history.get('k-out', scopeOf(spec))?.outAt).toBe(new Date(T0 + 3600).toISOString());
    // To stdout: a delivered record names no file for it.
    k.history.record({ ...abandoned, key: 'k-std', outcome: 'delivered', out: undefined });
    await k.noteFetched(k.history.get('k-std', scopeOf(spec))!, { out: '-', by: 'codes get' }, T0 + 4000);
    expect(k.history.get('k-std', scopeOf(spec))?.out).toBeUndefined();
  });

  it('noteFetched: a record delivered to stdout gets its file; another file is a copy, the newest 20 kept', async () => {
    const j = journal();
    const { intent } = await j.begin(spec, T0);
    orphan(j, intent, { phase: 'accepted', orderId: 'ord_std' });
    await j.abandon(intent.key, T0);
    const base = j.history.get(intent.key, scopeOf(spec))!;
    j.history.record({ ...base, key: 'k-dash', outcome: 'delivered', out: '-' });
    await j.noteFetched(j.history.get('k-dash', scopeOf(spec))!, { out: '/srv/f.csv', by: 'codes get' }, T0 + 1000);
    expect(j.history.get('k-dash', scopeOf(spec))).toMatchObject({
      out: '/srv/f.csv',
      outAt: new Date(T0 + 1000).toISOString(),
    });
    expect(j.history.get('k-dash', scopeOf(spec))?.copies).toBeUndefined();
    for (let n = 1; n <= 21; n++)
      await j.noteFetched(
        j.history.get('k-dash', scopeOf(spec))!,
        { out: `/srv/c${n}.csv`, by: 'codes get' },
        T0 + 1000 + n,
      );
    const copies = j.history.get('k-dash', scopeOf(spec))?.copies;
    expect(copies).toHaveLength(20);
    expect(copies?.[0]).toBe('/srv/c2.csv');
    expect(copies?.at(-1)).toBe('/srv/c21.csv');
  });

  it('noteFetched leaves a record a run of its key has ended again since, one without an order id, and a failed one', async () => {
    const j = journal();
    const { intent } = await j.begin(spec, T0);
    orphan(j, intent, { phase: 'accepted', orderId: 'ord_a' });
    await j.abandon(intent.key, T0);
    const seen = j.history.get(intent.key, scopeOf(spec))!;
    j.history.record({ ...seen, outcome: 'delivered', orderId: 'ord_b', endedAt: new Date(T0 + 5000).toISOString() });
    await j.noteFetched(seen, { out: '/srv/x.csv', by: 'codes get' }, T0 + 6000);
    expect(j.history.get(intent.key, scopeOf(spec))).toMatchObject({ orderId: 'ord_b', outcome: 'delivered' });
    expect(j.history.get(intent.key, scopeOf(spec))?.out).toBeUndefined();
    for (const change of [{ orderId: undefined }, { outcome: 'failed' as const }, { keyId: undefined }]) {
      const k = journal();
      k.history.record({ ...seen, ...change });
      const was = k.history.get(seen.key, scopeOf(spec)) ?? { ...seen, ...change };
      await k.noteFetched(was, { out: '/srv/y.csv', by: 'codes get' }, T0 + 7000);
      expect(k.history.list()[0]?.out, JSON.stringify(change)).toBeUndefined();
      expect(k.history.list()[0]?.outcome, JSON.stringify(change)).toBe(change.outcome ?? 'abandoned');
    }
  });

  // What tells the same `order place` run again that `order resume` finished its order in its place (recover.ts).
  it('settleWhere with finishedBy names it in the records and marks finished; without it, neither', async () => {
    const j = journal();
    const { intent } = await j.begin(spec);
    orphan(j, intent, { phase: 'accepted', orderId: 'ord_resumed' });
    await j.settleWhere(() => 'failed', T0, { finishedBy: 'order resume' });
    expect(j.history.list()[0]).toMatchObject({ key: intent.key, outcome: 'failed', finishedBy: 'order resume' });
    expect(j.history.markedWithinDay('finished', T0)).toBe(true);
    const k = journal();
    const other = await k.begin(spec);
    orphan(k, other.intent, { phase: 'accepted', orderId: 'ord_settled' });
    await k.settleWhere(() => 'failed', T0);
    expect(k.history.list()[0]).toMatchObject({ key: other.intent.key, outcome: 'failed' });
    expect(k.history.list()[0]?.finishedBy).toBeUndefined();
    expect(k.history.markedWithinDay('finished', T0)).toBe(false);
  });

  // Pruning reads every record file: once per process, not once per row of a plan.
  it('prunes the records once per journal, however many intents it ends', async () => {
    const j = journal();
    const pruned: number[] = [];
    const prune = j.history.prune.bind(j.history);
    j.history.prune = (...args: Parameters<typeof prune>) => (pruned.push(args[1] ?? 0), prune(...args));
    for (const n of [1, 2, 3]) {
      const { intent } = await j.begin({ ...spec, quantity: n });
      orphan(j, intent);
      await j.abandon(intent.key, T0 + n);
    }
    expect(pruned).toEqual([T0 + 1]);
  });

  it('binds a user-supplied key to its order', async () => {
    const j = journal();
    const first = (await j.begin({ ...spec, key: 'my-key-1' })).intent;
    orphan(j, first);
    await expect(j.begin({ ...spec, quantity: 9, key: 'my-key-1' })).rejects.toMatchObject({
      exitCode: 2,
      code: 'idempotency_key_reused',
    });
    const same = await j.begin({ ...spec, key: 'my-key-1' });
    expect(same.resumed).toBe(true);
  });

  it('refuses to claim or abandon an intent a live process holds', async () => {
    const j = journal();
    const held = (await j.begin(spec)).intent;
    j.save({ ...held, owner: { pid: process.ppid } });
    await expect(j.claim(held.key)).rejects.toMatchObject({ code: 'intent_busy' });
    await expect(j.abandon(held.key)).rejects.toMatchObject({ code: 'intent_busy' });
  });

  it('reports unreadable files and never deletes them', async () => {
    const j = journal();
    writeFileSync(join(j.dir, 'truncated.json'), '{"version":1,"key":"abc","pro');
    writeFileSync(join(j.dir, 'wrong.json'), '{"version":99}');
    const { intents, unreadable } = j.read();
    expect(intents).toEqual([]);
    expect(unreadable.map((u) => u.file.split('/').pop()).sort()).toEqual(['truncated.json', 'wrong.json']);
    await j.begin(spec);
    expect(
      readdirSync(j.dir)
        .filter((name) => name.endsWith('.json'))
        .sort(),
    ).toEqual(['truncated.json', 'wrong.json']);
    expect(j.read().intents).toHaveLength(1);
  });
});

describe('the journal stores an intent exactly', () => {
  it('keeps key-shaped text in every identifier (log line and compacted file); masks a key in the server status', async () => {
    const { storedIntent, intentText } = await import('../../src/journal/log.js');
    const { newIntent } = await import('../../src/journal/intent.js');
    const spec: OrderSpec = {
      profile: 'misc_test_shop',
      environment: 'test',
      baseUrl: 'http://127.0.0.1:1/sc_test_x',
      keyId: 'abc',
      productId: 'misc_test_pack',
      quantity: 1,
    };
    const intent = {
      ...newIntent(
        { ...spec, out: { path: '/tmp/misc_test_out/sc_live_d/c.csv', force: false, csvRaw: false } },
        'misc_test_key-sc_test_1',
        Date.now(),
      ),
      orderId: 'sc_live_order_abcdefgh',
      status: 'weird sc_live_abcdefgh1234',
    };
    expect(storedIntent(intent)).toEqual({ ...intent, status: 'weird sc_live_…1234' });
    expect(JSON.parse(intentText(intent))).toEqual({ ...intent, status: 'weird sc_live_…1234' });
    const journal = new Journal(join(tempDir(), 'journal'));
    mkdirSync(journal.dir, { recursive: true });
    await journal.saveAsync(intent);
    // The log line as written (this process's readers see its memory; another process reads the file).
    const { readFileSync } = await import('node:fs');
    const log = readdirSync(journal.dir).find((name) => name.endsWith('.log'))!;
    const line = readFileSync(join(journal.dir, log), 'utf8').trim().split('\n').at(-1)!;
    expect((JSON.parse(line) as { intent: Intent }).intent).toMatchObject({
      profile: spec.profile,
      productId: spec.productId,
      baseUrl: spec.baseUrl,
      body: intent.body,
      key: intent.key,
      orderId: intent.orderId,
      out: intent.out,
      status: 'weird sc_live_…1234',
    });
  });
});

describe('claim asks first whether the outcome already reached the user', () => {
  it('an intent whose delivery is recorded is settled, not claimed: reached says how it ended', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, out: { path: '-', force: false, csvRaw: false } });
    const accepted = orphan(j, intent, { phase: 'accepted', orderId: 'ord_1', status: 'completed' });
    j.history.record({
      key: intent.key,
      orderId: 'ord_1',
      productId: spec.productId,
      quantity: 3,
      environment: 'test',
      profile: 'default',
      baseUrl: spec.baseUrl,
      createdAt: accepted.createdAt,
      updatedAt: accepted.updatedAt,
      outcome: 'delivered',
    });
    const claimed = await j.claim(intent.key);
    expect(claimed.reached).toBe('delivered');
    expect(claimed.intent.owner.pid).not.toBe(process.pid);
    expect(j.find(intent.key)).toBeUndefined();
    expect(j.history.get(intent.key, scopeOf(intent))).toMatchObject({ outcome: 'delivered', orderId: 'ord_1' });
  });

  it('one whose delivery is not recorded is claimed: no reached', async () => {
    const j = journal();
    const { intent } = await j.begin(spec);
    orphan(j, intent, { phase: 'accepted', orderId: 'ord_2' });
    const claimed = await j.claim(intent.key);
    expect(claimed.reached).toBeUndefined();
    expect(claimed.intent.owner.pid).toBe(process.pid);
    expect(j.find(intent.key)).toMatchObject({ owner: { pid: process.pid } });
  });
});

describe('the machine in an owner', () => {
  it('is recorded; another machine is never alive here, never the same process, and is named by otherMachine', async () => {
    const { machineId, otherMachine, isSameProcess } = await import('../../src/journal/owner.js');
    const me = currentOwner();
    expect(me.machine).toBe(machineId());
    expect(machineId()).not.toBe('');
    expect(otherMachine(me)).toBeUndefined();
    expect(otherMachine({ ...me, machine: undefined })).toBeUndefined();
    const there = { ...me, machine: 'elsewhere-1' };
    expect(otherMachine(there)).toBe('elsewhere-1');
    expect(isAlive(me)).toBe(true);
    expect(isAlive(there)).toBe(false);
    expect(isSameProcess(there, me)).toBe(false);
    expect(isSameProcess({ ...me, machine: undefined }, me)).toBe(true);
  });

  it('GIFTCODES_MACHINE_ID stands in for the machine (tests only)', async () => {
    const { machineId } = await import('../../src/journal/owner.js');
    const before = process.env.GIFTCODES_MACHINE_ID;
    process.env.GIFTCODES_MACHINE_ID = 'test-machine-x';
    try {
      expect(machineId()).toBe('test-machine-x');
    } finally {
      if (before === undefined) delete process.env.GIFTCODES_MACHINE_ID;
      else process.env.GIFTCODES_MACHINE_ID = before;
    }
    expect(machineId()).not.toBe('test-machine-x');
  });

  it("begin refuses another machine's matching intent (by match and by key); claim takes it over; settleWhere leaves it", async () => {
    const j = journal();
    const { intent } = await j.begin(spec);
    const foreign = j.save({ ...intent, phase: 'sending', owner: { pid: deadPid(), machine: 'elsewhere-2' } });
    await expect(j.begin(spec)).rejects.toMatchObject({
      exitCode: 2,
      code: 'intent_other_machine',
      hint: `once you know that host is not running it: giftcodes order resume ${intent.key}`,
    });
    await expect(j.begin({ ...spec, key: intent.key })).rejects.toMatchObject({ code: 'intent_other_machine' });
    expect(await j.settleWhere(() => 'delivered')).toEqual([]);
    const { intent: claimed } = await j.claim(foreign.key);
    expect(otherMachineOf(claimed)).toBeUndefined();
  });
});

function otherMachineOf(intent: Intent): string | undefined {
  return intent.owner.machine === currentOwner().machine ? undefined : intent.owner.machine;
}
