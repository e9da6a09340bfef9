// A ref no local record knows, answered 404 with the profile's key of one environment (a support desk walkthrough):
// the hint said to add --env live, and with --env live to add --env test, each a command to run by hand, and one
// of them asked the same again. Where the profile holds both keys, the other is asked once, here.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Connection } from '../../src/config/resolve.js';
import { ApiError, AuthError } from '../../src/errors.js';
import { fromOtherKey, type OrderRef } from '../../src/orders/ref.js';
import { capturedIo, freshJournal } from '../helpers/inprocess.js';
import { recordAt } from '../helpers/journal.js';

const id = 'ord_44ec04df3bf243cf98e2c6fd';
const here = 'https://api.example';
const notFound = () =>
  new ApiError(`GET /v1/orders/${id} failed: HTTP 404 order_not_found`, {
    code: 'order_not_found',
    status: 404,
    hint: 'the hint of src/api/errors.ts',
  });

function setup(o: {
  keys?: readonly ('test' | 'live')[];
  keySource?: Connection['keySource'];
  environment?: 'test' | 'live';
  answer?: () => Promise<unknown>;
}) {
  const keys = o.keys ?? ['test', 'live'];
  const { io, err } = capturedIo();
  const asked: { env: string; id: string }[] = [];
  const journal = freshJournal();
  const connection = {
    profile: 'default',
    environment: o.environment ?? 'test',
    baseUrl: here,
    apiKey: 'sc_test_x',
    keySource: o.keySource ?? 'profile',
  } as Connection;
  const deps = {
    io,
    journal: () => Promise.resolve(journal),
    connection: () => Promise.resolve(connection),
    config: () =>
      Promise.resolve({
        keyLocation: (_profile: string, env: 'test' | 'live') => (keys.includes(env) ? 'file' : undefined),
        profileNames: () => ['default'],
      }),
    connectionTo: (where: { environment: string; baseUrl: string }) =>
      Promise.resolve({ ...connection, environment: where.environment, apiKey: `sc_${where.environment}_x` }),
    clientFor: (baseUrl: string, apiKey: string) =>
      Promise.resolve({
        baseUrl,
        getOrder: (orderId: string) => (
          asked.push({ env: apiKey.split('_')[1]!, id: orderId }),
          (o.answer ?? (() => Promise.resolve({ id: orderId, status: 'completed' })))()
        ),
      } as unknown as ApiClient),
  } as unknown as Parameters<typeof fromOtherKey>[0];
  const ref: OrderRef = { orderId: id, record: undefined, api: {} as ApiClient };
  return { deps, ref, asked, err, journal };
}

describe('fromOtherKey', () => {
  it("found with the profile's other key: one more GET, the order and a client of that key, said on stderr", async () => {
    for (const environment of ['test', 'live'] as const) {
      const other = environment === 'test' ? 'live' : 'test';
      const { deps, ref, asked, err } = setup({ environment });
      const found = await fromOtherKey(deps, ref, notFound());
      expect(found.order).toMatchObject({ id });
      expect(found.ref).toMatchObject({ orderId: id, record: undefined, api: { baseUrl: here } });
      expect(asked).toEqual([{ env: other, id }]);
      expect(err()).toContain(
        `order ${id} is not known to the ${environment} key: found with the ${other} key of profile "default" at ${here}\n`,
      );
    }
  });

  it('not found with either: one error that says it was asked with both keys, and what to check', async () => {
    const { deps, ref, asked } = setup({ environment: 'live', answer: () => Promise.reject(notFound()) });
    await expect(fromOtherKey(deps, ref, notFound())).rejects.toMatchObject({
      exitCode: 4,
      code: 'order_not_found',
      status: 404,
      message: `no order ${id} at ${here}: asked with the test key and with the live key of profile "default", both answered HTTP 404 order_not_found`,
      hint: 'check the id, and whether another profile or reseller account placed it',
    });
    expect(asked).toHaveLength(1);
  });

  it('asking with the other key failing otherwise: the first 404, its hint saying why', async () => {
    const refused = new AuthError('the API refused the key', { code: 'invalid_api_key' });
    const { deps, ref } = setup({ answer: () => Promise.reject(refused) });
    await expect(fromOtherKey(deps, ref, notFound())).rejects.toMatchObject({
      message: `GET /v1/orders/${id} failed: HTTP 404 order_not_found`,
      hint: `check the id, and that the order was placed at ${here} with a test key; asking with the profile's live key too failed: the API refused the key`,
    });
  });

  it('a profile with one key, or a key given for the run: nothing more asked, and no flag offered that asks the same', async () => {
    for (const [o, words] of [
      [{ keys: ['live'] as const, environment: 'live' as const }, 'profile "default" holds no test key'],
      [{ keySource: 'flag' as const }, 'the test key in --api-key or another test key of its reseller account'],
      [{ keySource: 'environment' as const }, 'the test key in GIFTCODES_API_KEY or another test key of its reseller'],
    ] as const) {
      const { deps, ref, asked } = setup(o);
      const error = (await fromOtherKey(deps, ref, notFound()).catch((e: unknown) => e)) as ApiError;
      expect(error.code).toBe('order_not_found');
      expect(error.hint).toContain(words);
      expect(error.hint).not.toMatch(/--env|drop|unset/);
      expect(asked).toEqual([]);
    }
  });

  it('a recorded order, or another error: thrown as it is, nothing more asked', async () => {
    const { deps, ref, asked } = setup({});
    const recorded = { ...ref, record: recordAt('k-1', '2026-11-29T00:00:00Z', { orderId: id }) };
    const error = notFound();
    await expect(fromOtherKey(deps, recorded, error)).rejects.toBe(error);
    expect(error.hint).toBe('the hint of src/api/errors.ts');
    const other = new ApiError('not completed', { code: 'order_not_completed' });
    await expect(fromOtherKey(deps, ref, other)).rejects.toBe(other);
    expect(asked).toEqual([]);
  });
});
