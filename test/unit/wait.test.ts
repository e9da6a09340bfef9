// waitForOrder's finer rules against a scripted API: the pace of its polls (never faster than 10 ms, never
// past the deadline), a terminal's spinner instead of status lines, and which failures are its own.
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/errors.js';
import { Io } from '../../src/output/io.js';
import { waitForOrder } from '../../src/orders/wait.js';
import { capturedIo } from '../helpers/inprocess.js';

/** An API whose order goes through `statuses`, one per poll, the last repeated; the times of the polls. */
function scripted(statuses: string[]): { api: ApiClient; polls: number[] } {
  const polls: number[] = [];
  const api = {
    getOrder: (id: string) => {
      polls.push(performance.now());
      return Promise.resolve({ id, status: statuses[Math.min(polls.length - 1, statuses.length - 1)] });
    },
  } as unknown as ApiClient;
  return { api, polls };
}

const signal = (): AbortSignal => new AbortController().signal;

/**
 * Runs `wait` on a clock of its own (its sleeps, Date and performance faked, the timers run as they come): the pace
 * is that of the sleeps it asks for, not what a loaded machine makes of them. Real timers there fired the second look
 * of a 50 ms interval 540 ms after the first (the file under `nice -n 19` beside two busy loops), and a 50 ms deadline
 * passed before the first poll was looked at.
 */
async function onOwnClock<T>(wait: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  try {
    const result = wait();
    await vi.runAllTimersAsync();
    return await result;
  } finally {
    vi.useRealTimers();
  }
}

describe('waitForOrder pace', () => {
  it('an interval under 10 ms (0 too) polls every 10 ms at the fastest', async () => {
    for (const intervalS of [0, 0.001]) {
      const { api, polls } = scripted(['pending', 'processing', 'processing', 'completed']);
      await waitForOrder({ api, orderId: 'ord_1', io: capturedIo().io, signal: signal(), intervalS });
      expect(polls).toHaveLength(4);
      for (let i = 1; i < polls.length; i++) expect(polls[i]! - polls[i - 1]!).toBeGreaterThanOrEqual(9);
    }
  });

  it('the interval is in seconds, rounded to the millisecond', async () => {
    const { api, polls } = scripted(['pending', 'completed']);
    await onOwnClock(() =>
      waitForOrder({ api, orderId: 'ord_1', io: capturedIo().io, signal: signal(), intervalS: 0.0404 }),
    );
    expect(polls[1]! - polls[0]!).toBeGreaterThanOrEqual(39);
    // Not the 2 s default either.
    expect(polls[1]! - polls[0]!).toBeLessThan(1500);
  });

  // A person's day: a plan row's order done in 200 ms waited a whole 2 s interval for its second look.
  it('the second look comes half a second after the first, at most; then every interval', async () => {
    const { api, polls } = scripted(['pending', 'processing', 'completed']);
    await onOwnClock(() =>
      waitForOrder({ api, orderId: 'ord_1', io: capturedIo().io, signal: signal(), intervalS: 0.9 }),
    );
    expect(polls).toHaveLength(3);
    expect(polls[1]! - polls[0]!).toBeGreaterThanOrEqual(490);
    expect(polls[1]! - polls[0]!).toBeLessThan(850);
    expect(polls[2]! - polls[1]!).toBeGreaterThanOrEqual(890);
    // An interval under half a second is kept from the start.
    const quick = scripted(['pending', 'completed']);
    await onOwnClock(() =>
      waitForOrder({ api: quick.api, orderId: 'ord_1', io: capturedIo().io, signal: signal(), intervalS: 0.05 }),
    );
    expect(quick.polls[1]! - quick.polls[0]!).toBeLessThan(400);
  });

  it('each status is told once, however many polls find it', async () => {
    const c = capturedIo();
    const seen: string[] = [];
    const { api } = scripted(['pending', 'processing', 'processing', 'processing', 'completed']);
    await waitForOrder({
      api,
      orderId: 'ord_1',
      io: c.io,
      signal: signal(),
      intervalS: 0.01,
      onStatus: (o) => seen.push(o.status),
    });
    expect(seen).toEqual(['pending', 'processing', 'completed']);
    expect(
      c
        .err()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/^\S+ /, '')),
    ).toEqual(['order ord_1: pending', 'order ord_1: processing', 'order ord_1: completed']);
  });

  /** `--timeout 0.05` with a 60 s interval: the last sleep is cut to the deadline. Resolves to the error it ends with. */
  const cutToDeadline = (api: ApiClient): Promise<unknown> =>
    waitForOrder({ api, orderId: 'ord_1', io: capturedIo().io, signal: signal(), intervalS: 60, timeoutS: 0.05 }).catch(
      (e: unknown) => e,
    );

  it('the last sleep is cut to the deadline: --timeout 0.05 with a 60 s interval gives up after about 50 ms', async () => {
    const { api, polls } = scripted(['processing']);
    const { error, took } = await onOwnClock(async () => {
      const started = performance.now();
      const error = await cutToDeadline(api);
      return { error, took: performance.now() - started };
    });
    expect(error).toMatchObject({
      code: 'wait_timeout',
      message: 'gave up waiting for order ord_1 after 0.05s; it is still processing',
      // `--json` names the order (a script read it from the prose), and the run that placed it says so in one
      // sentence (`…; it is still pending; it was placed` read as two afterthoughts).
      orderId: 'ord_1',
      placedMessage: 'gave up waiting after 0.05s: order ord_1 was placed and is still processing',
    });
    expect(took).toBeLessThan(10_000);
    expect(polls.length).toBe(2);
  });

  it('a timer that ends a millisecond before the clock says (as Node timers do against Date.now) brings no extra poll', async () => {
    // The clock is held still and moved by the polls: the second poll comes at 49 ms of the 50, as when the cut
    // sleep's timer fires on the event loop's cached time; a third would come at 60. Only Date is faked: the
    // sleeps are real.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const start = Date.now();
      let polls = 0;
      const api = {
        getOrder: (id: string) => {
          polls++;
          if (polls === 2) vi.setSystemTime(start + 49);
          if (polls >= 3) vi.setSystemTime(start + 60);
          return Promise.resolve({ id, status: 'processing' });
        },
      } as unknown as ApiClient;
      const error = await cutToDeadline(api);
      expect(error).toMatchObject({ code: 'wait_timeout' });
      expect(polls).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('waitForOrder on a terminal', () => {
  const tty = (): { io: Io; err: () => string } => capturedIo({ stderrIsTTY: true, env: { NO_COLOR: '1' } });

  it('the spinner tells the status and ends on a check mark; no status lines', async () => {
    const t = tty();
    const { api } = scripted(['pending', 'completed']);
    await waitForOrder({ api, orderId: 'ord_1', io: t.io, signal: signal(), intervalS: 0.01 });
    expect(t.err()).toContain('waiting for order ord_1');
    expect(t.err()).toContain('✓ order ord_1 completed');
    expect(t.err()).not.toContain('order ord_1: pending');
  });

  it('a wait that ends in an error stops the spinner without a check mark', async () => {
    const t = tty();
    const { api } = scripted(['failed']);
    await expect(
      waitForOrder({ api, orderId: 'ord_1', io: t.io, signal: signal(), intervalS: 0.01 }),
    ).rejects.toMatchObject({ exitCode: 6 });
    expect(t.err()).not.toContain('✓');
    // Stopped: no frame is drawn after.
    const drawn = t.err().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(t.err().length).toBe(drawn);
  });
});

describe('waitForOrder failures', () => {
  it("a failed poll is the client's own error, unless the wait was interrupted", async () => {
    const refused = new ApiError('server said no', { status: 500 });
    const api = { getOrder: () => Promise.reject(refused) } as unknown as ApiClient;
    await expect(
      waitForOrder({ api, orderId: 'ord_1', io: capturedIo().io, signal: signal(), intervalS: 0.01 }),
    ).rejects.toBe(refused);
    const stopped = new AbortController();
    stopped.abort(new Error('SIGTERM received'));
    await expect(
      waitForOrder({ api, orderId: 'ord_1', io: capturedIo().io, signal: stopped.signal, intervalS: 0.01 }),
    ).rejects.toMatchObject({
      exitCode: 130,
      message: 'SIGTERM received while waiting for order ord_1',
      orderId: 'ord_1',
    });
  });

  it('an order that ended failed names it for --json', async () => {
    const { api } = scripted(['failed']);
    await expect(
      waitForOrder({ api, orderId: 'ord_1', io: capturedIo().io, signal: signal(), intervalS: 0.01 }),
    ).rejects.toMatchObject({ exitCode: 6, code: 'order_failed', orderId: 'ord_1' });
  });
});
