// Issue 29, finding 4: a record, an intent and a plan row are keyed by what they are (the idempotency key
// with its server, environment and API key; a row by its product, quantity, out cell and occurrence), never
// by the key alone or by the plan's bytes and line numbers. Each case is the reproduction of the finding,
// checked against the reference server's ledger.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOTH_KEYS, ledger, loggedIn, runCli, servedApi, tempDir, type TestServer } from '../helpers/e2e.js';

const served = servedApi(['--fulfil-after', '0']);

async function reset(server: TestServer): Promise<void> {
  const res = await fetch(`${server.url}/_admin/reset`, { method: 'POST' });
  expect(res.status).toBe(200);
}

/** The server's orders under these idempotency keys, of one environment. */
async function chargedUnder(server: TestServer, keys: Iterable<string>, environment: 'test' | 'live'): Promise<Record<string, unknown>[]> {
  const wanted = new Set(keys);
  return (await ledger(server)).orders.filter((o) => wanted.has(String(o.idempotency_key)) && o.environment === environment);
}

describe('a record is the key on one server, environment and API key', () => {
  it('a key used live, then under test, then live again: the third is recognised as the live order, nothing sent', async () => {
    const { server } = served;
    const configDir = await loggedIn(server, BOTH_KEYS);
    const key = `restock-${Date.now()}`;
    const place = (env: string) => runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--idempotency-key', key, '--env', env, '--yes', '--json'], { configDir });
    const live = await place('live');
    expect(live.code, live.stderr).toBe(0);
    const test = await place('test');
    expect(test.code, test.stderr).toBe(0);
    // The server forgets its keys (24 h later): only the local record stands between this and a second charge.
    await reset(server);
    const again = await place('live');
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('idempotency_key_used');
    expect(again.stderr).toContain((JSON.parse(live.stdout) as { id: string }).id);
    expect(await chargedUnder(server, [key], 'live')).toEqual([]);
  });

  it('a plan run live, then under test, then live again: nothing more is charged live', async () => {
    const { server } = served;
    const configDir = await loggedIn(server, BOTH_KEYS);
    const plan = join(tempDir(), 'plan.csv');
    writeFileSync(plan, `product,quantity\namazon-us-10,1\namazon-us-10,2\nsteam-us-20,1\n`);
    const run = (env: string) => runCli(['order', 'place', '--plan', plan, '--env', env, '--yes', '--json'], { configDir });
    const live = await run('live');
    expect(live.code, live.stderr).toBe(0);
    const keys = (JSON.parse(live.stdout) as { key: string }[]).map((r) => r.key);
    expect(await chargedUnder(server, keys, 'live')).toHaveLength(3);
    const test = await run('test');
    expect(test.code, test.stderr).toBe(0);
    await reset(server);
    await run('live');
    expect((await ledger(server)).orders.filter((o) => o.environment === 'live')).toEqual([]);
  });

  it('order list and order show still find the records of every scope', async () => {
    const { server } = served;
    const configDir = await loggedIn(server, BOTH_KEYS);
    const key = `both-${Date.now()}`;
    for (const env of ['live', 'test']) {
      const placed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--idempotency-key', key, '--env', env, '--yes', '--json'], { configDir });
      expect(placed.code, placed.stderr).toBe(0);
    }
    const list = await runCli(['order', 'list', '--json'], { configDir });
    expect(list.code, list.stderr).toBe(0);
    const records = JSON.parse(list.stdout) as { key: string; environment: string }[];
    expect(records.filter((r) => r.key === key).map((r) => r.environment).sort()).toEqual(['live', 'test']);
    // One key, two orders: `order show <key>` names both rather than pick one.
    const show = await runCli(['order', 'show', key], { configDir });
    expect(show.code).toBe(2);
    expect(show.stderr).toContain('matches 2 orders');
  });
});
