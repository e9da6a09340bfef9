// Which failures the client marks notSent (certainly nothing reached the API on any attempt), on real loopback
// sockets through the real undici transport; and the pure pieces: proxy settings, NO_PROXY, display, PEM.
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { classify, isNotSent } from '../../src/api/network-errors.js';
import { bypassed, displayProxy, proxySettings, splitPem } from '../../src/api/transport.js';
import { isCliError, type CliError } from '../../src/errors.js';
import { freePort } from '../helpers/ports.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

const KEY = 'sc_test_unit_0123456789ab';

function client(
  baseUrl: string,
  env: NodeJS.ProcessEnv = {},
  retries = 1,
  requestTimeoutMs = 5_000,
): { api: ApiClient; lines: string[] } {
  const lines: string[] = [];
  const api = new ApiClient({
    baseUrl,
    apiKey: KEY,
    requestTimeoutMs,
    retry: { retries, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 10_000, maxRetryAfterMs: 1 },
    log: (line) => lines.push(line),
    env,
  });
  return { api, lines };
}

async function failure(api: ApiClient): Promise<CliError> {
  try {
    await api.ping();
  } catch (error) {
    if (isCliError(error)) return error;
    throw error;
  } finally {
    await api.close();
  }
  throw new Error('ping succeeded');
}

/** A raw TCP server: `onRequest` gets the socket once the request head has arrived. */
async function rawServer(
  onRequest: (socket: Socket) => void,
): Promise<{ server: NetServer; url: string; requests: () => number }> {
  let requests = 0;
  const server = createNetServer((socket) => {
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        head = '';
        requests++;
        onRequest(socket);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

/**
 * A port on loopback that nothing listens on: bound, read, released, below the ephemeral range (helpers/ports.ts).
 * One the kernel handed out for listen(0) could be handed again to a server another file starts meanwhile (the
 * suite's servers listen on port 0), or be the connection's own source port (a self-connect).
 */
const closedPort = freePort;

describe('notSent: set only when every attempt failed before the API could have read a byte', () => {
  const servers: NetServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });

  it('a refused connection, on every attempt: notSent, and it was retried', async () => {
    const { api, lines } = client(`http://127.0.0.1:${await closedPort()}`);
    const error = await failure(api);
    expect(error.exitCode).toBe(5);
    expect(error.notSent).toBe(true);
    expect(lines.filter((line) => line.startsWith('GET /v1/ping'))).toHaveLength(2);
  });

  it('a host name that does not resolve: notSent', async () => {
    const error = await failure(client('http://giftcodes-unit.invalid', {}, 0).api);
    expect(error.notSent).toBe(true);
  });

  // `.invalid` never resolves (RFC 6761): the resolver answers at once, no network needed. It was tried 6 times.
  it('a host name that does not exist is tried once, however many retries are allowed', async () => {
    const { api, lines } = client('http://giftcodes-unit.invalid', {}, 5);
    const error = await failure(api);
    expect(error.exitCode).toBe(5);
    expect(error.message).toContain('host not found');
    expect(error.message).not.toContain('attempts');
    expect(lines.filter((line) => line.startsWith('GET /v1/ping'))).toHaveLength(1);
  });

  it('a connection reset after the request was written: NOT notSent (the server may have acted on it)', async () => {
    const raw = await rawServer((socket) => socket.resetAndDestroy());
    servers.push(raw.server);
    const error = await failure(client(raw.url).api);
    expect(raw.requests()).toBe(2);
    expect(error.exitCode).toBe(5);
    expect(error.notSent).toBe(false);
  });

  it('a connection closed after the request without an answer: NOT notSent', async () => {
    const raw = await rawServer((socket) => socket.end());
    servers.push(raw.server);
    const error = await failure(client(raw.url, {}, 0).api);
    expect(raw.requests()).toBe(1);
    expect(error.notSent).toBe(false);
  });

  it('issue 21 gap 9: https to a port that answers plain HTTP fails in the TLS handshake: notSent whatever its code, not retried, a hint for http://', async () => {
    let received = 0;
    const server = createNetServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => {
        received++;
        socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { api, lines } = client(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const error = await failure(api);
    expect(received).toBe(1);
    expect(error.exitCode).toBe(5);
    expect(error.code).toBe('tls_error');
    expect(error.notSent).toBe(true);
    expect(error.hint).toContain('http://');
    expect(lines.filter((line) => line.startsWith('GET /v1/ping'))).toHaveLength(1);
  });

  it('one refused attempt and one that reached the server: NOT notSent', async () => {
    // The first attempt gets a 503 (sent, retryable); the server then goes away and the second is refused.
    const raw = await rawServer((socket) => {
      socket.end(
        'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      );
      raw.server.close();
    });
    const error = await failure(client(raw.url).api);
    expect(raw.requests()).toBe(1);
    expect(error.notSent).toBe(false);
  });

  // The order was placed: the answer only could not be read. "Not sent" would let the order machine drop the
  // intent as refused, and the next run place it again under a new key.
  it('a POST answered 201 with a corrupt gzip body: NOT notSent, not retried, the status in the message', async () => {
    const raw = await rawServer((socket) => {
      socket.end(
        'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot gzip!',
      );
    });
    servers.push(raw.server);
    const { api } = client(raw.url, {}, 3);
    const error = await api.createOrder('{"product_id":"p","quantity":1}', 'key-1').then(
      () => {
        throw new Error('the order was read');
      },
      (e: CliError) => e,
    );
    await api.close();
    expect(raw.requests()).toBe(1);
    expect(error.notSent).toBe(false);
    expect(error.exitCode).toBe(5);
    expect(error.message).toBe(
      'POST /v1/orders: HTTP 201 with a body that cannot be understood (its compressed body is corrupt)',
    );
  });

  it("a 429 or 503 whose Retry-After is longer than the client waits ends at once, saying when to ask again in the words of its cause; a 400's says nothing of it", async () => {
    let status = 429;
    const raw = await rawServer((socket) => {
      socket.end(
        `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nRetry-After: 120\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
    });
    servers.push(raw.server);
    const limited = await failure(client(raw.url, {}, 3).api);
    expect(raw.requests()).toBe(1);
    expect(limited.message).toMatch(/; the rate limit resets at \d\d:\d\d:\d\d UTC \(in 120 s\)$/);
    expect(limited.hint).toBe(
      'run it again after that time (a run waits out at most 0.001 s of a Retry-After by itself)',
    );
    // A 503's Retry-After is the service's own wait, not a rate limit.
    status = 503;
    const away = await failure(client(raw.url, {}, 3).api);
    expect(away.message).toMatch(/; the service asks to be tried again after \d\d:\d\d:\d\d UTC \(in 120 s\)$/);
    status = 400;
    const refused = await failure(client(raw.url, {}, 3).api);
    expect(refused.message).not.toContain('rate limit');
    expect(refused.message).not.toContain('tried again');
  });

  it('a 429 whose short Retry-After outlasted only the retries says nothing of a reset (the service would have been asked again soon)', async () => {
    const raw = await rawServer((socket) => {
      socket.end(
        'HTTP/1.1 429 X\r\nContent-Type: application/json\r\nRetry-After: 0\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      );
    });
    servers.push(raw.server);
    const error = await failure(client(raw.url, {}, 1).api);
    expect(raw.requests()).toBe(2);
    expect(error.message).not.toContain('resets');
    expect(error.hint).toBe(
      "the API limits this key's requests and asked to be tried again at once: run it again then, or raise --retries to wait it out (a plan: a lower --concurrency)",
    );
  });

  it('interrupted while waiting to retry: ends at once as interrupted, not after the wait', async () => {
    const raw = await rawServer((socket) => {
      socket.end(
        'HTTP/1.1 503 X\r\nContent-Type: application/json\r\nRetry-After: 30\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      );
    });
    servers.push(raw.server);
    const controller = new AbortController();
    const lines: string[] = [];
    const api = new ApiClient({
      baseUrl: raw.url,
      apiKey: KEY,
      requestTimeoutMs: 5_000,
      retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 120_000, maxRetryAfterMs: 60_000 },
      log: (line) => {
        lines.push(line);
        if (line.includes('retrying in')) controller.abort();
      },
      signal: controller.signal,
    });
    const started = Date.now();
    const error = await failure(api);
    expect(error.exitCode).toBe(130);
    expect(error.code).toBe('interrupted');
    expect(raw.requests()).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  describe('through a proxy', () => {
    let proxy: TestProxy;
    beforeAll(async () => {
      proxy = await startProxy({ credentials: 'user:right-password-123' });
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('a proxy that refuses the CONNECT (407): notSent, not retried, the credentials in no message', async () => {
      const { api, lines } = client('https://api.giftcodes.test', {
        HTTPS_PROXY: `http://user:wrong-password-456@127.0.0.1:${proxy.port}`,
      });
      const error = await failure(api);
      expect(error.code).toBe('proxy_error');
      expect(error.notSent).toBe(true);
      expect(lines.filter((line) => line.startsWith('GET /v1/ping'))).toHaveLength(1);
      const everything = `${error.message} ${error.hint ?? ''} ${lines.join('\n')}`;
      expect(everything).not.toContain('wrong-password-456');
      expect(everything).toContain(`via proxy http://***@127.0.0.1:${proxy.port}`);
    });

    it('a proxy that is not there: notSent, and the message names it', async () => {
      const port = await closedPort();
      const error = await failure(
        client('https://api.giftcodes.test', { HTTPS_PROXY: `http://127.0.0.1:${port}` }, 0).api,
      );
      expect(error.notSent).toBe(true);
      expect(error.message).toContain(
        `through the proxy http://127.0.0.1:${port} (GET /v1/ping: the proxy refused the connection)`,
      );
      expect(error.hint).toContain('check the proxy');
    });

    it('a proxy that closes the connection on CONNECT: notSent, retried, and over (undici alone would reopen it at once, forever)', async () => {
      const closing = await startProxy({ answer: 'close' });
      try {
        const { api, lines } = client('https://api.giftcodes.test', {
          HTTPS_PROXY: `http://user:secret-pw-789@127.0.0.1:${closing.port}`,
        });
        const error = await failure(api);
        expect(error.notSent).toBe(true);
        expect(error.message).toContain(
          `through the proxy http://***@127.0.0.1:${closing.port} (GET /v1/ping: the proxy closed the connection before opening the tunnel)`,
        );
        expect(error.message).not.toContain('secret-pw-789');
        expect(lines.filter((line) => line.startsWith('GET /v1/ping'))).toHaveLength(2);
        expect(closing.connects).toHaveLength(2);
      } finally {
        await closing.close();
      }
    });

    it('a proxy silent after CONNECT: the attempt ends at its deadline, a timeout naming the proxy', async () => {
      const silent = await startProxy({ answer: 'nothing' });
      try {
        const error = await failure(
          client('https://api.giftcodes.test', { HTTPS_PROXY: `http://127.0.0.1:${silent.port}` }, 0, 300).api,
        );
        expect(error.code).toBe('timeout');
        expect(error.message).toContain(`through the proxy http://127.0.0.1:${silent.port} `);
        expect(silent.connects).toEqual(['api.giftcodes.test:443']);
      } finally {
        await silent.close();
      }
    });
  });
});

describe('classify, and isNotSent by where an error was raised', () => {
  const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

  // The same code after a connection existed (EHOSTUNREACH on a live connection, a TLS error mid-stream) may
  // follow a request that was written: only the connector's own failures count (real sockets above).
  it.each([
    'ECONNREFUSED',
    'ENOTFOUND',
    'EHOSTUNREACH',
    'ERR_SSL_WRONG_VERSION_NUMBER',
    'ECONNRESET',
    'UND_ERR_SOCKET',
  ])('%s alone, not raised while connecting, may have been sent', (code) => {
    expect(isNotSent(coded(code))).toBe(false);
  });

  it('a TLS error not raised while connecting is left to the generic mapping (retried, maybe sent)', () => {
    expect(classify(coded('ERR_SSL_WRONG_VERSION_NUMBER'))).toBeUndefined();
  });

  it.each([
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'CERT_HAS_EXPIRED',
    'ERR_TLS_CERT_ALTNAME_INVALID',
  ])('%s: a certificate error, not retried, not sent, exit 5 with the hint', (code) => {
    const failure = classify(coded(code));
    expect(failure).toMatchObject({ retryable: false, notSent: true });
    const error = failure!.error('GET', '/v1/ping', 'https://api.example.com', 1);
    expect(error.exitCode).toBe(5);
    expect(error.code).toBe('certificate_error');
    expect(error.hint).toContain('--ca-file');
    expect(error.hint).toContain('NODE_EXTRA_CA_CERTS');
  });

  it("a proxy's 502 is retried, its 407 and 403 are not; all are not sent", () => {
    const proxy = (status: number) =>
      classify(coded('UND_ERR_ABORTED', `Proxy response (${status}) !== 200 when HTTP Tunneling`));
    expect(proxy(502)).toMatchObject({ retryable: true, notSent: true });
    expect(proxy(407)).toMatchObject({ retryable: false, notSent: true });
    expect(proxy(403)).toMatchObject({ retryable: false, notSent: true });
  });

  it('an ordinary abort or reset is left to the generic mapping', () => {
    expect(classify(coded('UND_ERR_ABORTED', 'Request aborted'))).toBeUndefined();
    expect(classify(coded('ECONNRESET'))).toBeUndefined();
  });
});

describe('proxy settings: environment (lower case first), then the profile', () => {
  it('HTTPS_PROXY and HTTP_PROXY from the environment win over the profile', () => {
    expect(proxySettings({ HTTPS_PROXY: 'http://env:1' }, 'http://profile:2')).toEqual({
      httpProxy: undefined,
      httpsProxy: 'http://env:1',
      noProxy: undefined,
    });
    expect(proxySettings({ https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:1' }, undefined).httpsProxy).toBe(
      'http://lower:1',
    );
    expect(proxySettings({ HTTP_PROXY: 'http://only-http:1' }, undefined)).toMatchObject({
      httpProxy: 'http://only-http:1',
      httpsProxy: 'http://only-http:1',
    });
  });

  it('the profile proxy applies when the environment names none; NO_PROXY still applies', () => {
    expect(proxySettings({ no_proxy: 'internal' }, 'http://profile:2')).toEqual({
      httpProxy: 'http://profile:2',
      httpsProxy: 'http://profile:2',
      noProxy: 'internal',
    });
    expect(proxySettings({ HTTPS_PROXY: '' }, 'http://profile:2').httpsProxy).toBe('http://profile:2');
    expect(proxySettings({}, undefined)).toEqual({ httpProxy: undefined, httpsProxy: undefined, noProxy: undefined });
  });

  it('NO_PROXY: names, subdomains, leading dots, ports, *', () => {
    const url = (text: string) => new URL(text);
    expect(bypassed(url('https://api.example.com'), 'example.com')).toBe(true);
    expect(bypassed(url('https://api.example.com'), '.example.com')).toBe(true);
    expect(bypassed(url('https://api.example.com'), '*.example.com')).toBe(true);
    expect(bypassed(url('https://notexample.com'), 'example.com')).toBe(false);
    expect(bypassed(url('https://api.example.com:8443'), 'api.example.com:443')).toBe(false);
    expect(bypassed(url('https://api.example.com'), 'api.example.com:443')).toBe(true);
    expect(bypassed(url('http://127.0.0.1:4010'), 'localhost, 127.0.0.1')).toBe(true);
    expect(bypassed(url('http://[::1]:4010'), '[::1]')).toBe(true);
    expect(bypassed(url('https://anything'), '*')).toBe(true);
    expect(bypassed(url('https://anything'), '')).toBe(false);
  });

  it('a proxy that is not an http(s) URL is exit 2 before anything is sent, its value not echoed', () => {
    for (const proxy of ['garbage', 'socks5://user:hidden-pw-1@127.0.0.1:1080']) {
      let error: unknown;
      try {
        client('https://api.example.com', { HTTPS_PROXY: proxy });
      } catch (thrown) {
        error = thrown;
      }
      expect(isCliError(error) && error.exitCode).toBe(2);
      expect(String((error as Error).message)).not.toContain('hidden-pw-1');
    }
    expect(() => client('https://api.example.com', {})).not.toThrow();
  });

  it('a proxy is shown without its credentials', () => {
    expect(displayProxy('http://user:secret@proxy.internal:3128')).toBe('http://***@proxy.internal:3128');
    expect(displayProxy('http://proxy.internal:3128/')).toBe('http://proxy.internal:3128');
    expect(displayProxy('not a url user:secret')).not.toContain('secret');
  });

  it('splitPem finds each certificate, and none in other text', () => {
    const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    expect(splitPem(`junk\n${cert}\n${cert}\n`)).toEqual([cert, cert]);
    expect(splitPem('-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----')).toEqual([]);
  });
});
