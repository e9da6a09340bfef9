// Every answer is read whole by undici's handler callbacks (Transport.requestWhole): an export's pages (ApiRequest.rawBody)
// and every other request, a plan's order POSTs among them. Each case here is sent both ways, to raw loopback servers
// of its own, and compared exactly: the answer read whole, and the same answer read as before requestWhole (routed to
// undici's request(): its body stream read to its end). Same status, headers and bytes, or the same error (code, exit
// code, message, notSent), and as many requests: chunks and a header sent twice after a 103, codings, cuts, deadlines,
// interrupts, the 32 MiB limit, errors, redirects, empty and close-delimited bodies, a 101, trailers, a CONNECT proxy
// and a kept-alive connection; the table's cases for a page and for an order's POST (its body and key sent alike).
import {
  createConnection,
  createServer as createNetServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../../src/api/client.js';
import type { WireResponse } from '../../src/api/transport.js';
import { isCliError } from '../../src/errors.js';

const KEY = 'sc_test_unit_0123456789ab';
const servers: Server[] = [];
const sockets = new Set<Socket>();

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

function listen(server: Server): Promise<string> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/**
 * A raw TCP server: `answer` gets the socket and the request's number (from 0) once a request's head has arrived.
 * `heads` are the heads of the requests as sent, the port in Host left out.
 */
async function rawServer(
  answer: (socket: Socket, n: number) => void,
): Promise<{ url: string; requests: () => number; heads: string[]; connections: () => number }> {
  let requests = 0;
  let connections = 0;
  const heads: string[] = [];
  const server = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        heads.push(port(head.slice(0, head.indexOf('\r\n\r\n'))));
        head = '';
        answer(socket, requests++);
      }
    });
    socket.on('error', () => undefined);
  });
  return { url: await listen(server), requests: () => requests, heads, connections: () => connections };
}

/** A proxy that opens CONNECT tunnels. */
async function connectProxy(): Promise<{ url: string; tunnels: () => number }> {
  let tunnels = 0;
  const server = createNetServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.once('data', (chunk: Buffer) => {
      const target = /^CONNECT ([^:]+):(\d+) /.exec(chunk.toString('latin1'));
      if (!target) return void client.destroy();
      tunnels++;
      const upstream = createConnection(Number(target[2]), target[1]!, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        client.pipe(upstream).pipe(client);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  return { url: await listen(server), tunnels: () => tunnels };
}

type Outcome =
  | { ok: ApiResponse['status']; headers: ApiResponse['headers']; text: string }
  | { code: string | undefined; exitCode: number; message: string; notSent: boolean | undefined };

interface Options {
  timeoutMs?: number;
  abortAfterMs?: number;
  env?: NodeJS.ProcessEnv;
  retries?: number;
}

function client(url: string, whole: boolean, options: Options, signal?: AbortSignal): ApiClient {
  const api = new ApiClient({
    baseUrl: url,
    apiKey: KEY,
    requestTimeoutMs: options.timeoutMs ?? 5_000,
    retry: { retries: options.retries ?? 1, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 10_000, maxRetryAfterMs: 1 },
    env: options.env ?? {},
    ...(signal ? { signal } : {}),
  });
  if (!whole) {
    // The way before requestWhole: undici's request() and its body stream, read to its end.
    const transport = (api as unknown as { transport: { request: (...args: unknown[]) => Promise<WireResponse> } })
      .transport;
    Object.assign(transport, {
      requestWhole: async (
        url: URL,
        wire: unknown,
        limit: number,
        tooLarge: () => Error,
        head?: (status: number) => void,
      ) => {
        const res = await transport.request(url, wire);
        // The status heard once the head is in, before the body is read (as the client did with request()).
        head?.(res.statusCode);
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > limit) {
            res.body.destroy();
            throw tooLarge();
          }
          chunks.push(chunk);
        }
        return { statusCode: res.statusCode, headers: res.headers, chunks, size, codings: res.codings };
      },
    });
  }
  return api;
}

const port = (text: string): string => text.replace(/127\.0\.0\.1:\d+/g, 'HOST');

/** What is asked: an export's page (its bytes handed over), or an order's POST (its answer parsed). */
type Kind = 'page' | 'order';
const KINDS: readonly Kind[] = ['page', 'order'];
const ORDER = JSON.stringify({ product_id: 'p-1', quantity: 2 });

async function page(api: ApiClient, kind: Kind = 'page'): Promise<Outcome> {
  try {
    const response =
      kind === 'page'
        ? await api.send({ method: 'GET', target: '/v1/things', rawBody: (size) => Buffer.alloc(size) })
        : await api.send({
            method: 'POST',
            target: '/v1/orders',
            body: ORDER,
            headers: { 'content-type': 'application/json', 'idempotency-key': 'plan-0123456789ab0123456789ab' },
          });
    const { date: _date, ...headers } = response.headers;
    const text = kind === 'page' ? response.bytes!.toString('utf8') : JSON.stringify(response.body);
    // A long body by its length: a failed comparison would print it whole (33 MiB, for the limit's case).
    return { ok: response.status, headers, text: text.length > 1000 ? `${text.length} characters` : text };
  } catch (error) {
    if (!isCliError(error)) throw error;
    return { code: error.code, exitCode: error.exitCode, message: port(error.message), notSent: error.notSent };
  }
}

async function outcome(url: string, whole: boolean, options: Options = {}, kind: Kind = 'page'): Promise<Outcome> {
  const controller = new AbortController();
  const api = client(url, whole, options, controller.signal);
  const timer =
    options.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), options.abortAfterMs);
  try {
    return await page(api, kind);
  } finally {
    clearTimeout(timer);
    await api.close();
  }
}

/** The case read through the stream, then whole, each from a server of its own. */
async function bothWays(
  answer: (socket: Socket, n: number) => void,
  options?: Options,
  kind: Kind = 'page',
): Promise<{ streamed: Outcome; whole: Outcome; requests: [number, number]; heads: [string[], string[]] }> {
  const a = await rawServer(answer);
  const b = await rawServer(answer);
  const streamed = await outcome(a.url, false, options, kind);
  const whole = await outcome(b.url, true, options, kind);
  return { streamed, whole, requests: [a.requests(), b.requests()], heads: [a.heads, b.heads] };
}

const BODY = JSON.stringify({ data: [{ code: 'ABC-1' }, { code: 'ABC-2' }], has_more: false });
const ok = (body: string | Buffer, head = ''): string =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${head}content-length: ${body.length}\r\n\r\n`;

describe('a page read whole ends as the same page read through the stream', () => {
  const cases: [string, (socket: Socket, n: number) => void, Options?][] = [
    [
      'a 302 to another host',
      (s) => s.write('HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:1/v1/x\r\ncontent-length: 0\r\n\r\n'),
    ],
    [
      'a 301 with a body',
      (s) => s.write('HTTP/1.1 301 Moved\r\nlocation: /api/v1/things\r\ncontent-length: 2\r\n\r\n{}'),
    ],
    ['a 204', (s) => s.write('HTTP/1.1 204 No Content\r\n\r\n')],
    ['a body up to the connection’s close', (s) => s.end(`HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n${BODY}`)],
    [
      'chunks cut, Connection: close',
      (s) => s.end('HTTP/1.1 200 OK\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"dat\r\n'),
    ],
    [
      'a Content-Length longer than the body, then close',
      (s) => s.end(`${ok(`${BODY}12345`, 'connection: close\r\n')}${BODY}`),
    ],
    ['a 101 to a GET', (s) => s.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n')],
    ['a 100 before the 200', (s) => s.write(`HTTP/1.1 100 Continue\r\n\r\n${ok(BODY)}${BODY}`)],
    [
      'trailers',
      (s) =>
        s.write(
          `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: x-t\r\n\r\n${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\nx-t: 1\r\n\r\n`,
        ),
    ],
    ['a corrupt gzip body', (s) => s.write(`${ok('0123456789', 'content-encoding: gzip\r\n')}0123456789`)],
    ['closed unanswered', (s) => s.destroy()],
    ['a header with a bare CR', (s) => s.write('HTTP/1.1 200 OK\r\nx: a\rb\r\ncontent-length: 2\r\n\r\n{}')],
    [
      'a 503, then the page',
      (s, n) => s.write(n === 0 ? 'HTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n' : `${ok(BODY)}${BODY}`),
    ],
    // The adversarial review's cases (helper adv16): what comes after a complete answer is nobody's error; a refusal
    // known at the head of an answer whose end is in the same packet; a header name that is no plain key.
    [
      'answered whole, then reset',
      (s) => s.write(`${ok(BODY)}${BODY}`, () => setTimeout(() => s.resetAndDestroy(), 20)),
    ],
    ['answered whole, then bytes that are no answer', (s) => s.write(`${ok(BODY)}${BODY}HTTP/1.1 999 X\r\n\r\n`)],
    [
      'a coding this client cannot decode, an empty body, Connection: close',
      (s) => s.end('HTTP/1.1 200 OK\r\ncontent-encoding: compress\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'),
    ],
    ['a header named __proto__', (s) => s.write(`${ok(BODY, '__proto__: x\r\n')}${BODY}`)],
    [
      'a 429 with Retry-After, then the page',
      (s, n) =>
        s.write(
          n === 0 ? 'HTTP/1.1 429 Too Many\r\nretry-after: 0\r\ncontent-length: 0\r\n\r\n' : `${ok(BODY)}${BODY}`,
        ),
    ],
    ['no answer: interrupted', () => undefined, { abortAfterMs: 150 }],
    ['no answer: the deadline', () => undefined, { timeoutMs: 200 }],
  ];
  for (const kind of KINDS)
    for (const [name, answer, options] of cases)
      it(`${name} (${kind === 'page' ? 'a page' : "an order's POST"})`, async () => {
        const { streamed, whole, requests, heads } = await bothWays(answer, options, kind);
        expect(whole).toEqual(streamed);
        expect(requests[1]).toBe(requests[0]);
        // The same request, byte for byte: the key, the codings it accepts, the rest of the headers.
        expect(heads[1]).toEqual(heads[0]);
        const line = kind === 'page' ? 'GET \\/v1\\/things' : 'POST \\/v1\\/orders';
        if (requests[0] > 0)
          expect(heads[1][0]).toMatch(
            new RegExp(`^${line} HTTP/1\\.1\\r\\n[^]*\\r\\nx-api-key: sc_test_unit_0123456789ab\\r\\n`),
          );
        if (requests[0] > 0) expect(heads[1][0]).toMatch(/accept-encoding: gzip, br/i);
        if (requests[0] > 0 && kind === 'order') {
          expect(heads[1][0]).toMatch(/\r\nidempotency-key: plan-0123456789ab0123456789ab\r\n/i);
          expect(heads[1][0]).toMatch(new RegExp(`\\r\\ncontent-length: ${ORDER.length}(\\r\\n|$)`, 'i'));
        }
      });

  it('deflate, br, and gzip then br: the same bytes', async () => {
    for (const [coding, coded] of [
      ['deflate', deflateSync(BODY)],
      ['br', brotliCompressSync(BODY)],
      ['gzip, br', brotliCompressSync(gzipSync(BODY))],
    ] as const) {
      const { streamed, whole } = await bothWays((s) =>
        s.write(Buffer.concat([Buffer.from(ok(coded, `content-encoding: ${coding}\r\n`)), coded])),
      );
      expect(whole).toEqual(streamed);
      expect(whole).toMatchObject({ text: BODY });
    }
  });

  it('nothing listening: the same refusal, notSent', async () => {
    const whole = await outcome('http://127.0.0.1:1', true);
    expect(whole).toEqual(await outcome('http://127.0.0.1:1', false));
    expect(whole).toMatchObject({ notSent: true });
  });

  it('through a CONNECT proxy: a page, a cut page, and an origin the proxy cannot reach', async () => {
    const proxy = await connectProxy();
    const env = { HTTP_PROXY: proxy.url };
    const page = await bothWays((s) => s.write(`${ok(BODY)}${BODY}`), { env });
    expect(page.whole).toEqual(page.streamed);
    expect(page.whole).toMatchObject({ ok: 200, text: BODY });
    const cut = await bothWays((s) => s.end(`${ok(BODY)}${BODY.slice(0, 9)}`), { env });
    expect(cut.whole).toEqual(cut.streamed);
    expect(cut.whole).toMatchObject({ notSent: false });
    const refused = await outcome('http://127.0.0.1:1', true, { env });
    expect(refused).toEqual(await outcome('http://127.0.0.1:1', false, { env }));
    expect(proxy.tunnels()).toBeGreaterThanOrEqual(8);
  });

  it('one client: a page that timed out mid-body, then pages one by one and four at once', async () => {
    const run = async (whole: boolean): Promise<{ pages: Outcome[]; requests: number }> => {
      const server = await rawServer((s, n) =>
        s.write(n === 0 ? `${ok(BODY)}${BODY.slice(0, 5)}` : `${ok(BODY)}${BODY}`),
      );
      const api = client(server.url, whole, { timeoutMs: 200, retries: 0 });
      try {
        const pages = [await page(api), await page(api), await page(api)];
        pages.push(...(await Promise.all([page(api), page(api), page(api), page(api)])));
        return { pages, requests: server.requests() };
      } finally {
        await api.close();
      }
    };
    const streamed = await run(false);
    expect(await run(true)).toEqual(streamed);
    expect(streamed.pages.slice(1).every((p) => 'ok' in p)).toBe(true);
  });
});

describe('a page read whole ends as the same page read through the stream: chunks, codings, cuts, deadlines, limits', () => {
  it('a 200 in chunks, with a header sent twice and one after a 103 Early Hints: the same headers and bytes', async () => {
    const { streamed, whole } = await bothWays((socket: Socket) => {
      socket.write('HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n');
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-twice: one\r\nX-Twice: two\r\ntransfer-encoding: chunked\r\n\r\n',
      );
      const half = BODY.length >> 1;
      socket.write(`${half.toString(16)}\r\n${BODY.slice(0, half)}\r\n`);
      setTimeout(() => socket.write(`${(BODY.length - half).toString(16)}\r\n${BODY.slice(half)}\r\n0\r\n\r\n`), 20);
    });
    expect(whole).toEqual(streamed);
    expect(whole).toMatchObject({ text: BODY });
    expect(streamed).toMatchObject({ ok: 200, headers: { 'x-twice': 'one, two' } });
  });

  it('a gzipped 200: the same decoded bytes', async () => {
    const coded = gzipSync(BODY);
    const { streamed, whole } = await bothWays((socket: Socket) => {
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${coded.length}\r\n\r\n`,
      );
      socket.write(coded);
    });
    expect(whole).toEqual(streamed);
    expect(whole).toMatchObject({ text: BODY });
  });

  it('a connection closed halfway through the body: the same error, retried alike, not notSent', async () => {
    const { streamed, whole, requests } = await bothWays((socket: Socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n`);
      socket.end(BODY.slice(0, 10));
    });
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ notSent: false });
    expect(requests[1]).toBe(requests[0]);
  });

  it('a body that stops coming: the same timeout at the attempt deadline', async () => {
    const { streamed, whole, requests } = await bothWays(
      (socket: Socket) => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n`);
        socket.write(BODY.slice(0, 10));
      },
      { timeoutMs: 300 },
    );
    expect(whole).toEqual(streamed);
    expect('code' in streamed && streamed.code).toBeTruthy();
    expect(requests[1]).toBe(requests[0]);
  });

  it('interrupted while the body is arriving: the same interruption', async () => {
    const { streamed, whole } = await bothWays(
      (socket: Socket) => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n`);
        socket.write(BODY.slice(0, 10));
      },
      { abortAfterMs: 200 },
    );
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ code: 'interrupted' });
  });

  it('a coding this client cannot decode: the same refusal', async () => {
    const { streamed, whole } = await bothWays((socket: Socket) => {
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: zstd\r\ncontent-length: ${BODY.length}\r\n\r\n`,
      );
      socket.write(BODY);
    });
    expect(whole).toEqual(streamed);
    expect('code' in streamed).toBe(true);
  });

  it('a body larger than 32 MiB: the same refusal, response_too_large', async () => {
    const size = 33 * 1024 * 1024;
    const block = Buffer.alloc(1024 * 1024, 0x20);
    const { streamed, whole } = await bothWays((socket: Socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`);
      for (let sent = 0; sent < size && !socket.destroyed; sent += block.length) socket.write(block);
    });
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ code: 'response_too_large' });
  });

  it('a 404 with a JSON error: the same error, its message from the body', async () => {
    const error = JSON.stringify({ error: { code: 'not_found', message: 'no such thing' } });
    const { streamed, whole } = await bothWays((socket: Socket) => {
      socket.write(
        `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${error.length}\r\n\r\n`,
      );
      socket.write(error);
    });
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ exitCode: 4 });
  });

  // Refused from inside undici's parser with the answer's end in the same read, the request was aborted there, and
  // undici kept it at its queue's head and opened a second connection to throw it away (an adversarial review).
  it('a coding refused with the whole answer in one read: no connection opened to throw the request away', async () => {
    const refusal =
      'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-encoding: compress\r\ncontent-length: 2\r\n\r\n{}';
    const seen: { connections: number; requests: number; outcomes: Outcome[] }[] = [];
    for (const whole of [false, true]) {
      const server = await rawServer((socket, n) => socket.write(n === 0 ? refusal : `${ok(BODY)}${BODY}`));
      const api = client(server.url, whole, {});
      const outcomes = [await page(api, 'order'), await page(api, 'order')];
      await api.close();
      seen.push({ connections: server.connections(), requests: server.requests(), outcomes });
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({
      requests: 2,
      outcomes: [{ exitCode: expect.any(Number) }, { ok: 200 }],
    });
  });
});
