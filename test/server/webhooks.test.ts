import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { KEYS, placeOrder, start, until } from './helpers.js';

interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  event: any;
  answered: number;
}

/** A receiver that answers the statuses in `plan` in turn, then 200. */
async function receiver(plan: number[] = []) {
  const deliveries: Delivery[] = [];
  const srv = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const answered = plan.shift() ?? 200;
      deliveries.push({ headers: req.headers, raw, event: JSON.parse(raw), answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hooks`;
  return { url, deliveries, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

function verify(d: Delivery, secret: string): boolean {
  const header = String(d.headers['giftcodes-signature']);
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (m === null) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${d.raw}`).digest('hex');
  return expected === m[2] && Math.abs(Number(m[1]) - Date.now() / 1000) < 300;
}

describe('webhooks', () => {
  test('order.fulfilled is POSTed once the order completes, signed with the secret', async () => {
    const hook = await receiver();
    const server = await start({ fulfilAfterMs: 50, webhookUrl: hook.url, webhookSecret: 'whsec_test_secret' });
    try {
      const placed = await placeOrder(server, 'amazon-us-25', 2, { key: KEYS.live });
      const [d] = await until(async () => (hook.deliveries.length > 0 ? hook.deliveries : undefined));
      expect(d?.headers['content-type']).toBe('application/json');
      expect(verify(d!, 'whsec_test_secret')).toBe(true);
      expect(verify(d!, 'whsec_demo')).toBe(false);
      expect(d?.event).toMatchObject({ type: 'order.fulfilled', data: { order: { id: placed.json.id, status: 'completed', quantity: 2 } } });
      expect(d?.event.id).toMatch(/^evt_[0-9a-f]{24}$/);
      expect(Math.abs(d!.event.created - Date.now() / 1000)).toBeLessThan(5);
    } finally {
      await server.close();
      await hook.close();
    }
  });

  test('a receiver that fails gets the same event again, and each order has its own event id', async () => {
    const hook = await receiver([500, 503]);
    const server = await start({ fulfilAfterMs: 20, webhookUrl: hook.url });
    try {
      const a = await placeOrder(server, 'amazon-us-25', 1);
      const b = await placeOrder(server, 'amazon-us-25', 1);
      // a: 500 then 200 on the first retry; b: 503 then 200; each retry at least 250 ms later.
      await until(async () => (hook.deliveries.filter((d) => d.answered === 200).length === 2 ? true : undefined), 5000);
      const forA = hook.deliveries.filter((d) => d.event.data.order.id === a.json.id);
      const forB = hook.deliveries.filter((d) => d.event.data.order.id === b.json.id);
      expect(forA.map((d) => d.answered)).toEqual([500, 200]);
      expect(forB.map((d) => d.answered)).toEqual([503, 200]);
      expect(new Set(forA.map((d) => d.event.id)).size).toBe(1);
      expect(forA[0]?.raw).toBe(forA[1]?.raw);
      expect(forA[0]?.event.id).not.toBe(forB[0]?.event.id);
      for (const d of hook.deliveries) expect(verify(d, 'whsec_demo')).toBe(true);
    } finally {
      await server.close();
      await hook.close();
    }
  });

  test('a failed order sends order.failed', async () => {
    const hook = await receiver();
    const server = await start({ fulfilAfterMs: 20, failOrders: 1, webhookUrl: hook.url });
    try {
      const placed = await placeOrder(server, 'amazon-us-25', 1);
      const [d] = await until(async () => (hook.deliveries.length > 0 ? hook.deliveries : undefined));
      expect(d?.event).toMatchObject({ type: 'order.failed', data: { order: { id: placed.json.id, status: 'failed' } } });
    } finally {
      await server.close();
      await hook.close();
    }
  });

  test('an unreachable receiver does not hold up close()', async () => {
    const server = await start({ fulfilAfterMs: 0, webhookUrl: 'http://127.0.0.1:9/hooks' });
    await placeOrder(server, 'amazon-us-25', 1);
    const t0 = Date.now();
    await server.close();
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
