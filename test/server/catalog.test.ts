import { describe, expect, test } from 'vitest';
import { KEYS, call, placeOrder, readPages, start } from './helpers.js';
import { inProcessServers } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {} }, start);

async function readAll(limit?: number): Promise<{ ids: string[]; pages: number }> {
  const { items, pages } = await readPages<{ id: string }>(
    servers.server,
    '/v1/catalog',
    limit === undefined ? {} : { limit },
  );
  return { ids: items.map((p) => p.id), pages };
}

describe('GET /v1/catalog', () => {
  test('the default page holds 10 products and says there is more', async () => {
    const { server } = servers;
    const res = await call(server, '/v1/catalog');
    expect(res.json.data).toHaveLength(10);
    expect(res.json.has_more).toBe(true);
    expect(typeof res.json.next_cursor).toBe('string');
    expect(res.json.data[0]).toEqual({
      id: 'amazon-us-10',
      object: 'product',
      name: 'Amazon.com Gift Card $10',
      brand: 'Amazon',
      price: { amount: 1000, currency: 'USD' },
      available: true,
    });
  });

  test('following next_cursor reads every product once, at any page size', async () => {
    const whole = await readAll();
    expect(whole.pages).toBe(2);
    expect(whole.ids).toHaveLength(12);
    expect(new Set(whole.ids).size).toBe(12);
    for (const limit of [1, 5, 12, 1000]) {
      const r = await readAll(limit);
      expect(r.ids).toEqual(whole.ids);
      expect(r.pages).toBe(Math.ceil(12 / limit));
    }
  });

  test.each(['1001', '99999999999'])('limit=%j above the largest page is clamped to it (1000)', async (limit) => {
    const { server } = servers;
    const res = await call(server, `/v1/catalog?limit=${limit}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(12);
  });

  test.each(['0', '-1', '1.5', 'ten', '', '1e3', '99999999999999999'])(
    'limit=%j is 400 invalid_limit',
    async (limit) => {
      const { server } = servers;
      const res = await call(server, `/v1/catalog?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('invalid_limit');
    },
  );

  test.each([
    ['garbage', '!!!'],
    ['base64 of something else', Buffer.from('hello').toString('base64url')],
    ['past the end', Buffer.from('catalog:13').toString('base64url')],
    ['from another list', Buffer.from('codes.ord_x:0').toString('base64url')],
  ])('cursor %s is 400 invalid_cursor', async (_what, cursor) => {
    const res = await call(servers.server, `/v1/catalog?cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_cursor');
  });

  test('a live product runs out: available turns false in live, stays true in test', async () => {
    const { server } = servers;
    const netflix = async (key: string) => {
      const res = await call(server, '/v1/catalog?limit=1000', { key });
      return res.json.data.find((p: { id: string }) => p.id === 'netflix-us-30').available as boolean;
    };
    expect(await netflix(KEYS.live)).toBe(true);
    const order = await placeOrder(server, 'netflix-us-30', 5, { key: KEYS.live });
    expect(order.status).toBe(201);
    expect(await netflix(KEYS.live)).toBe(false);
    expect(await netflix(KEYS.test)).toBe(true);
    expect(await netflix(KEYS.smallLive)).toBe(true);
  });
});
