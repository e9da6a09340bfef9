// When to try again, and how long to wait: exponential backoff with full jitter, capped, bounded in total.

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxTotalMs: number;
  /** The longest Retry-After honoured; a longer one ends the retries. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxTotalMs: 120_000,
  maxRetryAfterMs: 60_000,
};

/** Statuses worth another try: the request may succeed later. 409 is retryable only as request_in_progress. */
export function isRetryableStatus(status: number, errorCode: string | undefined): boolean {
  if (status === 429 || status === 408 || status >= 500) return true;
  return status === 409 && errorCode === 'request_in_progress';
}

export function backoffDelayMs(policy: RetryPolicy, retryIndex: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/** Retry-After as delta-seconds (fractions tolerated) or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The wait before the next attempt, or undefined when the policy says stop. */
export function nextDelayMs(
  policy: RetryPolicy,
  retryIndex: number,
  elapsedMs: number,
  retryAfterMs: number | undefined,
  random?: () => number,
): number | undefined {
  if (retryIndex >= policy.retries) return undefined;
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return undefined;
  const delay = Math.max(retryAfterMs ?? 0, backoffDelayMs(policy, retryIndex, random));
  if (elapsedMs + delay > policy.maxTotalMs) return undefined;
  return delay;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
