// The list envelope and its `limit` and opaque `cursor` query parameters.
import { fail } from './http.js';

export const MAX_LIMIT = 1000;

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** A positive integer; above MAX_LIMIT it is clamped (as GitHub and Stripe-like services do), so a client asking big gets the largest page. */
export function parseLimit(query: URLSearchParams, fallback: number): number {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  if (!/^[0-9]{1,16}$/.test(raw) || Number(raw) < 1) {
    fail(400, 'invalid_limit', `limit must be a positive integer (pages hold at most ${MAX_LIMIT})`);
  }
  return Math.min(Number(raw), MAX_LIMIT);
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

/** The same envelope as `listEnvelope`, as JSON bytes around items already serialized (`itemsJson(offset, count)`). */
export function listPageJson(
  scope: string,
  total: number,
  offset: number,
  limit: number,
  itemsJson: (offset: number, count: number) => Buffer,
): Buffer {
  const count = Math.max(0, Math.min(limit, total - offset));
  const next = offset + count;
  const hasMore = next < total;
  const cursor = hasMore ? JSON.stringify(encodeCursor(scope, next)) : 'null';
  return Buffer.concat([
    Buffer.from('{"object":"list","data":['),
    itemsJson(offset, count),
    Buffer.from(`],"has_more":${hasMore},"next_cursor":${cursor}}`),
  ]);
}

/** The envelope of a page whose items run to `end`; `data` may lack the last of them (--short-pages) while the cursor still follows `end`. */
export function listEnvelope<T>(scope: string, total: number, end: number, data: T[]): ListEnvelope<T> {
  const hasMore = end < total;
  return { object: 'list', data, has_more: hasMore, next_cursor: hasMore ? encodeCursor(scope, end) : null };
}
