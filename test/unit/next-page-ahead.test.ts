// The next page of codes is asked for before the current one is read (src/api/ahead.ts): its URL is guessed
// from the members after the records, the page's own envelope still decides, and a wrong guess is dropped.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guessNextPage, tailMembers } from '../../src/api/ahead.js';
import { ApiClient } from '../../src/api/client.js';
import { LIST_KEYS } from '../../src/api/pagination.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import { PageScanner, type ScannedPage } from '../../src/export/scan.js';
import { until } from '../helpers/e2e.js';

const here = new URL('https://api.example.com/v1/orders/ord_1/codes?limit=1000');
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('tailMembers: the members after the records, read from the end', () => {
  it('reads the documented envelope', () => {
    expect(tailMembers(bytes('{"object":"list","data":[{"code":"A"}],"has_more":true,"next_cursor":"Y29k"}'))).toBe(
      '{"has_more":true,"next_cursor":"Y29k"}',
    );
  });

  it('reads whitespace, numbers, null and a string with escaped quotes and backslashes', () => {
    const text = '{ "data" : [ {"code":"A"} ] ,\n "total" : 12.5e3 , "prev" : null, "next_cursor" : "a\\"b\\\\" \n}\n';
    expect(JSON.parse(tailMembers(bytes(text)) ?? 'null')).toEqual({ total: 12500, prev: null, next_cursor: 'a"b\\' });
  });

  it.each([
    ['nothing after the array', '{"has_more":true,"data":[{"code":"A"}]}'],
    ['an object after the array', '{"data":[],"meta":{"next_cursor":"x"}}'],
    ['no array at all', '{"has_more":true,"next_cursor":"x"}'],
    ['a bare array', '[{"code":"A"}]'],
    ['a body cut short', '{"data":[],"next_cursor":"x'],
    ['an empty body', ''],
  ])('gives up on %s', (_name, text) => {
    expect(tailMembers(bytes(text))).toBeUndefined();
  });
});

describe('guessNextPage', () => {
  it('sets the cursor, as the envelope would', () => {
    expect(
      guessNextPage(bytes('{"data":[{"code":"A"}],"has_more":true,"next_cursor":"c2"}'), undefined, here)?.toString(),
    ).toBe('https://api.example.com/v1/orders/ord_1/codes?limit=1000&cursor=c2');
  });

  it.each([
    ['the last page', '{"data":[{"code":"A"}],"has_more":false,"next_cursor":null}'],
    ['has_more without a cursor', '{"data":[{"code":"A"}],"has_more":true}'],
    ['a cursor without has_more', '{"data":[{"code":"A"}],"next_cursor":"c2"}'],
    ['a tail that is not JSON', '{"data":[{"code":"A"}],"has_more":tru,"next_cursor":"c2"}'],
  ])('makes no guess on %s', (_name, text) => {
    expect(guessNextPage(bytes(text), undefined, here)).toBeUndefined();
  });
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves `pages` by cursor ('' is the first); each request's cursor is logged. */
async function serve(pages: Record<string, string>): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  server = createServer((req, res) => {
    const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor') ?? '';
    asked.push(cursor);
    const page = pages[cursor];
    res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(page ?? '{"error":{"code":"not_found","message":"no such page"}}');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server?.address() as AddressInfo).port}`, asked };
}

const page = (codes: string[], tail: string, head = ''): string =>
  `{"object":"list",${head}"data":[${codes.map((code) => `{"code":"${code}","pin":"1"}`).join(',')}],${tail}}`;

async function read(
  url: string,
  onPage: (page: ScannedPage, codes: string[]) => Promise<void>,
  log?: (line: string) => void,
): Promise<string[]> {
  const api = new ApiClient({
    baseUrl: url,
    apiKey: 'sc_test_demo_4f3c9a1b7e2d',
    requestTimeoutMs: 5000,
    retry: { ...DEFAULT_RETRY_POLICY, retries: 0 },
    ...(log ? { log } : {}),
  });
  const scanner = new PageScanner([...LIST_KEYS, 'codes']);
  const seen: string[] = [];
  try {
    for await (const got of api.rawCodePages('ord_1', undefined, {
      read: (b) => scanner.scan(b),
      buffer: (size) => scanner.buffer(size),
      release: (b) => scanner.release(b),
    })) {
      if (Array.isArray(got)) throw new Error('a page went through JSON.parse');
      const codes: string[] = [];
      for (let r = 0; r < got.count; r++)
        codes.push(got.bytes.toString('utf8', got.values[r * 6 + 1], got.values[r * 6 + 2]));
      seen.push(...codes);
      await onPage(got, codes);
      scanner.releasePage(got);
    }
  } finally {
    await api.close();
  }
  return seen;
}

describe('the next page of codes, asked for ahead', () => {
  it('is on its way before the current page is handed over, and asked for once', async () => {
    const { url, asked } = await serve({
      '': page(['A1', 'A2'], '"has_more":true,"next_cursor":"p2"'),
      p2: page(['B1'], '"has_more":true,"next_cursor":"p3"'),
      p3: page(['C1'], '"has_more":false,"next_cursor":null'),
    });
    let handedOver = 0;
    const codes = await read(url, async () => {
      handedOver++;
      // Nothing has asked the generator for its next page yet: only a request sent ahead reaches the server.
      if (handedOver === 1) await until(() => (asked.includes('p2') ? true : undefined), 2000);
    });
    expect(codes).toEqual(['A1', 'A2', 'B1', 'C1']);
    expect(asked).toEqual(['', 'p2', 'p3']);
  });

  it('follows the envelope, not a wrong guess, and stops guessing after one', async () => {
    // A `next` field before the records wins over next_cursor (nextPageUrl): the tail alone guesses wrong.
    const { url, asked } = await serve({
      '': page(['A1'], '"has_more":true,"next_cursor":"wrong1"', '"next":"/v1/orders/ord_1/codes?cursor=p2",'),
      p2: page(['B1'], '"has_more":true,"next_cursor":"wrong2"', '"next":"/v1/orders/ord_1/codes?cursor=p3",'),
      p3: page(['C1'], '"has_more":false,"next_cursor":null'),
      wrong1: page(['X1'], '"has_more":false,"next_cursor":null'),
      wrong2: page(['X2'], '"has_more":false,"next_cursor":null'),
    });
    const codes = await read(url, async () => undefined);
    expect(codes).toEqual(['A1', 'B1', 'C1']);
    expect(asked.filter((cursor) => cursor !== 'wrong1')).toEqual(['', 'p2', 'p3']);
    expect(asked).not.toContain('wrong2');
  });

  it('names each page in -v lines without the page-size parameters it adds, the cursor kept', async () => {
    const { url } = await serve({
      '': page(['A1'], '"has_more":true,"next_cursor":"p/2+"'),
      'p/2+': page(['B1'], '"has_more":false,"next_cursor":null'),
    });
    const lines: string[] = [];
    expect(
      await read(
        url,
        async () => undefined,
        (line) => lines.push(line),
      ),
    ).toEqual(['A1', 'B1']);
    expect(lines.filter((line) => line.startsWith('GET ')).map((line) => line.replace(/ \d+ms /, ' '))).toEqual([
      'GET /v1/orders/ord_1/codes 200 attempt 1/1',
      'GET /v1/orders/ord_1/codes?cursor=p%2F2%2B 200 attempt 1/1',
    ]);
  });
});
