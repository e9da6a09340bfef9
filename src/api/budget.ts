// One rate-limit budget for every request of an ApiClient. A plan runs rows concurrently; when the service
// answers one of them 429 with Retry-After, the limit is the reseller's, not that row's: no request of the
// client starts again before the reset. Concurrent 429s naming the same reset make one pause, not one
// each added up (Retry-After honoured once, not per row). After the pause the rows do not all resume at
// once (they would meet the limit again together, one 429 each): requests go one at a time, and each answer
// that is not a rate limit counts: four times as many in a row as run at once let one more run beside them (the plan's --concurrency stays the ceiling).
import { sleep } from './retry.js';

export interface BudgetClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Past this many in flight after a rate limit, the limit is lifted again. */
const MAX_LIMITED = 64;

const realClock: BudgetClock = { now: () => Date.now(), sleep };

export class RateLimitBudget {
  /** Epoch ms before which no request starts. */
  private resumeAt = 0;
  /** Requests allowed in flight at once: unbounded until a rate limit, then 1, growing by one per answer. */
  private limit = Number.POSITIVE_INFINITY;
  private inFlight = 0;
  /** Answers without a rate limit since the limit last changed. */
  private streak = 0;
  private readonly waiters: (() => void)[] = [];

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
    this.limit = 1;
    this.streak = 0;
  }

  /** An answer that was not a rate limit: after 4 × `limit` of them in a row, one more request may run beside the others. */
  answered(): void {
    if (this.limit === Number.POSITIVE_INFINITY || ++this.streak < 4 * this.limit) return;
    this.streak = 0;
    this.limit = this.limit >= MAX_LIMITED ? Number.POSITIVE_INFINITY : this.limit + 1;
    this.wake();
  }

  /** Waits for the pause and a free slot; the returned function frees the slot (call it once the attempt ends). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    await this.ready(signal);
    if (this.inFlight < this.limit) {
      this.inFlight++;
    } else {
      // wake() hands the slot over (counted in inFlight) before it resolves this promise.
      await new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason as Error);
        const onAbort = (): void => {
          const at = this.waiters.indexOf(woken);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(signal?.reason as Error);
        };
        const woken = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(woken);
      });
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.wake();
    };
    // A pause that began while this one waited for its slot holds it too.
    await this.ready(signal).catch((error: unknown) => {
      release();
      throw error;
    });
    return release;
  }

  private wake(): void {
    while (this.waiters.length > 0 && this.inFlight < this.limit) {
      this.inFlight++;
      this.waiters.shift()!();
    }
  }

  /** Resolves once no pause is in force (at once when none); rejects when `signal` aborts. */
  async ready(signal?: AbortSignal): Promise<void> {
    // A later 429 may push the reset while this one waits: look again after each sleep.
    for (let wait = this.resumeAt - this.clock.now(); wait > 0; wait = this.resumeAt - this.clock.now()) {
      await this.clock.sleep(wait, signal);
    }
  }
}
