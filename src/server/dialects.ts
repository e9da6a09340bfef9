// The server's presentation layer: how lists, single resources and errors look on the wire. `ours` is what
// openapi.yaml describes (the default); the others speak the dialects of real gift-card APIs, so the client's
// tolerance (CONTRACT.md, Tolerance of a real service) is tested end to end against a real HTTP peer:
//   jsonapi  JSON:API resources, `page[number]`/`page[size]`, `links.next`, `meta.total`, `{"errors":[…]}`
//   problem  offsets (`offset`/`limit` with `total`), orders under `order`, RFC 9457 problem+json, 202 on placement
//   spring   Spring Data pages (`page` from 0, `size`; `{content,totalPages,totalElements,number,size,last}`),
//            upper-case statuses, errors `{type,message,help}`
//   pages    `page`/`per_page` with `total_pages` and no next link, items under `items`/`results`,
//            `{meta,data}` resources, upper-case statuses (`COMPLETE`), `{"error":"code","message"}`, 202
import { STATUS_CODES } from 'node:http';
import type { Reply } from './http.js';
import { fail, jsonReply } from './http.js';
import { MAX_LIMIT, listPage, parseCursor, parseLimit } from './pagination.js';

// Only the type: the names' list is bundled with the command that offers them (no start-up chunk of its own).
import type { DialectName } from './dialect-names.js';

export type { DialectName } from './dialect-names.js';

export interface DialectOptions {
  dialect: DialectName;
  /** The largest page served; a larger size asked for is clamped to it (ours: still 400 above MAX_LIMIT). */
  maxPage: number;
  /** Fault: the last page of every list lacks its last item, while the total stays stated. */
  shortPages: boolean;
}

export type ListKind = 'products' | 'codes';

export interface ListRequest {
  kind: ListKind;
  /** The request path, for next links. */
  path: string;
  query: URLSearchParams;
  /** Binds ours' cursors to the list. */
  scope: string;
  total: number;
  defaultLimit: number;
  /** Makes only the items shown. */
  page: (offset: number, count: number) => object[];
}

export interface Dialect {
  readonly name: DialectName;
  list(req: ListRequest): Reply;
  /** An order or a ping, with the dialect's envelope, status spelling and environment names. */
  resource(kind: 'order' | 'ping', value: Record<string, unknown>, status?: number): Reply;
  /** The status of a newly placed order. */
  readonly placedStatus: number;
  /** Re-renders a reply: an error body of ours (`{"error":{"code","message"}}`) in the dialect's form. */
  render(reply: Reply): Reply;
}

export function dialectFor(opts: DialectOptions): Dialect {
  return new PresentationDialect(opts);
}

const PROBLEM_BASE = 'https://giftcodes.example/problems/';

/** One page chosen by the dialect's parameters: where it starts and how many it holds. */
interface Window {
  offset: number;
  size: number;
  /** The page number as the dialect counts (from 1, or from 0 for spring). */
  number: number;
}

class PresentationDialect implements Dialect {
  readonly name: DialectName;

  constructor(private readonly opts: DialectOptions) {
    this.name = opts.dialect;
  }

  get placedStatus(): number {
    return this.name === 'problem' || this.name === 'pages' ? 202 : 201;
  }

  list(req: ListRequest): Reply {
    if (this.name === 'ours') {
      const limit = Math.min(parseLimit(req.query, req.defaultLimit), this.opts.maxPage);
      const offset = parseCursor(req.query, req.scope, req.total);
      const envelope = listPage(req.scope, req.total, offset, limit, req.page);
      if (this.opts.shortPages && !envelope.has_more) envelope.data = envelope.data.slice(0, -1);
      return jsonReply(200, envelope);
    }
    const window = this.window(req);
    let items = req.page(window.offset, window.size);
    const end = window.offset + items.length;
    if (this.opts.shortPages && end >= req.total) items = items.slice(0, -1);
    const totalPages = Math.ceil(req.total / window.size);
    switch (this.name) {
      case 'jsonapi': {
        const link = (n: number): string => `${req.path}?${new URLSearchParams({ 'page[number]': String(n), 'page[size]': String(window.size) }).toString()}`;
        const links: Record<string, string> = { self: link(window.number) };
        if (end < req.total) links.next = link(window.number + 1);
        return {
          status: 200,
          body: JSON.stringify({ data: items.map((item) => resource(req.kind === 'products' ? 'products' : 'codes', item)), links, meta: { total: req.total } }),
          headers: { 'Content-Type': 'application/vnd.api+json' },
        };
      }
      case 'problem':
        return jsonReply(200, { results: items, offset: window.offset, limit: window.size, total: req.total });
      case 'spring':
        return jsonReply(200, {
          content: items,
          totalPages,
          totalElements: req.total,
          number: window.number,
          size: window.size,
          numberOfElements: items.length,
          first: window.number === 0,
          last: end >= req.total,
        });
      case 'pages':
        return jsonReply(200, {
          [req.kind === 'products' ? 'items' : 'results']: items,
          page: window.number,
          per_page: window.size,
          total_pages: totalPages,
          total_count: req.total,
        });
    }
  }

  /** The page asked for in the dialect's own parameters; sizes above the maximum are clamped. */
  private window(req: ListRequest): Window {
    const q = req.query;
    const [sizeName, numberName, firstNumber] =
      this.name === 'jsonapi' ? ['page[size]', 'page[number]', 1]
      : this.name === 'problem' ? ['limit', 'offset', 0]
      : this.name === 'spring' ? ['size', 'page', 0]
      : ['per_page', 'page', 1];
    const size = Math.min(whole(q, sizeName, 1) ?? req.defaultLimit, this.opts.maxPage, MAX_LIMIT);
    if (this.name === 'problem') {
      const offset = whole(q, 'offset', 0) ?? 0;
      return { offset, size, number: Math.floor(offset / size) };
    }
    const number = whole(q, numberName, firstNumber) ?? firstNumber;
    return { offset: (number - firstNumber) * size, size, number };
  }

  resource(kind: 'order' | 'ping', value: Record<string, unknown>, status = 200): Reply {
    const shaped = kind === 'order' ? this.orderStatus(value) : this.environmentName(value);
    switch (this.name) {
      case 'ours':
      case 'spring':
        return jsonReply(status, shaped);
      case 'jsonapi': {
        const id = kind === 'order' ? shaped.id : shaped.resellerId;
        return {
          status,
          body: JSON.stringify({ data: resource(kind === 'order' ? 'orders' : 'ping', { ...shaped, id }) }),
          headers: { 'Content-Type': 'application/vnd.api+json' },
        };
      }
      case 'problem':
        return jsonReply(status, kind === 'order' ? { order: shaped } : shaped);
      case 'pages':
        return jsonReply(status, { meta: { served_by: 'giftcodes reference server' }, data: shaped });
    }
  }

  private orderStatus(order: Record<string, unknown>): Record<string, unknown> {
    const status = String(order.status);
    const spelled =
      this.name === 'problem' ? (status === 'completed' ? 'complete' : status)
      : this.name === 'spring' ? (status === 'failed' ? 'DECLINED' : status.toUpperCase())
      : this.name === 'pages' ? (status === 'completed' ? 'COMPLETE' : status.toUpperCase())
      : status;
    return { ...order, status: spelled };
  }

  private environmentName(ping: Record<string, unknown>): Record<string, unknown> {
    const names: Record<DialectName, [string, string]> = {
      ours: ['test', 'live'],
      jsonapi: ['sandbox', 'production'],
      problem: ['Testing', 'Prod'],
      spring: ['SANDBOX', 'PRODUCTION'],
      pages: ['TEST', 'LIVE'],
    };
    const [test, live] = names[this.name];
    return { ...ping, environment: ping.environment === 'live' ? live : test };
  }

  render(reply: Reply): Reply {
    if (this.name === 'ours' || reply.status < 400) return reply;
    const error = ourError(reply.body);
    if (error === undefined) return reply;
    const { code, message } = error;
    const title = STATUS_CODES[reply.status] ?? 'Error';
    const headers = (contentType: string): Record<string, string> => ({ ...reply.headers, 'Content-Type': contentType });
    switch (this.name) {
      case 'jsonapi':
        return {
          status: reply.status,
          body: JSON.stringify({ errors: [{ status: String(reply.status), code, title, detail: message }] }),
          headers: headers('application/vnd.api+json'),
        };
      case 'problem':
        // The code is only in the type's last segment, spelled with dashes.
        return {
          status: reply.status,
          body: JSON.stringify({ type: `${PROBLEM_BASE}${code.replace(/_/g, '-')}`, title, status: reply.status, detail: message }),
          headers: headers('application/problem+json'),
        };
      case 'spring':
        return { status: reply.status, body: JSON.stringify({ type: code, message, help: `see ${PROBLEM_BASE}${code}` }), headers: headers('application/json') };
      case 'pages':
        return { status: reply.status, body: JSON.stringify({ error: code.toUpperCase(), message }), headers: headers('application/json') };
    }
  }
}

/** `{type, id, attributes}`; a code's id is its serial. */
function resource(type: string, item: object): Record<string, unknown> {
  const { id, ...attributes } = item as Record<string, unknown>;
  const ident = id ?? attributes.serial;
  return { type, id: String(ident), attributes };
}

function ourError(body: string | Buffer): { code: string; message: string } | undefined {
  try {
    const parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as { error?: { code?: unknown; message?: unknown } };
    const code = parsed.error?.code;
    const message = parsed.error?.message;
    return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
  } catch {
    return undefined;
  }
}

/** A whole number ≥ `min` from the query, undefined when absent; anything else is a 400. */
function whole(query: URLSearchParams, name: string, min: number): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < min) fail(400, 'invalid_page', `${name} must be an integer from ${min}`);
  return Number(raw);
}
