import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { KEYS, call, placeOrder, readPages, start, until } from './helpers.js';
import { inProcessServers } from '../helpers/inprocess.js';

const FORMULA_SEED = fileURLToPath(new URL('./fixtures/formula-seed.json', import.meta.url));
const FORMULA_KEY = 'sc_test_formula_0a1b2c3d4e5f';
const FULFIL_MS = 300;

const servers = inProcessServers({ server: { fulfilAfterMs: FULFIL_MS } }, start);

interface CodeRecord {
  code: string;
  pin: string;
  serial: string;
  value: { amount: number; currency: string };
  expires_at: string;
}

async function completed(s: RunningServer, id: string, key: string = KEYS.test): Promise<void> {
  await until(async () =>
    (await call(s, `/v1/orders/${id}`, { key })).json.status === 'completed' ? true : undefined,
  );
}

async function allCodes(
  s: RunningServer,
  id: string,
  key: string = KEYS.test,
  limit?: number,
): Promise<{ codes: CodeRecord[]; pages: number }> {
  const { items, pages } = await readPages<CodeRecord>(
    s,
    `/v1/orders/${id}/codes`,
    limit === undefined ? { key } : { key, limit },
  );
  return { codes: items, pages };
}

describe('GET /v1/orders/{id}/codes', () => {
  test('409 order_not_completed before completion, then the codes', async () => {
    const { server } = servers;
    const placed = await placeOrder(server, 'amazon-us-25', 3);
    const early = await call(server, `/v1/orders/${placed.json.id}/codes`);
    // On a machine too slow to ask within FULFIL_MS, the order may have completed already.
    if (Date.now() - Date.parse(placed.json.created_at) < FULFIL_MS) {
      expect(early.status).toBe(409);
      expect(early.json.error.code).toBe('order_not_completed');
    } else {
      expect([200, 409]).toContain(early.status);
    }
    await completed(server, placed.json.id);
    const { codes } = await allCodes(server, placed.json.id);
    expect(codes).toHaveLength(3);
    for (const [i, c] of codes.entries()) {
      expect(c.code).toMatch(/^TEST-[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
      expect(c.pin).toMatch(/^[0-9]{4}$/);
      expect(c.serial).toMatch(new RegExp(`^SN[0-9A-F]{8}-00000${i + 1}$`));
      expect(c.value).toEqual({ amount: 2500, currency: 'USD' });
      expect(Date.parse(c.expires_at)).toBeGreaterThan(Date.now());
    }
  });

  test('codes are deterministic: the same order gives the same codes, another order others', async () => {
    const { server } = servers;
    const a = await placeOrder(server, 'apple-us-25', 5);
    const b = await placeOrder(server, 'apple-us-25', 5);
    await completed(server, a.json.id);
    await completed(server, b.json.id);
    const first = await call(server, `/v1/orders/${a.json.id}/codes`);
    const second = await call(server, `/v1/orders/${a.json.id}/codes`);
    expect(second.text).toBe(first.text);
    const other = (await allCodes(server, b.json.id)).codes.map((c) => c.code);
    const mine = (first.json.data as CodeRecord[]).map((c) => c.code);
    expect(other.filter((c) => mine.includes(c))).toEqual([]);
  });

  test('live codes carry no TEST- marker and only the owner sees them', async () => {
    const { server } = servers;
    const placed = await placeOrder(server, 'steam-us-20', 2, { key: KEYS.live });
    await completed(server, placed.json.id, KEYS.live);
    const { codes } = await allCodes(server, placed.json.id, KEYS.live);
    expect(codes).toHaveLength(2);
    for (const c of codes) expect(c.code).not.toMatch(/TEST/);
    const stranger = await call(server, `/v1/orders/${placed.json.id}/codes`, { key: KEYS.test });
    expect(stranger.status).toBe(404);
    expect(stranger.json.error.code).toBe('order_not_found');
  });

  test('10,000 codes page by page: complete, in order, no duplicates, the same at any page size', async () => {
    const { server } = servers;
    const placed = await placeOrder(server, 'amazon-us-10', 10_000);
    await completed(server, placed.json.id);
    const byDefault = await allCodes(server, placed.json.id);
    expect(byDefault.pages).toBe(10);
    expect(byDefault.codes).toHaveLength(10_000);
    expect(new Set(byDefault.codes.map((c) => c.code)).size).toBe(10_000);
    expect(byDefault.codes.map((c) => c.serial)).toEqual(
      Array.from(
        { length: 10_000 },
        (_, i) => `${byDefault.codes[0]?.serial.slice(0, 11)}${String(i + 1).padStart(6, '0')}`,
      ),
    );
    const small = await allCodes(server, placed.json.id, KEYS.test, 777);
    expect(small.pages).toBe(13);
    expect(small.codes).toEqual(byDefault.codes);
    // Above the largest page the limit is clamped, not refused.
    const big = await allCodes(server, placed.json.id, KEYS.test, 5000);
    expect(big.pages).toBe(10);
    expect(big.codes).toEqual(byDefault.codes);
  });

  test('a 1,000,000-code order: its last page is computed alone, serials reach 1000000, no page beyond', async () => {
    const { server } = servers;
    const placed = await placeOrder(server, 'amazon-us-10', 1_000_000);
    expect(placed.status).toBe(201);
    await completed(server, placed.json.id);
    const cursor = Buffer.from(`codes.${placed.json.id}:999000`).toString('base64url');
    const last = await call(server, `/v1/orders/${placed.json.id}/codes?limit=1000&cursor=${cursor}`);
    expect(last.status).toBe(200);
    expect(last.json.has_more).toBe(false);
    expect(last.json.next_cursor).toBeNull();
    const codes = last.json.data as CodeRecord[];
    expect(codes).toHaveLength(1000);
    expect(codes[0]?.serial).toMatch(/-999001$/);
    expect(codes.at(-1)?.serial).toMatch(/-1000000$/);
    // What the route writes as bytes is what JSON.stringify would write.
    expect(last.text).toBe(JSON.stringify(last.json));
    const first = await call(server, `/v1/orders/${placed.json.id}/codes?limit=1000`);
    expect(first.json.has_more).toBe(true);
    expect(new Set([...codes, ...(first.json.data as CodeRecord[])].map((c) => c.code)).size).toBe(2000);
  });

  test('a bad limit or cursor is a 400', async () => {
    const { server } = servers;
    const placed = await placeOrder(server, 'amazon-us-10', 2);
    await completed(server, placed.json.id);
    const other = await placeOrder(server, 'amazon-us-10', 2);
    await completed(server, other.json.id);
    const page = await call(server, `/v1/orders/${other.json.id}/codes?limit=1`);
    expect((await call(server, `/v1/orders/${placed.json.id}/codes?limit=0`)).json.error.code).toBe('invalid_limit');
    const foreign = await call(server, `/v1/orders/${placed.json.id}/codes?cursor=${page.json.next_cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.json.error.code).toBe('invalid_cursor');
  });
});

describe('with the formula seed', () => {
  const seededServers = inProcessServers({ seeded: { seedFile: FORMULA_SEED, fulfilAfterMs: 30 } }, start);

  test('every code of a product with a codePrefix starts with it', async () => {
    const { seeded } = seededServers;
    const placed = await placeOrder(seeded, 'formula-us-10', 4, { key: FORMULA_KEY });
    expect(placed.status).toBe(201);
    await completed(seeded, placed.json.id, FORMULA_KEY);
    const { codes } = await allCodes(seeded, placed.json.id, FORMULA_KEY);
    expect(codes).toHaveLength(4);
    for (const c of codes) expect(c.code.startsWith('=HYPERLINK("http://evil.invalid")&TEST-')).toBe(true);
  });

  test('a product seeded to fail: the order ends failed and its codes are 409 order_failed', async () => {
    const { seeded } = seededServers;
    const placed = await placeOrder(seeded, 'doomed-us-10', 1, { key: FORMULA_KEY });
    await until(async () =>
      (await call(seeded, `/v1/orders/${placed.json.id}`, { key: FORMULA_KEY })).json.status === 'failed'
        ? true
        : undefined,
    );
    const res = await call(seeded, `/v1/orders/${placed.json.id}/codes`, { key: FORMULA_KEY });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('order_failed');
    const order = (await call(seeded, `/v1/orders/${placed.json.id}`, { key: FORMULA_KEY })).json;
    expect(order.failure_reason).toBe('product_unavailable');
  });

  test('the seed replaces the demo keys', async () => {
    const { seeded } = seededServers;
    expect(seeded.demoKeys).toEqual([
      { resellerId: 'rs_formula', test: FORMULA_KEY, live: 'sc_live_formula_5f4e3d2c1b0a' },
    ]);
    expect((await call(seeded, '/v1/ping', { key: KEYS.test })).status).toBe(401);
  });
});
