// The contract, proved by an independent validator: the built CLI's end-to-end scenarios run through Stoplight
// Prism's validation proxy (--errors) in front of `giftcodes serve`, so every request the CLI sends and every
// response the server returns is checked against openapi.yaml. A violation fails the test twice over: Prism
// answers it with an error of its own (the exit code or the message is then wrong), and it logs it.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  DEMO_KEYS,
  ledger,
  runCli,
  startServer,
  tempDir,
  until,
  type RunResult,
  type TestServer,
} from '../helpers/e2e.js';
import { startPrism, type PrismProxy } from '../helpers/prism.js';
import { defaultSeed } from '../../src/server/seed.js';

let server: TestServer;
/** The same seed with orders that never complete in a test (an hour): only for the codes asked before completion. */
let slowServer: TestServer;
/** Where the relay sends what Prism forwards: the server, or for one test the slow one. */
let upstream: string;
let prism: PrismProxy;
let configDir: string;
/** Between Prism and the server: passes everything through, unless a test asks it to break the next answer. */
let relay: Server;
let breakNext: { status: number; body: string } | undefined;

function startRelay(): Promise<Server> {
  const relayServer = createServer((req, res) => {
    if (breakNext) {
      const broken = breakNext;
      breakNext = undefined;
      res.writeHead(broken.status, { 'content-type': 'application/json' }).end(broken.body);
      return;
    }
    const forward = request(
      new URL(req.url ?? '/', upstream),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) => relayServer.listen(0, '127.0.0.1', () => resolve(relayServer)));
}

beforeAll(async () => {
  // The demo catalog and 1,000 more products: two pages of the 1,000 the client asks for.
  const products = [
    ...defaultSeed().products,
    ...Array.from({ length: 1000 }, (_, i) => ({
      id: `extra-${i + 1}`,
      name: `Extra ${i + 1}`,
      brand: 'Extra',
      price: 500,
      currency: 'USD',
      supply: 1000,
    })),
  ];
  const seedFile = join(tempDir('giftcodes-contract-seed-'), 'seed.json');
  writeFileSync(seedFile, JSON.stringify({ products }));
  // Orders complete in 0.2 s, so the tests that wait for one wait that long. The slow server's take an hour: codes
  // asked there are asked too early however long the CLI's start and Prism's proxying take on a loaded machine
  // (15 s were not enough there, 2.5 s before them).
  [server, slowServer] = await Promise.all([
    startServer(['--fulfil-after', '200', '--seed', seedFile]),
    startServer(['--fulfil-after', '3600000', '--seed', seedFile]),
  ]);
  upstream = server.url;
  relay = await startRelay();
  try {
    prism = await startPrism(`http://127.0.0.1:${(relay.address() as AddressInfo).port}`);
  } catch (error) {
    relay.close();
    await Promise.all([server.stop(), slowServer.stop()]);
    throw error;
  }
  configDir = tempDir('giftcodes-contract-');
}, 300_000);

afterAll(async () => {
  await prism?.stop();
  relay?.closeAllConnections();
  relay?.close();
  await server?.stop();
  await slowServer?.stop();
});

/** Runs the CLI through Prism and fails on anything Prism reported meanwhile, or on no traffic through it. */
async function cli(
  args: string[],
  o: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  const mark = prism.mark();
  const result = await runCli(args, { configDir, baseUrl: prism.url, ...o });
  // Prism logs asynchronously to the answer: give its last lines a moment.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(
    prism.problems(mark),
    `Prism reported a violation for giftcodes ${args.join(' ')}:\n${prism.log().slice(mark)}`,
  ).toEqual([]);
  expect(prism.forwarded(mark).length, `nothing went through Prism for giftcodes ${args.join(' ')}`).toBeGreaterThan(0);
  return result;
}

function ok(result: RunResult): RunResult {
  expect(result.code, result.stderr).toBe(0);
  return result;
}

function parsed<T = Record<string, unknown>>(result: RunResult): T {
  return JSON.parse(ok(result).stdout) as T;
}

describe('the CLI through Prism --errors: openapi.yaml holds for every scenario', () => {
  test('login (test and live), ping in both environments', async () => {
    ok(await cli(['login', '--api-key-stdin'], { input: DEMO_KEYS.test }));
    ok(await cli(['login', '--api-key-stdin'], { input: DEMO_KEYS.live }));
    expect(parsed(await cli(['ping', '--json']))).toEqual({ status: 'ok', environment: 'test', resellerId: 'rs_demo' });
    expect(parsed(await cli(['ping', '--env', 'live', '--json']))).toEqual({
      status: 'ok',
      environment: 'live',
      resellerId: 'rs_demo',
    });
  });

  test('catalog list follows every page', async () => {
    const mark = prism.mark();
    const products = parsed<{ id: string }[]>(await cli(['catalog', 'list', '--json']));
    expect(products).toHaveLength(1012);
    expect(new Set(products.map((p) => p.id)).size).toBe(1012);
    // More than one page went through the proxy.
    expect(prism.forwarded(mark).filter((line) => line.includes('/v1/catalog')).length).toBeGreaterThan(1);
  });

  test('order place, show, watch, and place --wait', async () => {
    const placed = parsed<{ id: string; status: string }>(
      await cli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--json']),
    );
    expect(placed.id).toMatch(/^ord_/);
    expect(parsed<{ id: string }>(await cli(['order', 'show', placed.id, '--json'])).id).toBe(placed.id);
    expect(
      parsed<{ status: string }>(
        await cli(['order', 'watch', placed.id, '--interval', '0.2', '--timeout', '90', '--json']),
      ).status,
    ).toBe('completed');
    const waited = parsed<{ id: string; status: string }>(
      await cli([
        'order',
        'place',
        '--product',
        'amazon-us-25',
        '--quantity',
        '1',
        '--wait',
        '--interval',
        '0.2',
        '--json',
      ]),
    );
    expect(waited.status).toBe('completed');
    const book = await ledger(server);
    expect(book.orders.map((o) => o.order_id)).toEqual(expect.arrayContaining([placed.id, waited.id]));
  });

  test('order place --out writes the codes; codes get as csv, json and jsonl', async () => {
    const cwd = tempDir();
    ok(
      await cli(
        ['order', 'place', '--product', 'amazon-us-10', '--quantity', '3', '--out', 'codes.csv', '--interval', '0.2'],
        { cwd },
      ),
    );
    const csv = readFileSync(join(cwd, 'codes.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^order_id,code/);
    expect(csv).toHaveLength(4);
    expect(statSync(join(cwd, 'codes.csv')).mode & 0o777).toBe(0o600);
    const orderId = csv[1]!.split(',')[0]!;
    const json = parsed<{ code: string }[]>(await cli(['codes', 'get', orderId, '--format', 'json']));
    expect(json.map((r) => r.code)).toEqual(csv.slice(1).map((line) => line.split(',')[1]));
    const jsonl = ok(await cli(['codes', 'get', orderId, '--format', 'jsonl']))
      .stdout.trim()
      .split('\n');
    expect(jsonl.map((line) => (JSON.parse(line) as { code: string }).code)).toEqual(json.map((r) => r.code));
    expect(
      ok(await cli(['codes', 'get', orderId, '--format', 'csv']))
        .stdout.trim()
        .split('\n'),
    ).toEqual(csv);
  });

  test("a rejected key is exit 3 with the server's 401", async () => {
    const result = await cli(['ping', '--api-key', 'sc_test_not_a_real_key_0000']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('HTTP 401 invalid_api_key');
  });

  test("an unknown order is exit 4 with the server's 404", async () => {
    const result = await cli(['order', 'show', 'ord_does_not_exist']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('HTTP 404 order_not_found');
  });

  test("an idempotency key reused for another order is exit 4 with the server's 422", async () => {
    const key = `contract-${Date.now()}`;
    ok(
      await cli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--idempotency-key', key, '--json']),
    );
    const reused = await cli([
      'order',
      'place',
      '--product',
      'amazon-us-10',
      '--quantity',
      '2',
      '--idempotency-key',
      key,
    ]);
    expect(reused.code).toBe(4);
    expect(reused.stderr).toContain('HTTP 422 idempotency_key_reused');
  });

  test("codes before completion are exit 4 with the server's 409; --wait gets them", async () => {
    upstream = slowServer.url;
    try {
      const unfinished = parsed<{ id: string }>(
        await cli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json']),
      );
      const early = await cli(['codes', 'get', unfinished.id]);
      expect(early.code).toBe(4);
      expect(early.stderr).toContain('HTTP 409 order_not_completed');
    } finally {
      upstream = server.url;
    }
    // An order asked for at once with --wait: polled (pending or processing, then completed), then its codes.
    const placed = parsed<{ id: string }>(
      await cli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json']),
    );
    const cwd = tempDir();
    ok(await cli(['codes', 'get', placed.id, '--wait', '--interval', '0.2', '--out', 'late.jsonl'], { cwd }));
    expect(existsSync(join(cwd, 'late.jsonl'))).toBe(true);
  });

  test("an unknown product is exit 4 with the server's 400", async () => {
    // Without a catalog cache (an earlier catalog list saves one), the typo check has nothing to go on and the
    // order reaches the API, whose 400 is what is under test here.
    for (const name of readdirSync(configDir)) if (name.startsWith('catalog-cache')) rmSync(join(configDir, name));
    const result = await cli(['order', 'place', '--product', 'no-such-product', '--quantity', '1']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('HTTP 400 unknown_product');
  });
});

describe('the check itself', () => {
  test('a response that breaks openapi.yaml fails the run: Prism answers 500 VIOLATIONS and logs it', async () => {
    breakNext = { status: 200, body: '{"status":7}' };
    const mark = prism.mark();
    const result = await runCli(['ping', '--retries', '0'], { configDir, baseUrl: prism.url });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('HTTP 500');
    // Prism logs after it answers: wait for the line (not a fixed moment, which a loaded machine outlasts).
    await until(() => (/Violation|VIOLATIONS/.test(prism.problems(mark).join('\n')) ? true : undefined));
  });

  test('a request that breaks openapi.yaml is refused by Prism (422) and logged', async () => {
    const mark = prism.mark();
    const res = await fetch(`${prism.url}/v1/orders`, {
      method: 'POST',
      headers: { 'X-API-Key': DEMO_KEYS.test, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    await until(() => (prism.problems(mark).length > 0 ? true : undefined));
  });
});
