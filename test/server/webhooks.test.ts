import { createHmac } from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import { KEYS, placeOrder, start, until } from './helpers.js';
import { recordingReceiver, type Delivery, type Receiver } from '../helpers/webhooks.js';

/** A receiver at /hooks that answers the statuses in `plan` in turn, then 200. */
const receiver = (plan: number[] = []): Promise<Receiver> => recordingReceiver('/hooks', plan);

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
      expect(d?.event).toMatchObject({
        type: 'order.fulfilled',
        data: { order: { id: placed.json.id, status: 'completed', quantity: 2 } },
      });
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
      await until(
        async () => (hook.deliveries.filter((d) => d.answered === 200).length === 2 ? true : undefined),
        5000,
      );
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
      expect(d?.event).toMatchObject({
        type: 'order.failed',
        data: { order: { id: placed.json.id, status: 'failed' } },
      });
    } finally {
      await server.close();
      await hook.close();
    }
  });

  // Each scheme checked here from the service's own description, not with the CLI's receiver.
  test('--webhook-scheme stripe: Stripe-Signature over `<t>.<body>`, the order in data.object', async () => {
    const hook = await receiver();
    const server = await start({
      fulfilAfterMs: 20,
      webhookUrl: hook.url,
      webhookSecret: 'whsec_stripe_like',
      webhookScheme: 'stripe',
    });
    try {
      const placed = await placeOrder(server, 'amazon-us-25', 1);
      const [d] = await until(async () => (hook.deliveries.length > 0 ? hook.deliveries : undefined));
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(d!.headers['stripe-signature']));
      expect(m).not.toBeNull();
      expect(m![2]).toBe(createHmac('sha256', 'whsec_stripe_like').update(`${m![1]}.${d!.raw}`).digest('hex'));
      expect(d!.headers['giftcodes-signature']).toBeUndefined();
      expect(d!.event).toMatchObject({
        object: 'event',
        type: 'order.fulfilled',
        data: { object: { id: placed.json.id, status: 'completed' } },
      });
      expect(d!.event.id).toMatch(/^evt_/);
    } finally {
      await server.close();
      await hook.close();
    }
  });

  test('--webhook-scheme standard: webhook-id/-timestamp/-signature, keyed with the base64 of a whsec_ secret, the order as data', async () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const hook = await receiver([500]);
    const server = await start({
      fulfilAfterMs: 20,
      webhookUrl: hook.url,
      webhookSecret: `whsec_${key.toString('base64')}`,
      webhookScheme: 'standard',
    });
    try {
      const placed = await placeOrder(server, 'amazon-us-25', 1);
      await until(async () => (hook.deliveries.length > 1 ? true : undefined), 5000);
      for (const d of hook.deliveries) {
        const id = String(d.headers['webhook-id']);
        const t = String(d.headers['webhook-timestamp']);
        expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(300);
        expect(d.headers['webhook-signature']).toBe(
          `v1,${createHmac('sha256', key).update(`${id}.${t}.${d.raw}`).digest('base64')}`,
        );
        expect(d.event).toMatchObject({ type: 'order.fulfilled', data: { id: placed.json.id, status: 'completed' } });
        expect(new Date(d.event.timestamp).getTime()).toBeGreaterThan(0);
      }
      // A retry keeps its webhook-id, so a receiver drops the copy.
      expect(hook.deliveries[0]?.headers['webhook-id']).toBe(hook.deliveries[1]?.headers['webhook-id']);
      expect(hook.deliveries[0]?.headers['webhook-id']).toMatch(/^evt_/);
    } finally {
      await server.close();
      await hook.close();
    }
  });

  test('--webhook-scheme github: X-Hub-Signature-256 of the body, X-GitHub-Delivery kept across retries', async () => {
    const hook = await receiver([503]);
    const server = await start({
      fulfilAfterMs: 20,
      webhookUrl: hook.url,
      webhookSecret: 'gh_hook_secret',
      webhookScheme: 'github',
    });
    try {
      const placed = await placeOrder(server, 'amazon-us-25', 1);
      await until(async () => (hook.deliveries.length > 1 ? true : undefined), 5000);
      for (const d of hook.deliveries) {
        expect(d.headers['x-hub-signature-256']).toBe(
          `sha256=${createHmac('sha256', 'gh_hook_secret').update(d.raw).digest('hex')}`,
        );
        expect(d.headers['x-github-event']).toBe('order.fulfilled');
        expect(d.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
        expect(d.event).toMatchObject({ type: 'order.fulfilled', data: { order: { id: placed.json.id } } });
      }
      expect(hook.deliveries[0]?.headers['x-github-delivery']).toBe(hook.deliveries[1]?.headers['x-github-delivery']);
    } finally {
      await server.close();
      await hook.close();
    }
  });

  test('an unknown scheme is refused at start', async () => {
    await expect(start({ webhookScheme: 'svix' as never })).rejects.toThrow(
      /webhook scheme must be one of giftcodes, stripe, standard, github/,
    );
  });

  test('an unreachable receiver does not hold up close()', async () => {
    const server = await start({ fulfilAfterMs: 0, webhookUrl: 'http://127.0.0.1:9/hooks' });
    await placeOrder(server, 'amazon-us-25', 1);
    // The clock stops: a close() that waited for a retry's delay (the next 250 ms to 16 s) would never end. Not a
    // bound on how long close() takes, which a loaded machine would stretch.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    try {
      await server.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
