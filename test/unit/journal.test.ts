// The journal's rules, on a real directory: who may take an intent over, when, and what is never resumed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTENT_MAX_AGE_MS, type Intent, type OrderSpec } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { isAlive } from '../../src/journal/owner.js';
import { tempDir } from '../helpers/e2e.js';

const spec: OrderSpec = {
  profile: 'default',
  environment: 'test',
  baseUrl: 'http://127.0.0.1:4010',
  keyId: 'k1',
  productId: 'amazon-us-25',
  quantity: 3,
};

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function journal(): Journal {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return new Journal(dir);
}

function orphan(j: Journal, intent: Intent, changes: Partial<Intent> = {}): Intent {
  return j.save({ ...intent, owner: { pid: deadPid(), host: hostname() }, ...changes });
}

describe('journal', () => {
  it('writes a new intent with a fresh key and the exact body before anything is sent', async () => {
    const j = journal();
    const { intent, resumed } = await j.begin(spec);
    expect(resumed).toBe(false);
    expect(intent.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(intent.body).toBe('{"product_id":"amazon-us-25","quantity":3}');
    expect(intent.phase).toBe('sending');
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
    for (const change of [{ productId: 'x' }, { quantity: 4 }, { environment: 'live' as const }, { profile: 'other' }]) {
      const { resumed } = await j.begin({ ...spec, ...change });
      expect(resumed, JSON.stringify(change)).toBe(false);
    }
  });

  it('refuses, naming it, an orphan of the same request made with another key or server', async () => {
    for (const change of [{ baseUrl: 'http://127.0.0.1:1' }, { keyId: 'k2' }]) {
      const j = journal();
      const first = orphan(j, (await j.begin(spec)).intent);
      await expect(j.begin({ ...spec, ...change }), JSON.stringify(change)).rejects.toMatchObject({ exitCode: 2, code: 'intent_conflict', hint: expect.stringContaining(first.key) });
    }
  });

  it('never resumes an intent older than 24 hours silently', async () => {
    const j = journal();
    const old = (await j.begin(spec)).intent;
    orphan(j, old, { createdAt: new Date(Date.now() - INTENT_MAX_AGE_MS - 1000).toISOString() });
    await expect(j.begin(spec)).rejects.toMatchObject({ exitCode: 2, code: 'stale_intent' });
    // Explicitly, by key, it can still be claimed (order resume asks for confirmation first).
    const claimed = await j.claim(old.key);
    expect(claimed.key).toBe(old.key);
  });

  it('binds a user-supplied key to its order', async () => {
    const j = journal();
    const first = (await j.begin({ ...spec, key: 'my-key-1' })).intent;
    orphan(j, first);
    await expect(j.begin({ ...spec, quantity: 9, key: 'my-key-1' })).rejects.toMatchObject({ exitCode: 2, code: 'idempotency_key_reused' });
    const same = await j.begin({ ...spec, key: 'my-key-1' });
    expect(same.resumed).toBe(true);
  });

  it('refuses to claim or abandon an intent a live process holds', async () => {
    const j = journal();
    const held = (await j.begin(spec)).intent;
    j.save({ ...held, owner: { pid: process.ppid, host: hostname() } });
    await expect(j.claim(held.key)).rejects.toMatchObject({ code: 'intent_busy' });
    await expect(j.abandon(held.key)).rejects.toMatchObject({ code: 'intent_busy' });
  });

  it('settles an intent whose codes file was delivered before it died, instead of resuming it', async () => {
    const j = journal();
    const dir = tempDir();
    const target = join(dir, 'codes.csv');
    writeFileSync(target, 'order_id,code\n');
    const first = (await j.begin({ ...spec, out: { path: target, force: false, csvRaw: false } })).intent;
    orphan(j, first, { phase: 'placed', orderId: 'ord_1', delivering: { temp: join(dir, '.codes.csv.gone.tmp') } });
    const settled = await j.settleDelivered();
    expect(settled.map((i) => i.key)).toEqual([first.key]);
    expect(j.read().intents).toEqual([]);
    expect((await j.begin(spec)).resumed).toBe(false);
  });

  it('keeps an intent whose temporary file was never renamed', async () => {
    const j = journal();
    const dir = tempDir();
    const temp = join(dir, '.codes.csv.tmp');
    writeFileSync(temp, 'partial');
    const first = (await j.begin({ ...spec, out: { path: join(dir, 'codes.csv'), force: false, csvRaw: false } })).intent;
    orphan(j, first, { phase: 'placed', orderId: 'ord_1', delivering: { temp } });
    expect(await j.settleDelivered()).toEqual([]);
    expect((await j.begin(spec)).resumed).toBe(true);
  });

  it('reports unreadable files and never deletes them', async () => {
    const j = journal();
    writeFileSync(join(j.dir, 'truncated.json'), '{"version":1,"key":"abc","pro');
    writeFileSync(join(j.dir, 'wrong.json'), '{"version":99}');
    const { intents, unreadable } = j.read();
    expect(intents).toEqual([]);
    expect(unreadable.map((u) => u.file.split('/').pop()).sort()).toEqual(['truncated.json', 'wrong.json']);
    await j.begin(spec);
    expect(readdirSync(j.dir).filter((name) => name.endsWith('.json'))).toHaveLength(3);
  });
});
