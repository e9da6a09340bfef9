import { describe, expect, test } from 'vitest';
import { canonicalJson, parseIdempotencyKey } from '../../src/server/idempotency.js';
import { KEYS, call, heldCount, ledger, newKey, release, start, until } from './helpers.js';
import { inProcessServers } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {} }, start);

const body = { product_id: 'amazon-us-25', quantity: 2 };

describe('rule 1: same key, same body', () => {
  test('replays the original status and body byte for byte, and charges once', async () => {
    const { server } = servers;
    const idem = newKey();
    const first = await call(server, '/v1/orders', { key: KEYS.live, idem, body });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Key order does not change the fingerprint: the same order, differently spelled.
    const again = await call(server, '/v1/orders', {
      key: KEYS.live,
      idem,
      body: '{ "quantity": 2, "product_id": "amazon-us-25" }',
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const charges = (await ledger(server)).orders.filter((o) => o.idempotency_key === idem);
    expect(charges).toHaveLength(1);
    expect(charges[0]?.order_id).toBe(first.json.id);
  });

  test('the quoted sf-string form is the same key as the bare form', async () => {
    const { server } = servers;
    const idem = newKey();
    const bare = await call(server, '/v1/orders', { idem, body });
    const quoted = await call(server, '/v1/orders', { idem: `"${idem}"`, body });
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
    expect(quoted.json.id).toBe(bare.json.id);
  });

  test('a refused request is replayed too, so a retry cannot turn into a different answer', async () => {
    const { server } = servers;
    const idem = newKey();
    const bad = { product_id: 'amazon-us-25', quantity: 0 };
    const first = await call(server, '/v1/orders', { idem, body: bad });
    expect(first.status).toBe(400);
    const again = await call(server, '/v1/orders', { idem, body: bad });
    expect(again.status).toBe(400);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('rule 2: same key, different body', () => {
  test('422 idempotency_key_reused, and nothing more is charged', async () => {
    const { server } = servers;
    const idem = newKey();
    await call(server, '/v1/orders', { key: KEYS.live, idem, body });
    const before = (await ledger(server)).orders.length;
    const res = await call(server, '/v1/orders', { key: KEYS.live, idem, body: { ...body, quantity: 3 } });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('idempotency_key_reused');
    expect((await ledger(server)).orders.length).toBe(before);
  });
});

describe('rule 3: same key while the first request runs', () => {
  // Held until the test releases it (GET /_admin/held says when it is held): the second request finds it running
  // however slow the machine, where a hold of a few seconds let a stalled test's second request find it done.
  const heldServers = inProcessServers({ held: { holdMs: 600_000 } }, start);

  test('409 request_in_progress, then the original once it is done', async () => {
    const { held } = heldServers;
    const idem = newKey();
    const first = call(held, '/v1/orders', { idem, body });
    await until(async () => ((await heldCount(held)) === 1 ? true : undefined));
    const during = await call(held, '/v1/orders', { idem, body });
    expect(during.status).toBe(409);
    expect(during.json.error.code).toBe('request_in_progress');
    expect(await release(held)).toBe(1);
    const original = await first;
    expect(original.status).toBe(201);
    expect(await heldCount(held)).toBe(0);
    const after = await call(held, '/v1/orders', { idem, body });
    expect(after.status).toBe(201);
    expect(after.text).toBe(original.text);
  });

  test('50 concurrent identical POSTs with one key make exactly one order', async () => {
    const { held } = heldServers;
    const idem = newKey();
    let answered = 0;
    const pending = Array.from({ length: 50 }, () =>
      call(held, '/v1/orders', { key: KEYS.live, idem, body }).finally(() => answered++),
    );
    // Every request either answered (409) or held: then the held ones go on.
    await until(async () => (answered + (await heldCount(held)) === 50 ? true : undefined));
    await release(held);
    const answers = await Promise.all(pending);
    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(created.length + busy.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(created.map((a) => a.json.id));
    expect(ids.size).toBe(1);
    for (const b of busy) expect(b.json.error.code).toBe('request_in_progress');
    // A second wave after completion: every one gets the same order, replayed.
    const wave = await Promise.all(
      Array.from({ length: 50 }, () => call(held, '/v1/orders', { key: KEYS.live, idem, body })),
    );
    for (const a of wave) {
      expect(a.status).toBe(201);
      expect(a.headers.get('idempotent-replayed')).toBe('true');
      expect(ids.has(a.json.id)).toBe(true);
    }
    const book = await ledger(held);
    expect(book.orders.filter((o) => o.idempotency_key === idem)).toHaveLength(1);
    expect(book.wallets.rs_demo?.USD).toBe(500_000 - 5000);
    expect(book.supply.rs_demo?.['amazon-us-25']).toBe(1_000_000 - 2);
  });
});

describe('rule 4: the key is required', () => {
  test.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['an empty quoted string', '""'],
  ])('%s: 400 idempotency_key_missing', async (_what, idem) => {
    const res = await call(servers.server, '/v1/orders', { ...(idem === undefined ? {} : { idem }), body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('idempotency_key_missing');
  });

  test.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['a broken quoted string', '"abc'],
    ['a quoted string with a bad escape', '"a\\b"'],
  ])('%s: 400 idempotency_key_invalid', async (_what, idem) => {
    const res = await call(servers.server, '/v1/orders', { idem, body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('idempotency_key_invalid');
  });

  test('255 characters is fine', async () => {
    const { server } = servers;
    const res = await call(server, '/v1/orders', { idem: `${newKey()}-`.padEnd(255, 'x'), body });
    expect(res.status).toBe(201);
  });
});

describe('scope', () => {
  test('a key is scoped per environment and per reseller', async () => {
    const { server } = servers;
    const idem = newKey();
    const ids = new Set<string>();
    for (const key of [KEYS.test, KEYS.live, KEYS.smallTest]) {
      const res = await call(server, '/v1/orders', { key, idem, body: { product_id: 'amazon-us-10', quantity: 1 } });
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      ids.add(res.json.id);
    }
    expect(ids.size).toBe(3);
  });
});

describe('drop after commit', () => {
  const droppingServers = inProcessServers({ dropping: { dropAfterCommit: 1 } }, start);

  test('the first attempt sees the connection drop; the retry gets the order that was committed', async () => {
    const { dropping } = droppingServers;
    const idem = newKey();
    await expect(call(dropping, '/v1/orders', { key: KEYS.live, idem, body })).rejects.toThrow();
    const book = await ledger(dropping);
    expect(book.orders).toHaveLength(1);
    const retry = await call(dropping, '/v1/orders', { key: KEYS.live, idem, body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json.id).toBe(book.orders[0]?.order_id);
    expect(retry.json.status).toBe('pending');
    const after = await ledger(dropping);
    expect(after.orders).toHaveLength(1);
    expect(after.wallets.rs_demo?.USD).toBe(500_000 - 5000);
  });
});

describe('helpers', () => {
  test('canonicalJson sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}',
    );
  });

  test('parseIdempotencyKey unescapes sf-strings', () => {
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toEqual({ ok: true, key: 'a"b\\c' });
    expect(parseIdempotencyKey('  abc  ')).toEqual({ ok: true, key: 'abc' });
  });
});
