// How a failure of the transport reads and what may follow it: whether the request can have reached the API
// (a retry is then safe for any method), an untrusted certificate, a proxy's refusal, an unreadable coding.
// The HTTP error bodies are errors.ts's; the request loop that acts on both is client.ts's.
import { NetworkError, type CliError } from '../errors.js';
import { unreadableBody } from './errors.js';
import { UnsupportedCodingError } from './transport.js';

/**
 * Failures that happen before a connection to the API exists: nothing of the request can have reached it.
 * A refused or unresolvable host (the API's or the proxy's), an unreachable network, and undici's own
 * connect timeout. A reset or a close after connecting is not here: the request may have been written.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export function isNotSent(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && NOT_SENT_CODES.has(code);
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

export interface Failure {
  reason: string;
  retryable: boolean;
  notSent: boolean;
  error: (method: string, path: string, origin: string, attempts: number) => CliError;
}

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
      error: (method, path, origin) =>
        new NetworkError(`cannot verify the certificate of ${origin} (${method} ${path}: ${code})`, {
          code: 'certificate_error',
          hint: 'if the API uses a private CA, trust it with --ca-file <pem> (or GIFTCODES_CA_FILE), or set NODE_EXTRA_CA_CERTS',
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
      error: (method, path, origin, attempts) =>
        new NetworkError(`cannot reach ${origin} through the proxy (${method} ${path}: ${reason})${attempts > 1 ? ` after ${attempts} attempts` : ''}`, {
          code: 'proxy_error',
          hint: status === 407 ? 'the proxy wants credentials: put them in the proxy URL (http://user:password@proxy:port)' : 'check HTTPS_PROXY/HTTP_PROXY, NO_PROXY and the profile\'s proxy',
        }),
    };
  }
  if (error instanceof UnsupportedCodingError || (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code.startsWith('ERR__ERROR')))) {
    const detail = error instanceof UnsupportedCodingError ? message : 'its compressed body is corrupt';
    const answered = error instanceof UnsupportedCodingError ? error.status : status;
    return { reason: 'unreadable coding', retryable: false, notSent: false, error: (method, path) => unreadableBody(method, path, answered, detail) };
  }
  return undefined;
}

/** A transport failure in a few words, by its code. */
export function describeNetworkError(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
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
    default:
      return code ?? (error instanceof Error ? error.message.split('\n')[0] ?? 'network error' : 'network error');
  }
}
