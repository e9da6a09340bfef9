// One rate-limit budget per ApiClient: a 429's Retry-After holds every request until the reset, once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitBudget, type BudgetClock } from '../../src/api/budget.js';
import { ApiClient } from '../../src/api/client.js';

/** A clock whose sleeps advance it at once and are recorded. */
function fakeClock(start = 1_000_000): BudgetClock & { slept: number[]; at: number } {
  const clock = {
    at: start,
    slept: [] as number[],
    now: () => clock.at,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      clock.slept.push(ms);
      clock.at += ms;
    },
  };
  return clock;
}

describe('RateLimitBudget', () => {
  it('lets requests through at once when no answer asked to wait', async () => {
    const clock = fakeClock();
    const budget = new RateLimitBudget(60_000, clock);
    budget.note(undefined);
    await budget.ready();
    expect(clock.slept).toEqual([]);
  });

  it('holds every request until the reset a Retry-After named', async () => {
    const clock = fakeClock();
    const budget = new RateLimitBudget(60_000, clock);
    budget.note(2_000);
    await budget.ready();
    expect(clock.slept).toEqual([2_000]);
    // Once the reset has passed, nothing more to wait for.
    await budget.ready();
    expect(clock.slept).toEqual([2_000]);
  });

  it('concurrent 429s naming the same reset make one pause, not one each added up', async () => {
    const clock = fakeClock();
    const budget = new RateLimitBudget(60_000, clock);
    budget.note(2_000);
    clock.at += 100;
    budget.note(1_900); // the same reset, seen by another row 100 ms later
    budget.note(500); // a shorter wait never shortens the pause
    await budget.ready();
    expect(clock.slept).toEqual([1_900]);
  });

  it('a later reset pushed while waiting is waited for too', async () => {
    const clock = fakeClock();
    const budget = new RateLimitBudget(60_000, clock);
    const inner = clock.sleep;
    let pushed = false;
    clock.sleep = async (ms, signal) => {
      await inner(ms, signal);
      if (!pushed) {
        pushed = true;
        budget.note(1_000);
      }
    };
    budget.note(2_000);
    await budget.ready();
    expect(clock.slept).toEqual([2_000, 1_000]);
  });

  it('does not share a wait longer than the retry policy honours', async () => {
    const clock = fakeClock();
    const budget = new RateLimitBudget(5_000, clock);
    budget.note(60_000);
    budget.note(0);
    budget.note(-5);
    await budget.ready();
    expect(clock.slept).toEqual([]);
  });

  it('after a rate limit, requests run one at a time; four answers in a row let a second run beside', async () => {
    const clock = fakeClock();
    const budget = new RateLimitBudget(60_000, clock);
    const first = await budget.acquire();
    const second = await budget.acquire(); // unbounded until a rate limit
    budget.note(1_000);
    first();
    second();
    const a = await budget.acquire();
    let bStarted = false;
    const b = budget.acquire().then((release) => {
      bStarted = true;
      return release;
    });
    await Promise.resolve();
    expect(bStarted).toBe(false); // one slot, held by a
    for (let n = 0; n < 3; n++) budget.answered();
    await Promise.resolve();
    expect(bStarted).toBe(false);
    budget.answered(); // the fourth in a row: the limit grows to two
    (await b)();
    a();
    budget.note(1_000); // another rate limit: back to one at a time
    const c = await budget.acquire();
    const d = budget.acquire();
    let dStarted = false;
    void d.then(() => (dStarted = true));
    await Promise.resolve();
    expect(dStarted).toBe(false);
    c();
    (await d)();
  });

  it('an interrupted wait for a slot rejects and takes no slot', async () => {
    const controller = new AbortController();
    const budget = new RateLimitBudget(60_000, fakeClock());
    budget.note(1);
    const held = await budget.acquire();
    const waiting = budget.acquire(controller.signal);
    controller.abort(new Error('interrupted by SIGINT'));
    await expect(waiting).rejects.toThrow('interrupted by SIGINT');
    held();
    (await budget.acquire())();
  });

  it('stops waiting when the run is interrupted', async () => {
    const controller = new AbortController();
    const budget = new RateLimitBudget(60_000);
    budget.note(30_000);
    const waiting = budget.ready(controller.signal);
    controller.abort(new Error('interrupted by SIGINT'));
    await expect(waiting).rejects.toThrow('interrupted by SIGINT');
  });
});

/** A client of `server`, once it listens on a free loopback port: retries quick, Retry-After honoured up to 10 s. */
async function clientOf(server: Server, log?: (line: string) => void): Promise<ApiClient> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new ApiClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: 'sc_test_budget_0123456789ab',
    requestTimeoutMs: 10_000,
    retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5, maxTotalMs: 30_000, maxRetryAfterMs: 10_000 },
    ...(log ? { log } : {}),
  });
}

describe('ApiClient shares the budget across concurrent requests', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('after one 429 with Retry-After, no request reaches the server before the reset', async () => {
    const arrivals: { path: string; at: number }[] = [];
    const logged: string[] = [];
    let resetAt = 0;
    server = createServer((req, res) => {
      const at = Date.now();
      arrivals.push({ path: req.url ?? '', at });
      if (req.url === '/v1/orders/first' && resetAt === 0) {
        resetAt = at + 1_000;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end('{"error":{"code":"rate_limited","message":"slow down"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: req.url?.split('/').pop(), status: 'completed' }));
    });
    const api = await clientOf(server, (line) => logged.push(line));
    try {
      const first = api.getOrder('first');
      // The others start once the client has the 429 (it says it will retry): they must wait for the shared reset,
      // not go out at once.
      while (!logged.some((line) => line.includes('retrying in'))) await new Promise((r) => setTimeout(r, 5));
      const others = ['a', 'b', 'c'].map((id) => api.getOrder(id));
      const orders = await Promise.all([first, ...others]);
      expect(orders.map((o) => o.id)).toEqual(['first', 'a', 'b', 'c']);
      // -v says how long: the service's 1 s, longer than the backoff.
      expect(logged).toContain('  retrying in 1.0s');
    } finally {
      await api.close();
    }
    const late = arrivals.slice(1);
    expect(late.map((a) => a.path).sort()).toEqual([
      '/v1/orders/a',
      '/v1/orders/b',
      '/v1/orders/c',
      '/v1/orders/first',
    ]);
    // Retry-After has whole-second resolution on the wire; the server's own clock judges the reset.
    for (const a of late) expect(a.at).toBeGreaterThanOrEqual(resetAt - 5);
  });

  it('after the pause, answers that are not a rate limit let requests run beside each other again', async () => {
    let limited = false;
    let inFlight = 0;
    let most = 0;
    const held: (() => void)[] = [];
    server = createServer((req, res) => {
      if (!limited) {
        limited = true;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0.05' });
        res.end('{"error":{"code":"rate_limited","message":"slow down"}}');
        return;
      }
      inFlight++;
      most = Math.max(most, inFlight);
      // Held until a second request arrives beside it (or 300 ms pass): requests the client lets run side by
      // side meet here however slowly a loaded machine sends them.
      const answer = (): void => {
        clearTimeout(timer);
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: req.url?.split('/').pop(), status: 'completed' }));
      };
      const timer = setTimeout(() => held.splice(held.indexOf(answer), 1) && answer(), 300);
      held.push(answer);
      if (inFlight >= 2) for (const next of held.splice(0)) next();
    });
    const api = await clientOf(server);
    try {
      await api.getOrder('first');
      // One at a time after the 429: the first answers (the retry's among them) count; four in a row let a second run.
      const ids = Array.from({ length: 12 }, (_, i) => `o${i}`);
      const orders = await Promise.all(ids.map((id) => api.getOrder(id)));
      expect(orders.map((o) => o.id)).toEqual(ids);
    } finally {
      await api.close();
    }
    expect(most).toBe(2);
  });
});
