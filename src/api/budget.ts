// One rate-limit budget for every request of an ApiClient. A plan runs rows concurrently; when the service
// answers one of them 429 with Retry-After, the limit is the reseller's, not that row's: no request of the
// client starts again before the reset. Concurrent 429s naming the same reset make one pause, not one
// each added up (Retry-After honoured once, not per row).
import { sleep } from './retry.js';

export interface BudgetClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: BudgetClock = { now: () => Date.now(), sleep };

export class RateLimitBudget {
  /** Epoch ms before which no request starts. */
  private resumeAt = 0;

  /**
   * `maxPauseMs`: a wait longer than the retry policy honours is not shared: that request fails and says
   * when the limit resets, and the others find out with their own next answer instead of hanging.
   */
  constructor(
    private readonly maxPauseMs: number,
    private readonly clock: BudgetClock = realClock,
  ) {}

  /** An answer said to wait `retryAfterMs` (undefined: it said nothing): every request waits until then. */
  note(retryAfterMs: number | undefined): void {
    if (retryAfterMs === undefined || retryAfterMs <= 0 || retryAfterMs > this.maxPauseMs) return;
    this.resumeAt = Math.max(this.resumeAt, this.clock.now() + retryAfterMs);
  }

  /** Resolves once no pause is in force (at once when none); rejects when `signal` aborts. */
  async ready(signal?: AbortSignal): Promise<void> {
    // A later 429 may push the reset while this one waits: look again after each sleep.
    for (let wait = this.resumeAt - this.clock.now(); wait > 0; wait = this.resumeAt - this.clock.now()) {
      await this.clock.sleep(wait, signal);
    }
  }
}
