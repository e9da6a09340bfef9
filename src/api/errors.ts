// Every error-body form a real service might send, read into one shape, then mapped to an exit code.
import { ApiError, AuthError, NetworkError, type CliError } from '../errors.js';
import { redactKeys, stripControl } from '../secrets.js';

export interface ErrorBody {
  code: string;
  message: string;
}

const MAX_MESSAGE = 300;

/** The codes openapi.yaml names and the CLI acts on, recognised also as `REQUEST_IN_PROGRESS`, `request-in-progress`, `RequestInProgress`. */
const KNOWN_CODES = new Set([
  'idempotency_key_reused',
  'idempotency_key_missing',
  'idempotency_key_invalid',
  'request_in_progress',
  'order_not_completed',
  'order_failed',
  'order_not_found',
  'product_not_found',
  'unknown_product',
  'invalid_api_key',
  'insufficient_funds',
  'insufficient_supply',
  'rate_limited',
]);

/** A known code in any spelling becomes its openapi.yaml spelling; another code is kept as sent. */
export function canonicalCode(code: string): string {
  const snake = snakeOf(code);
  return KNOWN_CODES.has(snake) ? snake : code;
}

/** A code in snake case, whatever its spelling (`RequestInProgress`, `request-in-progress`, `Not Found`). */
function snakeOf(code: string): string {
  return code
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');
}

/** The code of an error body that names none of its own (an HTML page, an empty body): no API named it. */
export function statusCode(status: number): string {
  return `http_${status}`;
}

/**
 * The refusals of an order that the API names (openapi.yaml), in any spelling: the order was refused as such, so the
 * API placed nothing under its key, or it would have answered with that order.
 */
const ORDER_REFUSALS = new Set([
  'insufficient_funds',
  'insufficient_supply',
  'product_not_found',
  'unknown_product',
  'idempotency_key_invalid',
  'idempotency_key_missing',
]);

/**
 * Whether an error proves that the API placed no order under a key that may have reached it before (a send resumed,
 * a key sent again after an abandon): one of the order refusals it names, and nothing else. A page with no code, a
 * gateway's or framework's default body (`{"error":"Not Found"}`, `{"code":404}`, gRPC's `{"code":5}`, a
 * problem+json `type` anchor, a Cloudflare error number) or a code of the service's own the CLI cannot read keeps the
 * order pending: reviews settled abandoned keys with each of those, and their charged orders were lost. An
 * `idempotency_key_reused` proves the opposite: an order is under the key.
 */
export function refusesTheOrder(code: string): boolean {
  return ORDER_REFUSALS.has(canonicalCode(code));
}

/**
 * Reads `{"error":{"code","message"}}`, `{"error":"code","message"}`, `{"code","message"}`, RFC 9457
 * problem+json, JSON:API `{"errors":[…]}`, `{"type","message","help"}`, or text.
 */
export function parseErrorBody(status: number, text: string, contentType: string | undefined): ErrorBody {
  const read = readErrorBody(status, text, contentType);
  return { code: canonicalCode(read.code), message: read.message };
}

function readErrorBody(status: number, text: string, contentType: string | undefined): ErrorBody {
  const fallbackCode = statusCode(status);
  const trimmed = text.trim();
  let json: unknown;
  if (trimmed.startsWith('{') || /json/i.test(contentType ?? '')) {
    try {
      json = JSON.parse(trimmed);
    } catch {
      json = undefined;
    }
  }
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const body = json as Record<string, unknown>;
    const nested = body.error;
    if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
      const inner = nested as Record<string, unknown>;
      return {
        code: str(inner.code) ?? typeCode(str(inner.type)) ?? str(body.code) ?? fallbackCode,
        message: clip(withHelp(str(inner.message) ?? str(inner.detail) ?? str(body.message) ?? '', str(inner.help))),
      };
    }
    if (typeof nested === 'string') {
      return {
        code: str(body.code) ?? nested,
        message: clip(
          str(body.message) ?? str(body.error_description) ?? str(body.detail) ?? (str(body.code) ? nested : ''),
        ),
      };
    }
    // JSON:API: {"errors":[{"status","code","title","detail"}]}; the first error names the failure.
    if (Array.isArray(body.errors) && body.errors.length > 0) {
      const first: unknown = body.errors[0];
      if (first && typeof first === 'object' && !Array.isArray(first)) {
        const e = first as Record<string, unknown>;
        const more = body.errors.length > 1 ? ` (and ${body.errors.length - 1} more)` : '';
        return {
          code: str(e.code) ?? typeCode(str(e.type)) ?? slug(str(e.title)) ?? fallbackCode,
          message: clip(`${str(e.detail) ?? str(e.title) ?? str(e.message) ?? ''}${more}`),
        };
      }
      if (typeof first === 'string') return { code: fallbackCode, message: clip(first) };
    }
    if (body.code !== undefined || body.message !== undefined) {
      // `{"type","message","help"}` (Runa) names the code in `type`; problem+json may add `code` to its members.
      return {
        code: str(body.code) ?? typeCode(str(body.type)) ?? fallbackCode,
        message: clip(withHelp(str(body.message) ?? str(body.detail) ?? str(body.title) ?? '', str(body.help))),
      };
    }
    // RFC 9457 problem details: type, title, status, detail.
    if (body.title !== undefined || body.detail !== undefined || body.type !== undefined) {
      return {
        code: typeCode(str(body.type)) ?? slug(str(body.title)) ?? fallbackCode,
        message: clip(str(body.detail) ?? str(body.title) ?? ''),
      };
    }
  }
  const plain = isHtml(trimmed, contentType) ? htmlText(trimmed) : trimmed;
  const firstLine = plain.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  return { code: fallbackCode, message: clip(firstLine) };
}

/** The code in a problem type: its last path segment (`https://x/probs/out-of-stock` → `out-of-stock`). */
function typeCode(type: string | undefined): string | undefined {
  if (!type || type === 'about:blank') return undefined;
  return (
    type
      .replace(/[/#]+$/, '')
      .split(/[/#]/)
      .pop() || undefined
  );
}

function withHelp(message: string, help: string | undefined): string {
  if (!help || message.includes(help)) return message;
  return message ? `${message} (${help})` : help;
}

/**
 * The base URL a redirect points to: its Location (resolved against the request) with the path the client added
 * to the base URL, and the query, taken off when it ends with that path; else the whole Location. A hint naming
 * the Location itself, pasted as the base URL, had the client add /v1/ping to /v1/ping.
 */
export function redirectBase(location: string, requested: URL, baseUrl: string): string {
  let target: URL;
  try {
    target = new URL(location, requested);
  } catch {
    return location;
  }
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const added = requested.pathname.startsWith(basePath) ? requested.pathname.slice(basePath.length) : '';
  if (added === '' || added === '/' || !target.pathname.endsWith(added)) return target.href;
  return `${target.origin}${target.pathname.slice(0, -added.length)}`;
}

export function describeHttpError(method: string, path: string, status: number, body: ErrorBody): string {
  const message = body.message ? `: ${body.message}` : '';
  return `${method} ${path} failed: HTTP ${status} ${body.code}${message}`;
}

/** 401/403 are the key's fault (exit 3); other 4xx are refusals (exit 4); 5xx, 429 and redirects are failures (exit 5). */
export function errorForStatus(
  method: string,
  path: string,
  status: number,
  body: ErrorBody,
  attempts: number,
  location?: string,
  refusedKeyHint?: string,
  baseUrlFrom = '--base-url',
  retryAfterMs?: number,
  redirectedBase?: string,
): CliError {
  const text = describeHttpError(method, path, status, body);
  if (status < 400) {
    // Redirects are never followed: the key must not travel to an address the user did not give.
    const where = location ? ` to ${clip(location)}` : '';
    return new NetworkError(`${text} (a redirect${where}, not followed)`, {
      code: body.code,
      status,
      hint: location
        ? `if ${clip(redirectedBase ?? location)} is the API, use it as ${baseUrlFrom}`
        : `check ${baseUrlFrom}`,
    });
  }
  if (status === 401 || status === 403) {
    return new AuthError(text, {
      code: body.code,
      status,
      hint:
        status === 401
          ? (refusedKeyHint ??
            'the key was refused: save a valid one with giftcodes login, or give it with --api-key or GIFTCODES_API_KEY')
          : 'this key may not be allowed to do that',
    });
  }
  // A request still in progress after every retry is not a refusal: the first attempt may yet succeed.
  if (
    status >= 500 ||
    status === 429 ||
    status === 408 ||
    (status === 409 && canonicalCode(body.code) === 'request_in_progress')
  ) {
    const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
    return new NetworkError(`${text}${tries}`, {
      code: body.code,
      status,
      hint: unansweredHint(status, retryAfterMs),
    });
  }
  return new ApiError(text, { code: body.code, status, hint: hintForCode(body.code, path) });
}

/** What to do about a request that got no answer after its retries, by its cause (and the wait the service asked for). */
function unansweredHint(status: number, retryAfterMs: number | undefined): string {
  // The wait the service gave (Retry-After, or a rate limit's reset) is the one said: a review read "retry after 1 s"
  // in the message and "try again in a minute" in the hint.
  if (status === 429 && retryAfterMs !== undefined)
    return `the API limits this key's requests and asked to be tried again ${retryAfterMs <= 0 ? 'at once' : `in ${Math.ceil(retryAfterMs / 1000)} s`}: run it again then, or raise --retries to wait it out (a plan: a lower --concurrency)`;
  if (status === 429)
    return "the API limits this key's requests: try again in a minute (a plan: a lower --concurrency)";
  if (status === 408)
    return 'the service gave up waiting for the request: check the network or proxy between here and the API, then try again';
  if (status === 409)
    return 'the API is still working on the first request with this idempotency key: run the same command again in a minute (the same key is never charged twice)';
  return 'the service is failing; try again later, or raise --retries';
}

/**
 * A 404 with no hint of its own (not an order or product the API does not have): a base URL with a path the API does
 * not live under (`--base-url http://127.0.0.1:4010/api` sends /api/v1/orders), or a server that is not the API.
 * Said with the base URL to check, where it came from, and what one looks like.
 */
export function noRouteHint(baseUrl: string, path: string, baseUrlFrom = '--base-url'): string | undefined {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (base.pathname !== '/' && base.pathname !== '')
    return `check the path of the base URL ${baseUrl} (from ${baseUrlFrom}): the client adds /v1/… to it, so it is the API's root, such as ${base.origin}, with a path only if the API lives under one`;
  // An order the API does not know is its own 404 (order_not_found, or not_found for /v1/orders/<id>).
  if (!/^\/v1\/(?:ping|catalog|orders)$/.test(path)) return undefined;
  return `check the base URL ${baseUrl} (from ${baseUrlFrom}): it answers, but has no ${path}, so it may not be the API's root`;
}

/** The order a path names (`/v1/orders/<id>/…`), for a hint that gives the command in full; else `<id>`. */
function orderIn(path: string): string {
  const id = /^\/v1\/orders\/([^/?]+)/.exec(path)?.[1];
  if (id === undefined) return '<id>';
  try {
    return decodeURIComponent(id);
  } catch {
    return '<id>';
  }
}

function hintForCode(code: string, path: string): string | undefined {
  switch (canonicalCode(code)) {
    case 'idempotency_key_reused':
      // Never "repeat the original product and quantity": from here that reads "already placed, nothing was sent"
      // once its order reached you (journal.ts keyDelivered), or "placed elsewhere" (a person's-day review).
      return 'that idempotency key belongs to another order (another product or quantity): for this one, use a new key, or give none and one is made; giftcodes order list shows the orders placed from here';
    case 'order_not_found':
      return 'check the id, and that the order was placed on this server and environment: giftcodes order list shows the orders placed from here, and order show takes a prefix of their ids or keys';
    case 'order_not_completed':
      return `the order is not completed yet: add --wait, or run: giftcodes order watch ${orderIn(path)}`;
    case 'unknown_product':
    case 'product_not_found':
      return 'list the products with: giftcodes catalog list';
    case 'insufficient_funds':
      return 'top up the wallet, or order fewer units';
    default:
      return undefined;
  }
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function clip(text: string): string {
  const oneLine = stripControl(text).replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_MESSAGE ? `${oneLine.slice(0, MAX_MESSAGE - 1)}…` : oneLine;
}

function slug(text: string | undefined): string | undefined {
  if (!text) return undefined;
  // A key in the title is masked first: once its spaces are underscores (`bad_key_sc_live_…`) it no longer
  // starts a word, and the redaction of what is printed would leave it whole.
  const s = redactKeys(text)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  return s || undefined;
}

function isHtml(text: string, contentType: string | undefined): boolean {
  return /html/i.test(contentType ?? '') || /^<(!doctype|html|head|body)\b/i.test(text);
}

/** A proxy's error page: its title, else its text one block per line (tags and scripts dropped). */
function htmlText(html: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  if (title) return decodeEntities(title);
  const text = html
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[^>]*>/g, '\n');
  return decodeEntities(text);
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return named[name.toLowerCase()] ?? entity;
  });
}

export function unreadableBody(method: string, path: string, status: number, reason: string): NetworkError {
  return new NetworkError(`${method} ${path}: HTTP ${status} with a body that cannot be understood (${reason})`, {
    code: 'invalid_response',
    status,
    hint: 'is --base-url pointing at the gift-code API?',
  });
}
