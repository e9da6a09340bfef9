// A gzipped page is read whole, then decoded in one call (src/api/transport.ts decodeWhole, issue 33): the
// export of an order's codes through a server that gzips its pages is byte for byte the export without gzip,
// in every format, whether the gzip arrives in one piece or in many small chunks, as several gzip members, or
// gzip under br. The coding is undone below the format (client.ts bodyBytes, the same for every format: each
// format's export reads its pages through the same PageScanner, export/write.ts pump), so each format is checked
// gzipped whole and one other coding, and each other coding in one format: every coding and every format, in 9 runs
// rather than 15 (a CLI run is CPU npm test is short of, and this file runs on three Node lines).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const KEY = DEMO_KEYS.test;
// Three pages (a page holds 1,000 codes), the last one short: as many pages as 2,500 codes made, with fewer bytes.
const QUANTITY = 2001;

describe('codes get from a server that gzips its pages', () => {
  const served = servedApi(['--fulfil-after', '0']);
  let relay: Server;
  let relayUrl = '';
  let orderId = '';
  const codings = new Map<string, number>();

  beforeAll(async () => {
    const res = await fetch(`${served.url}/v1/orders`, {
      method: 'POST',
      headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ product_id: 'amazon-us-25', quantity: QUANTITY }),
    });
    expect(res.status).toBe(201);
    orderId = ((await res.json()) as { id: string }).id;
    // Forwards /<how>/v1/... to the reference server (asking it for no coding), and codes the answer as <how> says.
    relay = createServer((req, res) => {
      const [, how = '', ...rest] = (req.url ?? '/').split('/');
      void (async () => {
        const upstream = await fetch(`${served.url}/${rest.join('/')}`, {
          method: req.method ?? 'GET',
          headers: { 'x-api-key': String(req.headers['x-api-key'] ?? ''), 'accept-encoding': 'identity' },
        });
        const body = Buffer.from(await upstream.arrayBuffer());
        // The code pages asked for: the order itself, read first for its quantity (no record of it here), is not one.
        if (/\/codes(\?|$)/.test(req.url ?? '')) codings.set(how, (codings.get(how) ?? 0) + 1);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (how === 'plain') {
          res.writeHead(upstream.status, headers).end(body);
          return;
        }
        const half = body.length >> 1;
        const coded =
          how === 'members'
            ? Buffer.concat([gzipSync(body.subarray(0, half)), gzipSync(body.subarray(half))])
            : how === 'gzip-br'
              ? brotliCompressSync(gzipSync(body))
              : how === 'cut'
                ? gzipSync(body).subarray(0, -12)
                : gzipSync(body);
        res.writeHead(upstream.status, {
          ...headers,
          'content-encoding': how === 'gzip-br' ? 'gzip, br' : 'gzip',
        });
        if (how !== 'chunks') {
          res.end(coded);
          return;
        }
        // Small pieces, each its own write: the page reaches the client in many chunks.
        for (let at = 0; at < coded.length; at += 700) res.write(coded.subarray(at, at + 700));
        res.end();
      })().catch((error: unknown) => res.destroy(error as Error));
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    for (let i = 0; i < 200; i++) {
      const order = await fetch(`${served.url}/v1/orders/${orderId}`, { headers: { 'X-API-Key': KEY } });
      if (((await order.json()) as { status: string }).status === 'completed') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`order ${orderId} did not complete`);
  }, 60_000);
  afterAll(() => new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve())));

  const exported = async (how: string, format: string): Promise<Buffer> => {
    const out = join(tempDir(), `codes.${format}`);
    const result = await runCli(['codes', 'get', orderId, '--out', out], {
      baseUrl: `${relayUrl}/${how}`,
      env: { GIFTCODES_API_KEY: KEY },
    });
    expect(result.code, result.stderr).toBe(0);
    return readFileSync(out);
  };

  it.each([
    ['csv', 'chunks'],
    ['json', 'members'],
    ['jsonl', 'gzip-br'],
  ])('%s: the same bytes, gzipped whole and through %s', async (format, other) => {
    const plain = await exported('plain', format);
    expect(plain.length).toBeGreaterThan(QUANTITY * 20);
    for (const how of ['gzip', other]) {
      const before = codings.get(how) ?? 0;
      expect((await exported(how, format)).equals(plain), `${format} through ${how}`).toBe(true);
      // Every page of the export came through the coding (several pages, since a page holds 1,000 codes).
      expect((codings.get(how) ?? 0) - before).toBeGreaterThanOrEqual(Math.ceil(QUANTITY / 1000));
    }
  });

  it('a gzip cut short is an unreadable body (exit 5), asked for once, and no file is left', async () => {
    const out = join(tempDir(), 'codes.csv');
    const before = codings.get('cut') ?? 0;
    const result = await runCli(['codes', 'get', orderId, '--out', out], {
      baseUrl: `${relayUrl}/cut`,
      env: { GIFTCODES_API_KEY: KEY },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('its compressed body is corrupt');
    expect((codings.get('cut') ?? 0) - before).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});
