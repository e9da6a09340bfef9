// The tolerance matrix (issue 13, docs/dialects.md): every command that reads a list,
// a resource or an error, against `giftcodes serve --dialect <d>` for every dialect; a shortfall per pagination
// style (exit 5, the counts in the message, no file); openapi.yaml's idempotency errors in every error dialect; and the
// header forms the reference server does not speak (Link header, rate-limit resets) from a raw-socket server.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import {
  configCopy,
  DEMO_KEYS,
  heldRequests,
  journalFiles,
  ledger,
  releaseHeld,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  unstamped,
  type RunResult,
  type TestServer,
} from '../helpers/e2e.js';
import { stderrShows } from '../helpers/gate.js';
import { jsonReply, startHostileServer, type HostileServer } from '../helpers/hostile-server.js';

const DIALECTS = ['ours', 'jsonapi', 'problem', 'spring', 'pages'] as const;
type Dialect = (typeof DIALECTS)[number];

/** How each dialect spells what the client must read; the client shows statuses as they are sent. */
const SPELLING: Record<Dialect, { completed: string; environment: string; placed: number }> = {
  ours: { completed: 'completed', environment: 'test', placed: 201 },
  jsonapi: { completed: 'completed', environment: 'sandbox (test)', placed: 201 },
  problem: { completed: 'complete', environment: 'Testing (test)', placed: 202 },
  spring: { completed: 'COMPLETED', environment: 'SANDBOX (test)', placed: 201 },
  pages: { completed: 'COMPLETE', environment: 'TEST', placed: 202 },
};

const PRODUCTS = 12;
/** The servers serve pages of 5 whatever is asked: 12 products and 12 codes take 3 pages. */
const MAX_PAGE = '5';

function withKey(
  server: TestServer,
  configDir = tempDir(),
): { configDir: string; baseUrl: string; env: NodeJS.ProcessEnv } {
  return { configDir, baseUrl: server.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } };
}

/** An order of 7 codes placed and completed with the test key (its record in `configDir`); its id. */
async function placedSeven(server: TestServer, configDir = tempDir()): Promise<string> {
  const placed = await runCli(
    ['order', 'place', '--product', 'amazon-us-10', '--quantity', '7', '--wait', '--interval', '0.1', '--json'],
    withKey(server, configDir),
  );
  expect(placed.code, placed.stderr).toBe(0);
  return (JSON.parse(placed.stdout) as { id: string }).id;
}

/**
 * The API client as a run makes it (src/factory.ts): the demo test key, the default retry policy with `retries`
 * (none unless given), and `log` where --verbose prints its lines. Closed when the test ends.
 */
function clientOf(baseUrl: string, o: { retries?: number; log?: (line: string) => void } = {}): ApiClient {
  const api = new ApiClient({
    baseUrl,
    apiKey: DEMO_KEYS.test,
    requestTimeoutMs: 60_000,
    retry: { ...DEFAULT_RETRY_POLICY, retries: o.retries ?? 0 },
    log: o.log,
  });
  onTestFinished(() => api.close());
  return api;
}

function requestLines(result: RunResult, prefix: string): string[] {
  return unstamped(result.stderr)
    .split('\n')
    .filter((line) => line.startsWith(prefix));
}

function filesIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe.each(DIALECTS)('tolerance matrix: serve --dialect %s', (dialect) => {
  const served = servedApi(['--dialect', dialect, '--max-page', MAX_PAGE, '--fulfil-after', '0']);
  const spelled = SPELLING[dialect];

  it('ping: the environment name is read as test, no warning', async () => {
    const result = await runCli(['ping'], withKey(served.server));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^status\s+ok$/m);
    expect(result.stdout).toMatch(new RegExp(`^environment\\s+${spelled.environment.replace(/[()]/g, '\\$&')}$`, 'm'));
    expect(result.stdout).toMatch(/^reseller\s+rs_demo$/m);
    expect(result.stderr).toBe('');
    // login verifies the key with the same ping: the dialect's name for test is test.
    const login = await runCli(['login', '--api-key-stdin', '--base-url', served.url], { input: DEMO_KEYS.test });
    expect(login.code, login.stderr).toBe(0);
  });

  it('catalog list: every product, over every page', async () => {
    const result = await runCli(['catalog', 'list', '--json', '--verbose'], withKey(served.server));
    expect(result.code, result.stderr).toBe(0);
    const products = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(products.map((p) => p.id)).toHaveLength(PRODUCTS);
    expect(new Set(products.map((p) => p.id)).size).toBe(PRODUCTS);
    expect(products[0]).toMatchObject({
      id: 'amazon-us-10',
      name: 'Amazon.com Gift Card $10',
      price: { amount: 1000, currency: 'USD' },
    });
    expect(requestLines(result, 'GET /v1/catalog')).toHaveLength(3);
  });

  it('catalog list --limit: no page is asked for past the one that holds the last product wanted', async () => {
    const result = await runCli(['catalog', 'list', '--json', '--verbose', '--limit', '2'], withKey(served.server));
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { id: string }[]).map((p) => p.id)).toHaveLength(2);
    expect(requestLines(result, 'GET /v1/catalog')).toHaveLength(1);
  });

  it('order place --out: placed, waited for, every code written; order show and codes get read the same order', async () => {
    const { server } = served;
    const configDir = tempDir();
    const out = join(tempDir(), 'codes.csv');
    const placed = await runCli(
      [
        'order',
        'place',
        '--product',
        'amazon-us-10',
        '--quantity',
        '12',
        '--out',
        out,
        '--interval',
        '0.1',
        '--verbose',
      ],
      withKey(server, configDir),
    );
    expect(placed.code, placed.stderr).toBe(0);
    expect(requestLines(placed, 'POST /v1/orders')[0]).toMatch(new RegExp(`^POST /v1/orders ${spelled.placed} `));
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(rows).toHaveLength(13);
    expect(rows[0]).toMatch(/^order_id,code,/);
    const orderId = rows[1]!.split(',')[0]!;
    expect(new Set(rows.slice(1).map((row) => row.split(',')[1])).size).toBe(12);
    expect(requestLines(placed, 'GET /v1/orders/').filter((line) => line.includes('/codes'))).toHaveLength(3);
    expect(journalFiles(configDir)).toEqual([]);

    const shown = await runCli(['order', 'show', orderId], withKey(server));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^status\\s+${spelled.completed}$`, 'm'));
    expect(shown.stdout).toMatch(/^quantity\s+12$/m);
    // `order show --json` prints the order as the API client read it (src/orders/present.ts printOrder, whatever
    // the dialect): the reading of this dialect's resource is checked on the client, against the same server, and
    // the verb ran above.
    expect(await clientOf(server.url).getOrder(orderId)).toMatchObject({
      id: orderId,
      status: spelled.completed,
      quantity: 12,
    });

    const again = join(tempDir(), 'codes.jsonl');
    const got = await runCli(['codes', 'get', orderId, '--wait', '--out', again], withKey(server));
    expect(got.code, got.stderr).toBe(0);
    const records = readFileSync(again, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { code: string });
    expect(records.map((r) => r.code)).toEqual(rows.slice(1).map((row) => row.split(',')[1]));
    const watched = join(tempDir(), 'watched.json');
    const watch = await runCli(['order', 'watch', orderId, '--out', watched, '--interval', '0.1'], withKey(server));
    expect(watch.code, watch.stderr).toBe(0);
    expect((JSON.parse(readFileSync(watched, 'utf8')) as unknown[]).length).toBe(12);
    expect((await ledger(server)).orders.filter((o) => o.order_id === orderId)).toHaveLength(1);
  });

  it('an unknown product: exit 4 with the status, the code and the message; nothing left pending', async () => {
    const configDir = tempDir();
    const result = await runCli(
      ['order', 'place', '--product', 'no-such-product', '--quantity', '1'],
      withKey(served.server, configDir),
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('HTTP 400 unknown_product: no product has the id "no-such-product"');
    expect(result.stderr).toMatch(/hint: list the products with: (GIFTCODES_CONFIG_DIR=\S+ )?giftcodes catalog list/);
    expect(journalFiles(configDir)).toEqual([]);
  });

  it('a key the service does not know: exit 3, HTTP 401 invalid_api_key and the message', async () => {
    const result = await runCli(['catalog', 'list'], {
      baseUrl: served.url,
      env: { GIFTCODES_API_KEY: 'sc_test_not_a_real_key_000000' },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('HTTP 401 invalid_api_key: the API key is not recognised');
    expect(result.stdout).toBe('');
  });

  it('an order that does not exist: exit 4, HTTP 404 order_not_found', async () => {
    const result = await runCli(['order', 'show', 'ord_nope'], withKey(served.server));
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('HTTP 404 order_not_found: no order with this id exists for this key');
  });
});

describe.each(DIALECTS)('never a silent partial result: serve --dialect %s --short-pages', (dialect) => {
  const served = servedApi(['--dialect', dialect, '--max-page', MAX_PAGE, '--fulfil-after', '0', '--short-pages']);
  // The codes get tests below read one order of 7 codes, placed once here: reading a list of codes changes nothing
  // on the server, so each meets the order as a fresh one would be. `recorded` holds this machine's record of it,
  // copied for the test that runs with one (its runs write to the record).
  let seven: string;
  let recorded: string;
  beforeAll(async () => {
    recorded = tempDir();
    seven = await placedSeven(served.server, recorded);
  });

  it('order place --out: exit 5 with the counts, and no codes file (nor a temporary one)', async () => {
    const dir = tempDir();
    const out = join(dir, 'codes.csv');
    const result = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '12', '--out', out, '--interval', '0.1'],
      withKey(served.server),
    );
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/12 codes but only 11 arrived/);
    expect(filesIn(dir)).toEqual([]);
  });

  it('codes get --out of a completed order: exit 5, no file', async () => {
    const id = seven;
    const dir = tempDir();
    const result = await runCli(
      ['codes', 'get', id, '--wait', '--out', join(dir, 'codes.json')],
      withKey(served.server),
    );
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/7 codes but only 6 arrived/);
    expect(filesIn(dir)).toEqual([]);
  });

  // Support staff, or a second machine: no record of the order here and no --wait, so only the order read from the
  // API says how many codes there are. It wrote 6 of 7 codes and said "✓ wrote 6 codes" (exit 0).
  it('codes get of an order this machine has no record of, without --wait: exit 5, no file', async () => {
    const id = seven;
    const dir = tempDir();
    const toFile = await runCli(['codes', 'get', id, '--out', join(dir, 'codes.csv')], withKey(served.server));
    expect(toFile.code, toFile.stderr).toBe(5);
    expect(toFile.stderr).toMatch(/7 codes but only 6 arrived/);
    expect(filesIn(dir)).toEqual([]);
    const toStdout = await runCli(['codes', 'get', id, '--format', 'jsonl'], withKey(served.server));
    // Standard output cannot take back the lines it was given: exit 5 says it is no complete export.
    expect(toStdout.code, toStdout.stderr).toBe(5);
    expect(toStdout.stderr).toMatch(/7 codes but only 6 arrived/);
  });

  // `codes get --format jsonl > codes.jsonl` streams what arrived before the list fell short (exit 5); run again as
  // `--out codes.jsonl`, the comparison with the file read the same short list and said "✓ codes.jsonl already holds
  // the 6 codes; left as it was", exit 0 (no stated total), or refused the file as existing (exit 2) where the API
  // states one, with or without a record of the order.
  it('codes get --out a file holding the codes a short list gave: exit 5, the file left as it was', async () => {
    const configDir = configCopy(recorded);
    const id = seven;
    const streamed = await runCli(['codes', 'get', id, '--format', 'jsonl'], withKey(served.server, configDir));
    expect(streamed.code, streamed.stderr).toBe(5);
    const out = join(tempDir(), 'codes.jsonl');
    writeFileSync(out, streamed.stdout);
    // Never "already holds": 6 lines are too few for the order's 7 codes, said before a page is fetched (exit 2; a
    // file that may hold them is compared whole, and the short list is then exit 5).
    for (const dir of [configDir, tempDir()]) {
      const again = await runCli(['codes', 'get', id, '--out', out], withKey(served.server, dir));
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain('exists and holds 6 lines, too few for the 7 codes of order');
      expect(readFileSync(out, 'utf8')).toBe(streamed.stdout);
    }
  });

  // Ours states no total for the catalog (openapi.yaml): there, only the order's quantity can tell.
  it.skipIf(dialect === 'ours')(
    'catalog list: the stated total is checked: exit 5, nothing printed, no completion cache',
    async () => {
      const configDir = tempDir();
      const result = await runCli(['catalog', 'list', '--json'], withKey(served.server, configDir));
      expect(result.code, result.stderr).toBe(5);
      expect(result.stderr).toContain('the API states 12 products but only 11 arrived');
      expect(result.stdout).toBe('');
      expect(readdirSync(configDir).filter((name) => name.startsWith('catalog-cache'))).toEqual([]);
    },
  );
});

describe.each(DIALECTS)("openapi.yaml's idempotency errors in the error dialect of serve --dialect %s", (dialect) => {
  // Each new order is held in progress until the test releases it: a second request with its key meets
  // request_in_progress however slow the machine is.
  const served = servedApi(['--dialect', dialect, '--hold', '600000', '--fulfil-after', '0']);

  it("409 request_in_progress is retried with the same key (one order), and the order it then meets is not taken as this run's; 422 idempotency_key_reused is refused at once", async () => {
    const { server } = served;
    const key = `dialect-${dialect}-${Date.now()}`;
    const args = [
      'order',
      'place',
      '--product',
      'amazon-us-10',
      '--quantity',
      '2',
      '--idempotency-key',
      key,
      '--json',
      '--verbose',
      '--retries',
      '10',
    ];
    const first = spawnCli(args, withKey(server));
    first.proc.stdin?.end();
    // The first request is held by the server; the second meets it in progress, and only then is it let go.
    await heldRequests(server);
    const later = spawnCli(args, withKey(server));
    later.proc.stdin?.end();
    await stderrShows(later.proc, 'POST /v1/orders 409 ');
    expect(await releaseHeld(server)).toBe(1);
    const second = await later.result;
    const firstRun = await first.result;
    expect(firstRun.code, firstRun.stderr).toBe(0);
    const posts = requestLines(second, 'POST /v1/orders');
    expect(posts[0]).toMatch(/^POST \/v1\/orders 409 /);
    expect(posts.at(-1)).toMatch(/^POST \/v1\/orders 20[12] /);
    // The second run (another config directory, the same key) sent nothing the API took up before the replay: the
    // order is the first run's, named, and not delivered a second time (docs/exactly-once.md).
    const { id } = JSON.parse(firstRun.stdout) as { id: string };
    expect(second.code).toBe(4);
    expect(JSON.parse(second.stderr.trimEnd().split('\n').at(-1)!)).toMatchObject({
      error: { code: 'order_placed_elsewhere', message: expect.stringContaining(`order ${id}`) },
    });
    expect(second.stdout).toBe('');
    expect((await ledger(server)).orders.filter((o) => o.idempotency_key === key)).toHaveLength(1);

    const reused = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '3', '--idempotency-key', key, '--verbose'],
      withKey(server),
    );
    expect(reused.code, reused.stderr).toBe(4);
    expect(reused.stderr).toContain('HTTP 422 idempotency_key_reused');
    expect(requestLines(reused, 'POST /v1/orders')).toHaveLength(1);
    expect((await ledger(server)).orders.filter((o) => o.idempotency_key === key)).toHaveLength(1);
  });
});

describe('header forms the reference server does not speak (a raw-socket server)', () => {
  let hostile: HostileServer;
  beforeAll(async () => {
    hostile = await startHostileServer(() => ({ kind: 'reset' }));
  });
  afterAll(() => hostile.close());

  const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
    jsonReply(value, status, headers);

  it('RFC 8288 Link header pagination, short of the order quantity: exit 5 with the counts, no file', async () => {
    hostile.plan = (request) => {
      if (request.path === '/v1/orders/ord_link')
        return json(200, { data: { id: 'ord_link', status: 'Complete', quantity: 5 } });
      if (request.path.startsWith('/v1/orders/ord_link/codes?') && !request.path.includes('page=2')) {
        return json(200, ['AAAA-1', 'AAAA-2'], { Link: '</v1/orders/ord_link/codes?page=2>; rel="next"' });
      }
      if (request.path === '/v1/orders/ord_link/codes?page=2') return json(200, ['AAAA-3', 'AAAA-4']);
      return json(404, { error: { code: 'not_found', message: request.path } });
    };
    const dir = tempDir();
    const result = await runCli(['codes', 'get', 'ord_link', '--wait', '--out', join(dir, 'codes.csv'), '--verbose'], {
      baseUrl: hostile.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toContain('the order is for 5 codes but only 4 arrived');
    expect(requestLines(result, 'GET /v1/orders/ord_link/codes')).toHaveLength(2);
    expect(filesIn(dir)).toEqual([]);
  });

  it('the same Link-header list, whole: plain-string codes become {code} records', async () => {
    hostile.plan = (request) => {
      if (request.path === '/v1/orders/ord_ok')
        return json(200, { order: { id: 'ord_ok', status: 'COMPLETED', quantity: '3' } });
      if (request.path.startsWith('/v1/orders/ord_ok/codes?') && !request.path.includes('page=2')) {
        return json(200, { codes: ['C-1', 'C-2'] }, { Link: '<?page=2>; rel="next"' });
      }
      if (request.path === '/v1/orders/ord_ok/codes?page=2') return json(200, { codes: ['C-3'] });
      return json(404, { error: { code: 'not_found', message: request.path } });
    };
    const out = join(tempDir(), 'codes.json');
    const result = await runCli(['codes', 'get', 'ord_ok', '--wait', '--out', out], {
      baseUrl: hostile.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([{ code: 'C-1' }, { code: 'C-2' }, { code: 'C-3' }]);
  });

  // The order is read for its quantity where no record knows it; a service whose keys may read codes but not orders,
  // or whose order path fails, exported the codes before that read and failed with it (a review).
  it.each([
    ['403', () => json(403, { error: { code: 'forbidden', message: 'this key may not read orders' } })],
    ['503', () => json(503, { error: { code: 'unavailable', message: 'try later' } })],
    [
      'an HTML page',
      () => ({
        kind: 'reply' as const,
        status: 200,
        headers: { 'Content-Type': 'text/html' },
        body: '<html>hi</html>',
      }),
    ],
  ])(
    'codes get with no record, the order read answering %s: the codes written, the quantity said unchecked',
    async (_, answer) => {
      hostile.plan = (request) => {
        if (request.path === '/v1/orders/ord_codes_only') return answer();
        if (request.path.startsWith('/v1/orders/ord_codes_only/codes'))
          return json(200, { data: [{ code: 'K-1' }, { code: 'K-2' }], has_more: false });
        return json(404, { error: { code: 'not_found', message: request.path } });
      };
      const out = join(tempDir(), 'codes.csv');
      const result = await runCli(['codes', 'get', 'ord_codes_only', '--out', out, '--retries', '0'], {
        baseUrl: hostile.url,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe('order_id,code\r\nord_codes_only,K-1\r\nord_codes_only,K-2\r\n');
      expect(unstamped(result.stderr)).toContain(
        'warning: the order ord_codes_only could not be read for its quantity (',
      );
      expect(result.stderr).toContain("its codes are checked against the API's own total only");
    },
  );

  it('a 429 whose X-RateLimit-Reset (epoch seconds) is beyond the retry budget: exit 5 at once, saying when the limit resets', async () => {
    hostile.requests.length = 0;
    const reset = Math.floor(Date.now() / 1000) + 600;
    hostile.plan = () => json(429, { message: 'slow down' }, { 'X-RateLimit-Reset': String(reset) });
    const result = await runCli(['ping'], { baseUrl: hostile.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('HTTP 429');
    expect(result.stderr).toMatch(/the rate limit resets at \d\d:\d\d:\d\d UTC \(in (59\d|600) s\)/);
    expect(hostile.requests).toHaveLength(1);
  });

  /** The first request a 429 with `headers`, the next one a ping's answer. */
  const limitedOnce = (headers: Record<string, string>): void => {
    hostile.requests.length = 0;
    hostile.plan = () =>
      hostile.requests.length === 1
        ? json(429, { error: 'rate_limited', message: 'wait' }, headers)
        : json(200, { status: 'ok', environment: 'sandbox', reseller_id: 'rs_x' });
  };

  // Each header form is read by the API client (src/api/retry.ts): it is checked there, against the same server, the
  // client given the CLI's retry policy and what --verbose prints; one run of the CLI shows the whole of it.
  it.each([
    ['X-RateLimit-Reset as seconds to wait', { 'X-RateLimit-Reset': '1' }],
    ["the IETF RateLimit header's t=", { RateLimit: '"default";r=0;t=1' }],
    ['RateLimit-Reset', { 'RateLimit-Reset': '1' }],
  ])('a 429 with %s is waited out and retried', async (_name, headers) => {
    limitedOnce(headers);
    const verbose: string[] = [];
    const api = clientOf(hostile.url, { retries: 5, log: (line) => verbose.push(line) });
    await expect(api.ping()).resolves.toMatchObject({ status: 'ok' });
    expect(verbose.join('\n')).toContain('retrying in 1.0s');
    expect(hostile.requests).toHaveLength(2);
  });

  it('a 429 waited out and retried by a run: exit 0, the wait in its --verbose lines', async () => {
    limitedOnce({ 'X-RateLimit-Reset': '1' });
    const result = await runCli(['ping', '--verbose'], {
      baseUrl: hostile.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('retrying in 1.0s');
    expect(hostile.requests).toHaveLength(2);
  });

  it('a service that refuses the page-size parameters (400) is asked once more without them', async () => {
    hostile.requests.length = 0;
    hostile.plan = (request) =>
      request.path.includes('?')
        ? json(400, { code: 'invalid_parameter', message: 'unknown parameter per_page' })
        : json(200, { products: [{ id: 'p1' }, { id: 'p2' }] });
    const result = await runCli(['catalog', 'list', '--json'], {
      baseUrl: hostile.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { id: string }[]).map((p) => p.id)).toEqual(['p1', 'p2']);
    expect(hostile.requests.map((r) => r.path)).toEqual([
      expect.stringMatching(/^\/v1\/catalog\?limit=1000&/),
      '/v1/catalog',
    ]);
  });

  it('202 Accepted naming the order without a status: in progress, then waited for to completion', async () => {
    hostile.requests.length = 0;
    hostile.plan = (request) => {
      if (request.method === 'POST') return json(202, { data: { type: 'orders', id: 'ord_acc', attributes: {} } });
      if (request.path === '/v1/orders/ord_acc') return json(200, { id: 'ord_acc', status: 'COMPLETE', quantity: 1 });
      return json(404, { error: { code: 'not_found', message: request.path } });
    };
    const configDir = tempDir();
    const result = await runCli(
      ['order', 'place', '--product', 'p1', '--quantity', '1', '--wait', '--interval', '0.1', '--json'],
      {
        configDir,
        baseUrl: hostile.url,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 'ord_acc', status: 'COMPLETE' });
    expect(hostile.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(journalFiles(configDir)).toEqual([]);
  });

  it('an environment name that is neither test nor live is shown with a warning, not refused', async () => {
    hostile.plan = () =>
      json(200, {
        data: { type: 'status', id: 'x', attributes: { status: 'ok', environment: 'staging', resellerId: 'rs_x' } },
      });
    const result = await runCli(['ping'], { baseUrl: hostile.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^environment\s+staging$/m);
    expect(result.stderr).toContain('warning: the API names the environment "staging", which is neither test nor live');
  });
});
