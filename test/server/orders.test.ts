import { describe, expect, test } from 'vitest';
import { KEYS, call, ledger, newKey, placeOrder, sleep, start, until } from './helpers.js';
import { inProcessServers } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {} }, start);

describe('POST /v1/orders validation', () => {
  test.each([
    ['quantity 0', { product_id: 'amazon-us-25', quantity: 0 }, 'invalid_quantity'],
    ['quantity 1000001', { product_id: 'amazon-us-25', quantity: 1_000_001 }, 'invalid_quantity'],
    ['fractional quantity', { product_id: 'amazon-us-25', quantity: 1.5 }, 'invalid_quantity'],
    ['quantity as a string', { product_id: 'amazon-us-25', quantity: '5' }, 'invalid_quantity'],
    ['negative quantity', { product_id: 'amazon-us-25', quantity: -3 }, 'invalid_quantity'],
    ['unknown product', { product_id: 'nope-99', quantity: 1 }, 'unknown_product'],
    ['no product_id', { quantity: 1 }, 'invalid_request'],
    ['no quantity', { product_id: 'amazon-us-25' }, 'invalid_request'],
    ['product_id not a string', { product_id: 7, quantity: 1 }, 'invalid_request'],
    ['an unknown field', { product_id: 'amazon-us-25', quantity: 1, note: 'x' }, 'invalid_request'],
    ['an array body', [1, 2], 'invalid_request'],
    ['a JSON string body', '"hello"', 'invalid_request'],
    ['null body', 'null', 'invalid_request'],
    ['malformed JSON', '{"product_id": ', 'invalid_json'],
    ['an empty body', '', 'invalid_json'],
  ])('%s: 400 %s, nothing charged', async (_what, body, code) => {
    const before = (await ledger(servers.server)).orders.length;
    const res = await call(servers.server, '/v1/orders', { key: KEYS.live, idem: newKey(), body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(code);
    expect((await ledger(servers.server)).orders.length).toBe(before);
  });

  test('the largest quantity is accepted', async () => {
    const { server } = servers;
    const res = await placeOrder(server, 'amazon-us-10', 1_000_000);
    expect(res.status).toBe(201);
    expect(res.json.quantity).toBe(1_000_000);
  });
});

describe('charges', () => {
  test('a live order debits the wallet and the supply exactly once', async () => {
    const { server } = servers;
    const before = await ledger(server);
    const res = await placeOrder(server, 'zalando-de-25', 4, { key: KEYS.live });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      object: 'order',
      status: 'pending',
      product_id: 'zalando-de-25',
      quantity: 4,
      environment: 'live',
      amount: { amount: 10_000, currency: 'EUR' },
      completed_at: null,
      failure_reason: null,
    });
    expect(res.json.id).toMatch(/^ord_[0-9a-f]{24}$/);
    const after = await ledger(server);
    expect(after.wallets.rs_demo?.EUR).toBe((before.wallets.rs_demo?.EUR ?? 0) - 10_000);
    expect(after.supply.rs_demo?.['zalando-de-25']).toBe((before.supply.rs_demo?.['zalando-de-25'] ?? 0) - 4);
    expect(after.orders.at(-1)).toMatchObject({
      order_id: res.json.id,
      reseller_id: 'rs_demo',
      environment: 'live',
      product_id: 'zalando-de-25',
      quantity: 4,
      amount: { amount: 10_000, currency: 'EUR' },
    });
  });

  test('a test order is in the ledger but never debits', async () => {
    const { server } = servers;
    const before = await ledger(server);
    const res = await placeOrder(server, 'tesco-uk-20', 3, { key: KEYS.test });
    expect(res.json.environment).toBe('test');
    const after = await ledger(server);
    expect(after.wallets).toEqual(before.wallets);
    expect(after.supply).toEqual(before.supply);
    expect(after.orders.at(-1)).toMatchObject({ order_id: res.json.id, environment: 'test' });
  });

  test('insufficient funds: 422, nothing debited; the same order in test goes through', async () => {
    const { server } = servers;
    const before = await ledger(server);
    const res = await placeOrder(server, 'amazon-us-25', 3, { key: KEYS.smallLive });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('insufficient_funds');
    // Money as a person reads it, not `7500 USD (minor units)`.
    expect(res.json.error.message).toMatch(/^the order costs 75\.00 USD and the wallet holds \d+\.\d\d USD$/);
    const after = await ledger(server);
    expect(after.wallets.rs_small).toEqual(before.wallets.rs_small);
    expect(after.orders.length).toBe(before.orders.length);
    expect((await placeOrder(server, 'amazon-us-25', 3, { key: KEYS.smallTest })).status).toBe(201);
  });

  test('insufficient funds: a large order states its cost and the wallet with their thousands grouped', async () => {
    // 60000.00 and 6000.00 differ by one digit: a person reads this sentence (the CLI prints it as the error).
    const res = await placeOrder(servers.server, 'amazon-us-100', 600, { key: KEYS.live });
    expect(res.json.error.code).toBe('insufficient_funds');
    expect(res.json.error.message).toMatch(
      /^the order costs 60,000\.00 USD and the wallet holds \d{1,3}(,\d{3})*\.\d\d USD$/,
    );
  });

  test('insufficient supply: 422 insufficient_supply', async () => {
    const { server } = servers;
    const res = await placeOrder(server, 'netflix-us-30', 6, { key: KEYS.live });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('insufficient_supply');
  });
});

describe('GET /v1/orders/{id}', () => {
  test('only the owning reseller and environment can read an order', async () => {
    const { server } = servers;
    const placed = await placeOrder(server, 'steam-us-20', 1, { key: KEYS.test });
    const own = await call(server, `/v1/orders/${placed.json.id}`, { key: KEYS.test });
    expect(own.status).toBe(200);
    expect(own.json.id).toBe(placed.json.id);
    for (const key of [KEYS.live, KEYS.smallTest]) {
      const other = await call(server, `/v1/orders/${placed.json.id}`, { key });
      expect(other.status).toBe(404);
      expect(other.json.error.code).toBe('order_not_found');
    }
    const none = await call(server, '/v1/orders/ord_doesnotexist');
    expect(none.status).toBe(404);
    expect(none.json.error.code).toBe('order_not_found');
  });
});

describe('fulfilment', () => {
  test('pending -> processing -> completed over fulfilAfter', async () => {
    const fulfil = 1000;
    const s = await start({ fulfilAfterMs: fulfil });
    try {
      const placed = await placeOrder(s, 'amazon-us-25', 1);
      expect(placed.json.status).toBe('pending');
      const created = Date.parse(placed.json.created_at);
      // Read at a quarter, three quarters and past the end; each status is checked against the time
      // window the read happened in, so a slow machine cannot make this flaky.
      const expected = (elapsed: number) =>
        elapsed >= fulfil ? 'completed' : elapsed >= fulfil / 2 ? 'processing' : 'pending';
      const seen: string[] = [];
      for (const at of [0.25, 0.75, 1.1]) {
        const wait = created + at * fulfil - Date.now();
        if (wait > 0) await sleep(wait);
        const t0 = Date.now() - created;
        const order = (await call(s, `/v1/orders/${placed.json.id}`)).json;
        const t1 = Date.now() - created;
        if (expected(t0) === expected(t1)) expect(order.status).toBe(expected(t0));
        else expect([expected(t0), expected(t1)]).toContain(order.status);
        seen.push(order.status);
        if (order.status === 'completed') {
          expect(Date.parse(order.completed_at) - created).toBe(fulfil);
          expect(order.updated_at).toBe(order.completed_at);
        }
        if (order.status === 'processing') expect(Date.parse(order.updated_at) - created).toBe(fulfil / 2);
      }
      expect(seen.at(-1)).toBe('completed');
      expect(seen.length).toBe(3);
    } finally {
      await s.close();
    }
  });

  test('failOrders=1: every order ends failed, and a live one is refunded', async () => {
    const s = await start({ fulfilAfterMs: 800, failOrders: 1 });
    try {
      const placed = await placeOrder(s, 'amazon-us-50', 2, { key: KEYS.live });
      expect((await ledger(s)).wallets.rs_demo?.USD).toBe(500_000 - 10_000);
      const order = await until(async () => {
        const o = (await call(s, `/v1/orders/${placed.json.id}`, { key: KEYS.live })).json;
        return o.status === 'failed' ? o : undefined;
      });
      expect(order.failure_reason).toBe('fulfilment_failed');
      expect(order.completed_at).toBeNull();
      const book = await ledger(s);
      expect(book.wallets.rs_demo?.USD).toBe(500_000);
      expect(book.supply.rs_demo?.['amazon-us-50']).toBe(1_000_000);
      expect(book.orders[0]).toMatchObject({ order_id: placed.json.id, refunded: true });
    } finally {
      await s.close();
    }
  });

  test('fulfilAfter=0: the order is completed as placed', async () => {
    const s = await start({ fulfilAfterMs: 0 });
    try {
      const placed = await placeOrder(s, 'amazon-us-25', 1);
      expect(placed.json.status).toBe('completed');
    } finally {
      await s.close();
    }
  });
});
