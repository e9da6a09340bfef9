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

/** Epoch seconds are larger than any wait a service would state in seconds (about 31 years). */
const EPOCH_SECONDS_FROM = 1_000_000_000;
const EPOCH_MS_FROM = 1_000_000_000_000;

/** `X-RateLimit-Reset`/`RateLimit-Reset`: epoch seconds (or ms), or seconds to wait; undefined when unreadable. */
export function parseResetMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  if (n >= EPOCH_MS_FROM) return Math.max(0, Math.round(n - now));
  if (n >= EPOCH_SECONDS_FROM) return Math.max(0, Math.round(n * 1000 - now));
  return Math.round(n * 1000);
}

/** The IETF `RateLimit` header: `"default";r=0;t=30` (draft 8+) or `limit=10, remaining=0, reset=30` (earlier). */
export function parseRateLimitHeaderMs(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const match = /(?:^|[;,\s])(?:t|reset)\s*=\s*(\d+(?:\.\d+)?)/i.exec(value);
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/**
 * How long the service asks to wait before the next attempt: Retry-After on any status; on a 429 also the
 * reset headers (a reset time on a successful or 5xx answer says nothing about this request).
 */
export function rateLimitWaitMs(
  status: number,
  headers: Record<string, string | undefined>,
  now: number = Date.now(),
): number | undefined {
  const retryAfter = parseRetryAfterMs(headers['retry-after'], now);
  if (retryAfter !== undefined || status !== 429) return retryAfter;
  return (
    parseRateLimitHeaderMs(headers.ratelimit) ??
    parseResetMs(headers['ratelimit-reset'], now) ??
    parseResetMs(headers['x-ratelimit-reset'], now) ??
    parseResetMs(headers['x-rate-limit-reset'], now)
  );
}

/** True when the service's wait alone ends the retries: longer than honoured, or past the total budget. */
export function waitExceedsBudget(policy: RetryPolicy, elapsedMs: number, retryAfterMs: number | undefined): boolean {
  if (retryAfterMs === undefined) return false;
  return retryAfterMs > policy.maxRetryAfterMs || elapsedMs + retryAfterMs > policy.maxTotalMs;
}

/**
 * When the service may be asked again, in the words of its cause: a 429's wait is its rate limit (`the rate
 * limit resets at 09:12:03 UTC (in 75 s)`); a 503's (or any other answer's) Retry-After is the service's own
 * (`the service asks to be tried again after 09:12:03 UTC (in 75 s)`).
 */
export function describeReset(waitMs: number, now: number = Date.now(), status = 429): string {
  const at = `${new Date(now + waitMs).toISOString().slice(11, 19)} UTC (in ${Math.ceil(waitMs / 1000)} s)`;
  return status === 429 ? `the rate limit resets at ${at}` : `the service asks to be tried again after ${at}`;
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
