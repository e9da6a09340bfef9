// Signed webhook events, delivered with retries: `Giftcodes-Signature: t=<unix>,v1=<hex>` where hex is
// HMAC-SHA256(secret, `${t}.${rawBody}`). Each event keeps its id and body across retries.
// `--webhook-scheme` signs (and shapes) them as Stripe, Standard Webhooks or GitHub would instead, so the
// tests of the CLI's receiver need nothing else. Written apart from src/webhooks: the server imports nothing of the client.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { ClientRequest } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { WebhookScheme } from './options.js';

export const SIGNATURE_HEADER = 'Giftcodes-Signature';
/** Delay before each retry; 8 attempts in all over about 32 s. */
export const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000, 16000] as const;
const ATTEMPT_TIMEOUT_MS = 5000;

export interface WebhookEvent {
  id: string;
  type: string;
  created: number;
  data: { order: unknown };
}

export function signature(secret: string, timestamp: number, rawBody: string): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** Standard Webhooks: `whsec_<base64>` is base64 of the key; a secret that is not base64 signs as it stands. */
function standardKey(secret: string): Buffer {
  const rest = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (rest !== '' && /^[A-Za-z0-9+/]+={0,2}$/.test(rest) && rest.replace(/=+$/, '').length % 4 !== 1)
    return Buffer.from(rest, 'base64');
  return Buffer.from(secret, 'utf8');
}

/** One delivery to send: the body each scheme's service would send, and a stable delivery id for its headers. */
interface Outgoing {
  eventId: string;
  type: string;
  body: string;
}

/** The event's body as each service shapes it: Stripe's `data.object`, Standard Webhooks' `data` (id in a header). */
function eventBody(scheme: WebhookScheme, id: string, type: string, created: number, order: unknown): string {
  if (scheme === 'stripe') return JSON.stringify({ id, object: 'event', type, created, data: { object: order } });
  if (scheme === 'standard')
    return JSON.stringify({ type, timestamp: new Date(created * 1000).toISOString(), data: order });
  const event: WebhookEvent = { id, type, created, data: { order } };
  return JSON.stringify(event);
}

/** The signature headers of one attempt, signed at time `t`. */
export function signedHeaders(scheme: WebhookScheme, secret: string, t: number, e: Outgoing): Record<string, string> {
  switch (scheme) {
    case 'giftcodes':
      return { [SIGNATURE_HEADER]: signature(secret, t, e.body) };
    case 'stripe':
      return { 'Stripe-Signature': signature(secret, t, e.body) };
    case 'standard': {
      const v1 = createHmac('sha256', standardKey(secret)).update(`${e.eventId}.${t}.${e.body}`).digest('base64');
      return { 'webhook-id': e.eventId, 'webhook-timestamp': String(t), 'webhook-signature': `v1,${v1}` };
    }
    case 'github':
      return {
        'X-GitHub-Delivery': e.eventId,
        'X-GitHub-Event': e.type,
        'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(e.body).digest('hex')}`,
      };
  }
}

export class Webhooks {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<ClientRequest>();
  private stopped = false;

  constructor(
    private readonly url: URL | undefined,
    private readonly secret: string,
    private readonly log?: (line: string) => void,
    private readonly scheme: WebhookScheme = 'giftcodes',
  ) {}

  /** Builds and sends an event about an order; a no-op without a webhook URL. */
  emit(type: string, order: unknown): void {
    if (this.url === undefined || this.stopped) return;
    // GitHub names a delivery with a GUID; the others with an event id.
    const eventId = this.scheme === 'github' ? randomUUID() : `evt_${randomBytes(12).toString('hex')}`;
    const body = eventBody(this.scheme, eventId, type, Math.floor(Date.now() / 1000), order);
    this.attempt(this.url, { eventId, type, body }, 0);
  }

  /** Stops retries and aborts deliveries in flight. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const r of this.inFlight) r.destroy();
    this.inFlight.clear();
  }

  private attempt(url: URL, e: Outgoing, n: number): void {
    if (this.stopped) return;
    const { eventId, body } = e;
    const t = Math.floor(Date.now() / 1000);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (ok: boolean, what: string) => {
      if (settled) return;
      settled = true;
      this.inFlight.delete(req);
      this.log?.(`webhook ${eventId} attempt ${n + 1}: ${what}`);
      if (!ok) this.retry(url, e, n);
    };
    const req = send(url, {
      method: 'POST',
      agent: false,
      timeout: ATTEMPT_TIMEOUT_MS,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': 'giftcodes-reference-server',
        ...signedHeaders(this.scheme, this.secret, t, e),
      },
    });
    this.inFlight.add(req);
    req.on('socket', (s) => s.unref());
    req.on('response', (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      done(code >= 200 && code < 300, String(code));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => done(false, e.message));
    req.end(body);
  }

  private retry(url: URL, e: Outgoing, n: number): void {
    const delay = RETRY_DELAYS_MS[n];
    if (delay === undefined || this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.attempt(url, e, n + 1);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }
}
