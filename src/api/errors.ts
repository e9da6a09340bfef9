// Every error-body form a real service might send, read into one shape, then mapped to an exit code.
import { ApiError, AuthError, NetworkError, type CliError } from '../errors.js';
import { stripControl } from '../secrets.js';

export interface ErrorBody {
  code: string;
  message: string;
}

const MAX_MESSAGE = 300;

/** Reads `{"error":{"code","message"}}`, `{"error":"code","message"}`, `{"code","message"}`, problem+json, or text. */
export function parseErrorBody(status: number, text: string, contentType: string | undefined): ErrorBody {
  const fallbackCode = `http_${status}`;
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
        code: str(inner.code) ?? str(inner.type) ?? str(body.code) ?? fallbackCode,
        message: clip(str(inner.message) ?? str(inner.detail) ?? str(body.message) ?? ''),
      };
    }
    if (typeof nested === 'string') {
      return {
        code: str(body.code) ?? nested,
        message: clip(str(body.message) ?? str(body.error_description) ?? str(body.detail) ?? (str(body.code) ? nested : '')),
      };
    }
    if (body.code !== undefined || body.message !== undefined) {
      return { code: str(body.code) ?? fallbackCode, message: clip(str(body.message) ?? str(body.detail) ?? '') };
    }
    // RFC 9457 problem details: type, title, status, detail.
    if (body.title !== undefined || body.detail !== undefined || body.type !== undefined) {
      const type = str(body.type);
      const typeCode = type && type !== 'about:blank' ? type.replace(/\/+$/, '').split(/[/#]/).pop() : undefined;
      return {
        code: str(body.code) ?? typeCode ?? slug(str(body.title)) ?? fallbackCode,
        message: clip(str(body.detail) ?? str(body.title) ?? ''),
      };
    }
  }
  const plain = isHtml(trimmed, contentType) ? htmlText(trimmed) : trimmed;
  const firstLine = plain.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  return { code: fallbackCode, message: clip(firstLine) };
}

export function describeHttpError(method: string, path: string, status: number, body: ErrorBody): string {
  const message = body.message ? `: ${body.message}` : '';
  return `${method} ${path} failed: HTTP ${status} ${body.code}${message}`;
}

/** 401/403 are the key's fault (exit 3); other 4xx are refusals (exit 4); 5xx, 429 and redirects are failures (exit 5). */
export function errorForStatus(method: string, path: string, status: number, body: ErrorBody, attempts: number, location?: string): CliError {
  const text = describeHttpError(method, path, status, body);
  if (status < 400) {
    // Redirects are never followed: the key must not travel to an address the user did not give.
    const where = location ? ` to ${clip(location)}` : '';
    return new NetworkError(`${text} (a redirect${where}, not followed)`, {
      code: body.code,
      status,
      hint: location ? `if ${clip(location)} is the API, use it as --base-url` : 'check --base-url',
    });
  }
  if (status === 401 || status === 403) {
    return new AuthError(text, {
      code: body.code,
      status,
      hint: status === 401 ? 'check the key: giftcodes login, or GIFTCODES_API_KEY' : 'this key may not be allowed to do that',
    });
  }
  // A request still in progress after every retry is not a refusal: the first attempt may yet succeed.
  if (status >= 500 || status === 429 || status === 408 || (status === 409 && body.code === 'request_in_progress')) {
    const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
    return new NetworkError(`${text}${tries}`, { code: body.code, status, hint: 'the service is failing; try again later, or raise --retries' });
  }
  return new ApiError(text, { code: body.code, status, hint: hintForCode(body.code) });
}

function hintForCode(code: string): string | undefined {
  switch (code) {
    case 'idempotency_key_reused':
      return 'that idempotency key belongs to a different order; use a new key, or repeat the original product and quantity';
    case 'order_not_completed':
      return 'the order is not completed yet: add --wait, or run: giftcodes order watch <id>';
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
  const s = text.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
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
