// openapi.yaml is the truth about the server: every documented status is produced here through
// Stoplight Prism's validating proxy with --errors, and any violation it reports fails the test.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { KEYS, heldCount, newKey, release, sleep, start, until } from './helpers.js';
import { freePort } from '../helpers/ports.js';

const OPENAPI = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
const PRISM = fileURLToPath(new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));
const FORMULA_SEED = fileURLToPath(new URL('./fixtures/formula-seed.json', import.meta.url));
const FORMULA_KEY = 'sc_test_formula_0a1b2c3d4e5f';

interface Proxy {
  url: string;
  child: ChildProcess;
  upstream: RunningServer;
}

async function proxy(upstream: RunningServer): Promise<Proxy> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [PRISM, 'proxy', OPENAPI, upstream.url, '--errors', '-h', '127.0.0.1', '-p', String(port), '-v', 'error'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`prism exited: ${stderr}`);
    try {
      await fetch(url);
      return true;
    } catch {
      return undefined;
    }
    // A safety net only: prism takes seconds to start, far more on a loaded machine.
  }, 300_000);
  return { url, child, upstream };
}

interface Checked {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Calls through Prism; fails on any violation it reports. */
async function through(
  p: Proxy,
  path: string,
  o: { method?: string; key?: string | null; idem?: string; body?: unknown } = {},
): Promise<Checked> {
  const headers: Record<string, string> = {};
  const key = o.key === undefined ? KEYS.test : o.key;
  if (key !== null) headers['X-API-Key'] = key;
  if (o.idem !== undefined) headers['Idempotency-Key'] = o.idem;
  if (o.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(p.url + path, {
    method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  expect(res.headers.get('sl-violations'), `${path}: ${res.headers.get('sl-violations')}`).toBeNull();
  expect(res.headers.get('content-type'), `${path}: ${text}`).toBe('application/json');
  return { status: res.status, headers: res.headers, json: JSON.parse(text) };
}

let plain: Proxy;
let seeded: Proxy;
let faulty: Proxy;
beforeAll(async () => {
  const servers = await Promise.all([
    // Every new order request is held until the test releases it (unheld() below): the same key sent while the
    // first is held finds it running however long Prism and the test stall on a loaded machine.
    start({ fulfilAfterMs: 400, holdMs: 600_000 }),
    start({ fulfilAfterMs: 50, seedFile: FORMULA_SEED }),
    // One request per 100 s: the 503 takes the token and the next request is 429, however long Prism takes.
    start({ rateLimit: 0.01, failRate: 1 }),
  ]);
  [plain, seeded, faulty] = (await Promise.all(servers.map(proxy))) as [Proxy, Proxy, Proxy];
}, 300_000);
afterAll(async () => {
  for (const p of [plain, seeded, faulty]) {
    p?.child.kill();
    await p?.upstream.close();
  }
});

/** A call through `p` whose order request the upstream holds, released as soon as it is held. */
async function unheld(p: Proxy, pending: Promise<Checked>): Promise<Checked> {
  let settled = false;
  const answer = pending.finally(() => (settled = true));
  while (!settled) {
    if ((await heldCount(p.upstream)) > 0) await release(p.upstream);
    await sleep(10);
  }
  return answer;
}

async function completed(p: Proxy, id: string, key: string = KEYS.test, want = 'completed'): Promise<void> {
  await until(async () => ((await through(p, `/v1/orders/${id}`, { key })).json.status === want ? true : undefined));
}

describe('openapi.yaml matches the server (through Prism --errors)', () => {
  test('ping: 200 test and live, 401', async () => {
    expect((await through(plain, '/v1/ping')).status).toBe(200);
    expect((await through(plain, '/v1/ping', { key: KEYS.live })).json.environment).toBe('live');
    expect((await through(plain, '/v1/ping', { key: 'sc_test_not_a_real_key_000' })).status).toBe(401);
  });

  test('catalog: 200 pages, 400 invalid_cursor', async () => {
    let cursor: string | null = null;
    let count = 0;
    do {
      const page: Checked = await through(plain, `/v1/catalog?limit=5${cursor === null ? '' : `&cursor=${cursor}`}`, {
        key: KEYS.live,
      });
      expect(page.status).toBe(200);
      count += page.json.data.length;
      cursor = page.json.next_cursor;
    } while (cursor !== null);
    expect(count).toBe(12);
    expect((await through(plain, '/v1/catalog?cursor=bm9wZQ')).status).toBe(400);
  });

  test('orders: 201, replay, 400, 404, 409, 413, 422', async () => {
    const idem = newKey();
    const body = { product_id: 'amazon-us-25', quantity: 2 };
    const original = through(plain, '/v1/orders', { key: KEYS.live, idem, body });
    await until(async () => ((await heldCount(plain.upstream)) === 1 ? true : undefined));
    const during = await through(plain, '/v1/orders', { key: KEYS.live, idem, body });
    expect(during.status).toBe(409);
    expect(await release(plain.upstream)).toBe(1);
    const first = await original;
    expect(first.status).toBe(201);
    const replay = await through(plain, '/v1/orders', { key: KEYS.live, idem, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await through(plain, '/v1/orders', { key: KEYS.live, idem, body: { ...body, quantity: 3 } })).status).toBe(
      422,
    );
    expect(
      (
        await unheld(
          plain,
          through(plain, '/v1/orders', {
            key: KEYS.live,
            idem: newKey(),
            body: { product_id: 'nope', quantity: 1 },
          }),
        )
      ).json.error.code,
    ).toBe('unknown_product');
    expect((await through(plain, '/v1/orders', { key: KEYS.live, idem: 'k'.repeat(300), body })).json.error.code).toBe(
      'idempotency_key_invalid',
    );
    expect(
      (
        await unheld(
          plain,
          through(plain, '/v1/orders', { key: KEYS.smallLive, idem: newKey(), body: { ...body, quantity: 3 } }),
        )
      ).json.error.code,
    ).toBe('insufficient_funds');
    expect(
      (
        await unheld(
          plain,
          through(plain, '/v1/orders', {
            key: KEYS.live,
            idem: newKey(),
            body: { product_id: 'netflix-us-30', quantity: 99 },
          }),
        )
      ).json.error.code,
    ).toBe('insufficient_supply');
    expect(
      (await through(plain, '/v1/orders', { idem: newKey(), body: { product_id: 'x'.repeat(70_000), quantity: 1 } }))
        .status,
    ).toBe(413);
    const read = await through(plain, `/v1/orders/${first.json.id}`, { key: KEYS.live });
    expect(read.json.id).toBe(first.json.id);
    expect((await through(plain, `/v1/orders/${first.json.id}`)).status).toBe(404);
  });

  test('codes: 409 before completion, 200 pages after, 400, 404', async () => {
    const placed = await unheld(
      plain,
      through(plain, '/v1/orders', {
        idem: newKey(),
        body: { product_id: 'amazon-us-10', quantity: 3 },
      }),
    );
    const early = await through(plain, `/v1/orders/${placed.json.id}/codes`);
    if (Date.now() - Date.parse(placed.json.created_at) < 400)
      expect(early.json.error.code).toBe('order_not_completed');
    await completed(plain, placed.json.id);
    const page = await through(plain, `/v1/orders/${placed.json.id}/codes?limit=2`);
    expect(page.json.data).toHaveLength(2);
    const rest = await through(plain, `/v1/orders/${placed.json.id}/codes?limit=2&cursor=${page.json.next_cursor}`);
    expect(rest.json).toMatchObject({ has_more: false, next_cursor: null });
    expect((await through(plain, `/v1/orders/${placed.json.id}/codes?cursor=bm9wZQ`)).status).toBe(400);
    expect((await through(plain, `/v1/orders/${placed.json.id}/codes`, { key: KEYS.live })).status).toBe(404);
  });

  test('a failed order and prefixed codes (formula seed)', async () => {
    const doomed = await through(seeded, '/v1/orders', {
      key: FORMULA_KEY,
      idem: newKey(),
      body: { product_id: 'doomed-us-10', quantity: 1 },
    });
    await completed(seeded, doomed.json.id, FORMULA_KEY, 'failed');
    expect((await through(seeded, `/v1/orders/${doomed.json.id}/codes`, { key: FORMULA_KEY })).json.error.code).toBe(
      'order_failed',
    );
    const formula = await through(seeded, '/v1/orders', {
      key: FORMULA_KEY,
      idem: newKey(),
      body: { product_id: 'formula-us-10', quantity: 2 },
    });
    await completed(seeded, formula.json.id, FORMULA_KEY);
    const codes = await through(seeded, `/v1/orders/${formula.json.id}/codes`, { key: FORMULA_KEY });
    expect(codes.json.data[0].code.startsWith('=')).toBe(true);
  });

  test('faults: 503, then 429 with Retry-After', async () => {
    expect((await through(faulty, '/v1/ping')).status).toBe(503);
    const limited = await through(faulty, '/v1/catalog');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  test('admin: ledger and reset', async () => {
    const ledger = await through(plain, '/_admin/ledger', { key: null });
    expect(ledger.json.orders.length).toBeGreaterThan(0);
    expect((await through(plain, '/_admin/reset', { key: null, method: 'POST' })).json).toEqual({ status: 'reset' });
    expect((await through(plain, '/_admin/ledger', { key: null })).json.orders).toEqual([]);
  });
});
