// Lists arrive as a bare array or under a named key (also one level down, and as JSON:API resources); the
// next page is named by has_more/next_cursor, a `next` URL (top, links, meta), an RFC 8288 Link header,
// page numbers or offsets. Every form is followed to the end, and a stated total is checked at the end.
import { NetworkError } from '../errors.js';

export const LIST_KEYS = ['data', 'items', 'results', 'records', 'content'] as const;

/** The largest page asked for; a service that allows less clamps it (or refuses, and is asked again bare). */
export const LARGEST_PAGE = 1000;
/** The size parameters of the usual dialects: ours/Stripe, page numbers, JSON:API, Spring. */
export const PAGE_SIZE_PARAMS = ['limit', 'per_page', 'page[size]', 'size'] as const;

export function extractList(body: unknown, extraKey: string): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (!isRecord(body)) return undefined;
  const keys = [...LIST_KEYS, extraKey];
  for (const key of keys) {
    const value = body[key];
    if (Array.isArray(value)) return value;
  }
  // One level down: {"data":{"items":[…]}}, {"result":{"codes":[…]}}.
  for (const outer of [...keys, 'result', 'page']) {
    const inner = body[outer];
    if (!isRecord(inner)) continue;
    for (const key of keys) {
      const value = inner[key];
      if (Array.isArray(value)) return value;
    }
  }
  return undefined;
}

/** A JSON:API resource `{type, id, attributes}` is read as `{id, ...attributes}`; anything else unchanged. */
export function flattenResource(item: unknown): unknown {
  if (!isRecord(item) || !isRecord(item.attributes) || typeof item.type !== 'string') return item;
  const id = item.id;
  return id === undefined ? { ...item.attributes } : { id, ...item.attributes };
}

/** A code sent as a plain string is the record `{code}`. */
export function codeRecord(item: unknown): unknown {
  return typeof item === 'string' ? { code: item } : flattenResource(item);
}

/**
 * A single resource: bare, or under `data`, `order` (or `key`), `{meta, data}`, or a JSON:API resource.
 * A bare object that already has `required` at its top is taken as it is.
 */
export function unwrapResource(body: unknown, key: string, required: string): unknown {
  if (!isRecord(body)) return body;
  if (body[required] !== undefined && !isRecord(body.attributes)) return body;
  for (const name of ['data', key]) {
    const inner = body[name];
    if (isRecord(inner)) return flattenResource(inner);
  }
  return flattenResource(body);
}

/** The total number of items the service says the whole list has, where it says one. */
export function statedTotal(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  for (const holder of [body, body.meta, body.pagination, body.page, body.paging]) {
    if (!isRecord(holder)) continue;
    for (const name of [
      'total',
      'total_count',
      'totalCount',
      'totalElements',
      'total_elements',
      'total_results',
      'totalResults',
      'totalItems',
      'total_items',
    ]) {
      const n = count(holder[name]);
      if (n !== undefined) return n;
    }
  }
  return undefined;
}

/** The URL of the next page, or undefined at the end. `current` is the URL just fetched. */
export function nextPageUrl(
  body: unknown,
  linkHeader: string | undefined,
  current: URL,
  lastItem: unknown,
  itemCount = 0,
): URL | undefined {
  const record = isRecord(body) ? body : {};
  const meta = isRecord(record.meta) ? record.meta : {};
  const hasMore = record.has_more ?? meta.has_more ?? nested(record.pagination, 'has_more');
  if (hasMore === false) return undefined;

  const fromLink = linkHeader ? parseLinkNext(linkHeader) : undefined;
  if (fromLink) return new URL(fromLink, current);

  const nextField =
    pickUrl(record.next) ??
    pickUrl(record.next_url) ??
    pickUrl(record.next_page_url) ??
    pickUrl(nested(record.links, 'next')) ??
    pickUrl(nested(nested(record.links, 'next'), 'href')) ??
    pickUrl(nested(record._links, 'next')) ??
    pickUrl(nested(nested(record._links, 'next'), 'href')) ??
    pickUrl(meta.next) ??
    pickUrl(meta.next_url) ??
    pickUrl(nested(record.pagination, 'next')) ??
    pickUrl(nested(record.pagination, 'next_url'));
  if (nextField) return new URL(nextField, current);

  const cursor =
    pickCursor(record.next_cursor) ??
    pickCursor(nested(record.pagination, 'next_cursor')) ??
    pickCursor(meta.next_cursor);
  if (cursor !== undefined && (hasMore === true || hasMore === undefined)) return withCursor(current, cursor);
  // Stripe's form: has_more with no cursor; the next page starts after the last item.
  if (hasMore === true) {
    const lastId = isRecord(lastItem) ? lastItem.id : undefined;
    if (typeof lastId === 'string' || typeof lastId === 'number') {
      const next = new URL(current);
      next.searchParams.set('starting_after', String(lastId));
      return next;
    }
  }
  const byNumber = nextByPageNumber(record, current, itemCount);
  if (byNumber !== 'none') return byNumber;
  const byOffset = nextByOffset(record, current, itemCount);
  if (byOffset !== 'none') return byOffset;
  if (hasMore === true) {
    throw new NetworkError('the API said there are more results but named no next page', {
      code: 'invalid_pagination',
    });
  }
  return undefined;
}

/**
 * The URL made last for a cursor, and what it was made of. A list read ahead (ApiClient.walk) names each next
 * page twice from the same URL and cursor: guessed from the body's tail (ahead.ts), then from its envelope. The
 * second is the first URL again, unless either URL was changed since (their hrefs are compared): making it
 * (a URL parsed, its query parsed, set and the whole URL parsed again) was ~5 µs a page, and the URL code's
 * compiles on V8's threads.
 */
let madeForCursor: { current: URL; currentHref: string; cursor: string; next: URL; nextHref: string } | undefined;

/** `current` with its `cursor` parameter set to `cursor` (URLSearchParams.set: the others kept, in order). */
function withCursor(current: URL, cursor: string): URL {
  const made = madeForCursor;
  if (
    made !== undefined &&
    made.current === current &&
    made.cursor === cursor &&
    made.currentHref === current.href &&
    made.nextHref === made.next.href
  )
    return made.next;
  const next = new URL(current);
  next.searchParams.set('cursor', cursor);
  madeForCursor = { current, currentHref: current.href, cursor, next, nextHref: next.href };
  return next;
}

/**
 * Page numbers: `page`/`per_page` with `total_pages`, `totalPages`, `last_page`, `last`, `total` or
 * `total_count`; Spring's `{number (from 0), size, totalPages, last}`. 'none' when the body names no page.
 */
function nextByPageNumber(record: Record<string, unknown>, current: URL, itemCount: number): URL | undefined | 'none' {
  const holders = [record, record.meta, record.pagination, record.page, record.paging].filter(isRecord);
  const find = (...names: string[]): unknown => {
    for (const holder of holders) for (const name of names) if (holder[name] !== undefined) return holder[name];
    return undefined;
  };
  const spring =
    count(find('number')) !== undefined && (find('totalPages') !== undefined || typeof find('last') === 'boolean');
  const param = current.searchParams.has('page[number]') ? 'page[number]' : 'page';
  const fromUrl = count(current.searchParams.get(param));
  const page = spring
    ? count(find('number'))
    : (count(find('page', 'current_page', 'currentPage', 'page_number', 'pageNumber')) ?? fromUrl);
  if (page === undefined) return 'none';
  const last = find('last');
  if (last === true) return undefined;
  const size = count(find('per_page', 'perPage', 'page_size', 'pageSize', 'size', 'limit'));
  let pages = count(find('total_pages', 'totalPages', 'last_page', 'lastPage', 'page_count', 'pageCount'));
  if (pages === undefined && typeof last === 'number') pages = count(last);
  const total = statedTotal(record);
  if (pages === undefined && total !== undefined && size !== undefined && size > 0) pages = Math.ceil(total / size);
  // Page numbers from 1, Spring's from 0: the last page is pages (or pages - 1).
  const lastPage = pages === undefined ? undefined : spring ? pages - 1 : pages;
  if (lastPage !== undefined) {
    if (page >= lastPage) return undefined;
  } else if (last !== false && (size === undefined || itemCount < size || itemCount === 0)) {
    // No count of pages: a full page may have a successor; a short or empty one is the end.
    return undefined;
  }
  const next = new URL(current);
  next.searchParams.set(param, String(page + 1));
  return next;
}

/** Offsets: `offset`/`limit` (or `skip`/`take`) with `total`. 'none' when the body states no offset. */
function nextByOffset(record: Record<string, unknown>, current: URL, itemCount: number): URL | undefined | 'none' {
  const holders = [record, record.meta, record.pagination].filter(isRecord);
  let offset: number | undefined;
  for (const holder of holders) offset ??= count(holder.offset) ?? count(holder.skip);
  if (offset === undefined) return 'none';
  const total = statedTotal(record);
  if (total === undefined || itemCount === 0 || offset + itemCount >= total) return undefined;
  const next = new URL(current);
  next.searchParams.set(current.searchParams.has('skip') ? 'skip' : 'offset', String(offset + itemCount));
  return next;
}

/** `<https://x/y?page=2>; rel="next", <…>; rel="last"` → the next URL. */
export function parseLinkNext(header: string): string | undefined {
  for (const part of splitLinks(header)) {
    const match = /^\s*<([^>]*)>(.*)$/s.exec(part);
    if (!match) continue;
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('next')) return match[1];
  }
  return undefined;
}

function splitLinks(header: string): string[] {
  // Commas separate links, but may also stand inside <…> or quoted strings.
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < header.length; i++) {
    const ch = header[i];
    if (ch === '"' && depth === 0) quoted = !quoted;
    else if (!quoted && ch === '<') depth++;
    else if (!quoted && ch === '>') depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && ch === ',') {
      parts.push(header.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(header.slice(start));
  return parts;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function nested(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

/** A non-negative whole number, also as a numeric string ("3"). */
function count(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function pickUrl(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function pickCursor(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
