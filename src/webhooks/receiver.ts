// Receives signed webhook events (CONTRACT.md, Webhooks): `t=<unix>,v1=<hex>` where hex is
// HMAC-SHA256(secret, `<t>.<raw body>`), compared in constant time against every v1; a timestamp more
// than the tolerance from now is refused; a repeated event id is acknowledged but not emitted again.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';

export const DEFAULT_SIGNATURE_HEADER = 'giftcodes-signature';
export const DEFAULT_TOLERANCE_S = 300;
const MAX_BODY_BYTES = 1024 * 1024;
/** Event ids remembered for duplicate detection; the oldest are forgotten first. */
const SEEN_IDS = 10_000;

export interface WebhookEvent {
  id?: string;
  type?: string;
  created?: number;
  data?: unknown;
  [field: string]: unknown;
}

export interface ReceiverOptions {
  host?: string;
  port: number;
  secret: string;
  signatureHeader?: string;
  toleranceS?: number;
  maxBodyBytes?: number;
  /** A thrown error answers 500, so the sender retries; the id is not remembered. */
  onEvent(event: WebhookEvent, raw: string, delivery: Delivery): void | Promise<void>;
  /** A refused delivery: the status answered and why. */
  onReject?(status: number, reason: string): void;
  /** Unix seconds; tests move the clock. */
  now?: () => number;
}

export interface Delivery {
  /** The signature header as received, for forwarding. */
  signature: string;
  headerName: string;
}

export interface RunningReceiver {
  url: string;
  port: number;
  close(): Promise<void>;
}

export type Verification = { ok: true; timestamp: number } | { ok: false; reason: string };

/** Checks a signature header against the raw body; never throws. */
export function verifySignature(header: string | undefined, rawBody: Buffer, secret: string, toleranceS: number, nowS: number): Verification {
  if (!header) return { ok: false, reason: 'missing signature' };
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') timestamp = value;
    else if (name === 'v1') candidates.push(value);
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'signature without a timestamp' };
  if (candidates.length === 0) return { ok: false, reason: 'signature without v1' };
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  let matched = false;
  for (const candidate of candidates) {
    if (!/^[0-9a-fA-F]{64}$/.test(candidate)) continue;
    // Compare every candidate, never stopping early: timing says nothing about which one matched.
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  if (!matched) return { ok: false, reason: 'bad signature' };
  const t = Number(timestamp);
  if (Math.abs(nowS - t) > toleranceS) return { ok: false, reason: `timestamp ${t} is more than ${toleranceS}s from now` };
  return { ok: true, timestamp: t };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The order an event is about: `data.order`, `data.object`, or `data` itself when it has an id. */
export function orderFromEvent(event: WebhookEvent): (Record<string, unknown> & { id?: unknown; status?: unknown }) | undefined {
  const data = event.data;
  if (!isObject(data)) return undefined;
  if (isObject(data.order)) return data.order;
  if (isObject(data.object)) return data.object;
  return data.id !== undefined ? data : undefined;
}

/** Remembers the most recent ids only, so a receiver that runs for weeks stays small. */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly limit: number) {}
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.limit) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }
  delete(id: string): void {
    this.ids.delete(id);
  }
}

export async function startWebhookReceiver(o: ReceiverOptions): Promise<RunningReceiver> {
  const host = o.host ?? '127.0.0.1';
  const headerName = (o.signatureHeader ?? DEFAULT_SIGNATURE_HEADER).toLowerCase();
  const toleranceS = o.toleranceS ?? DEFAULT_TOLERANCE_S;
  const maxBody = o.maxBodyBytes ?? MAX_BODY_BYTES;
  const now = o.now ?? (() => Date.now() / 1000);
  const seen = new RecentIds(SEEN_IDS);

  const answer = (res: ServerResponse, status: number, body: Record<string, unknown>): void => {
    if (res.headersSent) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  const reject = (res: ServerResponse, status: number, reason: string): void => {
    o.onReject?.(status, reason);
    answer(res, status, { error: reason });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> => {
    const header = req.headers[headerName];
    const signature = Array.isArray(header) ? header.join(',') : header;
    const check = verifySignature(signature, raw, o.secret, toleranceS, now());
    if (!check.ok) return reject(res, 400, check.reason);
    const text = raw.toString('utf8');
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      return reject(res, 400, 'body is not JSON');
    }
    if (!isObject(event)) return reject(res, 400, 'event is not a JSON object');
    const id = typeof event.id === 'string' || typeof event.id === 'number' ? String(event.id) : undefined;
    if (id !== undefined && seen.has(id)) return answer(res, 200, { received: true, duplicate: true });
    if (id !== undefined) seen.add(id);
    try {
      await o.onEvent(event as WebhookEvent, text, { signature: signature ?? '', headerName });
    } catch (error) {
      // Not delivered after all: forget the id so the sender's retry is taken.
      if (id !== undefined) seen.delete(id);
      return reject(res, 500, `the event could not be handled: ${error instanceof Error ? error.message : String(error)}`);
    }
    answer(res, 200, { received: true });
  };

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      reject(res, 405, `${req.method ?? 'this method'} is not accepted; webhook events are POSTed`);
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      reject(res, 413, `body larger than ${maxBody} bytes`);
      res.once('finish', () => req.destroy());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBody) {
        tooLarge = true;
        chunks.length = 0;
        reject(res, 413, `body larger than ${maxBody} bytes`);
        res.once('finish', () => req.destroy());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) return;
      handle(req, res, Buffer.concat(chunks)).catch((error: unknown) => reject(res, 500, error instanceof Error ? error.message : 'error'));
    });
    req.on('error', () => undefined);
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  await new Promise<void>((resolvePromise, rejectPromise) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const why = error.code === 'EADDRINUSE' ? `port ${o.port} on ${host} is already in use` : error.code === 'EACCES' ? `not allowed to listen on port ${o.port}` : `cannot listen on ${host}:${o.port} (${error.code ?? error.message})`;
      rejectPromise(new UsageError(why, { code: 'listen_failed', hint: 'choose another --port (0 picks a free one)' }));
    };
    server.once('error', onError);
    server.listen(o.port, host, () => {
      server.off('error', onError);
      resolvePromise();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeAllConnections();
      }),
  };
}
