// Receives signed webhook events (docs/webhooks.md): each delivery verified by its scheme (see
// signatures.ts), a timestamp more than the tolerance from now refused, a repeated event id acknowledged
// but not emitted again.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import { listenHint, listenMessage } from '../listen-failure.js';
import { claimedDeliveryId, verifyDelivery, type Scheme } from './signatures.js';

// Scheme as a type only: re-exporting SCHEMES here would split schemes.ts into a chunk loaded at every start.
export { DEFAULT_SIGNATURE_HEADER, type Scheme } from './signatures.js';
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
  /** --scheme; detected from each delivery's headers when absent. */
  scheme?: Scheme | undefined;
  signatureHeader?: string | undefined;
  toleranceS?: number;
  maxBodyBytes?: number;
  /** A thrown error answers 500, so the sender retries; the id is not remembered. */
  onEvent(event: WebhookEvent, raw: string, delivery: Delivery): void | Promise<void>;
  /** A refused delivery: the status answered and why, and the id it gives itself in a header (unverified), if any. */
  onReject?(status: number, reason: string, claimedId?: string): void;
  /** Unix seconds; tests move the clock. */
  now?: () => number;
  /** The flag that chose the port, for the hint when it cannot be listened on (`--port` unless said). */
  portFlag?: string;
}

/** How long close() lets a delivery being answered finish. */
const CLOSE_GRACE_MS = 2_000;

export interface Delivery {
  scheme: Scheme;
  /** The event id that duplicates are judged by: webhook-id, X-GitHub-Delivery, else the body's id. */
  id?: string | undefined;
  /** The signature headers as received, for forwarding with the raw body. */
  signed: Record<string, string>;
}

export interface RunningReceiver {
  url: string;
  port: number;
  close(): Promise<void>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The order an event is about: `data.order`, `data.object`, or `data` itself when it has an id. */
export function orderFromEvent(
  event: WebhookEvent,
): (Record<string, unknown> & { id?: unknown; status?: unknown }) | undefined {
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
  const toleranceS = o.toleranceS ?? DEFAULT_TOLERANCE_S;
  const maxBody = o.maxBodyBytes ?? MAX_BODY_BYTES;
  const now = o.now ?? (() => Date.now() / 1000);
  const seen = new RecentIds(SEEN_IDS);
  /** Events being handled, by id: what each ended with (a reason when it failed). */
  const handling = new Map<string, Promise<string | undefined>>();

  let closing = false;
  const answer = (res: ServerResponse, status: number, body: Record<string, unknown>): void => {
    if (res.headersSent) return;
    const text = JSON.stringify(body);
    // Once closing, the connection ends with this answer instead of idling until close() cuts it.
    res
      .writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...(closing ? { connection: 'close' } : {}),
      })
      .end(text);
  };
  const reject = (res: ServerResponse, status: number, reason: string, claimedId?: string): void => {
    o.onReject?.(status, reason, claimedId);
    answer(res, status, { error: reason });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> => {
    const check = verifyDelivery(req.headers, raw, {
      secret: o.secret,
      scheme: o.scheme,
      signatureHeader: o.signatureHeader,
      toleranceS,
      nowS: now(),
    });
    // Named by the id it gives itself: a log of refusals said which delivery of which event none of them was (a review).
    if (!check.ok) return reject(res, 400, check.reason, claimedDeliveryId(req.headers));
    const text = raw.toString('utf8');
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      return reject(res, 400, 'body is not JSON');
    }
    if (!isObject(event)) return reject(res, 400, 'event is not a JSON object');
    const id =
      check.deliveryId ?? (typeof event.id === 'string' || typeof event.id === 'number' ? String(event.id) : undefined);
    // A retry of an event still being handled (its sender gave up waiting) is answered as that one is: a 2xx
    // now would be a lost event if it then could not be handled.
    const pending = id === undefined ? undefined : handling.get(id);
    if (pending !== undefined) {
      const failure = await pending;
      if (failure !== undefined) return reject(res, 500, failure);
    }
    if (id !== undefined && seen.has(id)) return answer(res, 200, { received: true, duplicate: true });
    if (id !== undefined) seen.add(id);
    const handled = Promise.resolve()
      .then(() => o.onEvent(event as WebhookEvent, text, { scheme: check.scheme, id, signed: check.signed }))
      .then(
        () => undefined,
        (error: unknown) => `the event could not be handled: ${error instanceof Error ? error.message : String(error)}`,
      );
    if (id !== undefined) handling.set(id, handled);
    const failure = await handled;
    if (id !== undefined) handling.delete(id);
    // Not delivered after all: forget the id so the sender's retry is taken.
    if (failure !== undefined) {
      if (id !== undefined) seen.delete(id);
      return reject(res, 500, failure);
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
      handle(req, res, Buffer.concat(chunks)).catch((error: unknown) =>
        reject(res, 500, error instanceof Error ? error.message : 'error'),
      );
    });
    req.on('error', () => undefined);
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  await new Promise<void>((resolvePromise, rejectPromise) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const code = error.code ?? error.message;
      rejectPromise(
        new UsageError(listenMessage(code, host, o.port), {
          code: 'listen_failed',
          hint: listenHint(code, { port: o.portFlag ?? '--port' }),
        }),
      );
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
        closing = true;
        server.close(() => resolvePromise());
        // A delivery being answered gets its answer (its sender must not take a reset for a lost event); idle
        // kept-alive sockets go now, and anything still open after CLOSE_GRACE_MS is cut.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}
