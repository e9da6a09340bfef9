// The one HTTP client: base URL, User-Agent, auth header, per-attempt deadline, verbose lines, retries.
import { ApiError, InterruptedError, NetworkError, type CliError } from '../errors.js';
import { remembered } from '../remembered.js';
import { VERSION } from '../version.js';
import { guessNextPage, requestWritten } from './ahead.js';
import { parseJsonBody } from './body.js';
import { RateLimitBudget } from './budget.js';
import { canonicalCode, errorForStatus, noRouteHint, parseErrorBody, redirectBase, unreadableBody } from './errors.js';
import {
  LARGEST_PAGE,
  PAGE_SIZE_PARAMS,
  codeRecord,
  extractList,
  flattenResource,
  nextPageUrl,
  statedTotal,
  unwrapResource,
} from './pagination.js';
import {
  describeReset,
  isRetryableStatus,
  nextDelayMs,
  rateLimitWaitMs,
  sleep,
  waitExceedsBudget,
  type RetryPolicy,
} from './retry.js';
import {
  orderSchema,
  pingSchema,
  productSchema,
  type CodeRecord,
  type Order,
  type Ping,
  type Product,
} from './schemas.js';
import { transportFailure } from './network-errors.js';
import { decodeWhole, freeDecoded, gunzipInto, gzipOutputSize, Transport, type Coding } from './transport.js';

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  /** One line per HTTP attempt, for --verbose. */
  log?: (line: string) => void;
  /**
   * A request about to be tried again, and why: a spinner that never changed for minutes, and a cron log empty for
   * two, while a slow API was retried (a person's day).
   */
  onRetry?: (retry: { cause: string; attempt: number; maxAttempts: number; delayMs: number }) => void;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** The profile's proxy URL, used when HTTPS_PROXY/HTTP_PROXY (any case) are unset. */
  proxy?: string | undefined;
  /** PEM roots trusted in addition to Node's own (--ca-file, SSL_CERT_FILE, SSL_CERT_DIR). */
  extraCa?: string | undefined;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (default: the process's environment). */
  env?: NodeJS.ProcessEnv;
  /** The hint of a 401, for where this key came from (a key in GIFTCODES_API_KEY is not fixed by login). */
  refusedKeyHint?: string | undefined;
  /** Where the base URL was set, as hints name it (--base-url, GIFTCODES_BASE_URL, the profile's): --base-url when not said. */
  baseUrlFrom?: string | undefined;
}

export interface ApiRequest {
  method: 'GET' | 'POST';
  /** A path under the base URL (`/v1/ping`), or an absolute URL on the same origin (a next page). */
  target: string | URL;
  body?: string;
  headers?: Record<string, string>;
  /** A 2xx body is handed over as its bytes (ApiResponse.bytes), not parsed, in a buffer of this size from here. */
  rawBody?: (size: number) => Buffer;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
  url: URL;
  /** With ApiRequest.rawBody: the body's bytes, and `body` is undefined. */
  bytes?: Buffer;
  /** An attempt before the one answered may have been taken up by the API (send() retried after a timeout, a cut or a 5xx; not after a 429 or a 409 request_in_progress, which it did not take up). */
  earlierMaybeSent?: boolean;
}

/**
 * A page read from its bytes by the caller's reader (the export's fast path, src/export/scan.ts): the
 * records are under `key`, the array spanning `open` (its `[`) to `close` (its `]`), `count` of them;
 * `records` holds three numbers per record, the first two its start and end.
 */
export interface RawPage {
  key: string;
  open: number;
  close: number;
  count: number;
  records: Int32Array;
}

/** What reads pages from their bytes (rawCodePages), with the buffers it reads them from. */
export interface RawPageReader<P extends RawPage> {
  /** A page read from `bytes`, or undefined: JSON.parse reads it, and `bytes` is released. */
  read(bytes: Buffer): P | undefined;
  /** A buffer of `size` bytes for a page's body (reused once released). */
  buffer(size: number): Buffer;
  /** `bytes` is no longer used. */
  release(bytes: Buffer): void;
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
  /**
   * send()'s URL of each path it was given as text, resolved once: a plan's 1,000 POSTs go to one path, and
   * resolving it (a URL parsed, two origins compared) was ~14 µs a request there (issue 33). Only send() takes from
   * it, which never changes a URL it is given; the pages' URLs, which get parameters set, are resolved each time.
   */
  private readonly sendTarget = remembered(100, (target: string) => this.resolve(target));

  constructor(options: ApiClientOptions) {
    this.options = options;
    this.budget = new RateLimitBudget(options.retry.maxRetryAfterMs);
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.transport = new Transport({
      proxy: options.proxy,
      extraCa: options.extraCa,
      env: options.env ?? process.env,
      log: options.log,
      connectTimeoutMs: options.requestTimeoutMs,
    });
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  async ping(): Promise<Ping> {
    return (await this.pingWithDate()).ping;
  }

  /** The ping and the service's Date header, for doctor to compare this machine's clock with. */
  async pingWithDate(): Promise<{ ping: Ping; date: string | undefined }> {
    const response = await this.send({ method: 'GET', target: '/v1/ping' });
    return { ping: this.parse(response, pingSchema, 'GET /v1/ping', 'ping'), date: response.headers.date };
  }

  /** Every product; `onPage` hears how many were read so far and the total the service states, if it does. */
  /**
   * The catalog's products, page by page; `enough` (checked after each page) ends the reading early, so
   * `catalog list --limit 5` asks for no page past the one that held its fifth product.
   */
  async listProducts(
    onPage?: (read: number, total: number | undefined) => void,
    enough?: (products: readonly Product[]) => boolean,
  ): Promise<Product[]> {
    const products: Product[] = [];
    for await (const page of this.walk('/v1/catalog', 'products', 'products', flattenResource, undefined, onPage)) {
      for (const item of page as unknown[]) {
        const parsed = productSchema.safeParse(item);
        if (!parsed.success) throw unreadableBody('GET', '/v1/catalog', 200, 'a product without an id');
        products.push(parsed.data);
      }
      if (enough?.(products)) break;
    }
    return products;
  }

  /**
   * `replayed`: the API says it answered with the order an earlier request under this key placed (its
   * Idempotent-Replayed header; a service that sends none is never taken to have replayed). `earlierMaybeSent`: an
   * attempt of this call before the one answered may have reached it, so a replay may be of this very call.
   */
  async createOrder(
    body: string,
    idempotencyKey: string,
  ): Promise<{ order: Order; replayed: boolean; earlierMaybeSent: boolean }> {
    const response = await this.send({
      method: 'POST',
      target: '/v1/orders',
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    });
    // 202 Accepted may name the order without a status yet: it is then in progress, shown as "accepted".
    const resource = unwrapResource(response.body, 'order', 'status');
    const accepted =
      response.status === 202 &&
      resource &&
      typeof resource === 'object' &&
      !Array.isArray(resource) &&
      (resource as Record<string, unknown>).status === undefined
        ? { ...response, body: { ...resource, status: 'accepted' } }
        : response;
    const order = this.parse(accepted, orderSchema, 'POST /v1/orders', 'order');
    return {
      order,
      replayed: response.headers['idempotent-replayed']?.trim().toLowerCase() === 'true',
      earlierMaybeSent: response.earlierMaybeSent === true,
    };
  }

  async getOrder(id: string): Promise<Order> {
    const path = `/v1/orders/${encodeURIComponent(id)}`;
    const response = await this.send({ method: 'GET', target: path });
    return this.parse(response, orderSchema, `GET ${path}`, 'order');
  }

  /**
   * The order's codes, page by page, so an export never holds them all. `expected` (the order's quantity)
   * and any total the service states are checked once the last page is read: a shortfall throws there,
   * after the last page and before the caller can finish (an export then writes no file).
   */
  async *codePages(orderId: string, expected?: number): AsyncGenerator<CodeRecord[]> {
    // Without a reader of raw pages every page comes as records.
    for await (const page of this.rawCodePages(orderId, expected)) yield page as CodeRecord[];
  }

  /**
   * codePages, where each page's bytes are first offered to `read`: a page it reads is yielded as it
   * returned it (the export writes it straight from the bytes), any other page as records from JSON.parse.
   * The same checks either way: every page followed, the stated total and `expected` checked at the end.
   */
  async *rawCodePages<P extends RawPage = never>(
    orderId: string,
    expected: number | undefined,
    read?: RawPageReader<P>,
  ): AsyncGenerator<CodeRecord[] | P> {
    const path = `/v1/orders/${encodeURIComponent(orderId)}/codes`;
    let count = 0;
    for await (const page of this.walk(path, 'codes', 'codes', codeRecord, read)) {
      if (Array.isArray(page)) {
        for (const record of page) {
          if (!record || typeof record !== 'object' || Array.isArray(record)) {
            throw unreadableBody('GET', path, 200, 'a code record that is not an object');
          }
        }
        count += page.length;
      } else {
        count += page.count;
      }
      // A service that keeps naming a next page must not keep the export fetching: more codes than the order is for is a fault now.
      if (expected !== undefined && count > expected)
        throw partialResult(path, 'codes', `the order is for ${expected} codes`, count, expected);
      yield page as CodeRecord[] | P;
    }
    if (expected !== undefined && count !== expected)
      throw partialResult(path, 'codes', `the order is for ${expected} codes`, count, expected);
  }

  /**
   * Follows every pagination form to the end, asking for the largest page; a loop or a foreign host is an
   * error, not a hang or a leak; a stated total that differs from what was read is an error, not a partial list.
   */
  async *pages(
    path: string,
    listKey: string,
    noun = 'items',
    normalise: (item: unknown) => unknown = (item) => item,
  ): AsyncGenerator<unknown[]> {
    for await (const page of this.walk(path, listKey, noun, normalise)) yield page as unknown[];
  }

  /** pages(), where `read` may take a page from its bytes (rawCodePages). */
  private async *walk<P extends RawPage>(
    path: string,
    listKey: string,
    noun: string,
    normalise: (item: unknown) => unknown,
    read?: RawPageReader<P>,
    onPage?: (read: number, total: number | undefined) => void,
  ): AsyncGenerator<unknown[] | P> {
    let target: URL | undefined = this.resolve(path);
    for (const name of PAGE_SIZE_PARAMS) target.searchParams.set(name, String(LARGEST_PAGE));
    const seen = new Set<string>();
    let emptyInARow = 0;
    let total: number | undefined;
    let got = 0;
    const rawBody = read ? { rawBody: (size: number) => read.buffer(size) } : {};
    // The next page, asked for before this one is read (ahead.ts); once a guess proves wrong, no more guesses.
    let ahead: { key: string; response: Promise<ApiResponse> } | undefined;
    let guessing = read !== undefined;
    while (target) {
      const key = target.toString();
      if (seen.has(key))
        throw new NetworkError(`the API's pagination of ${path} loops back to a page already read`, {
          code: 'invalid_pagination',
        });
      seen.add(key);
      const asked = ahead?.key === key ? ahead.response : undefined;
      // A wrong guess is left to finish on its own: nothing reads it.
      if (ahead && !asked) guessing = false;
      ahead = undefined;
      let response: ApiResponse;
      try {
        response = await (asked ?? this.send({ method: 'GET', target, ...rawBody }));
      } catch (error) {
        // A service that refuses the page-size parameters is asked once more without them.
        if (seen.size === 1 && error instanceof ApiError && (error.status === 400 || error.status === 422)) {
          target = this.resolve(path);
          continue;
        }
        throw error;
      }
      if (guessing && response.bytes) {
        const next = guessNextPage(response.bytes, response.headers.link, target);
        if (next && next.origin === this.base.origin && !seen.has(next.toString())) {
          const asking = this.send({ method: 'GET', target: next, ...rawBody });
          asking.catch(() => undefined);
          ahead = { key: next.toString(), response: asking };
          // The request goes out before this page is scanned, so the service prepares it meanwhile.
          await requestWritten();
        }
      }
      const fast = response.bytes && read ? readRaw(response.bytes, (bytes) => read.read(bytes), listKey) : undefined;
      if (fast) response.body = fast.envelope;
      else if (response.bytes) {
        const parsed = parseJsonBody(response.bytes);
        read?.release(response.bytes);
        if (!parsed.ok) throw unreadableBody('GET', displayPath(target), response.status, parsed.reason);
        response.body = parsed.value;
      }
      let items: unknown[] | undefined;
      if (!fast) {
        const raw = extractList(response.body, listKey);
        if (!raw) throw unreadableBody('GET', displayPath(target), response.status, 'no list in the body');
        items = raw.map(normalise);
      }
      const length = fast ? fast.page.count : (items?.length ?? 0);
      total ??= statedTotal(response.body);
      got += length;
      onPage?.(got, total);
      const last = fast ? normalise(fast.last) : items?.at(-1);
      yield fast ? fast.page : (items ?? []);
      target = nextPageUrl(response.body, response.headers.link, target, last, length);
      if (target && length === 0 && seen.size > 1 && target.searchParams.get('starting_after') !== null)
        target = undefined;
      // Each page new yet empty, forever, would never be caught by `seen`: a run of them is a broken list.
      emptyInARow = length === 0 ? emptyInARow + 1 : 0;
      if (target && emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
        throw new NetworkError(
          `the API's pagination of ${path} sent ${emptyInARow} empty pages in a row and still names a next page`,
          { code: 'invalid_pagination' },
        );
      }
    }
    if (total !== undefined && got !== total)
      throw partialResult(path, noun, `the API states ${total} ${noun}`, got, total);
  }

  /** One logical request: attempts, backoff, Retry-After, and the mapping of the last failure to an exit code. */
  async send(req: ApiRequest): Promise<ApiResponse> {
    const url = typeof req.target === 'string' ? this.sendTarget(req.target) : this.resolve(req.target);
    // Made only for a -v line or an error: building it (a URL without the page-size parameters) cost more than the rest of a request's bookkeeping.
    let shown: string | undefined;
    const path = (): string => (shown ??= displayPath(url));
    const started = Date.now();
    const maxAttempts = this.options.retry.retries + 1;
    // Whether any attempt may have written a byte of the request: a failure is "not sent" only if none did.
    let maybeSent = false;
    // Whether any attempt may have been taken up by the API: one it answered with a 429 or a 409 request_in_progress
    // was not (a replay answering a retry after those is of another request under the key, not of this call).
    let maybeTaken = false;
    for (let attempt = 1; ; attempt++) {
      // A Retry-After one request was given holds every request of this client (a plan's concurrent rows).
      const release = await this.budget.acquire(this.options.signal).catch(() => {
        throw this.interrupted(!maybeSent);
      });
      // Stopped before this attempt began: nothing of it was written either.
      if (this.options.signal?.aborted) {
        release();
        throw this.interrupted(!maybeSent);
      }
      let outcome: Awaited<ReturnType<ApiClient['attempt']>>;
      try {
        outcome = await this.attempt(req, url, path, attempt, maxAttempts);
        if ('response' in outcome || !outcome.retryable) this.budget.answered();
        else this.budget.note(outcome.retryAfterMs);
      } finally {
        release();
      }
      if ('response' in outcome) {
        if (maybeTaken) outcome.response.earlierMaybeSent = true;
        return outcome.response;
      }
      const earlierMaybeSent = maybeSent;
      if (!outcome.notSent) maybeSent = true;
      if (!outcome.notSent && !outcome.untaken) maybeTaken = true;
      const delay = outcome.retryable
        ? nextDelayMs(this.options.retry, attempt - 1, Date.now() - started, outcome.retryAfterMs)
        : undefined;
      if (delay === undefined) {
        const error = outcome.error(attempt);
        error.notSent = !maybeSent;
        // An answer to a retry speaks of the earlier attempts too (a 422 idempotency_key_reused: that one may have placed the order).
        error.earlierMaybeSent = earlierMaybeSent;
        // The service's own wait ended the retries: say when it may be asked again.
        if (
          outcome.retryable &&
          outcome.retryAfterMs !== undefined &&
          waitExceedsBudget(this.options.retry, Date.now() - started, outcome.retryAfterMs)
        ) {
          error.message = `${error.message}; ${describeReset(outcome.retryAfterMs, Date.now(), error.status)}`;
          // More retries would not help: the service asked for a longer wait than this run will sit through.
          error.hint = `run it again after that time (a run waits out at most ${this.options.retry.maxRetryAfterMs / 1000} s of a Retry-After by itself)`;
        }
        throw error;
      }
      this.options.log?.(`  retrying in ${(delay / 1000).toFixed(1)}s`);
      this.options.onRetry?.({ cause: outcome.error(1).message, attempt: attempt + 1, maxAttempts, delayMs: delay });
      await sleep(delay, this.options.signal).catch(() => {
        throw this.interrupted(!maybeSent);
      });
    }
  }

  private async attempt(
    req: ApiRequest,
    url: URL,
    path: () => string,
    attempt: number,
    maxAttempts: number,
  ): Promise<
    | { response: ApiResponse }
    | {
        retryable: boolean;
        retryAfterMs?: number;
        notSent?: boolean;
        /** The API answered that it did not take the request up: a 429, or a 409 request_in_progress (another request under the key is). */
        untaken?: boolean;
        error: (attempts: number) => CliError;
      }
  > {
    // A deadline of this attempt's own, cleared when it ends: AbortSignal.timeout's timer (and AbortSignal.any's
    // link to the process's signal) outlived every request by the whole timeout, and over the thousand pages
    // of a large export they piled up in the old generation (peak RSS grew with the number of codes).
    const deadline = { aborted: false };
    const controller = new AbortController();
    const timer = setTimeout(() => {
      deadline.aborted = true;
      controller.abort(new DOMException('the request timed out', 'TimeoutError'));
    }, this.options.requestTimeoutMs);
    timer.unref();
    const outer = this.options.signal;
    const onAbort = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener('abort', onAbort, { once: true });
    const signal = controller.signal;
    // process.hrtime, not performance.now(): the first touch of the global `performance` loads perf_hooks
    // and nine more of Node's modules (~2 ms of every API command, BENCHMARKS.md issue 13).
    const started = process.hrtime.bigint();
    const log = (result: string): void =>
      this.options.log?.(
        `${req.method} ${path()} ${result} ${Math.round(Number(process.hrtime.bigint() - started) / 1e6)}ms attempt ${attempt}/${maxAttempts}`,
      );
    // The proxy this request goes through, credentials hidden: every failure that involves it names it.
    const proxy = this.transport.proxyFor(url);
    if (!this.proxyLogged) {
      // Said once, before the first attempt: which proxy, or none.
      this.proxyLogged = true;
      if (proxy) this.options.log?.(`via proxy ${proxy}`);
    }
    let answeredStatus = 0;
    try {
      // The deadline covers the whole attempt: connecting, the head, and every byte of the body.
      const wire = {
        method: req.method,
        signal,
        headers: {
          accept: 'application/json',
          'user-agent': USER_AGENT,
          'x-api-key': this.options.apiKey,
          ...req.headers,
        },
        body: req.body,
      };
      // Every body is read whole, without a stream (Transport.requestWhole): an export's pages, and a plan's answers,
      // whose Readable, handler and ticks were ~6 % of a 1,000-row plan's CPU (BENCHMARKS.md).
      const res = await this.transport.requestWhole(
        url,
        wire,
        MAX_BODY_BYTES,
        () => tooLargeError(MAX_BODY_BYTES),
        (status) => (answeredStatus = status),
      );
      answeredStatus = res.statusCode;
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const bytes = await bodyBytes(res.chunks, res.size, MAX_BODY_BYTES, ok ? req.rawBody : undefined, res.codings);
      log(String(res.statusCode));
      const headers = flattenHeaders(res.headers);
      if (ok) {
        if (req.rawBody) return { response: { status: res.statusCode, headers, body: undefined, url, bytes } };
        const parsed = parseJsonBody(bytes);
        if (!parsed.ok)
          return { retryable: false, error: () => unreadableBody(req.method, path(), res.statusCode, parsed.reason) };
        return { response: { status: res.statusCode, headers, body: parsed.value, url } };
      }
      const errorBody = parseErrorBody(res.statusCode, bytes.toString('utf8'), headers['content-type']);
      const retryAfterMs = rateLimitWaitMs(res.statusCode, headers);
      return {
        retryable: isRetryableStatus(res.statusCode, errorBody.code),
        untaken:
          res.statusCode === 429 ||
          (res.statusCode === 409 && canonicalCode(errorBody.code ?? '') === 'request_in_progress'),
        retryAfterMs,
        error: (attempts) => {
          const error = errorForStatus(
            req.method,
            path(),
            res.statusCode,
            errorBody,
            attempts,
            headers.location,
            this.options.refusedKeyHint,
            this.options.baseUrlFrom,
            retryAfterMs,
            headers.location === undefined ? undefined : redirectBase(headers.location, url, this.options.baseUrl),
          );
          if (res.statusCode === 404 && error.hint === undefined)
            error.hint = noRouteHint(this.options.baseUrl, path(), this.options.baseUrlFrom);
          return error;
        },
      };
    } catch (error) {
      if (this.options.signal?.aborted) throw this.interrupted();
      if (error instanceof NetworkError) {
        log(error.code);
        return { retryable: false, error: () => error };
      }
      const failure = transportFailure(error, {
        method: req.method,
        path: path(),
        base: this.base,
        proxy,
        requestTimeoutMs: this.options.requestTimeoutMs,
        timedOut: deadline.aborted,
        status: answeredStatus,
        baseUrlFrom: this.options.baseUrlFrom,
      });
      log(failure.reason);
      return failure;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The signal's own reason ("interrupted by SIGINT") when it carries one. `notSent`: stopped between attempts, and no
   * attempt of this call may have written a byte (a plan's row waiting its turn behind another row's Retry-After): a
   * copy says so (every request of the run shares the signal's reason), and the order machine writes such a first
   * request's intent back as never sent (OrderMachine.send).
   */
  private interrupted(notSent = false): InterruptedError {
    const reason: unknown = this.options.signal?.reason;
    const error = reason instanceof InterruptedError ? reason : new InterruptedError();
    return notSent
      ? new InterruptedError(error.message, { notSent: true, ...(error.hint ? { hint: error.hint } : {}) })
      : error;
  }

  private resolve(target: string | URL): URL {
    const url =
      typeof target === 'string' && target.startsWith('/')
        ? new URL(target.slice(1), this.base)
        : new URL(target, this.base);
    if (url.origin !== this.base.origin) {
      throw new NetworkError(`the API pointed at another host (${url.host}); refusing to send the key there`, {
        code: 'foreign_host',
      });
    }
    return url;
  }

  /** A single resource, bare or in any envelope (`data`, `order`, `{meta, data}`, JSON:API). */
  private parse<T>(
    response: ApiResponse,
    schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
    what: string,
    key: string,
  ): T {
    const parsed = schema.safeParse(unwrapResource(response.body, key, 'status'));
    if (!parsed.success) {
      const [method = 'GET', path = what] = what.split(' ');
      throw unreadableBody(method, path, response.status, 'unexpected shape');
    }
    return parsed.data;
  }
}

/**
 * A page `read` took from its bytes, with the envelope around its records (the body with the array
 * emptied: totals, next links) parsed by JSON.parse; undefined, so that JSON.parse reads the whole body,
 * unless the envelope is valid and the list it names is that array.
 */
export function readRaw<P extends RawPage>(
  bytes: Buffer,
  read: (bytes: Buffer) => P | undefined,
  listKey: string,
): { page: P; envelope: unknown; last: unknown } | undefined {
  const page = read(bytes);
  if (!page || page.count === 0) return undefined;
  const parsed = parseJsonBody(Buffer.concat([bytes.subarray(0, page.open + 1), bytes.subarray(page.close)]));
  if (!parsed.ok || !parsed.value || typeof parsed.value !== 'object') return undefined;
  const list = (parsed.value as Record<string, unknown>)[page.key];
  if (!Array.isArray(list) || list.length !== 0 || extractList(parsed.value, listKey) !== list) return undefined;
  // The last record, for a next page named after its id (Stripe's starting_after).
  const at = (page.count - 1) * 3;
  const last: unknown = JSON.parse(bytes.toString('utf8', page.records[at], page.records[at + 1]));
  return { page, envelope: parsed.value, last };
}

/** A body larger than `limit` bytes, as sent or decoded. */
function tooLargeError(limit: number): NetworkError {
  return new NetworkError(`the API sent a body larger than ${limit / 1024 / 1024} MiB`, { code: 'response_too_large' });
}

/**
 * The whole body (`size` bytes in `chunks`, none over `limit`), decoded when it came coded (transport.ts decodeWhole:
 * the page whole, not a stream), in a buffer from `into` where given. `limit` holds for the decoded bytes too. A
 * gzipped body is decoded straight into a buffer from `into` where it can be (transport.ts gunzipInto), sized by
 * its trailer (gzipOutputSize), so an export's page is neither a new buffer nor a copy.
 */
async function bodyBytes(
  chunks: Buffer[],
  size: number,
  limit: number,
  into?: (size: number) => Buffer,
  codings?: readonly Coding[],
): Promise<Buffer> {
  if (codings === undefined || codings.length === 0) {
    if (!into) return Buffer.concat(chunks);
    const bytes = into(size);
    let at = 0;
    for (const chunk of chunks) at += chunk.copy(bytes, at);
    return bytes;
  }
  const coded = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  let room: Buffer | undefined;
  if (into && codings.length === 1 && codings[0] === 'gzip') {
    room = into(gzipOutputSize(coded, limit));
    const length = await gunzipInto(coded, room);
    if (length !== undefined) return room.subarray(0, length);
  }
  const decoded = await decodeWhole(coded, codings, limit);
  if (decoded === undefined) throw tooLargeError(limit);
  if (!into) return decoded;
  const bytes = room && decoded.length <= room.length ? room.subarray(0, decoded.length) : into(decoded.length);
  decoded.copy(bytes);
  freeDecoded(decoded);
  return bytes;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers))
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** What was read differs from what the service or the order says there is: never used as if whole. */
function partialResult(path: string, noun: string, stated: string, read: number, expected: number): NetworkError {
  const one = noun.replace(/s$/, '');
  if (read > expected) {
    return new NetworkError(
      `GET ${path}: ${stated} but ${read} arrived, more than that (it kept naming a next page); the list is not used`,
      {
        code: 'partial_result',
        hint: `the service sent more ${noun} than there are; try again later, and tell the provider if it persists`,
      },
    );
  }
  return new NetworkError(`GET ${path}: ${stated} but only ${read} arrived; the partial list is not used`, {
    code: 'partial_result',
    hint: `the service did not send every ${one}; try again later, and tell the provider if it persists`,
  });
}

/** The path and query as shown in messages and -v lines, without the page-size parameters the client adds to every list. */
function displayPath(url: URL): string {
  if (!PAGE_SIZE_PARAMS.some((name) => url.searchParams.get(name) === String(LARGEST_PAGE)))
    return `${url.pathname}${url.search}`;
  // A detached copy of the query: each delete on a URL's own searchParams serialises and parses the whole URL again.
  const params = new URLSearchParams(url.search);
  for (const name of PAGE_SIZE_PARAMS) if (params.get(name) === String(LARGEST_PAGE)) params.delete(name);
  const query = params.toString();
  return `${url.pathname}${query === '' ? '' : `?${query}`}`;
}
