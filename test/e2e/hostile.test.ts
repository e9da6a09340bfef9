// The built CLI against a hostile or odd API (a tiny node:http server started here): every answer it cannot
// use ends with one line and an exit code, never a hang, a stack trace or the key sent somewhere else.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, runCli, type RunResult, unstamped } from '../helpers/e2e.js';

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  type = 'application/json',
): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body));
}

/** Each scenario is a base URL prefix: `http://127.0.0.1:<port>/<scenario>` then the API path. */
const scenarios: Record<string, Handler> = {
  'not-json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html><body>definitely not json</body></html>');
  },
  'wrong-shape': (_req, res) => json(res, 200, { hello: 'world', count: 3 }),
  'products-without-id': (_req, res) => json(res, 200, { data: [{ name: 'nameless' }] }),
  'link-pages': (_req, res, url) => {
    const page = Number(url.searchParams.get('page') ?? '1');
    const headers: Record<string, string> =
      page < 3
        ? {
            link: `<${url.pathname}?page=1>; rel="first", <${url.pathname}?page=${page + 1}>; rel="next", <${url.pathname}?page=3>; rel="last"`,
          }
        : {};
    json(
      res,
      200,
      {
        items: [
          { id: `page${page}-a`, name: `Product ${page}a` },
          { id: `page${page}-b`, name: `Product ${page}b` },
        ],
      },
      headers,
    );
  },
  'error-string': (_req, res) =>
    json(res, 422, { error: 'unknown_product', message: 'there is no product called nope' }),
  problem: (_req, res) =>
    json(
      res,
      404,
      {
        type: 'https://errors.example.com/catalog-not-found',
        title: 'Catalog not found',
        status: 404,
        detail: 'this reseller has no catalog',
      },
      {},
      'application/problem+json',
    ),
  'text-500': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('upstream exploded\n    at Object.<anonymous> (/srv/app.js:1:1)\n');
  },
  'next-loop': (_req, res, url) => {
    // page 1 → page 2 → page 1 → …
    const page = url.searchParams.get('page') === '2' ? '2' : '1';
    json(res, 200, { data: [{ id: `p${page}` }], next: `${url.pathname}?page=${page === '1' ? '2' : '1'}` });
  },
  'next-self': (_req, res, url) =>
    json(res, 200, { data: [{ id: 'same' }], has_more: true, next_cursor: 'always-the-same', url: url.toString() }),
  'next-endless-empty': (_req, res, url) => {
    hits.endless++;
    json(res, 200, { data: [], next: `${url.pathname}?n=${hits.endless}` });
  },
  redirect: (_req, res, url) => {
    hits.redirect++;
    res.writeHead(302, { location: `${url.pathname}?r=${hits.redirect}` });
    res.end();
  },
  // A redirect to the API's own path on another base, as a moved API answers: the hint names that base.
  moved: (_req, res, url) => {
    res.writeHead(302, { location: `http://127.0.0.1:4010${url.pathname.slice('/moved'.length)}${url.search}` });
    res.end();
  },
  'foreign-next': (_req, res) =>
    json(res, 200, { data: [{ id: 'first' }], next: `http://localhost:${foreignPort}/v1/catalog?page=2` }),
  'ping-wrong-shape': (_req, res) => json(res, 200, { ok: true }),
};

const hits = { endless: 0, redirect: 0, foreign: 0 };
let server: Server;
let foreign: Server;
let base: string;
let foreignPort: number;

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const s = createServer(handler);
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

beforeAll(async () => {
  server = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, scenario = ''] = url.pathname.split('/');
    const handler = scenarios[scenario];
    if (handler) handler(req, res, url);
    else json(res, 404, { error: { code: 'no_scenario', message: scenario } });
  });
  foreign = await listen((_req, res) => {
    hits.foreign++;
    json(res, 200, { data: [{ id: 'stolen' }] });
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  foreignPort = (foreign.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  foreign.closeAllConnections();
  await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => foreign.close(r))]);
});

function cli(scenario: string, args: string[]): Promise<RunResult> {
  return runCli([...args, '--retries', '1', '--request-timeout', '2'], {
    baseUrl: `${base}/${scenario}`,
    env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    timeoutMs: 120_000,
  });
}

/** With --quiet the hint joins the error line: exactly one line, and never a stack trace. */
function expectOneLine(result: RunResult): string {
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toMatch(/TypeError|ReferenceError|Unhandled|node:internal/);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^[\dT:.Z-]+ error: /);
  expect(result.stdout).toBe('');
  return unstamped(lines[0]!);
}

function jsonError(result: RunResult): { code: string; message: string; exitCode: number; status?: number } {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]!) as {
    error: { code: string; message: string; exitCode: number; status?: number };
  };
  expect(parsed.error.exitCode).toBe(result.code);
  return parsed.error;
}

describe('garbage is exit 5, one line, no stack trace', () => {
  it('a 200 that is not JSON', async () => {
    const result = await cli('not-json', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain('HTTP 200 with a body that cannot be understood (not JSON)');
  });

  it('a 200 that is JSON of the wrong shape (catalog)', async () => {
    const result = await cli('wrong-shape', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain('no list in the body');
  });

  it('a 200 that is JSON of the wrong shape (ping)', async () => {
    const result = await cli('ping-wrong-shape', ['ping', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain('GET /v1/ping');
  });

  it('products without an id', async () => {
    const result = await cli('products-without-id', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain('a product without an id');
  });

  it('the same in --json mode: one JSON object on stderr', async () => {
    const result = await cli('not-json', ['catalog', 'list', '--json']);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(jsonError(result)).toMatchObject({ code: 'invalid_response', exitCode: 5, status: 200 });
  });
});

describe('Link header pagination with {"items": […]}', () => {
  it('reads all three pages', async () => {
    const result = await cli('link-pages', ['catalog', 'list', '--json']);
    expect(result.code).toBe(0);
    const ids = (JSON.parse(result.stdout) as { id: string }[]).map((p) => p.id);
    expect(ids).toEqual(['page1-a', 'page1-b', 'page2-a', 'page2-b', 'page3-a', 'page3-b']);
  });

  it('as a table too', async () => {
    const result = await cli('link-pages', ['catalog', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ID\s+NAME/);
    expect(result.stdout).toContain('page3-b');
    expect(result.stdout).toContain('Product 3b');
  });
});

describe('error bodies: the status, the code and the message are shown', () => {
  it('{"error":"code","message"} on a 4xx is exit 4', async () => {
    const result = await cli('error-string', ['catalog', 'list', '-q']);
    expect(result.code).toBe(4);
    // Under --quiet the hint joins the one line, in parentheses.
    expect(expectOneLine(result)).toBe(
      `error: GET /error-string/v1/catalog failed: HTTP 422 unknown_product: there is no product called nope (list the products with: GIFTCODES_CONFIG_DIR=${result.configDir} giftcodes catalog list)`,
    );
  });

  it('application/problem+json 404 is exit 4', async () => {
    const result = await cli('problem', ['catalog', 'list', '--json']);
    expect(result.code).toBe(4);
    expect(jsonError(result)).toMatchObject({
      code: 'catalog-not-found',
      status: 404,
      exitCode: 4,
      message: expect.stringContaining('this reseller has no catalog'),
    });
  });

  it("a plain-text 500 is retried, then exit 5 with its first line (and no stack of the server's)", async () => {
    const result = await cli('text-500', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    const line = expectOneLine(result);
    expect(line).toContain('HTTP 500 http_500: upstream exploded');
    expect(line).toContain('after 2 attempts');
  });
});

describe('pagination that would never end, or leave the host', () => {
  it('a `next` loop between two pages is an error, not a hang', async () => {
    const result = await cli('next-loop', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain('loops back to a page already read');
  });

  it('a cursor that names the same page again is an error', async () => {
    const result = await cli('next-self', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain('loops back');
  });

  it('endless empty pages, each with a new `next`, end with an error after a bounded number of requests', async () => {
    hits.endless = 0;
    const result = await cli('next-endless-empty', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain('empty pages in a row');
    expect(hits.endless).toBeLessThanOrEqual(50);
  });

  it('a redirect is not followed: exit 5, naming where it pointed', async () => {
    hits.redirect = 0;
    const result = await cli('redirect', ['catalog', 'list']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('HTTP 302');
    expect(result.stderr).toContain('a redirect to /redirect/v1/catalog?r=1, not followed');
    expect(result.stderr).toMatch(/hint: if http:\/\/127\.0\.0\.1:\d+\/redirect is the API, use it as/);
    expect(hits.redirect).toBe(1);
  });

  it("a redirect's hint names the base it points to, without the path and query the client added", async () => {
    for (const args of [['ping'], ['catalog', 'list']]) {
      const result = await cli('moved', args);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain('hint: if http://127.0.0.1:4010 is the API, use it as GIFTCODES_BASE_URL');
    }
  });

  it('a `next` URL on another host is refused before the key is sent there', async () => {
    hits.foreign = 0;
    const result = await cli('foreign-next', ['catalog', 'list', '-q']);
    expect(result.code).toBe(5);
    expect(expectOneLine(result)).toContain(`another host (localhost:${foreignPort}); refusing to send the key there`);
    expect(hits.foreign).toBe(0);
  });
});
