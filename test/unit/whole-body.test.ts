// An export's pages (ApiRequest.rawBody) are read whole by undici's handler callbacks (Transport.requestWhole), every
// other answer through undici's request() and its body stream. Each case here is sent both ways, to the same raw
// loopback server, and must end the same: the same status, headers and bytes, or the same error (code, exit code,
// message, notSent, retried as often).
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../../src/api/client.js';
import { isCliError } from '../../src/errors.js';

const KEY = 'sc_test_unit_0123456789ab';
const servers: Server[] = [];
const sockets = new Set<Socket>();

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A raw TCP server: `answer` gets the socket once a request's head has arrived. */
async function rawServer(answer: (socket: Socket) => void): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        head = '';
        requests++;
        answer(socket);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

type Outcome =
  | { ok: ApiResponse['status']; headers: ApiResponse['headers']; text: string }
  | { code: string | undefined; exitCode: number; message: string; notSent: boolean | undefined };

/** One GET of `path`, its body as bytes (rawBody: read whole) or parsed (streamed), and how it ended. */
async function outcome(
  url: string,
  rawBody: boolean,
  options: { timeoutMs?: number; abortAfterMs?: number } = {},
): Promise<Outcome> {
  const controller = new AbortController();
  const api = new ApiClient({
    baseUrl: url,
    apiKey: KEY,
    requestTimeoutMs: options.timeoutMs ?? 5_000,
    retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 10_000, maxRetryAfterMs: 1 },
    signal: controller.signal,
  });
  const timer =
    options.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), options.abortAfterMs);
  try {
    const response = await api.send({
      method: 'GET',
      target: '/v1/things',
      ...(rawBody ? { rawBody: (size: number) => Buffer.alloc(size) } : {}),
    });
    const { date: _date, ...headers } = response.headers;
    const text = rawBody ? response.bytes!.toString('utf8') : JSON.stringify(response.body);
    // A long body by its length: a failed comparison would print it whole.
    return { ok: response.status, headers, text: text.length > 1000 ? `${text.length} characters` : text };
  } catch (error) {
    if (!isCliError(error)) throw error;
    return { code: error.code, exitCode: error.exitCode, message: error.message, notSent: error.notSent };
  } finally {
    clearTimeout(timer);
    await api.close();
  }
}

/** The case sent streamed, then read whole, each to a server of its own: both outcomes and request counts. */
async function bothWays(
  answer: (socket: Socket) => void,
  options?: { timeoutMs?: number; abortAfterMs?: number },
): Promise<{ streamed: Outcome; whole: Outcome; requests: [number, number] }> {
  const a = await rawServer(answer);
  const b = await rawServer(answer);
  const streamed = await outcome(a.url, false, options);
  const whole = await outcome(b.url, true, options);
  // The port differs between the two servers, and so does any message that names it.
  const strip = (o: Outcome): Outcome =>
    'message' in o ? { ...o, message: o.message.replace(/127\.0\.0\.1:\d+/g, 'HOST') } : o;
  return { streamed: strip(streamed), whole: strip(whole), requests: [a.requests(), b.requests()] };
}

const BODY = JSON.stringify({ data: [{ code: 'ABC-1' }, { code: 'ABC-2' }], has_more: false });

describe('a body read whole (an export page) ends as the same body read as a stream', () => {
  it('a 200 in chunks, with a header sent twice and one after a 103 Early Hints: the same headers and bytes', async () => {
    const { streamed, whole } = await bothWays((socket) => {
      socket.write('HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n');
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-twice: one\r\nX-Twice: two\r\ntransfer-encoding: chunked\r\n\r\n',
      );
      const half = BODY.length >> 1;
      socket.write(`${half.toString(16)}\r\n${BODY.slice(0, half)}\r\n`);
      setTimeout(() => socket.write(`${(BODY.length - half).toString(16)}\r\n${BODY.slice(half)}\r\n0\r\n\r\n`), 20);
    });
    expect(whole).toEqual({ ...streamed, text: BODY });
    expect(streamed).toMatchObject({ ok: 200, headers: { 'x-twice': 'one, two' } });
  });

  it('a gzipped 200: the same decoded bytes', async () => {
    const coded = gzipSync(BODY);
    const { streamed, whole } = await bothWays((socket) => {
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${coded.length}\r\n\r\n`,
      );
      socket.write(coded);
    });
    expect(whole).toEqual({ ...streamed, text: BODY });
  });

  it('a connection closed halfway through the body: the same error, retried alike, not notSent', async () => {
    const { streamed, whole, requests } = await bothWays((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n`);
      socket.end(BODY.slice(0, 10));
    });
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ notSent: false });
    expect(requests[1]).toBe(requests[0]);
  });

  it('a body that stops coming: the same timeout at the attempt deadline', async () => {
    const { streamed, whole, requests } = await bothWays(
      (socket) => {
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
      (socket) => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n`);
        socket.write(BODY.slice(0, 10));
      },
      { abortAfterMs: 200 },
    );
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ code: 'interrupted' });
  });

  it('a coding this client cannot decode: the same refusal', async () => {
    const { streamed, whole } = await bothWays((socket) => {
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
    const { streamed, whole } = await bothWays((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`);
      for (let sent = 0; sent < size && !socket.destroyed; sent += block.length) socket.write(block);
    });
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ code: 'response_too_large' });
  });

  it('a 404 with a JSON error: the same error, its message from the body', async () => {
    const error = JSON.stringify({ error: { code: 'not_found', message: 'no such thing' } });
    const { streamed, whole } = await bothWays((socket) => {
      socket.write(
        `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${error.length}\r\n\r\n`,
      );
      socket.write(error);
    });
    expect(whole).toEqual(streamed);
    expect(streamed).toMatchObject({ exitCode: 4 });
  });
});
