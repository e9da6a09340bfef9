// What a transport failure means (no HTTP answer, or an answer that could not be read): whether anything of
// the request can have reached the API, whether another attempt may help, and the words and hint the user
// sees. The request loop that asks is in client.ts; what an HTTP status or error body means is in errors.ts.
import { NetworkError, type CliError } from '../errors.js';
import { isLoopbackHost } from '../config/same-api.js';
import { neverConnected } from './connect.js';
import { unreadableBody } from './errors.js';
import { UnsupportedCodingError } from './transport.js';

/** Where a failed attempt was going, and how it ended, for its words and its hint. */
export interface FailedAttempt {
  method: string;
  /** The path as messages show it. */
  path: string;
  /** The client's base URL. */
  base: URL;
  /** The proxy the request went through, credentials hidden; undefined for a request that went direct. */
  proxy: string | undefined;
  requestTimeoutMs: number;
  /** The attempt's own deadline passed. */
  timedOut: boolean;
  /** The status the API answered with before the failure (a body that could not be read), else 0. */
  status: number;
  /** Where the base URL was set, as the hint names it (--base-url, GIFTCODES_BASE_URL, the profile's); --base-url when not said. */
  baseUrlFrom?: string | undefined;
}

/** A failed attempt, as the request loop acts on it. */
export interface TransportFailure {
  /** For the -v line. */
  reason: string;
  retryable: boolean;
  notSent: boolean;
  error: (attempts: number) => CliError;
}

/** What the attempt's failure means: a classified cause (certificate, TLS, proxy, coding), else "cannot reach". */
export function transportFailure(error: unknown, attempt: FailedAttempt): TransportFailure {
  const { method, path, base, proxy, timedOut } = attempt;
  const notSent = !timedOut && isNotSent(error);
  const failure = classify(error, attempt.status);
  if (failure && !timedOut) {
    return {
      reason: failure.reason,
      retryable: failure.retryable,
      notSent: failure.notSent || notSent,
      error: (attempts) =>
        failure.error(method, path, base.origin, attempts, proxy, attempt.baseUrlFrom ?? '--base-url'),
    };
  }
  const reason = timedOut
    ? `no complete answer within ${attempt.requestTimeoutMs / 1000}s`
    : describeNetworkError(error, proxy !== undefined);
  const code = (error as { code?: string }).code;
  return {
    reason,
    // A name the DNS says does not exist (ENOTFOUND: the API's host, or the proxy's) will not exist a second later:
    // six attempts took 6.5 s to say so. A resolver that failed for now (EAI_AGAIN) may answer the next attempt.
    retryable: timedOut || code !== 'ENOTFOUND',
    notSent,
    error: (attempts) =>
      new NetworkError(
        `cannot reach ${base.origin}${through(proxy)} (${method} ${path}: ${reason})${attempts > 1 ? ` after ${attempts} attempts` : ''}`,
        {
          code: timedOut ? 'timeout' : 'network_error',
          hint: networkHint(attempt, code),
        },
      ),
  };
}

/** The flag or command that fixes this cause (issue 14): a proxy, a slow answer, or nothing listening there. */
function networkHint(
  { base, proxy, requestTimeoutMs, timedOut, baseUrlFrom }: FailedAttempt,
  code: string | undefined,
): string {
  const setting = baseUrlFrom ?? '--base-url';
  // A longer --request-timeout helps only what ran out of time: a closed connection or an answer no API gives
  // would fail the same way with any timeout.
  const slow = code !== undefined && TIMEOUT_CODES.has(code);
  if (proxy !== undefined)
    return `check the proxy (${proxy}), HTTPS_PROXY/HTTP_PROXY and NO_PROXY${slow ? ', or raise --request-timeout' : ''}`;
  const seconds = requestTimeoutMs / 1000;
  if (timedOut)
    return `the service took longer than --request-timeout ${seconds}s: raise it (for example --request-timeout ${Math.max(30, seconds * 2)}), or check ${setting}`;
  const port = base.port || (base.protocol === 'https:' ? '443' : '80');
  const where = `${base.hostname}:${port}`;
  // The reference server's own port is 4010 (serve --port): another is named, so the command fits the base URL. It
  // speaks plain HTTP, so it is no answer for an https:// base URL.
  if (code === 'ECONNREFUSED' && isLoopbackHost(base.hostname) && base.protocol === 'http:') {
    // serve listens on 127.0.0.1 unless --host says otherwise: pasted for [::1] or 127.0.0.2, it listened elsewhere.
    const host = base.hostname.replace(/^\[|\]$/g, '');
    const hostFlag = host === '127.0.0.1' || host.toLowerCase() === 'localhost' ? '' : ` --host ${host}`;
    return `nothing listens on ${where}: start the reference server with giftcodes serve${hostFlag}${port === '4010' ? '' : ` --port ${port}`}, or check ${setting}`;
  }
  if (code === 'ECONNREFUSED') return `nothing listens on ${where}: check ${setting}`;
  // A name that does not resolve: waiting longer does not help, the name or this machine's DNS does.
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `check the host name ${base.hostname} in ${setting}, and this machine's DNS`;
  if (code === 'UND_ERR_HEADERS_OVERFLOW')
    return `headers that large are no API's answer: check that ${setting} names the API, and that no proxy or gateway answers in its place`;
  if (code !== undefined && CLOSED_CODES.has(code))
    return `try again later (an order's command run again never charges twice), and check ${setting} and any proxy or load balancer in the way`;
  return `check ${setting} and the network${slow ? ', or raise --request-timeout' : ''}`;
}

/** The failures a longer --request-timeout may cure: the connection or the answer ran out of time. */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'GC_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The connection was closed under the request: the server, or something between, gave up on it. */
const CLOSED_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'GC_CLOSED_WHILE_CONNECTING',
]);

/**
 * Nothing of the request can have reached the API: the failure came while the connection was being opened (a
 * refused or unresolvable host, the API's or the proxy's, a proxy refusing CONNECT, a TLS handshake that
 * failed, whatever its code). Decided by where the error was raised, not by its code: the same code after
 * connecting (a reset, EHOSTUNREACH on a live connection) may follow a request that was written.
 */
export function isNotSent(error: unknown): boolean {
  return neverConnected(error);
}

/** ` through the proxy http://***@host:port`, or nothing for a request that goes direct. */
function through(proxy: string | undefined): string {
  return proxy === undefined ? '' : ` through the proxy ${proxy}`;
}

/** OpenSSL's and Node's names for a certificate Node does not trust: the TLS handshake failed, nothing was sent. */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
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
]);

interface Failure {
  reason: string;
  retryable: boolean;
  notSent: boolean;
  /** `proxy`: the proxy the request went through, credentials hidden; `setting`: where the base URL was set. */
  error: (method: string, path: string, origin: string, attempts: number, proxy?: string, setting?: string) => CliError;
}

/** OpenSSL's names for a peer that answered the handshake with something other than TLS (most often plain HTTP). */
const NOT_TLS_CODES: ReadonlySet<string> = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_HTTP_REQUEST',
  'ERR_SSL_UNKNOWN_PROTOCOL',
]);

/** The transport failures that need more than "cannot reach": untrusted certificates, proxy refusals, codings. */
export function classify(error: unknown, status = 0): Failure | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : '';
  if (typeof code === 'string' && CERTIFICATE_CODES.has(code)) {
    const reason = `certificate not trusted: ${code}`;
    return {
      reason,
      retryable: false,
      notSent: true,
      error: (method, path, origin, _attempts, proxy) =>
        new NetworkError(`cannot verify the certificate of ${origin}${through(proxy)} (${method} ${path}: ${code})`, {
          code: 'certificate_error',
          hint: 'if the API uses a private CA, trust it with --ca-file <pem> (or GIFTCODES_CA_FILE, SSL_CERT_FILE, SSL_CERT_DIR), or set NODE_EXTRA_CA_CERTS',
        }),
    };
  }
  // A handshake that failed in OpenSSL before the session existed: it will fail the same way again.
  if (typeof code === 'string' && (code.startsWith('ERR_SSL_') || code === 'EPROTO') && neverConnected(error)) {
    const notTls = NOT_TLS_CODES.has(code);
    return {
      reason: `TLS handshake failed: ${code}`,
      retryable: false,
      notSent: true,
      error: (method, path, origin, _attempts, proxy, setting = '--base-url') =>
        new NetworkError(
          `cannot open a TLS session with ${origin}${through(proxy)} (${method} ${path}: ${code}${notTls ? ': the port does not speak TLS' : ''})`,
          {
            code: 'tls_error',
            hint: notTls
              ? `if that port serves plain HTTP, use http:// in ${setting} (a key is sent over http only to this machine)`
              : `check ${setting}: the server and this client agree on no TLS version or cipher`,
          },
        ),
    };
  }
  // undici refused to build the request (a header value with a line break, say): nothing left this machine, and
  // the next attempt would be refused the same way.
  if (code === 'UND_ERR_INVALID_ARG') {
    return {
      reason: `the request could not be made: ${message}`,
      retryable: false,
      notSent: true,
      error: (method, path) =>
        new NetworkError(`${method} ${path} was not sent: ${message}`, {
          code: 'request_invalid',
          hint: 'nothing was sent; check the API key and the base URL for stray characters (a line break, a space)',
        }),
    };
  }
  const proxyStatus = /^Proxy response \((\d{3})\)/.exec(message);
  if (proxyStatus) {
    const status = Number(proxyStatus[1]);
    const reason = `the proxy refused the tunnel (${status})`;
    return {
      reason,
      // A proxy's 5xx may pass (its upstream was down); 407 and other refusals will not change on their own.
      retryable: status >= 500,
      notSent: true,
      error: (method, path, origin, attempts, proxy) =>
        new NetworkError(
          `cannot reach ${origin}${proxy === undefined ? ' through the proxy' : through(proxy)} (${method} ${path}: ${reason})${attempts > 1 ? ` after ${attempts} attempts` : ''}`,
          {
            code: 'proxy_error',
            hint:
              status !== 407
                ? "check HTTPS_PROXY/HTTP_PROXY, NO_PROXY and the profile's proxy"
                : proxy?.includes('***@')
                  ? "the proxy refused its credentials: check the user and password in HTTPS_PROXY/HTTP_PROXY or the profile's proxy"
                  : 'the proxy wants credentials: put them in the proxy URL (http://user:password@proxy:port)',
          },
        ),
    };
  }
  if (
    error instanceof UnsupportedCodingError ||
    (typeof code === 'string' &&
      (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code.startsWith('ERR__ERROR')))
  ) {
    const detail = error instanceof UnsupportedCodingError ? message : 'its compressed body is corrupt';
    const answered = error instanceof UnsupportedCodingError ? error.status : status;
    return {
      reason: 'unreadable coding',
      retryable: false,
      notSent: false,
      error: (method, path) => unreadableBody(method, path, answered, detail),
    };
  }
  return undefined;
}

/** `proxied`: every connection goes to the proxy, so a refusal, an unknown host or a slow connect is the proxy's. */
function describeNetworkError(error: unknown, proxied: boolean): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return proxied ? 'the proxy refused the connection' : 'connection refused';
    case 'ENOTFOUND':
      return proxied ? "the proxy's host was not found" : 'host not found';
    // The resolver failed for now (it was retried): not "not found", which a name that does exist read as.
    case 'EAI_AGAIN':
      return proxied
        ? "the proxy's host name could not be looked up (DNS failed for now)"
        : 'the host name could not be looked up (DNS failed for now)';
    case 'GC_CLOSED_WHILE_CONNECTING':
      return proxied
        ? 'the proxy closed the connection before opening the tunnel'
        : 'the connection was closed while it was being opened';
    case 'GC_CONNECT_TIMEOUT':
      return proxied ? 'the proxy did not open the tunnel in time' : 'timed out connecting';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was closed before an answer';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out connecting';
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before a complete answer';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'the server stopped answering';
    case 'UND_ERR_HEADERS_OVERFLOW':
      return "the answer's headers were too large (UND_ERR_HEADERS_OVERFLOW)";
    default:
      return code ?? (error instanceof Error ? (error.message.split('\n')[0] ?? 'network error') : 'network error');
  }
}
