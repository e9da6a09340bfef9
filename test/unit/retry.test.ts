// The retry policy: exponential backoff with full jitter, capped; Retry-After honoured; bounded in total.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  backoffDelayMs,
  describeReset,
  isRetryableStatus,
  nextDelayMs,
  parseResetMs,
  parseRetryAfterMs,
  rateLimitWaitMs,
  sleep,
  waitExceedsBudget,
  type RetryPolicy,
} from '../../src/api/retry.js';

const policy: RetryPolicy = {
  retries: 5,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  maxTotalMs: 10_000,
  maxRetryAfterMs: 5_000,
};
const lowest = () => 0;
const highest = () => 0.999999;

describe('backoffDelayMs', () => {
  it('full jitter: from 0 up to base × 2^retry', () => {
    for (const [retry, ceiling] of [
      [0, 100],
      [1, 200],
      [2, 400],
      [3, 800],
    ] as const) {
      expect(backoffDelayMs(policy, retry, lowest)).toBe(0);
      expect(backoffDelayMs(policy, retry, highest)).toBe(ceiling - 1);
    }
  });

  it('is capped at maxDelayMs however many retries came before', () => {
    expect(backoffDelayMs(policy, 4, highest)).toBeLessThan(policy.maxDelayMs);
    expect(backoffDelayMs(policy, 60, highest)).toBeLessThan(policy.maxDelayMs);
    expect(backoffDelayMs(policy, 60, highest)).toBeGreaterThan(policy.maxDelayMs - 2);
  });

  it('stays within bounds with the real random source', () => {
    for (let i = 0; i < 500; i++) {
      const retry = i % 8;
      const delay = backoffDelayMs(policy, retry);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));
      expect(Number.isInteger(delay)).toBe(true);
    }
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delta-seconds, fractions tolerated', () => {
    expect(parseRetryAfterMs('3', now)).toBe(3_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('1.5', now)).toBe(1_500);
    // More than one digit, each side of the point, and padded: never read as a date (which gave 0).
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs('1.25', now)).toBe(1_250);
    expect(parseRetryAfterMs('  12 ', now)).toBe(12_000);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7_000);
  });

  it('a date in the past means now', () => {
    expect(parseRetryAfterMs('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });

  it.each([undefined, '', 'soon', '1e3x'])('is undefined for absent or unreadable values: %j', (value) => {
    expect(parseRetryAfterMs(value, now)).toBeUndefined();
  });

  it('never gives a negative wait', () => {
    expect(parseRetryAfterMs('-5', now) ?? 0).toBeGreaterThanOrEqual(0);
  });
});

describe('nextDelayMs', () => {
  it('gives a delay for each retry the policy allows, then stops', () => {
    for (let retry = 0; retry < policy.retries; retry++)
      expect(nextDelayMs(policy, retry, 0, undefined, lowest)).toBe(0);
    expect(nextDelayMs(policy, policy.retries, 0, undefined, lowest)).toBeUndefined();
  });

  it('no retries at all with retries 0', () => {
    expect(nextDelayMs({ ...policy, retries: 0 }, 0, 0, undefined, lowest)).toBeUndefined();
  });

  it('honours Retry-After when it is longer than the backoff', () => {
    expect(nextDelayMs(policy, 0, 0, 2_000, highest)).toBe(2_000);
  });

  it('keeps the backoff when it is longer than Retry-After', () => {
    expect(nextDelayMs(policy, 3, 0, 10, highest)).toBe(799);
  });

  it('stops when Retry-After is longer than the policy will wait', () => {
    expect(nextDelayMs(policy, 0, 0, policy.maxRetryAfterMs + 1, lowest)).toBeUndefined();
    expect(nextDelayMs(policy, 0, 0, policy.maxRetryAfterMs, lowest)).toBe(policy.maxRetryAfterMs);
  });

  it('is bounded in total: no retry that would start after maxTotalMs', () => {
    expect(nextDelayMs(policy, 1, policy.maxTotalMs - 50, undefined, highest)).toBeUndefined();
    expect(nextDelayMs(policy, 1, policy.maxTotalMs - 500, undefined, highest)).toBe(199);
    expect(nextDelayMs(policy, 0, policy.maxTotalMs - 1_000, 2_000, lowest)).toBeUndefined();
  });

  it('the default policy adds up to a bounded wait: every delay within its cap, the sum within maxTotalMs', () => {
    let elapsed = 0;
    let retries = 0;
    for (let retry = 0; ; retry++) {
      const delay = nextDelayMs(DEFAULT_RETRY_POLICY, retry, elapsed, undefined, highest);
      if (delay === undefined) break;
      expect(delay).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxDelayMs);
      elapsed += delay;
      retries++;
    }
    expect(retries).toBe(DEFAULT_RETRY_POLICY.retries);
    expect(elapsed).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxTotalMs);
  });
});

describe('the edges of the retry budget and of epoch resets (a scoped mutation run found them unasked)', () => {
  it('a wait exactly at a bound is still honoured; one past it ends the retries', () => {
    expect(waitExceedsBudget(policy, 0, policy.maxRetryAfterMs)).toBe(false);
    expect(waitExceedsBudget(policy, 0, policy.maxRetryAfterMs + 1)).toBe(true);
    expect(waitExceedsBudget(policy, policy.maxTotalMs - 1_000, 1_000)).toBe(false);
    expect(waitExceedsBudget(policy, policy.maxTotalMs - 1_000, 1_001)).toBe(true);
    expect(nextDelayMs(policy, 0, policy.maxTotalMs - 2_000, 2_000, lowest)).toBe(2_000);
    expect(nextDelayMs(policy, 0, policy.maxTotalMs - 2_000, 2_001, lowest)).toBeUndefined();
  });

  it('a reset of exactly 10^12 is epoch milliseconds, of exactly 10^9 epoch seconds', () => {
    expect(parseResetMs('1000000000000', 999_999_990_000)).toBe(10_000);
    expect(parseResetMs('1000000000', 999_999_990_000)).toBe(10_000);
    expect(parseResetMs('999999999', 0)).toBe(999_999_999_000);
  });
});

describe('isRetryableStatus', () => {
  it.each([429, 408, 500, 502, 503, 504])('%i is retried', (status) => {
    expect(isRetryableStatus(status, undefined)).toBe(true);
  });

  it.each([400, 401, 403, 404, 422])('%i is never retried', (status) => {
    expect(isRetryableStatus(status, 'anything')).toBe(false);
  });

  it('409 only as request_in_progress', () => {
    expect(isRetryableStatus(409, 'request_in_progress')).toBe(true);
    expect(isRetryableStatus(409, 'order_not_completed')).toBe(false);
    expect(isRetryableStatus(400, 'request_in_progress')).toBe(false);
  });
});

describe('sleep', () => {
  it('resolves after the delay', async () => {
    await expect(sleep(5)).resolves.toBeUndefined();
  });

  it('rejects at once when aborted, with the abort reason', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('rejects when the signal is already aborted', async () => {
    await expect(sleep(60_000, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });
});

describe('issue 13: every rate-limit header form', () => {
  const now = Date.parse('2026-11-23T09:00:00Z');

  it('Retry-After as seconds and as an HTTP date', () => {
    expect(rateLimitWaitMs(429, { 'retry-after': '7' }, now)).toBe(7_000);
    expect(rateLimitWaitMs(503, { 'retry-after': 'Mon, 23 Nov 2026 09:00:30 GMT' }, now)).toBe(30_000);
  });

  it('X-RateLimit-Reset and RateLimit-Reset: epoch seconds or seconds to wait', () => {
    expect(rateLimitWaitMs(429, { 'x-ratelimit-reset': String(now / 1000 + 42) }, now)).toBe(42_000);
    expect(rateLimitWaitMs(429, { 'x-ratelimit-reset': '42' }, now)).toBe(42_000);
    expect(rateLimitWaitMs(429, { 'ratelimit-reset': '5' }, now)).toBe(5_000);
    expect(rateLimitWaitMs(429, { 'x-ratelimit-reset': String(now + 9_000) }, now)).toBe(9_000);
    expect(rateLimitWaitMs(429, { 'x-ratelimit-reset': String(now / 1000 - 10) }, now)).toBe(0);
    expect(rateLimitWaitMs(429, { 'ratelimit-reset': ' 1.25 ' }, now)).toBe(1_250);
    expect(rateLimitWaitMs(429, { 'x-rate-limit-reset': '6' }, now)).toBe(6_000);
  });

  it("the IETF RateLimit header's t= (and the older reset=)", () => {
    expect(rateLimitWaitMs(429, { ratelimit: '"default";r=0;t=12' }, now)).toBe(12_000);
    expect(rateLimitWaitMs(429, { ratelimit: 'limit=100, remaining=0, reset=3' }, now)).toBe(3_000);
    expect(rateLimitWaitMs(429, { ratelimit: 't=30' }, now)).toBe(30_000);
    expect(rateLimitWaitMs(429, { ratelimit: 'limit=100, reset = 4' }, now)).toBe(4_000);
    expect(rateLimitWaitMs(429, { ratelimit: '"default";r=0;t=1.25' }, now)).toBe(1_250);
    expect(rateLimitWaitMs(429, { ratelimit: '"default";r=0' }, now)).toBeUndefined();
  });

  it('Retry-After wins over the reset headers; reset headers are read only on a 429', () => {
    expect(rateLimitWaitMs(429, { 'retry-after': '2', 'x-ratelimit-reset': '50' }, now)).toBe(2_000);
    expect(rateLimitWaitMs(503, { 'x-ratelimit-reset': '50' }, now)).toBeUndefined();
    expect(rateLimitWaitMs(200, { ratelimit: '"default";r=5;t=12' }, now)).toBeUndefined();
  });

  it.each(['', 'soon', '-5', '1e3'])('unreadable reset values are ignored: %j', (value) => {
    expect(parseResetMs(value, now)).toBeUndefined();
  });

  it('a wait longer than honoured, or past the total budget, ends the retries and says when the limit resets', () => {
    expect(waitExceedsBudget(policy, 0, policy.maxRetryAfterMs + 1)).toBe(true);
    expect(waitExceedsBudget(policy, policy.maxTotalMs - 1_000, 2_000)).toBe(true);
    expect(waitExceedsBudget(policy, 0, 1_000)).toBe(false);
    expect(waitExceedsBudget(policy, 0, undefined)).toBe(false);
    expect(describeReset(75_000, now)).toBe('the rate limit resets at 09:01:15 UTC (in 75 s)');
    expect(describeReset(75_000, now, 503)).toBe('the service asks to be tried again after 09:01:15 UTC (in 75 s)');
  });
});
