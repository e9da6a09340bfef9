// The list envelope and its `limit` and opaque `cursor` query parameters.
import { fail } from './http.js';

export const MAX_LIMIT = 1000;

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export function parseLimit(query: URLSearchParams, fallback: number): number {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  if (!/^[0-9]{1,7}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_LIMIT) {
    fail(400, 'invalid_limit', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return Number(raw);
}

/** A cursor is an offset bound to the list it came from (`scope`), base64url-encoded. */
export function encodeCursor(scope: string, offset: number): string {
  return Buffer.from(`${scope}:${offset}`, 'utf8').toString('base64url');
}

export function parseCursor(query: URLSearchParams, scope: string, total: number): number {
  const raw = query.get('cursor');
  if (raw === null) return 0;
  const invalid = () => fail(400, 'invalid_cursor', 'cursor is not one this list returned');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) invalid();
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const prefix = `${scope}:`;
  if (!text.startsWith(prefix)) invalid();
  const rest = text.slice(prefix.length);
  if (!/^(0|[1-9][0-9]{0,8})$/.test(rest) || Number(rest) > total) invalid();
  return Number(rest);
}

/** Builds one page from `offset`; `page(offset, count)` makes only the items shown. */
export function listPage<T>(scope: string, total: number, offset: number, limit: number, page: (offset: number, count: number) => T[]): ListEnvelope<T> {
  const data = page(offset, limit);
  const next = offset + data.length;
  const hasMore = next < total;
  return { object: 'list', data, has_more: hasMore, next_cursor: hasMore ? encodeCursor(scope, next) : null };
}
