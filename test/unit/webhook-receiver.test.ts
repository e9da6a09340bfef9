import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { orderFromEvent, startWebhookReceiver, verifySignature, type WebhookEvent } from '../../src/webhooks/receiver.js';

const SECRET = 'whsec_unit';
const sign = (body: string, t: number, secret = SECRET) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

describe('verifySignature', () => {
  const body = '{"id":"evt_1"}';
  const now = 1_700_000_000;

  it('accepts a good signature, any of several v1, within the tolerance', () => {
    expect(verifySignature(sign(body, now), Buffer.from(body), SECRET, 300, now)).toEqual({ ok: true, timestamp: now });
    const good = sign(body, now).split('v1=')[1];
    expect(verifySignature(`t=${now}, v1=${'a'.repeat(64)}, v1=${good}`, Buffer.from(body), SECRET, 300, now + 300).ok).toBe(true);
  });

  it('refuses a missing, malformed, wrong or stale signature', () => {
    const check = (header: string | undefined, at = now) => verifySignature(header, Buffer.from(body), SECRET, 300, at);
    expect(check(undefined)).toEqual({ ok: false, reason: 'missing signature' });
    expect(check(`v1=${'a'.repeat(64)}`).ok).toBe(false);
    expect(check(`t=${now}`).ok).toBe(false);
    expect(check(`t=${now},v1=abc`).ok).toBe(false);
    expect(check(sign(body, now, 'other')).ok).toBe(false);
    expect(check(sign(body, now), now + 301)).toMatchObject({ ok: false });
    expect(check(sign(body, now), now - 301)).toMatchObject({ ok: false });
  });
});

describe('orderFromEvent', () => {
  it('finds the order in data.order, data.object or data', () => {
    const order = { id: 'ord_1', status: 'completed' };
    expect(orderFromEvent({ data: { order } })).toEqual(order);
    expect(orderFromEvent({ data: { object: order } })).toEqual(order);
    expect(orderFromEvent({ data: order })).toEqual(order);
    expect(orderFromEvent({ data: { something: 1 } })).toBeUndefined();
    expect(orderFromEvent({})).toBeUndefined();
  });
});

describe('startWebhookReceiver', () => {
  it('answers 500 when the handler fails, so the retry of the same id is taken', async () => {
    const seen: WebhookEvent[] = [];
    let fail = true;
    const receiver = await startWebhookReceiver({
      port: 0,
      secret: SECRET,
      onEvent: (event) => {
        if (fail) {
          fail = false;
          throw new Error('disk full');
        }
        seen.push(event);
      },
    });
    try {
      const body = JSON.stringify({ id: 'evt_retry', type: 'order.fulfilled', data: { order: { id: 'ord_1' } } });
      const post = () => fetch(`${receiver.url}/x`, { method: 'POST', headers: { 'giftcodes-signature': sign(body, Math.floor(Date.now() / 1000)) }, body }).then((r) => r.status);
      expect(await post()).toBe(500);
      expect(await post()).toBe(200);
      expect(await post()).toBe(200);
      expect(seen.map((e) => e.id)).toEqual(['evt_retry']);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a body over the limit with 413', async () => {
    const receiver = await startWebhookReceiver({ port: 0, secret: SECRET, maxBodyBytes: 100, onEvent: () => undefined });
    try {
      const body = JSON.stringify({ id: 'evt_big', pad: 'x'.repeat(200) });
      const res = await fetch(receiver.url, { method: 'POST', headers: { 'giftcodes-signature': sign(body, Math.floor(Date.now() / 1000)) }, body });
      expect(res.status).toBe(413);
    } finally {
      await receiver.close();
    }
  });

  it('says a busy port is in use (exit 2)', async () => {
    const first = await startWebhookReceiver({ port: 0, secret: SECRET, onEvent: () => undefined });
    try {
      await expect(startWebhookReceiver({ port: first.port, secret: SECRET, onEvent: () => undefined })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('in use') });
    } finally {
      await first.close();
    }
  });
});
