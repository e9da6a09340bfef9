// Faults for tests, all off by default: latency, a share of 503s, and a token-bucket rate limit.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Reply } from './http.js';
import { errorReply } from './http.js';

export class RateLimiter {
  private tokens: number;
  private last: number;
  private readonly capacity: number;

  /** `perSecond` requests a second, in bursts of up to one second's worth; times are monotonic ms. */
  constructor(
    private readonly perSecond: number,
    now = performance.now(),
  ) {
    this.capacity = Math.max(1, perSecond);
    this.tokens = this.capacity;
    this.last = now;
  }

  /** 0 when the request may go ahead, else the whole seconds to wait (at least 1). */
  take(now = performance.now()): number {
    this.tokens = Math.min(this.capacity, this.tokens + (Math.max(0, now - this.last) / 1000) * this.perSecond);
    this.last = Math.max(this.last, now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
  }
}

export interface FaultOptions {
  latencyMs: number;
  failRate: number;
  rateLimit: number;
}

export class Faults {
  private readonly limiter: RateLimiter | undefined;

  constructor(private readonly opts: FaultOptions) {
    this.limiter = opts.rateLimit > 0 ? new RateLimiter(opts.rateLimit) : undefined;
  }

  get active(): boolean {
    return this.opts.latencyMs > 0 || this.opts.failRate > 0 || this.limiter !== undefined;
  }

  /** Waits out the latency, then answers 429 or 503 when a fault picks this request; null otherwise. */
  async apply(): Promise<Reply | null> {
    const wait = this.limiter?.take() ?? 0;
    if (this.opts.latencyMs > 0) await sleep(this.opts.latencyMs);
    if (wait > 0) {
      return errorReply(429, 'rate_limited', `too many requests; retry after ${wait} s`, {
        'Retry-After': String(wait),
      });
    }
    if (this.opts.failRate > 0 && Math.random() < this.opts.failRate) {
      return errorReply(503, 'service_unavailable', 'the service is temporarily unavailable (injected fault)');
    }
    return null;
  }
}
