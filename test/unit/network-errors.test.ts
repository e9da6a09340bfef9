// What a failed attempt means, word for word: transportFailure's reason, message and hint for each cause, the
// classified causes (certificates, TLS, proxies, codings) and whether each may have reached the API (notSent),
// and the connector's mark on what failed while a connection was being opened. The socket-level cases are in
// transport.test.ts; these are the pure mapping, where a mutant of src/api/network-errors.ts and connect.ts is seen.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import {
  ClosedWhileConnectingError,
  ConnectTimeoutError,
  guarded,
  neverConnected,
  untilAborted,
  type Connector,
} from '../../src/api/connect.js';
import { classify, transportFailure, type FailedAttempt } from '../../src/api/network-errors.js';
import { UnsupportedCodingError } from '../../src/api/transport.js';

const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

const attempt = (o: Partial<FailedAttempt> = {}): FailedAttempt => ({
  method: 'POST',
  path: '/v1/orders',
  base: new URL('https://api.example.com'),
  proxy: undefined,
  requestTimeoutMs: 30_000,
  timedOut: false,
  status: 0,
  ...o,
});

/** An error as the guarded connector hands it on: marked as raised while the connection was being opened. */
function raisedWhileConnecting(error: Error): Error {
  let passed: Error | null = null;
  const connector = ((_options: unknown, callback: (error: Error | null, socket: null) => void) =>
    callback(error, null)) as unknown as Connector;
  guarded(connector, 60_000)({ hostname: 'h', host: 'h', protocol: 'https:', port: '443' } as never, (...args) => {
    passed = args[0];
  });
  return passed!;
}

describe("the connector's mark", () => {
  it('an error raised while connecting is marked; the same error not passed through it is not', () => {
    const error = coded('ECONNREFUSED');
    expect(neverConnected(error)).toBe(false);
    expect(neverConnected(raisedWhileConnecting(error))).toBe(true);
    expect(neverConnected(undefined)).toBe(false);
    expect(neverConnected('ECONNREFUSED')).toBe(false);
  });

  it('a connection closed while being opened (UND_ERR_SOCKET) ends as its own error, marked, with the cause kept', () => {
    const socketError = coded('UND_ERR_SOCKET', 'other side closed');
    const passed = raisedWhileConnecting(socketError);
    expect(passed).toBeInstanceOf(ClosedWhileConnectingError);
    expect((passed as ClosedWhileConnectingError).code).toBe('GC_CLOSED_WHILE_CONNECTING');
    expect(passed.cause).toBe(socketError);
    expect(neverConnected(passed)).toBe(true);
  });
});

describe("the connection's own deadline, and an attempt given up while connecting", () => {
  it("a connector that never answers is aborted at the deadline, with giftcodes' own timeout error", async () => {
    let signal: AbortSignal | undefined;
    const connector = ((options: { signal?: AbortSignal }) => {
      signal = options.signal;
    }) as unknown as Connector;
    guarded(connector, 20)({ hostname: 'h', host: 'h', protocol: 'https:', port: '443' } as never, () => undefined);
    expect(signal?.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(signal?.aborted).toBe(true);
    const reason = signal?.reason as ConnectTimeoutError;
    expect(reason).toBeInstanceOf(ConnectTimeoutError);
    expect(reason.code).toBe('GC_CONNECT_TIMEOUT');
    expect(reason.message).toBe('timed out opening the connection');
  });

  const answer = (): { body: Readable } => ({ body: Readable.from(['{}']) });

  it('a request whose signal is already aborted, or aborts while it waits, ends with the reason at once', async () => {
    const never = new Promise<{ body: Readable }>(() => undefined);
    await expect(untilAborted(never, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    const controller = new AbortController();
    const pending = untilAborted(never, controller.signal);
    controller.abort(new Error('deadline'));
    await expect(pending).rejects.toThrow('deadline');
  });

  it('an answer before the abort is the answer; one that comes after has its body thrown away, unread', async () => {
    const early = answer();
    await expect(untilAborted(Promise.resolve(early), new AbortController().signal)).resolves.toBe(early);
    const controller = new AbortController();
    let deliver!: (value: { body: Readable }) => void;
    const pending = untilAborted(new Promise<{ body: Readable }>((resolve) => (deliver = resolve)), controller.signal);
    controller.abort(new Error('deadline'));
    await expect(pending).rejects.toThrow('deadline');
    const late = answer();
    deliver(late);
    await new Promise((resolve) => setImmediate(resolve));
    expect(late.body.destroyed).toBe(true);
  });

  it('a request that fails before the abort fails with its own error', async () => {
    await expect(untilAborted(Promise.reject(new Error('refused')), new AbortController().signal)).rejects.toThrow(
      'refused',
    );
  });
});

describe('an attempt that failed without a classified cause: "cannot reach", with the reason and the hint for it', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused', 'the proxy refused the connection'],
    ['ENOTFOUND', 'host not found', "the proxy's host was not found"],
    [
      'EAI_AGAIN',
      'the host name could not be looked up (DNS failed for now)',
      "the proxy's host name could not be looked up (DNS failed for now)",
    ],
    [
      'GC_CLOSED_WHILE_CONNECTING',
      'the connection was closed while it was being opened',
      'the proxy closed the connection before opening the tunnel',
    ],
    ['GC_CONNECT_TIMEOUT', 'timed out connecting', 'the proxy did not open the tunnel in time'],
    ['ECONNRESET', 'the connection was closed before an answer', 'the connection was closed before an answer'],
    ['EPIPE', 'the connection was closed before an answer', 'the connection was closed before an answer'],
    ['ETIMEDOUT', 'timed out connecting', 'timed out connecting'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timed out connecting', 'timed out connecting'],
    [
      'UND_ERR_SOCKET',
      'the connection was closed before a complete answer',
      'the connection was closed before a complete answer',
    ],
    ['UND_ERR_HEADERS_TIMEOUT', 'the server stopped answering', 'the server stopped answering'],
    ['UND_ERR_BODY_TIMEOUT', 'the server stopped answering', 'the server stopped answering'],
    ['EHOSTUNREACH', 'EHOSTUNREACH', 'EHOSTUNREACH'],
  ])('%s: "%s" direct, "%s" through a proxy; retried unless the host does not exist', (code, direct, proxied) => {
    expect(transportFailure(coded(code), attempt())).toMatchObject({ reason: direct, retryable: code !== 'ENOTFOUND' });
    expect(transportFailure(coded(code), attempt({ proxy: 'http://proxy.example:3128' })).reason).toBe(proxied);
  });

  // A person's day: `ping --base-url https://api.example.invalid` tried six times over 6.5 s to say "host not found".
  it('a host name the DNS says does not exist (ENOTFOUND) is not retried, direct or through a proxy; a resolver failing for now (EAI_AGAIN) is', () => {
    for (const proxy of [undefined, 'http://proxy.example:3128']) {
      expect(transportFailure(coded('ENOTFOUND'), attempt({ proxy })).retryable).toBe(false);
      expect(transportFailure(raisedWhileConnecting(coded('ENOTFOUND')), attempt({ proxy }))).toMatchObject({
        retryable: false,
        notSent: true,
      });
      expect(transportFailure(coded('EAI_AGAIN'), attempt({ proxy })).retryable).toBe(true);
    }
    // An attempt past its deadline is a timeout, retried, whatever its code.
    expect(transportFailure(coded('ENOTFOUND'), attempt({ timedOut: true })).retryable).toBe(true);
  });

  it('an error without a code is named by the first line of its message, or as a network error', () => {
    expect(transportFailure(new Error('socket hang up\nmore'), attempt()).reason).toBe('socket hang up');
    expect(transportFailure({}, attempt()).reason).toBe('network error');
  });

  it('the message names the origin, the proxy, the request and the attempts (only when more than one)', () => {
    const once = transportFailure(coded('ECONNRESET'), attempt()).error(1);
    expect(once.message).toBe(
      'cannot reach https://api.example.com (POST /v1/orders: the connection was closed before an answer)',
    );
    expect(once.code).toBe('network_error');
    expect(once.exitCode).toBe(5);
    const proxied = transportFailure(coded('ECONNRESET'), attempt({ proxy: 'http://***@proxy.example:3128' }));
    expect(proxied.error(3).message).toBe(
      'cannot reach https://api.example.com through the proxy http://***@proxy.example:3128 (POST /v1/orders: the connection was closed before an answer) after 3 attempts',
    );
  });

  it("an attempt past its deadline: a timeout, whatever the error's code, with --request-timeout and an example twice as long (at least 30 s)", () => {
    const late = transportFailure(coded('ECONNRESET'), attempt({ timedOut: true, requestTimeoutMs: 10_000 }));
    expect(late.reason).toBe('no complete answer within 10s');
    expect(late.retryable).toBe(true);
    const error = late.error(2);
    expect(error.code).toBe('timeout');
    expect(error.hint).toBe(
      'the service took longer than --request-timeout 10s: raise it (for example --request-timeout 30), or check --base-url',
    );
    expect(transportFailure(coded('X'), attempt({ timedOut: true, requestTimeoutMs: 45_000 })).error(1).hint).toContain(
      '(for example --request-timeout 90)',
    );
  });

  it('a refused connection: "nothing listens" on the host and port (the scheme\'s default when none), the reference server for this machine', () => {
    const refused = (base: string): string | undefined =>
      transportFailure(coded('ECONNREFUSED'), attempt({ base: new URL(base) })).error(1).hint;
    // The command names the port the base URL does: serve's own default is 4010 (a walkthrough was sent to start a
    // server on 4010 for a base URL on another port).
    expect(refused('http://127.0.0.1:8080')).toBe(
      'nothing listens on 127.0.0.1:8080: start the reference server with giftcodes serve --port 8080, or check --base-url',
    );
    expect(refused('http://127.0.0.1:4010')).toBe(
      'nothing listens on 127.0.0.1:4010: start the reference server with giftcodes serve, or check --base-url',
    );
    expect(refused('http://localhost')).toBe(
      'nothing listens on localhost:80: start the reference server with giftcodes serve --port 80, or check --base-url',
    );
    // serve listens on 127.0.0.1 by default: another loopback address needs its --host, or the pasted hint misses it.
    expect(refused('http://[::1]:4010')).toBe(
      'nothing listens on [::1]:4010: start the reference server with giftcodes serve --host ::1, or check --base-url',
    );
    expect(refused('http://127.0.0.2:8080')).toBe(
      'nothing listens on 127.0.0.2:8080: start the reference server with giftcodes serve --host 127.0.0.2 --port 8080, or check --base-url',
    );
    expect(refused('https://api.example.com')).toBe('nothing listens on api.example.com:443: check --base-url');
    expect(refused('https://api.example.com:8443')).toContain('nothing listens on api.example.com:8443: ');
    // The reference server speaks plain HTTP: starting it is no answer for an https:// base URL (a review was sent to).
    expect(refused('https://localhost:1')).toBe('nothing listens on localhost:1: check --base-url');
  });

  it('each hint names where the base URL was set: a cron job that set GIFTCODES_BASE_URL was told to check a --base-url it never passed', () => {
    const profile = 'the base URL of profile "shop" (giftcodes config set base-url URL --profile shop)';
    const hint = (code: string, base: string, baseUrlFrom: string, timedOut = false): string | undefined =>
      transportFailure(coded(code), attempt({ base: new URL(base), baseUrlFrom, timedOut })).error(1).hint;
    expect(hint('ECONNREFUSED', 'https://api.example.com', 'GIFTCODES_BASE_URL')).toBe(
      'nothing listens on api.example.com:443: check GIFTCODES_BASE_URL',
    );
    expect(hint('ECONNREFUSED', 'https://api.example.com', profile)).toBe(
      `nothing listens on api.example.com:443: check ${profile}`,
    );
    expect(hint('ECONNREFUSED', 'http://127.0.0.1:8080', 'GIFTCODES_BASE_URL')).toBe(
      'nothing listens on 127.0.0.1:8080: start the reference server with giftcodes serve --port 8080, or check GIFTCODES_BASE_URL',
    );
    expect(hint('ENOTFOUND', 'https://api.exmaple.com', 'GIFTCODES_BASE_URL')).toBe(
      "check the host name api.exmaple.com in GIFTCODES_BASE_URL, and this machine's DNS",
    );
    expect(hint('ECONNRESET', 'https://api.example.com', profile)).toBe(
      `try again later (an order's command run again never charges twice), and check ${profile} and any proxy or load balancer in the way`,
    );
    expect(hint('ECONNRESET', 'https://api.example.com', 'GIFTCODES_BASE_URL', true)).toBe(
      'the service took longer than --request-timeout 30s: raise it (for example --request-timeout 60), or check GIFTCODES_BASE_URL',
    );
    const notTls = raisedWhileConnecting(coded('ERR_SSL_WRONG_VERSION_NUMBER'));
    expect(
      transportFailure(
        notTls,
        attempt({ base: new URL('https://127.0.0.1:4010'), baseUrlFrom: 'GIFTCODES_BASE_URL' }),
      ).error(1).hint,
    ).toBe(
      'if that port serves plain HTTP, use http:// in GIFTCODES_BASE_URL (a key is sent over http only to this machine)',
    );
  });

  it('not sent only when the connection was never opened and the attempt did not time out: a POST that may have been written is never "nothing charged"', () => {
    const refusedOpening = raisedWhileConnecting(coded('ECONNREFUSED'));
    expect(transportFailure(refusedOpening, attempt()).notSent).toBe(true);
    // The same error after the deadline: the request may have been on its way when the clock ran out.
    expect(transportFailure(refusedOpening, attempt({ timedOut: true })).notSent).toBe(false);
    // A reset on an open connection may follow a request that was written.
    expect(transportFailure(coded('ECONNRESET'), attempt()).notSent).toBe(false);
  });

  it('"nothing listens" only for a refused connection: a reset on this machine\'s server is not told to start one', () => {
    const hint = transportFailure(coded('ECONNRESET'), attempt({ base: new URL('http://127.0.0.1:8080') })).error(
      1,
    ).hint;
    expect(hint).toBe(
      "try again later (an order's command run again never charges twice), and check --base-url and any proxy or load balancer in the way",
    );
  });

  it('a classified cause without a said setting names --base-url', () => {
    const notTls = raisedWhileConnecting(coded('ERR_SSL_WRONG_VERSION_NUMBER'));
    expect(transportFailure(notTls, attempt({ base: new URL('https://127.0.0.1:4010') })).error(1).hint).toBe(
      'if that port serves plain HTTP, use http:// in --base-url (a key is sent over http only to this machine)',
    );
  });

  it('a host name that does not resolve: the name and the DNS, not the timeout', () => {
    for (const code of ['ENOTFOUND', 'EAI_AGAIN'])
      expect(transportFailure(coded(code), attempt({ base: new URL('https://api.exmaple.com') })).error(1).hint).toBe(
        "check the host name api.exmaple.com in --base-url, and this machine's DNS",
      );
  });

  it('any other failure: the base URL and the network, the timeout only for what ran out of time; through a proxy, the proxy', () => {
    const hint = (code: string, o: Partial<FailedAttempt> = {}): string | undefined =>
      transportFailure(coded(code), attempt(o)).error(1).hint;
    expect(hint('EHOSTUNREACH')).toBe('check --base-url and the network');
    for (const code of ['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
      expect(hint(code), code).toBe('check --base-url and the network, or raise --request-timeout');
    const proxy = 'http://proxy.example:3128';
    expect(hint('ECONNREFUSED', { proxy })).toBe(
      'check the proxy (http://proxy.example:3128), HTTPS_PROXY/HTTP_PROXY and NO_PROXY',
    );
    expect(hint('UND_ERR_CONNECT_TIMEOUT', { proxy })).toBe(
      'check the proxy (http://proxy.example:3128), HTTPS_PROXY/HTTP_PROXY and NO_PROXY, or raise --request-timeout',
    );
  });

  // A reviewer: a 200 with 200 kB of headers, and a server that closed the socket mid-answer, were both told to raise
  // --request-timeout, which cures neither.
  it('headers too large: not an API answering, or a proxy in the way; a connection closed mid-answer: try again later', () => {
    const overflow = transportFailure(coded('UND_ERR_HEADERS_OVERFLOW'), attempt()).error(1);
    expect(overflow.message).toContain("the answer's headers were too large (UND_ERR_HEADERS_OVERFLOW)");
    expect(overflow.hint).toBe(
      "headers that large are no API's answer: check that --base-url names the API, and that no proxy or gateway answers in its place",
    );
    for (const code of ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']) {
      const closed = transportFailure(coded(code), attempt()).error(1);
      expect(closed.hint, code).toMatch(/^try again later .*any proxy or load balancer in the way$/);
      expect(closed.hint, code).not.toContain('--request-timeout');
    }
  });
});

describe('classified causes, and whether the request may have reached the API', () => {
  it.each([
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'CERT_HAS_EXPIRED',
    'CERT_NOT_YET_VALID',
    'CERT_REVOKED',
    'CERT_UNTRUSTED',
    'CERT_REJECTED',
    'CERT_SIGNATURE_FAILURE',
    'INVALID_CA',
    'PATH_LENGTH_EXCEEDED',
    'INVALID_PURPOSE',
    'HOSTNAME_MISMATCH',
    'ERR_TLS_CERT_ALTNAME_INVALID',
  ])('%s is a certificate the client does not trust', (code) => {
    expect(classify(coded(code))?.error('GET', '/v1/ping', 'https://a.example', 1).code).toBe('certificate_error');
  });

  it.each([
    'ERR_SSL_WRONG_VERSION_NUMBER',
    'ERR_SSL_PACKET_LENGTH_TOO_LONG',
    'ERR_SSL_HTTP_REQUEST',
    'ERR_SSL_UNKNOWN_PROTOCOL',
  ])('%s in the handshake: the port does not speak TLS', (code) => {
    expect(classify(raisedWhileConnecting(coded(code)))?.error('GET', '/', 'https://a.example', 1).message).toContain(
      ': the port does not speak TLS)',
    );
  });

  it('a request undici refused to build (a line break in a header value) was not sent, and is not tried again', () => {
    const failure = transportFailure(coded('UND_ERR_INVALID_ARG', 'invalid x-api-key header'), attempt());
    expect(failure).toMatchObject({
      notSent: true,
      retryable: false,
      reason: 'the request could not be made: invalid x-api-key header',
    });
    const error = failure.error(1);
    expect(error.message).toBe('POST /v1/orders was not sent: invalid x-api-key header');
    expect(error.code).toBe('request_invalid');
    expect(error.hint).toContain('nothing was sent');
  });

  it('nothing at all, or something that is no error, is not classified', () => {
    expect(classify(undefined)).toBeUndefined();
    expect(classify('ECONNRESET')).toBeUndefined();
  });

  it('a certificate error is not sent even when not marked by the connector (the handshake is before any request)', () => {
    const failure = transportFailure(coded('CERT_HAS_EXPIRED'), attempt());
    expect(failure).toMatchObject({
      retryable: false,
      notSent: true,
      reason: 'certificate not trusted: CERT_HAS_EXPIRED',
    });
    expect(failure.error(1).message).toBe(
      'cannot verify the certificate of https://api.example.com (POST /v1/orders: CERT_HAS_EXPIRED)',
    );
  });

  it('an answer whose compressed body is corrupt was answered: never "not sent", not retried, whatever the coding', () => {
    for (const error of [
      coded('Z_DATA_ERROR'),
      coded('Z_BUF_ERROR'),
      coded('ERR_BROTLI_DECOMPRESSION_FAILED'),
      coded('ERR__ERROR_FORMAT_UNKNOWN'),
    ]) {
      const failure = transportFailure(error, attempt({ status: 201 }));
      expect(failure).toMatchObject({ reason: 'unreadable coding', retryable: false, notSent: false });
      expect(failure.error(1).message).toBe(
        'POST /v1/orders: HTTP 201 with a body that cannot be understood (its compressed body is corrupt)',
      );
    }
  });

  it('a coding the client does not speak: its own words and the status it came with', () => {
    const failure = transportFailure(
      new UnsupportedCodingError('content-encoding zstd is not supported', 200),
      attempt(),
    );
    expect(failure).toMatchObject({ reason: 'unreadable coding', retryable: false, notSent: false });
    expect(failure.error(1).message).toBe(
      'POST /v1/orders: HTTP 200 with a body that cannot be understood (content-encoding zstd is not supported)',
    );
  });

  it('codes that only look like a coding failure somewhere in the middle are not one', () => {
    expect(classify(coded('EZ_DATA'))).toBeUndefined();
    expect(classify(coded('X_ERR_BROTLI'))).toBeUndefined();
  });

  it('a TLS handshake that failed while connecting: not sent, not retried; "does not speak TLS" only for the plain-HTTP answers', () => {
    const proto = classify(raisedWhileConnecting(coded('EPROTO')));
    expect(proto).toMatchObject({ retryable: false, notSent: true, reason: 'TLS handshake failed: EPROTO' });
    const protoError = proto!.error('GET', '/v1/ping', 'https://api.example.com', 1);
    expect(protoError.message).toBe('cannot open a TLS session with https://api.example.com (GET /v1/ping: EPROTO)');
    expect(protoError.hint).toBe('check --base-url: the server and this client agree on no TLS version or cipher');
    const plain = classify(raisedWhileConnecting(coded('ERR_SSL_WRONG_VERSION_NUMBER')));
    expect(plain!.error('GET', '/v1/ping', 'https://api.example.com', 1).message).toBe(
      'cannot open a TLS session with https://api.example.com (GET /v1/ping: ERR_SSL_WRONG_VERSION_NUMBER: the port does not speak TLS)',
    );
    expect(classify(raisedWhileConnecting(coded('ECONNRESET')))).toBeUndefined();
  });

  it("a proxy's refusal of the tunnel: 5xx retried (500 too), others not; the words and the hint for each", () => {
    const proxy = (status: number) =>
      classify(coded('UND_ERR_ABORTED', `Proxy response (${status}) !== 200 when HTTP Tunneling`))!;
    expect(proxy(500).retryable).toBe(true);
    expect(proxy(499).retryable).toBe(false);
    expect(classify(coded('UND_ERR_ABORTED', 'the Proxy response (502) was bad'))).toBeUndefined();
    const named = proxy(502).error('POST', '/v1/orders', 'https://api.example.com', 2, 'http://proxy.example:3128');
    expect(named.message).toBe(
      'cannot reach https://api.example.com through the proxy http://proxy.example:3128 (POST /v1/orders: the proxy refused the tunnel (502)) after 2 attempts',
    );
    expect(named.code).toBe('proxy_error');
    expect(named.hint).toBe("check HTTPS_PROXY/HTTP_PROXY, NO_PROXY and the profile's proxy");
    const unnamed = proxy(403).error('POST', '/v1/orders', 'https://api.example.com', 1);
    expect(unnamed.message).toBe(
      'cannot reach https://api.example.com through the proxy (POST /v1/orders: the proxy refused the tunnel (403))',
    );
    expect(proxy(407).error('GET', '/', 'https://a.example', 1, 'http://***@proxy.example:3128').hint).toBe(
      "the proxy refused its credentials: check the user and password in HTTPS_PROXY/HTTP_PROXY or the profile's proxy",
    );
    expect(proxy(407).error('GET', '/', 'https://a.example', 1, 'http://proxy.example:3128').hint).toBe(
      'the proxy wants credentials: put them in the proxy URL (http://user:password@proxy:port)',
    );
    expect(proxy(407).error('GET', '/', 'https://a.example', 1).hint).toBe(
      'the proxy wants credentials: put them in the proxy URL (http://user:password@proxy:port)',
    );
  });
});
