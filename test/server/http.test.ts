import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, test } from 'vitest';
import { KEYS, call, ledger, newKey, start, until } from './helpers.js';
import { inProcessServers } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {} }, start);

/** Sends raw bytes and returns what came back before the server closed. */
function raw(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(servers.server.port, '127.0.0.1');
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (out += c));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.end(bytes);
  });
}

describe('routing', () => {
  test.each(['/', '/v1', '/v2/ping', '/v1/ping/', '/v1/orders/x/codes/y', '/_admin/nothing'])(
    '%s is 404 not_found',
    async (path) => {
      const { server } = servers;
      const res = await call(server, path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.json.error.code).toBe('not_found');
    },
  );

  test.each([
    ['DELETE', '/v1/ping', 'GET'],
    ['POST', '/v1/catalog', 'GET'],
    ['GET', '/v1/orders', 'POST'],
    ['PUT', '/v1/orders/ord_1', 'GET'],
    ['PATCH', '/v1/orders/ord_1/codes', 'GET'],
    ['POST', '/_admin/ledger', 'GET'],
  ])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const res = await call(servers.server, path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.json.error.code).toBe('method_not_allowed');
  });

  test('admin routes are 404 unless the server runs with admin', async () => {
    const plain = await start({ admin: false });
    try {
      expect((await call(plain, '/_admin/ledger')).status).toBe(404);
      expect((await call(plain, '/_admin/reset', { method: 'POST' })).status).toBe(404);
      expect((await call(plain, '/_admin/held')).status).toBe(404);
      expect((await call(plain, '/_admin/release', { method: 'POST' })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  test('POST /_admin/reset returns to the seed', async () => {
    const { server } = servers;
    await call(server, '/v1/orders', {
      key: KEYS.live,
      idem: 'reset-me',
      body: { product_id: 'amazon-us-10', quantity: 1 },
    });
    const res = await call(server, '/_admin/reset', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'reset' });
    const book = await ledger(server);
    expect(book.orders).toEqual([]);
    expect(book.wallets.rs_demo?.USD).toBe(500_000);
    // The key was forgotten too: the same key places a new order.
    const again = await call(server, '/v1/orders', {
      key: KEYS.live,
      idem: 'reset-me',
      body: { product_id: 'amazon-us-10', quantity: 1 },
    });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('request log', () => {
  test('one line per request: method, path without the query, status, duration; dropped answers say so', async () => {
    const lines: string[] = [];
    const logged = await start({ log: (line) => lines.push(line), dropAfterCommit: 1 });
    try {
      await call(logged, '/v1/catalog?limit=2');
      await call(logged, '/v1/nothing');
      await call(logged, '/v1/orders', { idem: newKey(), body: { product_id: 'amazon-us-10', quantity: 1 } }).catch(
        () => undefined,
      );
      // The dropped answer's line comes as its socket closes, which the client may see first.
      await until(async () => (lines.length >= 3 ? true : undefined));
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^GET \/v1\/catalog 200 \d+ms$/);
      expect(lines[1]).toMatch(/^GET \/v1\/nothing 404 \d+ms$/);
      expect(lines[2]).toMatch(/^POST \/v1\/orders dropped \d+ms$/);
      expect(lines.join('\n')).not.toContain(KEYS.test);
    } finally {
      await logged.close();
    }
  });
});

describe('hostile input', () => {
  const order = (body: string | Buffer, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${servers.server.url}/v1/orders`, {
        method: 'POST',
        headers: {
          'X-API-Key': KEYS.test,
          'Idempotency-Key': newKey(),
          'Content-Type': 'application/json',
          ...headers,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  test('a body over 64 KiB is 413 payload_too_large (declared length)', async () => {
    const res = await order(JSON.stringify({ product_id: 'x'.repeat(70_000), quantity: 1 }));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('payload_too_large');
  });

  test('a chunked body over 64 KiB is 413 too', async () => {
    const res = await order(JSON.stringify({ product_id: 'x'.repeat(70_000), quantity: 1 }), {
      'Transfer-Encoding': 'chunked',
    });
    expect(res.status).toBe(413);
  });

  test('invalid UTF-8 is 400 invalid_json', async () => {
    const res = await order(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_json');
  });

  test('deeply nested JSON is refused without a crash', async () => {
    const res = await order(`${'['.repeat(5000)}${']'.repeat(5000)}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
  });

  test('a deeply nested object is 400 invalid_request, not a stack overflow', async () => {
    const res = await order(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toEqual({
      code: 'invalid_request',
      message: 'the request body nests too deeply',
    });
  });

  test('duplicate X-API-Key headers are a malformed key', async () => {
    const out = await raw(
      `GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.test}\r\nX-API-Key: ${KEYS.live}\r\nConnection: close\r\n\r\n`,
    );
    expect(out).toMatch(/^HTTP\/1\.1 401 /);
    expect(out).toContain('"invalid_api_key"');
  });

  test('huge headers are 431 as JSON', async () => {
    const out = await raw(`GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Junk: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 431 /);
    expect(out).toContain('"headers_too_large"');
  });

  test('garbage instead of HTTP is 400 as JSON', async () => {
    const out = await raw('\x00\x01 hello there\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    expect(out).toContain('"bad_request"');
  });

  test('no stack traces and the server keeps answering', async () => {
    const { server } = servers;
    const res = await call(server, '/v1/orders', {
      idem: newKey(),
      body: '{"product_id":"amazon-us-10","quantity":1e400}',
    });
    expect(res.status).toBe(400);
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
    expect((await call(server, '/v1/ping')).status).toBe(200);
  });
});
