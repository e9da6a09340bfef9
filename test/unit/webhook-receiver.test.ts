// Every signature scheme the receiver verifies, signed here with node:crypto from each service's own
// description (not with the code under test): good, bad, wrong secret, stale and future timestamps,
// missing headers, several signatures of which one is good, whsec_ base64 keys, and duplicates over HTTP.
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { orderFromEvent, startWebhookReceiver, type Delivery, type WebhookEvent } from '../../src/webhooks/receiver.js';
import {
  detectScheme,
  standardKey,
  verifyDelivery,
  verifyTimestamped,
  type Headers,
  type Scheme,
} from '../../src/webhooks/signatures.js';

const SECRET = 'whsec_unit';
const NOW = 1_700_000_000;
const BODY = '{"id":"evt_1","type":"order.fulfilled","data":{"order":{"id":"ord_1","status":"completed"}}}';
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text);
const sign = (body: string, t: number, secret = SECRET) => `t=${t},v1=${hmac(secret, `${t}.${body}`).digest('hex')}`;

/** Svix-style secret: whsec_ + base64 of 24 random bytes. */
const KEY_BYTES = randomBytes(24);
const STANDARD_SECRET = `whsec_${KEY_BYTES.toString('base64')}`;
const standardSig = (id: string, t: number, body: string, key: string | Buffer = KEY_BYTES) =>
  `v1,${hmac(key, `${id}.${t}.${body}`).digest('base64')}`;
const githubSig = (body: string, secret = SECRET) => `sha256=${hmac(secret, body).digest('hex')}`;

/** Headers a service would send for BODY at time t, signed with `secret`. */
function headersFor(scheme: Scheme, t: number, secret?: string): Headers {
  switch (scheme) {
    case 'giftcodes':
      return { 'giftcodes-signature': sign(BODY, t, secret) };
    case 'stripe':
      return { 'stripe-signature': sign(BODY, t, secret) };
    case 'standard':
      return {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(t),
        'webhook-signature': standardSig('msg_1', t, BODY, secret === undefined ? KEY_BYTES : standardKey(secret)),
      };
    case 'github':
      return {
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'x-github-event': 'order.fulfilled',
        'x-hub-signature-256': githubSig(BODY, secret),
      };
  }
}

const secretOf = (scheme: Scheme) => (scheme === 'standard' ? STANDARD_SECRET : SECRET);
const verify = (
  headers: Headers,
  o: { scheme?: Scheme; secret?: string; at?: number; body?: string; signatureHeader?: string } = {},
) =>
  verifyDelivery(headers, Buffer.from(o.body ?? BODY), {
    secret: o.secret ?? SECRET,
    scheme: o.scheme,
    signatureHeader: o.signatureHeader,
    toleranceS: 300,
    nowS: o.at ?? NOW,
  });

describe.each(['giftcodes', 'stripe', 'standard', 'github'] as const)('the %s scheme', (scheme) => {
  const secret = secretOf(scheme);

  it('accepts a good signature, detected from the headers and when chosen', () => {
    expect(detectScheme(headersFor(scheme, NOW))).toBe(scheme);
    expect(verify(headersFor(scheme, NOW), { secret })).toMatchObject({ ok: true, scheme });
    expect(verify(headersFor(scheme, NOW), { secret, scheme })).toMatchObject({ ok: true, scheme });
  });

  it('refuses another body, another secret, and a missing header', () => {
    expect(verify(headersFor(scheme, NOW), { secret, body: `${BODY} ` })).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect(verify(headersFor(scheme, NOW, 'whsec_other'), { secret })).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect(verify({}, { secret })).toEqual({ ok: false, reason: 'missing signature' });
    expect(verify({}, { secret, scheme })).toEqual({ ok: false, reason: 'missing signature' });
  });

  it('a delivery signed with another scheme than the one chosen names the scheme it carries', () => {
    const other = scheme === 'stripe' ? 'github' : 'stripe';
    const refused = verify(headersFor(other, NOW, secretOf(other)), { secret, scheme });
    expect(refused).toMatchObject({ ok: false });
    expect((refused as { reason: string }).reason).toMatch(
      new RegExp(
        `this delivery is signed with the ${other} scheme, not ${scheme} \\(choose ${other}, or leave the scheme out to detect it\\)$`,
      ),
    );
  });

  it('refuses the headers of another scheme when this one is chosen', () => {
    const other: Scheme = scheme === 'github' ? 'stripe' : 'github';
    expect(verify(headersFor(other, NOW, secret), { secret, scheme })).toMatchObject({ ok: false });
  });

  if (scheme === 'github') {
    it('has no timestamp: the same signature stays good, and the delivery id is the event id', () => {
      expect(verify(headersFor(scheme, NOW), { secret, at: NOW + 86_400 })).toMatchObject({
        ok: true,
        deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      });
      expect(verify({ 'x-hub-signature-256': `sha1=${hmac(SECRET, BODY).digest('hex')}` })).toMatchObject({
        ok: false,
      });
      expect(verify({ 'x-hub-signature-256': `sha256=${'0'.repeat(63)}` })).toMatchObject({ ok: false });
    });
  } else {
    it('refuses a timestamp more than 300 s old or ahead, good signature or not; accepts 300 s exactly', () => {
      // As a time and a distance from this clock, not a bare unix number (a person's day).
      expect(verify(headersFor(scheme, NOW - 301), { secret })).toEqual({
        ok: false,
        reason:
          'signed at 2023-11-14T22:08:19.000Z, 301 s before this clock: more than the 300 s allowed (a replay, or a clock that is off)',
      });
      expect(verify(headersFor(scheme, NOW + 301), { secret })).toMatchObject({
        ok: false,
        reason: expect.stringContaining('301 s ahead of this clock'),
      });
      // The receiver's clock has milliseconds: the distance is said in whole seconds, never "300.468 s" (a person's-day
      // review read "1000.4679999351501 s"), and rounded up, so that one just over the tolerance never reads as it.
      expect(verify(headersFor(scheme, NOW - 300), { secret, at: NOW + 0.468 })).toMatchObject({
        ok: false,
        reason: expect.stringContaining(', 301 s before this clock: more than the 300 s allowed'),
      });
      expect(verify(headersFor(scheme, NOW - 300), { secret })).toMatchObject({ ok: true, timestamp: NOW - 300 });
      expect(verify(headersFor(scheme, NOW + 300), { secret })).toMatchObject({ ok: true });
    });
  }
});

describe('several signatures in one header (secret rotation)', () => {
  it('ours and Stripe: any v1 of several, in any place, malformed ones ignored', () => {
    const good = sign(BODY, NOW).split('v1=')[1];
    for (const name of ['giftcodes-signature', 'stripe-signature']) {
      expect(verify({ [name]: `t=${NOW}, v1=${'a'.repeat(64)}, v1=${good}` })).toMatchObject({ ok: true });
      expect(verify({ [name]: `t=${NOW},v1=${good},v1=zz,v0=${'b'.repeat(64)}` })).toMatchObject({ ok: true });
      expect(verify({ [name]: `t=${NOW},v1=${'a'.repeat(64)},v1=abc` })).toEqual({
        ok: false,
        reason: 'bad signature',
      });
      expect(verify({ [name]: `t=${NOW},v0=${good}` })).toEqual({ ok: false, reason: 'signature without v1' });
      expect(verify({ [name]: `v1=${good}` })).toEqual({ ok: false, reason: 'signature without a timestamp' });
    }
  });

  it('Standard Webhooks: a space-separated list, other versions ignored, also as a repeated header', () => {
    const good = standardSig('msg_1', NOW, BODY);
    const wrong = standardSig('msg_1', NOW, BODY, randomBytes(24));
    const base = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(NOW) };
    const check = (signature: string | string[]) =>
      verify({ ...base, 'webhook-signature': signature }, { secret: STANDARD_SECRET });
    expect(check(`${wrong} v1a,${'A'.repeat(86)} ${good}`)).toMatchObject({ ok: true, deliveryId: 'msg_1' });
    expect(check([wrong, good])).toMatchObject({ ok: true });
    expect(check(`${wrong} v2,${good.slice(3)}`)).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect(check(`v1a,${good.slice(3)}`)).toEqual({ ok: false, reason: 'signature without v1' });
    // The id and the timestamp are signed too.
    expect(verify({ ...base, 'webhook-id': 'msg_2', 'webhook-signature': good }, { secret: STANDARD_SECRET })).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect(
      verify({ 'webhook-timestamp': String(NOW), 'webhook-signature': good }, { secret: STANDARD_SECRET }),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('webhook-id') });
    expect(verify({ 'webhook-id': 'msg_1', 'webhook-signature': good }, { secret: STANDARD_SECRET })).toEqual({
      ok: false,
      reason: 'signature without a timestamp',
    });
  });

  it("Svix's own header names are read as Standard Webhooks", () => {
    const headers = {
      'svix-id': 'msg_1',
      'svix-timestamp': String(NOW),
      'svix-signature': standardSig('msg_1', NOW, BODY),
    };
    expect(verify(headers, { secret: STANDARD_SECRET })).toMatchObject({
      ok: true,
      scheme: 'standard',
      deliveryId: 'msg_1',
    });
  });
});

describe('Standard Webhooks keys', () => {
  it('a whsec_ secret is the base64 of the key bytes, not the text itself', () => {
    expect(standardKey(STANDARD_SECRET).equals(KEY_BYTES)).toBe(true);
    const signedWithText = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(NOW),
      'webhook-signature': standardSig('msg_1', NOW, BODY, STANDARD_SECRET),
    };
    expect(verify(signedWithText, { secret: STANDARD_SECRET })).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect(standardKey(KEY_BYTES.toString('base64')).equals(KEY_BYTES)).toBe(true);
  });

  it('a secret that is not base64 signs as it stands', () => {
    expect(standardKey('whsec_e2e_4b9c2d7e1f').toString()).toBe('whsec_e2e_4b9c2d7e1f');
    expect(standardKey('whsec_').toString()).toBe('whsec_');
  });
});

describe('detection', () => {
  it('ours first, then Standard Webhooks, Stripe, GitHub; --signature-header renames ours', () => {
    expect(detectScheme({ 'giftcodes-signature': 'x', 'stripe-signature': 'y' })).toBe('giftcodes');
    expect(detectScheme({ 'webhook-signature': 'x', 'x-hub-signature-256': 'y' })).toBe('standard');
    expect(detectScheme({ 'x-sig': 'x' }, 'x-sig')).toBe('giftcodes');
    expect(detectScheme({ 'giftcodes-signature': 'x' }, 'x-sig')).toBeUndefined();
    expect(detectScheme({ 'x-hub-signature': 'sha1=…' })).toBeUndefined();
    expect(verify({ 'X-Sig': sign(BODY, NOW) }, { signatureHeader: 'X-Sig' })).toMatchObject({ ok: false });
    expect(verify({ 'x-sig': sign(BODY, NOW) }, { signatureHeader: 'X-Sig' })).toMatchObject({
      ok: true,
      signed: { 'x-sig': sign(BODY, NOW) },
    });
  });

  // Issue 23: naming the header a service documents refused every Standard Webhooks and GitHub delivery
  // ("signature without a timestamp"): the named header's form and its companions decide the scheme.
  it.each([
    ['standard', 'webhook-signature'],
    ['standard', 'Webhook-Signature'],
    ['github', 'X-Hub-Signature-256'],
    ['stripe', 'Stripe-Signature'],
  ] as const)(
    '--signature-header naming the %s header (%s) reads the scheme from its form and companions',
    (scheme, name) => {
      const secret = secretOf(scheme);
      const good = headersFor(scheme, NOW);
      expect(detectScheme(good, name.toLowerCase())).toBe(scheme);
      expect(verify(good, { secret, signatureHeader: name })).toMatchObject({ ok: true, scheme });
      expect(verify(good, { secret, signatureHeader: name, scheme })).toMatchObject({ ok: true, scheme });
      expect(verify(headersFor(scheme, NOW, 'whsec_other'), { secret, signatureHeader: name })).toEqual({
        ok: false,
        reason: 'bad signature',
      });
      expect(verify(good, { secret, signatureHeader: name, body: `${BODY} ` })).toEqual({
        ok: false,
        reason: 'bad signature',
      });
    },
  );

  it('a header of any name holding a Standard Webhooks or GitHub signature is verified as one, with its companions', () => {
    const standard = headersFor('standard', NOW);
    const renamed = {
      'webhook-id': standard['webhook-id'],
      'webhook-timestamp': standard['webhook-timestamp'],
      'x-sig': standard['webhook-signature'],
    };
    expect(verify(renamed, { secret: STANDARD_SECRET, signatureHeader: 'X-Sig' })).toMatchObject({
      ok: true,
      scheme: 'standard',
      deliveryId: 'msg_1',
      signed: { 'x-sig': standard['webhook-signature'] },
    });
    // The companions are signed too: without the id there is nothing to verify against.
    expect(
      verify(
        { 'webhook-timestamp': String(NOW), 'x-sig': standard['webhook-signature'] },
        { secret: STANDARD_SECRET, signatureHeader: 'X-Sig' },
      ),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('webhook-id') });
    const github = headersFor('github', NOW);
    expect(
      verify({ 'x-github-delivery': 'd-9', 'x-sig': github['x-hub-signature-256'] }, { signatureHeader: 'X-Sig' }),
    ).toMatchObject({ ok: true, scheme: 'github', deliveryId: 'd-9' });
    // Ours under the named header is still ours.
    expect(verify({ 'x-sig': sign(BODY, NOW) }, { signatureHeader: 'X-Sig' })).toMatchObject({
      ok: true,
      scheme: 'giftcodes',
    });
  });

  it('a scheme chosen against the form of the named header says so, instead of "without a timestamp"', () => {
    const github = headersFor('github', NOW);
    expect(verify(github, { signatureHeader: 'X-Hub-Signature-256', scheme: 'giftcodes' })).toEqual({
      ok: false,
      reason: 'the x-hub-signature-256 header holds a github signature (sha256=…), not a giftcodes one',
    });
  });

  it('verifyTimestamped is the one check behind ours and Stripe', () => {
    expect(verifyTimestamped(sign(BODY, NOW), Buffer.from(BODY), SECRET, 300, NOW)).toEqual({
      ok: true,
      timestamp: NOW,
    });
    expect(verifyTimestamped(undefined, Buffer.from(BODY), SECRET, 300, NOW)).toEqual({
      ok: false,
      reason: 'missing signature',
    });
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
  const nowS = () => Math.floor(Date.now() / 1000);
  const until = async (check: () => boolean): Promise<void> => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it.each(['giftcodes', 'stripe', 'standard', 'github'] as const)(
    '%s: answers 2xx to a good delivery, 400 to a bad one, and a repeated id once',
    async (scheme) => {
      const seen: { event: WebhookEvent; delivery: Delivery }[] = [];
      const rejected: string[] = [];
      const receiver = await startWebhookReceiver({
        port: 0,
        secret: secretOf(scheme),
        onEvent: (event, _raw, delivery) => void seen.push({ event, delivery }),
        onReject: (_s, reason) => void rejected.push(reason),
      });
      try {
        const post = (headers: Headers) =>
          fetch(`${receiver.url}/hook`, {
            method: 'POST',
            headers: headers as Record<string, string>,
            body: BODY,
          }).then(async (r) => {
            await r.body?.cancel();
            return r.status;
          });
        const good = headersFor(scheme, nowS());
        expect(await post(good)).toBe(200);
        expect(await post(headersFor(scheme, nowS()))).toBe(200);
        expect(await post(headersFor(scheme, nowS(), 'whsec_other'))).toBe(400);
        expect(await post({})).toBe(400);
        expect(seen).toHaveLength(1);
        expect(seen[0]?.delivery.scheme).toBe(scheme);
        expect(seen[0]?.delivery.signed).toEqual(
          Object.fromEntries(Object.entries(good).map(([k, v]) => [k.toLowerCase(), v])),
        );
        expect(rejected).toEqual(['bad signature', 'missing signature']);
      } finally {
        await receiver.close();
      }
    },
  );

  it('judges duplicates by webhook-id or X-GitHub-Delivery, not by the body', async () => {
    const ids: (string | undefined)[] = [];
    const receiver = await startWebhookReceiver({
      port: 0,
      secret: SECRET,
      onEvent: (_e, _raw, d) => void ids.push(d.id),
    });
    try {
      const post = (delivery: string) =>
        fetch(receiver.url, {
          method: 'POST',
          headers: { 'x-github-delivery': delivery, 'x-hub-signature-256': githubSig(BODY) },
          body: BODY,
        }).then((r) => r.status);
      expect(await post('d-1')).toBe(200);
      expect(await post('d-2')).toBe(200);
      expect(await post('d-1')).toBe(200);
      expect(ids).toEqual(['d-1', 'd-2']);
    } finally {
      await receiver.close();
    }
  });

  it('with a chosen scheme, refuses a delivery signed in another one', async () => {
    const seen: WebhookEvent[] = [];
    const receiver = await startWebhookReceiver({
      port: 0,
      secret: SECRET,
      scheme: 'github',
      onEvent: (e) => void seen.push(e),
    });
    try {
      const res = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'giftcodes-signature': sign(BODY, nowS()) },
        body: BODY,
      });
      expect(res.status).toBe(400);
      expect(seen).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

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
      const post = () =>
        fetch(`${receiver.url}/x`, {
          method: 'POST',
          headers: { 'giftcodes-signature': sign(body, nowS()) },
          body,
        }).then((r) => r.status);
      expect(await post()).toBe(500);
      expect(await post()).toBe(200);
      expect(await post()).toBe(200);
      expect(seen.map((e) => e.id)).toEqual(['evt_retry']);
    } finally {
      await receiver.close();
    }
  });

  it("a repeated id that arrives while the first is being handled gets the first's outcome, never 2xx before it", async () => {
    // webhook listen answers an event once stdout took it: a sender's retry meanwhile (its first attempt timed
    // out) answered 2xx at once as a duplicate would be lost if that first one then could not be printed.
    let fail!: (error: Error) => void;
    let calls = 0;
    const receiver = await startWebhookReceiver({
      port: 0,
      secret: SECRET,
      onEvent: () => {
        calls++;
        if (calls === 1) return new Promise<void>((_resolve, reject) => (fail = reject));
      },
    });
    try {
      const body = JSON.stringify({ id: 'evt_slow', type: 'order.fulfilled', data: { order: { id: 'ord_1' } } });
      const post = () =>
        fetch(`${receiver.url}/x`, {
          method: 'POST',
          headers: { 'giftcodes-signature': sign(body, nowS()) },
          body,
        }).then((r) => r.status);
      const first = post();
      await until(() => calls === 1);
      let retried: number | undefined;
      const retry = post().then((status) => (retried = status));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(retried).toBeUndefined();
      fail(new Error('the reader closed the pipe'));
      expect(await first).toBe(500);
      expect(await retry).toBe(500);
      // The sender's next retry is taken.
      expect(await post()).toBe(200);
      expect(calls).toBe(2);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a body over the limit with 413', async () => {
    const receiver = await startWebhookReceiver({
      port: 0,
      secret: SECRET,
      maxBodyBytes: 100,
      onEvent: () => undefined,
    });
    try {
      const body = JSON.stringify({ id: 'evt_big', pad: 'x'.repeat(200) });
      const res = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'giftcodes-signature': sign(body, nowS()) },
        body,
      });
      expect(res.status).toBe(413);
    } finally {
      await receiver.close();
    }
  });

  it('says a busy port is in use (exit 2)', async () => {
    const first = await startWebhookReceiver({ port: 0, secret: SECRET, onEvent: () => undefined });
    try {
      await expect(
        startWebhookReceiver({ port: first.port, secret: SECRET, onEvent: () => undefined }),
      ).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('in use') });
    } finally {
      await first.close();
    }
  });

  it('blames the host, not the port, for an address this machine does not have or a name that does not resolve', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    for (const [host, hint] of [
      ['192.0.2.1', 'choose a --host this machine has'],
      ['nosuchhost.invalid', 'check the host name in --host'],
    ] as const) {
      const refused = startWebhookReceiver({ host, port: 0, secret: SECRET, onEvent: () => undefined });
      await expect(refused).rejects.toMatchObject({ exitCode: 2, hint: expect.stringContaining(hint) });
      await expect(refused).rejects.not.toMatchObject({ hint: expect.stringContaining('--port') });
    }
  });
});

describe('verifyDelivery on arbitrary input', () => {
  it('never throws and never accepts headers it did not sign, whatever the headers, body, scheme and secret', async () => {
    const fc = await import('fast-check');
    const names = fc.constantFrom(
      'giftcodes-signature',
      'stripe-signature',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'svix-signature',
      'x-hub-signature-256',
      'x-github-delivery',
      'x-sig',
    );
    const values = fc.oneof(
      fc.string(),
      fc.constantFrom(`t=${NOW},v1=`, 'v1,', 'sha256=', `t=${NOW}`, 'v1,AAAA v1,', '  ,,='),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(names, values),
        fc.uint8Array({ maxLength: 64 }),
        fc.option(fc.constantFrom(...(['giftcodes', 'stripe', 'standard', 'github'] as const)), { nil: undefined }),
        fc.string(),
        (headers, body, scheme, secret) => {
          const result = verifyDelivery(headers, Buffer.from(body), {
            secret: secret || 'whsec_x',
            scheme,
            signatureHeader: 'x-sig',
            toleranceS: 300,
            nowS: NOW,
          });
          expect(result.ok).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
