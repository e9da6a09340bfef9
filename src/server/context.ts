// What a route handler is given.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from './dialects.js';
import type { Fulfilment } from './fulfilment.js';
import type { Holds } from './holds.js';
import type { Reply } from './http.js';
import type { IdempotencyStore } from './idempotency.js';
import type { ServerOptions } from './options.js';
import type { Caller, Order, Store } from './store.js';
import type { Webhooks } from './webhooks.js';

/** What an idempotency key remembers: the order it created (its first answer is re-rendered
 * byte for byte from it, which keeps ~300 bytes per order out of memory) or the error reply. */
export type OrderAnswer = Order | Reply;

export interface Deps {
  opts: ServerOptions;
  store: Store;
  idempotency: IdempotencyStore<OrderAnswer>;
  fulfilment: Fulfilment;
  webhooks: Webhooks;
  /** The order requests `--hold` keeps in progress (admin routes count and release them). */
  holds: Holds;
  /** How lists, resources and errors are rendered (`serve --dialect`). */
  dialect: Dialect;
  /** Secret from which live codes are derived; new for every server start. */
  liveSecret: string;
}

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  /** Path segments captured by the route pattern. */
  params: string[];
  /** The authenticated reseller and environment (routes with `auth: false` get a placeholder never read). */
  caller: Caller;
  deps: Deps;
}

/** A reply to send, or null when the handler already dealt with the socket. */
export type Handler = (ctx: Ctx) => Reply | null | Promise<Reply | null>;

export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  auth: boolean;
  handler: Handler;
}
