import { describe, expect, test } from 'vitest';
import { RateLimiter } from '../../src/server/faults.js';
import { KEYS, call, ledger, placeOrder, start } from './helpers.js';

describe('fault flags', () => {
  test('latency delays every answer', async () => {
    const server = await start({ latencyMs: 150 });
    try {
      const t0 = performance.now();
      const res = await call(server, '/v1/ping');
      expect(res.status).toBe(200);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    } finally {
      await server.close();
    }
  });

  test('failRate=1: every API request is 503 and nothing is committed; admin routes are exempt', async () => {
    const server = await start({ failRate: 1 });
    try {
      for (const path of ['/v1/ping', '/v1/catalog', '/nope']) {
        const res = await call(server, path);
        expect(res.status).toBe(503);
        expect(res.json.error.code).toBe('service_unavailable');
      }
      const order = await placeOrder(server, 'amazon-us-25', 1, { key: KEYS.live, idem: 'fault-503' });
      expect(order.status).toBe(503);
      const book = await ledger(server);
      expect(book.orders).toEqual([]);
      expect(book.wallets.rs_demo?.USD).toBe(500_000);
    } finally {
      await server.close();
    }
  });

  test('failRate=0.5 fails some and lets some through; a retried 503 key is not bound', async () => {
    const server = await start({ failRate: 0.5 });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 60; i++) statuses.add((await call(server, '/v1/ping')).status);
      expect([...statuses].sort()).toEqual([200, 503]);
      let res;
      do res = await placeOrder(server, 'amazon-us-25', 1, { idem: 'retry-until-through' });
      while (res.status === 503);
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      await server.close();
    }
  });

  test('rateLimit: the excess is 429 with an integer Retry-After of at least 1', async () => {
    const server = await start({ rateLimit: 5 });
    try {
      const t0 = performance.now();
      const answers = await Promise.all(Array.from({ length: 20 }, () => call(server, '/v1/ping')));
      const seconds = (performance.now() - t0) / 1000;
      const ok = answers.filter((a) => a.status === 200);
      const limited = answers.filter((a) => a.status === 429);
      // A burst of 5, then 5 a second for as long as the burst took to arrive.
      expect(ok.length).toBeGreaterThanOrEqual(5);
      expect(ok.length).toBeLessThanOrEqual(5 + Math.ceil(seconds * 5));
      expect(limited.length).toBe(20 - ok.length);
      expect(limited.length).toBeGreaterThan(0);
      for (const a of limited) {
        expect(a.json.error.code).toBe('rate_limited');
        expect(a.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      }
    } finally {
      await server.close();
    }
  });

  test('RateLimiter refills over time', () => {
    const t = 1_000_000;
    const limiter = new RateLimiter(2, t);
    expect(limiter.take(t)).toBe(0);
    expect(limiter.take(t)).toBe(0);
    expect(limiter.take(t)).toBe(1);
    expect(limiter.take(t + 500)).toBe(0);
    expect(limiter.take(t + 500)).toBe(1);
    const slow = new RateLimiter(0.25, t);
    expect(slow.take(t)).toBe(0);
    expect(slow.take(t)).toBe(4);
  });
});
