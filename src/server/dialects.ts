// The server's presentation layer: how lists, single resources and errors look on the wire. `ours` is what
// openapi.yaml describes (the default); the others speak the dialects of real gift-card APIs, so the client's
// tolerance (docs/dialects.md) is tested end to end against a real HTTP peer.
// A dialect is one record in DIALECTS below (its name also goes in dialect-names.ts, which `serve` offers).
import { STATUS_CODES } from 'node:http';
import type { Reply } from './http.js';
import { fail, jsonReply } from './http.js';
import { MAX_LIMIT, listEnvelope, listPageJson, parseCursor, parseLimit } from './pagination.js';

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
  /** The same items already as JSON text, for a dialect that frames them as bytes (ours' pages of codes). */
  pageJson?: (offset: number, count: number) => Buffer;
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

/** How a dialect names the page asked for. */
type Paging =
  /** `limit` and an opaque `cursor` (pagination.ts). */
  | { by: 'cursor' }
  | { by: 'offset'; size: string; offset: string }
  | { by: 'page'; size: string; number: string; first: 0 | 1 };

/** One page chosen by the dialect's parameters: where it starts and how many it holds. */
interface Window {
  offset: number;
  size: number;
  /** The page number as the dialect counts (from 1, or from 0 for spring). */
  number: number;
}

/** One page as served: `items` may lack its last one (--short-pages); `end` is where the full page ends. */
interface Page {
  req: ListRequest;
  window: Window;
  items: object[];
  end: number;
}

/** An error of ours, to be spelled in the dialect's form; `title` is the HTTP status text. */
interface ErrorShown {
  status: number;
  code: string;
  title: string;
  message: string;
}

/** Everything in which one dialect differs from another. */
interface DialectRecord {
  readonly paging: Paging;
  /** The list envelope around one page. */
  listBody(page: Page): object;
  /** The envelope framed around items already serialized; only a dialect that can (ours) has it. */
  listJson?(page: Omit<Page, 'items' | 'end'>, itemsJson: (offset: number, count: number) => Buffer): Buffer;
  /** An order or a ping (status and environment already spelled) in the dialect's envelope. */
  resourceBody(kind: 'order' | 'ping', value: Record<string, unknown>): object;
  /** The Content-Type of lists and resources; without one, the server's application/json. */
  readonly mediaType?: string;
  /** The status of a newly placed order. */
  readonly placedStatus: 201 | 202;
  /** An order's status (`pending`, `processing`, `completed`, `failed`) as the dialect spells it. */
  spellStatus(status: string): string;
  /** The test and the live environment's names. */
  readonly environments: readonly [test: string, live: string];
  /** The error body and its Content-Type; without one, our error bodies go out as they are. */
  readonly error?: { mediaType: string; body(error: ErrorShown): object };
}

const PROBLEM_BASE = 'https://giftcodes.example/problems/';
const JSON_API = 'application/vnd.api+json';
const asOurs = (status: string): string => status;

const DIALECTS: { readonly [name in DialectName]: DialectRecord } = {
  ours: {
    paging: { by: 'cursor' },
    listBody: ({ req, items, end }) => listEnvelope(req.scope, req.total, end, items),
    listJson: ({ req, window }, itemsJson) => listPageJson(req.scope, req.total, window.offset, window.size, itemsJson),
    resourceBody: (_kind, value) => value,
    placedStatus: 201,
    spellStatus: asOurs,
    environments: ['test', 'live'],
  },

  // JSON:API resources, `page[number]`/`page[size]`, `links.next`, `meta.total`, `{"errors":[…]}`.
  jsonapi: {
    paging: { by: 'page', size: 'page[size]', number: 'page[number]', first: 1 },
    listBody: ({ req, window, items, end }) => {
      const link = (n: number): string =>
        `${req.path}?${new URLSearchParams({ 'page[number]': String(n), 'page[size]': String(window.size) }).toString()}`;
      const links: Record<string, string> = { self: link(window.number) };
      if (end < req.total) links.next = link(window.number + 1);
      return { data: items.map((item) => resource(req.kind, item)), links, meta: { total: req.total } };
    },
    resourceBody: (kind, value) => ({
      data: resource(kind === 'order' ? 'orders' : 'ping', {
        ...value,
        id: kind === 'order' ? value.id : value.resellerId,
      }),
    }),
    mediaType: JSON_API,
    placedStatus: 201,
    spellStatus: asOurs,
    environments: ['sandbox', 'production'],
    error: {
      mediaType: JSON_API,
      body: ({ status, code, title, message }) => ({
        errors: [{ status: String(status), code, title, detail: message }],
      }),
    },
  },

  // Offsets (`offset`/`limit` with `total`), orders under `order`, RFC 9457 problem+json, 202 on placement.
  problem: {
    paging: { by: 'offset', size: 'limit', offset: 'offset' },
    listBody: ({ req, window, items }) => ({
      results: items,
      offset: window.offset,
      limit: window.size,
      total: req.total,
    }),
    resourceBody: (kind, value) => (kind === 'order' ? { order: value } : value),
    placedStatus: 202,
    spellStatus: (status) => (status === 'completed' ? 'complete' : status),
    environments: ['Testing', 'Prod'],
    error: {
      mediaType: 'application/problem+json',
      // The code is only in the type's last segment, spelled with dashes.
      body: ({ status, code, title, message }) => ({
        type: `${PROBLEM_BASE}${code.replace(/_/g, '-')}`,
        title,
        status,
        detail: message,
      }),
    },
  },

  // Spring Data pages (`page` from 0, `size`; `{content,totalPages,totalElements,number,size,last}`),
  // upper-case statuses, errors `{type,message,help}`.
  spring: {
    paging: { by: 'page', size: 'size', number: 'page', first: 0 },
    listBody: ({ req, window, items, end }) => ({
      content: items,
      totalPages: Math.ceil(req.total / window.size),
      totalElements: req.total,
      number: window.number,
      size: window.size,
      numberOfElements: items.length,
      first: window.number === 0,
      last: end >= req.total,
    }),
    resourceBody: (_kind, value) => value,
    placedStatus: 201,
    spellStatus: (status) => (status === 'failed' ? 'DECLINED' : status.toUpperCase()),
    environments: ['SANDBOX', 'PRODUCTION'],
    error: {
      mediaType: 'application/json',
      body: ({ code, message }) => ({ type: code, message, help: `see ${PROBLEM_BASE}${code}` }),
    },
  },

  // `page`/`per_page` with `total_pages` and no next link, items under `items`/`results`, `{meta,data}`
  // resources, upper-case statuses (`COMPLETE`), `{"error":"CODE","message"}`, 202 on placement.
  pages: {
    paging: { by: 'page', size: 'per_page', number: 'page', first: 1 },
    listBody: ({ req, window, items }) => ({
      [req.kind === 'products' ? 'items' : 'results']: items,
      page: window.number,
      per_page: window.size,
      total_pages: Math.ceil(req.total / window.size),
      total_count: req.total,
    }),
    resourceBody: (_kind, value) => ({ meta: { served_by: 'giftcodes reference server' }, data: value }),
    placedStatus: 202,
    spellStatus: (status) => (status === 'completed' ? 'COMPLETE' : status.toUpperCase()),
    environments: ['TEST', 'LIVE'],
    error: {
      mediaType: 'application/json',
      body: ({ code, message }) => ({ error: code.toUpperCase(), message }),
    },
  },
};

export function dialectFor(opts: DialectOptions): Dialect {
  return new PresentationDialect(opts, DIALECTS[opts.dialect]);
}

/** Renders every dialect from its record; nothing here asks which dialect it is. */
class PresentationDialect implements Dialect {
  readonly name: DialectName;
  readonly placedStatus: number;

  constructor(
    private readonly opts: DialectOptions,
    private readonly record: DialectRecord,
  ) {
    this.name = opts.dialect;
    this.placedStatus = record.placedStatus;
  }

  list(req: ListRequest): Reply {
    const window = this.window(req);
    if (this.record.listJson !== undefined && req.pageJson !== undefined && !this.opts.shortPages) {
      // Written as text directly: a 1,000-code page is ~160 KB, and JSON.stringify of the records cost as much as making them.
      return { status: 200, body: this.record.listJson({ req, window }, req.pageJson) };
    }
    let items = req.page(window.offset, window.size);
    const end = window.offset + items.length;
    if (this.opts.shortPages && end >= req.total) items = items.slice(0, -1);
    return this.reply(200, this.record.listBody({ req, window, items, end }));
  }

  /** The page asked for in the dialect's own parameters; sizes above the maximum are clamped. */
  private window(req: ListRequest): Window {
    const paging = this.record.paging;
    const q = req.query;
    if (paging.by === 'cursor') {
      const size = Math.min(parseLimit(q, req.defaultLimit), this.opts.maxPage);
      const offset = parseCursor(q, req.scope, req.total);
      return { offset, size, number: Math.floor(offset / size) };
    }
    const size = Math.min(whole(q, paging.size, 1) ?? req.defaultLimit, this.opts.maxPage, MAX_LIMIT);
    if (paging.by === 'offset') {
      const offset = whole(q, paging.offset, 0) ?? 0;
      return { offset, size, number: Math.floor(offset / size) };
    }
    const number = whole(q, paging.number, paging.first) ?? paging.first;
    return { offset: (number - paging.first) * size, size, number };
  }

  resource(kind: 'order' | 'ping', value: Record<string, unknown>, status = 200): Reply {
    const shaped =
      kind === 'order'
        ? { ...value, status: this.record.spellStatus(String(value.status)) }
        : { ...value, environment: this.environment(value.environment) };
    return this.reply(status, this.record.resourceBody(kind, shaped));
  }

  private environment(ours: unknown): string {
    const [test, live] = this.record.environments;
    return ours === 'live' ? live : test;
  }

  private reply(status: number, value: object): Reply {
    const mediaType = this.record.mediaType;
    return mediaType === undefined ? jsonReply(status, value) : jsonReply(status, value, { 'Content-Type': mediaType });
  }

  render(reply: Reply): Reply {
    const form = this.record.error;
    if (form === undefined || reply.status < 400) return reply;
    const error = ourError(reply.body);
    if (error === undefined) return reply;
    const title = STATUS_CODES[reply.status] ?? 'Error';
    return {
      status: reply.status,
      body: JSON.stringify(form.body({ status: reply.status, title, ...error })),
      headers: { ...reply.headers, 'Content-Type': form.mediaType },
    };
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
    const parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as {
      error?: { code?: unknown; message?: unknown };
    };
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
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < min)
    fail(400, 'invalid_page', `${name} must be an integer from ${min}`);
  return Number(raw);
}
