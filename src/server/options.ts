// The reference server's options: one flag of `giftcodes serve` per field.
import type { DialectName } from './dialect-names.js';

export interface ServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** JSON seed file (resellers, keys, wallets, products); the built-in demo seed when absent. */
  seedFile?: string;
  /** Fault: delay added before answering each request, in ms (0 = off). */
  latencyMs: number;
  /** Fault: share 0..1 of requests answered 503 before any processing. */
  failRate: number;
  /** Fault: requests per second allowed (token bucket; 0 = off); excess get 429 with Retry-After. */
  rateLimit: number;
  /** Orders are `processing` at half this time and terminal at this time, in ms. */
  fulfilAfterMs: number;
  /** Fault: share 0..1 of POST /v1/orders that commit the order, then destroy the socket unanswered. */
  dropAfterCommit: number;
  /** Fault: a new POST /v1/orders keeps its idempotency key in progress this long, in ms. */
  holdMs: number;
  /** Share 0..1 of new orders that end `failed` instead of `completed`. */
  failOrders: number;
  /** POST signed order events here. */
  webhookUrl?: string;
  /** HMAC secret for webhook signatures (default 'whsec_demo'). */
  webhookSecret?: string;
  /** How webhook events are signed (default 'giftcodes'): ours, Stripe's, Standard Webhooks or GitHub's. */
  webhookScheme?: WebhookScheme;
  /** Serve GET /_admin/ledger, POST /_admin/reset, GET /_admin/held and POST /_admin/release (tests only). */
  admin: boolean;
  /** How lists, resources and errors look on the wire ('ours' = openapi.yaml). */
  dialect: DialectName;
  /** The largest page served; larger sizes asked for are clamped. */
  maxPage: number;
  /** Fault: the last page of every list lacks an item while the total is still stated. */
  shortPages: boolean;
  /** One line per request (method path status ms) when provided. */
  log?: (line: string) => void;
  /** Serve https with this PEM certificate (chain) and key instead of plain http. */
  tls?: { cert: string; key: string };
  /** gzip JSON bodies: when the client accepts gzip, or always (even unasked), or never. */
  gzip?: 'off' | 'accepted' | 'always';
  /** Answer every request with `Connection: close` and end the connection after it. */
  connectionClose?: boolean;
}

export const WEBHOOK_SCHEMES = ['giftcodes', 'stripe', 'standard', 'github'] as const;
export type WebhookScheme = (typeof WEBHOOK_SCHEMES)[number];

export interface DemoKey {
  resellerId: string;
  test: string;
  live: string;
}

export interface RunningServer {
  url: string;
  port: number;
  demoKeys: DemoKey[];
  /** Stops accepting, ends keep-alive sockets and pending timers, resolves when closed. */
  close(): Promise<void>;
}

export const DEFAULT_WEBHOOK_SECRET = 'whsec_demo';

export function defaultServerOptions(): ServerOptions {
  return {
    host: '127.0.0.1',
    port: 4010,
    latencyMs: 0,
    failRate: 0,
    rateLimit: 0,
    fulfilAfterMs: 1000,
    dropAfterCommit: 0,
    holdMs: 0,
    failOrders: 0,
    dialect: 'ours',
    maxPage: 1000,
    shortPages: false,
    admin: false,
  };
}

/** Throws a plain Error naming the first option that is out of range. */
export function checkServerOptions(opts: ServerOptions): void {
  const share = (name: string, v: number) => {
    if (!Number.isFinite(v) || v < 0 || v > 1) throw new Error(`${name} must be between 0 and 1`);
  };
  const nonNegative = (name: string, v: number) => {
    if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number`);
  };
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    throw new Error('port must be an integer from 0 to 65535');
  }
  nonNegative('latency', opts.latencyMs);
  nonNegative('rate limit', opts.rateLimit);
  nonNegative('fulfil-after', opts.fulfilAfterMs);
  nonNegative('hold', opts.holdMs);
  share('fail rate', opts.failRate);
  share('drop-after-commit', opts.dropAfterCommit);
  share('fail-orders', opts.failOrders);
  if (!Number.isInteger(opts.maxPage) || opts.maxPage < 1) throw new Error('max page must be a positive integer');
  if (opts.webhookScheme !== undefined && !WEBHOOK_SCHEMES.includes(opts.webhookScheme)) {
    throw new Error(`webhook scheme must be one of ${WEBHOOK_SCHEMES.join(', ')}`);
  }
  if (opts.webhookUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(opts.webhookUrl);
    } catch {
      throw new Error('webhook URL is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error('webhook URL must be http or https');
    }
  }
}
