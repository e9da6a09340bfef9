// Lists arrive as a bare array or under a named key; the next page is named by has_more/next_cursor,
// a `next` URL, or an RFC 8288 Link header. Every form is followed to the end.
import { NetworkError } from '../errors.js';

const LIST_KEYS = ['data', 'items', 'results'] as const;

export function extractList(body: unknown, extraKey: string): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of [...LIST_KEYS, extraKey]) {
    const value = record[key];
    if (Array.isArray(value)) return value;
  }
  return undefined;
}

/** The URL of the next page, or undefined at the end. `current` is the URL just fetched. */
export function nextPageUrl(body: unknown, linkHeader: string | undefined, current: URL, lastItem: unknown): URL | undefined {
  const record = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (record.has_more === false) return undefined;

  const fromLink = linkHeader ? parseLinkNext(linkHeader) : undefined;
  if (fromLink) return new URL(fromLink, current);

  const nextField = pickUrl(record.next) ?? pickUrl(record.next_url) ?? pickUrl(nested(record.links, 'next')) ?? pickUrl(nested(record.pagination, 'next'));
  if (nextField) return new URL(nextField, current);

  const cursor = pickCursor(record.next_cursor) ?? pickCursor(nested(record.pagination, 'next_cursor'));
  if (cursor !== undefined && (record.has_more === true || record.has_more === undefined)) {
    const next = new URL(current);
    next.searchParams.set('cursor', cursor);
    return next;
  }
  // Stripe's form: has_more with no cursor; the next page starts after the last item.
  if (record.has_more === true) {
    const lastId = lastItem && typeof lastItem === 'object' ? (lastItem as Record<string, unknown>).id : undefined;
    if (typeof lastId === 'string' || typeof lastId === 'number') {
      const next = new URL(current);
      next.searchParams.set('starting_after', String(lastId));
      return next;
    }
    throw new NetworkError('the API said there are more results but named no next page', { code: 'invalid_pagination' });
  }
  return undefined;
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

function nested(value: unknown, key: string): unknown {
  return value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

function pickUrl(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function pickCursor(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
