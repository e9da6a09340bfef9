import { describe, expect, test } from 'vitest';
import { KEYS, call, start } from './helpers.js';
import { inProcessServers } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {} }, start);

describe('X-API-Key authentication', () => {
  test.each([
    ['missing', null],
    ['empty', ''],
    ['malformed (no environment prefix)', 'pk_demo_4f3c9a1b7e2d0000'],
    ['malformed (too short)', 'sc_test_abc'],
    ['malformed (bad characters)', 'sc_test_demo_4f3c9a1b7e2d!'],
    ['unknown', 'sc_test_unknown_0000000000000'],
    ['a live key with a test prefix', 'sc_test_demo_9b1e6d2c8a7f'],
  ])('%s key: 401 invalid_api_key, the key never echoed', async (_what, key) => {
    const res = await call(servers.server, '/v1/ping', { key });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json.error.code).toBe('invalid_api_key');
    expect(typeof res.json.error.message).toBe('string');
    if (key) expect(res.text).not.toContain(key);
  });

  test('every API route needs a key', async () => {
    const { server } = servers;
    for (const [method, path] of [
      ['GET', '/v1/catalog'],
      ['POST', '/v1/orders'],
      ['GET', '/v1/orders/ord_000000000000000000000000'],
      ['GET', '/v1/orders/ord_000000000000000000000000/codes'],
    ] as const) {
      const res = await call(server, path, { key: null, method });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json.error.code).toBe('invalid_api_key');
    }
  });
});

describe('GET /v1/ping', () => {
  test('a test key authenticates in test', async () => {
    const { server } = servers;
    const res = await call(server, '/v1/ping', { key: KEYS.test });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', environment: 'test', resellerId: 'rs_demo' });
  });

  test('a live key authenticates in live', async () => {
    const { server } = servers;
    const res = await call(server, '/v1/ping', { key: KEYS.live });
    expect(res.json).toEqual({ status: 'ok', environment: 'live', resellerId: 'rs_demo' });
  });

  test('the key decides the reseller', async () => {
    const { server } = servers;
    const res = await call(server, '/v1/ping', { key: KEYS.smallLive });
    expect(res.json).toEqual({ status: 'ok', environment: 'live', resellerId: 'rs_small' });
  });

  test('demoKeys lists each reseller with its keys', () => {
    const { server } = servers;
    expect(server.demoKeys).toEqual([
      { resellerId: 'rs_demo', test: KEYS.test, live: KEYS.live },
      { resellerId: 'rs_small', test: KEYS.smallTest, live: KEYS.smallLive },
    ]);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });
});
