// The one HTTP client: base URL, User-Agent, auth header, per-attempt deadline, verbose lines, retries.
import { InterruptedError, NetworkError, type CliError } from '../errors.js';
import { isLoopbackHost } from '../config/resolve.js';
import { VERSION } from '../version.js';
import { parseJsonBody } from './body.js';
import { RateLimitBudget } from './budget.js';
import { errorForStatus, parseErrorBody, unreadableBody } from './errors.js';
import { extractList, nextPageUrl } from './pagination.js';
import { isRetryableStatus, nextDelayMs, parseRetryAfterMs, sleep, type RetryPolicy } from './retry.js';
import { orderEnvelopeSchema, pingSchema, productSchema, type CodeRecord, type Order, type Ping, type Product } from './schemas.js';
import { Transport, UnsupportedCodingError } from './transport.js';

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  /** One line per HTTP attempt, for --verbose. */
  log?: (line: string) => void;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** The profile's proxy URL, used when HTTPS_PROXY/HTTP_PROXY (any case) are unset. */
  proxy?: string | undefined;
  /** PEM roots trusted in addition to Node's own (--ca-file). */
  extraCa?: string | undefined;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (default: the process's environment). */
  env?: NodeJS.ProcessEnv;
}

export interface ApiRequest {
  method: 'GET' | 'POST';
  /** A path under the base URL (`/v1/ping`), or an absolute URL on the same origin (a next page). */
  target: string | URL;
  body?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
  url: URL;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_EMPTY_PAGES_IN_A_ROW = 20;
const USER_AGENT = `giftcodes/${VERSION} node/${process.versions.node} ${process.platform}`;

export class ApiClient {
  private readonly options: ApiClientOptions;
  private readonly base: URL;
  private readonly transport: Transport;
  private readonly budget: RateLimitBudget;
  private proxyLogged = false;

  constructor(options: ApiClientOptions) {
    this.options = options;
    this.budget = new RateLimitBudget(options.retry.maxRetryAfterMs);
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.transport = new Transport({ proxy: options.proxy, extraCa: options.extraCa, env: options.env ?? process.env });
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  async ping(): Promise<Ping> {
    const response = await this.send({ method: 'GET', target: '/v1/ping' });
    return this.parse(response, pingSchema, 'GET /v1/ping');
  }

  async listProducts(): Promise<Product[]> {
    const products: Product[] = [];
    // The reference server's largest page (CONTRACT: ask for it); 5,000 products are then 5 requests, not 500.
    for await (const page of this.pages('/v1/catalog?limit=1000', 'products')) {
      for (const item of page) {
        const parsed = productSchema.safeParse(item);
        if (!parsed.success) throw unreadableBody('GET', '/v1/catalog', 200, 'a product without an id');
        products.push(parsed.data);
      }
    }
    return products;
  }

  async createOrder(body: string, idempotencyKey: string): Promise<{ order: Order; replayed: boolean }> {
    const response = await this.send({
      method: 'POST',
      target: '/v1/orders',
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    });
    const order = this.parse(response, orderEnvelopeSchema, 'POST /v1/orders');
    return { order, replayed: response.headers['idempotent-replayed'] === 'true' };
  }

  async getOrder(id: string): Promise<Order> {
    const path = `/v1/orders/${encodeURIComponent(id)}`;
    const response = await this.send({ method: 'GET', target: path });
    return this.parse(response, orderEnvelopeSchema, `GET ${path}`);
  }

  /** The order's codes, page by page, so an export never holds them all. */
  async *codePages(orderId: string): AsyncGenerator<CodeRecord[]> {
    const path = `/v1/orders/${encodeURIComponent(orderId)}/codes`;
    for await (const page of this.pages(path, 'codes')) {
      for (const record of page) {
        if (!record || typeof record !== 'object' || Array.isArray(record)) {
          throw unreadableBody('GET', path, 200, 'a code record that is not an object');
        }
      }
      yield page as CodeRecord[];
    }
  }

  /** Follows every pagination form to the end; a loop or a foreign host is an error, not a hang or a leak. */
  async *pages(path: string, listKey: string): AsyncGenerator<unknown[]> {
    let target: URL | undefined = this.resolve(path);
    const seen = new Set<string>();
    let emptyInARow = 0;
    while (target) {
      const key = target.toString();
      if (seen.has(key)) throw new NetworkError(`the API's pagination of ${path} loops back to a page already read`, { code: 'invalid_pagination' });
      seen.add(key);
      const response = await this.send({ method: 'GET', target });
      const items = extractList(response.body, listKey);
      if (!items) throw unreadableBody('GET', displayPath(target), response.status, 'no list in the body');
      yield items;
      target = nextPageUrl(response.body, response.headers.link, target, items.at(-1));
      if (target && items.length === 0 && seen.size > 1 && target.searchParams.get('starting_after') !== null) target = undefined;
      // Each page new yet empty, forever, would never be caught by `seen`: a run of them is a broken list.
      emptyInARow = items.length === 0 ? emptyInARow + 1 : 0;
      if (target && emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
        throw new NetworkError(`the API's pagination of ${path} sent ${emptyInARow} empty pages in a row and still names a next page`, { code: 'invalid_pagination' });
      }
    }
  }

  /** One logical request: attempts, backoff, Retry-After, and the mapping of the last failure to an exit code. */
  async send(req: ApiRequest): Promise<ApiResponse> {
    const url = this.resolve(req.target);
    const path = displayPath(url);
    const started = Date.now();
    const maxAttempts = this.options.retry.retries + 1;
    // Whether any attempt may have written a byte of the request: a failure is "not sent" only if none did.
    let maybeSent = false;
    for (let attempt = 1; ; attempt++) {
      // A Retry-After one request was given holds every request of this client (a plan's concurrent rows).
      await this.budget.ready(this.options.signal).catch(() => {
        throw this.interrupted();
      });
      const outcome = await this.attempt(req, url, path, attempt, maxAttempts);
      if ('response' in outcome) return outcome.response;
      if (outcome.retryable) this.budget.note(outcome.retryAfterMs);
      if (!outcome.notSent) maybeSent = true;
      const delay = outcome.retryable
        ? nextDelayMs(this.options.retry, attempt - 1, Date.now() - started, outcome.retryAfterMs)
        : undefined;
      if (delay === undefined) {
        const error = outcome.error(attempt);
        error.notSent = !maybeSent;
        throw error;
      }
      this.options.log?.(`  retrying in ${(delay / 1000).toFixed(1)}s`);
      await sleep(delay, this.options.signal).catch(() => {
        throw this.interrupted();
      });
    }
  }

  private async attempt(
    req: ApiRequest,
    url: URL,
    path: string,
    attempt: number,
    maxAttempts: number,
  ): Promise<{ response: ApiResponse } | { retryable: boolean; retryAfterMs?: number; notSent?: boolean; error: (attempts: number) => CliError }> {
    const deadline = AbortSignal.timeout(this.options.requestTimeoutMs);
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, deadline]) : deadline;
    const started = performance.now();
    const log = (result: string): void =>
      this.options.log?.(`${req.method} ${path} ${result} ${Math.round(performance.now() - started)}ms attempt ${attempt}/${maxAttempts}`);
    if (!this.proxyLogged) {
      // Said once, before the first attempt: which proxy (never its credentials), or none.
      this.proxyLogged = true;
      const proxy = this.transport.proxyFor(url);
      if (proxy) this.options.log?.(`via proxy ${proxy}`);
    }
    let answeredStatus = 0;
    try {
      // The deadline covers the whole attempt: connecting, the head, and every byte of the body.
      const res = await this.transport.request(url, {
        method: req.method,
        signal,
        headers: {
          accept: 'application/json',
          'user-agent': USER_AGENT,
          'x-api-key': this.options.apiKey,
          ...req.headers,
        },
        body: req.body,
      });
      answeredStatus = res.statusCode;
      const bytes = await readBytes(res.body, MAX_BODY_BYTES);
      log(String(res.statusCode));
      const headers = flattenHeaders(res.headers);
      if (res.statusCode >= 200 && res.statusCode < 300) {
        const parsed = parseJsonBody(bytes);
        if (!parsed.ok) return { retryable: false, error: () => unreadableBody(req.method, path, res.statusCode, parsed.reason) };
        return { response: { status: res.statusCode, headers, body: parsed.value, url } };
      }
      const errorBody = parseErrorBody(res.statusCode, bytes.toString('utf8'), headers['content-type']);
      return {
        retryable: isRetryableStatus(res.statusCode, errorBody.code),
        retryAfterMs: parseRetryAfterMs(headers['retry-after']),
        error: (attempts) => errorForStatus(req.method, path, res.statusCode, errorBody, attempts, headers.location),
      };
    } catch (error) {
      if (this.options.signal?.aborted) throw this.interrupted();
      if (error instanceof NetworkError) {
        log(error.code);
        return { retryable: false, error: () => error };
      }
      const failure = classify(error, answeredStatus);
      if (failure && !deadline.aborted) {
        log(failure.reason);
        return {
          retryable: failure.retryable,
          notSent: failure.notSent,
          error: (attempts) => failure.error(req.method, path, this.base.origin, attempts),
        };
      }
      const reason = deadline.aborted ? `no complete answer within ${this.options.requestTimeoutMs / 1000}s` : describeNetworkError(error);
      log(reason);
      return {
        retryable: true,
        notSent: !deadline.aborted && isNotSent(error),
        error: (attempts) =>
          new NetworkError(`cannot reach ${this.base.origin} (${req.method} ${path}: ${reason})${attempts > 1 ? ` after ${attempts} attempts` : ''}`, {
            code: deadline.aborted ? 'timeout' : 'network_error',
            hint:
              this.transport.proxyFor(url) !== undefined ? `check the proxy (${this.transport.proxyFor(url)}), HTTPS_PROXY/HTTP_PROXY and NO_PROXY, or raise --request-timeout`
              : isLoopbackHost(this.base.hostname) ? 'is the reference server running? start it with: giftcodes serve'
              : 'check --base-url and the network, or raise --request-timeout',
          }),
      };
    }
  }

  /** The signal's own reason ("interrupted by SIGINT") when it carries one. */
  private interrupted(): InterruptedError {
    const reason: unknown = this.options.signal?.reason;
    return reason instanceof InterruptedError ? reason : new InterruptedError();
  }

  private resolve(target: string | URL): URL {
    const url = typeof target === 'string' && target.startsWith('/') ? new URL(target.slice(1), this.base) : new URL(target, this.base);
    if (url.origin !== this.base.origin) {
      throw new NetworkError(`the API pointed at another host (${url.host}); refusing to send the key there`, { code: 'foreign_host' });
    }
    return url;
  }

  private parse<T>(response: ApiResponse, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, what: string): T {
    const parsed = schema.safeParse(response.body);
    if (!parsed.success) {
      const [method = 'GET', path = what] = what.split(' ');
      throw unreadableBody(method, path, response.status, 'unexpected shape');
    }
    return parsed.data;
  }
}

async function readBytes(body: AsyncIterable<Buffer | Uint8Array> & { destroy?: (e?: Error) => void }, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy?.();
      throw new NetworkError(`the API sent a body larger than ${limit / 1024 / 1024} MiB`, { code: 'response_too_large' });
    }
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function displayPath(url: URL): string {
  return `${url.pathname}${url.search}`;
}

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

interface Failure {
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

function describeNetworkError(error: unknown): string {
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
