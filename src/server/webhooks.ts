// Signed webhook events, delivered with retries: `Giftcodes-Signature: t=<unix>,v1=<hex>` where hex is
// HMAC-SHA256(secret, `${t}.${rawBody}`). Each event keeps its id and body across retries.
import { createHmac, randomBytes } from 'node:crypto';
import type { ClientRequest } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

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

export class Webhooks {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<ClientRequest>();
  private stopped = false;

  constructor(
    private readonly url: URL | undefined,
    private readonly secret: string,
    private readonly log?: (line: string) => void,
  ) {}

  /** Builds and sends an event about an order; a no-op without a webhook URL. */
  emit(type: string, order: unknown): void {
    if (this.url === undefined || this.stopped) return;
    const event: WebhookEvent = {
      id: `evt_${randomBytes(12).toString('hex')}`,
      type,
      created: Math.floor(Date.now() / 1000),
      data: { order },
    };
    this.attempt(this.url, event.id, JSON.stringify(event), 0);
  }

  /** Stops retries and aborts deliveries in flight. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const r of this.inFlight) r.destroy();
    this.inFlight.clear();
  }

  private attempt(url: URL, eventId: string, body: string, n: number): void {
    if (this.stopped) return;
    const t = Math.floor(Date.now() / 1000);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (ok: boolean, what: string) => {
      if (settled) return;
      settled = true;
      this.inFlight.delete(req);
      this.log?.(`webhook ${eventId} attempt ${n + 1}: ${what}`);
      if (!ok) this.retry(url, eventId, body, n);
    };
    const req = send(url, {
      method: 'POST',
      agent: false,
      timeout: ATTEMPT_TIMEOUT_MS,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': 'giftcodes-reference-server',
        [SIGNATURE_HEADER]: signature(this.secret, t, body),
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

  private retry(url: URL, eventId: string, body: string, n: number): void {
    const delay = RETRY_DELAYS_MS[n];
    if (delay === undefined || this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.attempt(url, eventId, body, n + 1);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }
}
