// `serve --dialect`: the wire forms each dialect promises, read raw over HTTP (not through the client, whose
// tolerance these servers exist to test): envelopes, page parameters, the absence of a next link where the
// dialect has none, error bodies and content types, status spellings, 202, and the --short-pages fault.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import type { DialectName } from '../../src/server/dialects.js';
import { KEYS, call, newKey, start } from './helpers.js';

const servers = new Map<DialectName, RunningServer>();
beforeAll(async () => {
  for (const dialect of ['ours', 'jsonapi', 'problem', 'spring', 'pages'] as const) {
    servers.set(dialect, await start({ dialect, maxPage: 5, fulfilAfterMs: 0 }));
  }
  servers.set(
    'pages-short' as DialectName,
    await start({ dialect: 'pages', maxPage: 5, fulfilAfterMs: 0, shortPages: true }),
  );
});
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});
const on = (dialect: string): RunningServer => servers.get(dialect as DialectName)!;

async function completedOrder(dialect: string, quantity: number): Promise<string> {
  const placed = await call(on(dialect), '/v1/orders', {
    body: { product_id: 'amazon-us-10', quantity },
    idem: newKey(),
  });
  expect(placed.status).toBeLessThan(300);
  const json = placed.json as Record<string, Record<string, unknown>>;
  return String(json.id ?? json.order?.id ?? json.data?.id);
}

describe('ours is what openapi.yaml says', () => {
  test('limit and cursor; sizes above --max-page are clamped; the error envelope', async () => {
    const page = await call(on('ours'), '/v1/catalog?limit=1000');
    expect(Object.keys(page.json)).toEqual(['object', 'data', 'has_more', 'next_cursor']);
    expect(page.json.data).toHaveLength(5);
    const bad = await call(on('ours'), '/v1/catalog?limit=0');
    expect(bad.json).toEqual({ error: { code: 'invalid_limit', message: expect.any(String) } });
    expect((await call(on('ours'), '/v1/ping')).json).toEqual({
      status: 'ok',
      environment: 'test',
      resellerId: 'rs_demo',
    });
  });
});

describe('jsonapi', () => {
  test('resources, page[number]/page[size], links.next until the last page, meta.total', async () => {
    const first = await call(on('jsonapi'), '/v1/catalog?page[size]=1000');
    expect(first.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(first.json.data).toHaveLength(5);
    expect(first.json.data[0]).toEqual({
      type: 'products',
      id: 'amazon-us-10',
      attributes: expect.objectContaining({ name: 'Amazon.com Gift Card $10' }),
    });
    expect(first.json.meta).toEqual({ total: 12 });
    expect(first.json.links.next).toBe('/v1/catalog?page%5Bnumber%5D=2&page%5Bsize%5D=5');
    const last = await call(on('jsonapi'), '/v1/catalog?page[number]=3&page[size]=5');
    expect(last.json.data).toHaveLength(2);
    expect(last.json.links.next).toBeUndefined();
  });

  test('errors as {"errors":[{status,code,title,detail}]}; orders and ping as resources', async () => {
    const missing = await call(on('jsonapi'), '/v1/orders/ord_nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      errors: [{ status: '404', code: 'order_not_found', title: 'Not Found', detail: expect.any(String) }],
    });
    const ping = await call(on('jsonapi'), '/v1/ping');
    expect(ping.json).toEqual({
      data: {
        type: 'ping',
        id: 'rs_demo',
        attributes: { status: 'ok', environment: 'sandbox', resellerId: 'rs_demo' },
      },
    });
    const placed = await call(on('jsonapi'), '/v1/orders', {
      body: { product_id: 'amazon-us-10', quantity: 1 },
      idem: newKey(),
    });
    expect(placed.status).toBe(201);
    expect(placed.json.data).toMatchObject({ type: 'orders', attributes: { quantity: 1 } });
  });
});

describe('problem', () => {
  test('offsets with total; RFC 9457 errors whose code is only in the type; 202; orders under `order`', async () => {
    const page = await call(on('problem'), '/v1/catalog?limit=1000&offset=10');
    expect(page.json).toEqual({ results: expect.any(Array), offset: 10, limit: 5, total: 12 });
    expect(page.json.results).toHaveLength(2);
    const bad = await call(on('problem'), '/v1/ping', { key: null });
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(bad.json).toEqual({
      type: 'https://giftcodes.example/problems/invalid-api-key',
      title: 'Unauthorized',
      status: 401,
      detail: expect.any(String),
    });
    const placed = await call(on('problem'), '/v1/orders', {
      body: { product_id: 'amazon-us-10', quantity: 1 },
      idem: newKey(),
    });
    expect(placed.status).toBe(202);
    expect(placed.json.order).toMatchObject({ status: 'complete', quantity: 1 });
  });
});

describe('spring', () => {
  test('page (from 0) and size; {content,totalPages,totalElements,number,size,last}; upper-case statuses; {type,message,help}', async () => {
    const page = await call(on('spring'), '/v1/catalog?size=1000&page=2');
    expect(page.json).toMatchObject({
      totalPages: 3,
      totalElements: 12,
      number: 2,
      size: 5,
      last: true,
      numberOfElements: 2,
    });
    expect(page.json.content).toHaveLength(2);
    const id = await completedOrder('spring', 1);
    expect((await call(on('spring'), `/v1/orders/${id}`)).json.status).toBe('COMPLETED');
    const refused = await call(on('spring'), '/v1/orders', {
      body: { product_id: 'nope', quantity: 1 },
      idem: newKey(),
    });
    expect(refused.json).toEqual({ type: 'unknown_product', message: expect.any(String), help: expect.any(String) });
  });
});

describe('pages', () => {
  test('page/per_page with total_pages and NO next link; items (catalog) and results (codes); COMPLETE; {meta,data}; {"error":"CODE"}', async () => {
    const page = await call(on('pages'), '/v1/catalog?per_page=1000');
    expect(page.json).toEqual({ items: expect.any(Array), page: 1, per_page: 5, total_pages: 3, total_count: 12 });
    expect(page.text).not.toMatch(/next/i);
    expect(page.headers.get('link')).toBeNull();
    const id = await completedOrder('pages', 7);
    const order = await call(on('pages'), `/v1/orders/${id}`);
    expect(order.json).toMatchObject({ meta: expect.any(Object), data: { id, status: 'COMPLETE', quantity: 7 } });
    const codes = await call(on('pages'), `/v1/orders/${id}/codes?per_page=5&page=2`);
    expect(codes.json).toMatchObject({ page: 2, per_page: 5, total_pages: 2, total_count: 7 });
    expect(codes.json.results).toHaveLength(2);
    const missing = await call(on('pages'), '/v1/orders/ord_nope');
    expect(missing.json).toEqual({ error: 'ORDER_NOT_FOUND', message: expect.any(String) });
    expect((await call(on('pages'), '/v1/catalog?page=0')).status).toBe(400);
  });

  test('--short-pages: the last page lacks an item, the total is still stated', async () => {
    const last = await call(on('pages-short'), '/v1/catalog?per_page=5&page=3');
    expect(last.json).toMatchObject({ total_count: 12, total_pages: 3 });
    expect(last.json.items).toHaveLength(1);
    expect((await call(on('pages-short'), '/v1/catalog?per_page=5&page=2')).json.items).toHaveLength(5);
  });
});

test('a replay answers in the dialect too, byte for byte', async () => {
  const idem = newKey();
  const body = { product_id: 'amazon-us-10', quantity: 2 };
  const first = await call(on('pages'), '/v1/orders', { body, idem, key: KEYS.test });
  const again = await call(on('pages'), '/v1/orders', { body, idem, key: KEYS.test });
  expect(again.status).toBe(202);
  expect(again.text).toBe(first.text);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  const reused = await call(on('pages'), '/v1/orders', { body: { ...body, quantity: 3 }, idem });
  expect(reused.status).toBe(422);
  expect(reused.json).toEqual({ error: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String) });
});
