// Shared helpers of the server suite: start a real server on a free port, call it over real HTTP.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { RunningServer, ServerOptions } from '../../src/server/index.js';
import { defaultServerOptions, startServer } from '../../src/server/index.js';

export const KEYS = {
  test: 'sc_test_demo_4f3c9a1b7e2d',
  live: 'sc_live_demo_9b1e6d2c8a7f',
  smallTest: 'sc_test_small_2a7c5e9d1b3f',
  smallLive: 'sc_live_small_6d8f0a3c5e1b',
} as const;

export function start(overrides: Partial<ServerOptions> = {}): Promise<RunningServer> {
  return startServer({ ...defaultServerOptions(), port: 0, admin: true, ...overrides });
}

export interface CallOptions {
  method?: string;
  key?: string | null;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
  idem?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // Tests read fields freely; the assertions are what check them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export async function call(server: RunningServer, path: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  const key = o.key === undefined ? KEYS.test : o.key;
  if (key !== null) headers['X-API-Key'] = key;
  if (o.idem !== undefined) headers['Idempotency-Key'] = o.idem;
  let body: string | undefined;
  if (o.body !== undefined) {
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(server.url + path, {
    method: o.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

let n = 0;
/** A fresh idempotency key per call. */
export function newKey(): string {
  n += 1;
  return `test-${process.pid}-${Date.now()}-${n}`;
}

export function placeOrder(
  server: RunningServer,
  productId: string,
  quantity: number,
  o: CallOptions = {},
): Promise<Answer> {
  return call(server, '/v1/orders', { idem: newKey(), ...o, body: o.body ?? { product_id: productId, quantity } });
}

export async function ledger(server: RunningServer) {
  const res = await fetch(`${server.url}/_admin/ledger`);
  return (await res.json()) as {
    orders: {
      order_id: string;
      reseller_id: string;
      environment: string;
      product_id: string;
      quantity: number;
      amount: { amount: number; currency: string };
      idempotency_key: string;
      created_at: string;
      refunded: boolean;
    }[];
    wallets: Record<string, Record<string, number>>;
    supply: Record<string, Record<string, number>>;
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How many order requests the server's `--hold` keeps in progress now (GET /_admin/held). */
export async function heldCount(server: RunningServer): Promise<number> {
  return ((await call(server, '/_admin/held', { key: null })).json as { held: number }).held;
}

/** Ends every hold of the server now (POST /_admin/release); returns how many there were. */
export async function release(server: RunningServer): Promise<number> {
  return ((await call(server, '/_admin/release', { key: null, method: 'POST' })).json as { released: number }).released;
}

/** Polls until `check` returns a value other than undefined, or fails after `ms` (a safety net: a loaded machine is slow). */
export async function until<T>(check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Reads a list endpoint page by page through `next_cursor`, checking the envelope of every page. */
export async function readPages<T>(
  s: RunningServer,
  path: string,
  o: { key?: string; limit?: number } = {},
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q = new URLSearchParams();
    if (o.limit !== undefined) q.set('limit', String(o.limit));
    if (cursor !== null) q.set('cursor', cursor);
    const res = await call(s, `${path}?${q}`, o.key === undefined ? {} : { key: o.key });
    expect(res.status).toBe(200);
    expect(res.json.object).toBe('list');
    items.push(...(res.json.data as T[]));
    cursor = res.json.next_cursor;
    expect(res.json.has_more).toBe(cursor !== null);
    pages += 1;
  } while (cursor !== null);
  return { items, pages };
}
