// Stopped (Ctrl-C, SIGTERM) while an order's request waited to be tried, before any byte of it left: the client says
// so (notSent, on a copy of the signal's reason, which every request of a run shares), and the order machine writes
// such a first request's intent back as never sent. An adversarial review's probe: a plan stopped while a row waited
// its turn said "2 rows of it may have been charged" when the server had seen one, and left that row reading as
// charged in order pending.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import { runPlan, type PlaceDeps } from '../../src/commands/order/place.js';
import { InterruptedError } from '../../src/errors.js';
import type { Journal } from '../../src/journal/journal.js';
import type { Io } from '../../src/output/io.js';
import { type RunningServer } from '../../src/server/index.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, freshJournal, inProcessServer, KEY } from '../helpers/inprocess.js';

let server: RunningServer;
let failing: RunningServer;
beforeAll(async () => {
  server = await inProcessServer();
  failing = await inProcessServer({ failRate: 1 });
});
afterAll(async () => {
  await Promise.all([server.close(), failing.close()]);
});

/** A loopback URL nothing listens on: every attempt is refused before a byte is written. */
async function nothingListening(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** A client of `url` that retries `retries` times (3 unless said), stopped by `signal`; `onRetry` as it is about to wait. */
function clientOf(url: string, o: { signal?: AbortSignal; retries?: number; onRetry?: () => void } = {}): ApiClient {
  return new ApiClient({
    baseUrl: url,
    apiKey: KEY,
    requestTimeoutMs: 10_000,
    retry: { ...DEFAULT_RETRY_POLICY, retries: o.retries ?? 3 },
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onRetry ? { onRetry: o.onRetry } : {}),
  });
}

/** A client that retries, stopped with `reason` as it is about to wait before its second attempt. */
function stoppedBeforeRetry(url: string, reason: InterruptedError): { client: ApiClient; controller: AbortController } {
  const controller = new AbortController();
  const client = clientOf(url, { signal: controller.signal, onRetry: () => controller.abort(reason) });
  return { client, controller };
}

/** runPlan's dependencies: this journal, and `client` for a test key of `url`, stopped by `signal`. */
function planDeps(io: Io, journal: Journal, url: string, signal: AbortSignal, client: ApiClient): PlaceDeps {
  return {
    io,
    configDir: '/nonexistent',
    signal,
    connection: () =>
      Promise.resolve({ environment: 'test', profile: 'default', baseUrl: url, apiKey: KEY, keySource: 'environment' }),
    journal: () => Promise.resolve(journal),
    api: () => Promise.resolve(client),
  };
}

const body = JSON.stringify({ product_id: 'amazon-us-25', quantity: 1 });

describe('the client, stopped between attempts', () => {
  it('no attempt wrote a byte: the interruption says notSent, on a copy, the signal reason left as it was', async () => {
    const reason = new InterruptedError('interrupted by SIGINT');
    const { client } = stoppedBeforeRetry(await nothingListening(), reason);
    const error = (await client.createOrder(body, `k-${randomUUID()}`).catch((e: unknown) => e)) as InterruptedError;
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error).toMatchObject({ message: 'interrupted by SIGINT', exitCode: 130, notSent: true });
    expect(error).not.toBe(reason);
    expect(reason.notSent).toBe(false);
  });

  it('an attempt the server answered (a 503): the interruption is the signal reason, and not notSent', async () => {
    const reason = new InterruptedError('interrupted by SIGINT');
    const { client } = stoppedBeforeRetry(failing.url, reason);
    const error = (await client.createOrder(body, `k-${randomUUID()}`).catch((e: unknown) => e)) as InterruptedError;
    expect(error).toBe(reason);
    expect(error.notSent).toBe(false);
  });

  it("waiting its turn behind another request's Retry-After, never tried: notSent; the request that was answered 429: not", async () => {
    const limited = createHttpServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
      res.end('{"error":{"code":"rate_limited","message":"slow down"}}');
    });
    await new Promise<void>((resolve) => limited.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(limited.address() as { port: number }).port}`;
      const reason = new InterruptedError('interrupted by SIGINT', { hint: 'the hint the signal carried' });
      const controller = new AbortController();
      let waiting: Promise<unknown> | undefined;
      const client: ApiClient = clientOf(url, {
        signal: controller.signal,
        // The first request was told to wait: a second one now waits its turn, and the run is stopped meanwhile.
        onRetry: () => {
          waiting ??= client.createOrder(body, `k-${randomUUID()}`).catch((e: unknown) => e);
          setTimeout(() => controller.abort(reason), 50);
        },
      });
      const answered = await client.createOrder(body, `k-${randomUUID()}`).catch((e: unknown) => e);
      expect(answered).toBe(reason);
      const never = (await waiting) as InterruptedError;
      expect(never).toBeInstanceOf(InterruptedError);
      expect(never).toMatchObject({
        message: 'interrupted by SIGINT',
        notSent: true,
        hint: 'the hint the signal carried',
      });
      expect(reason.notSent).toBe(false);
    } finally {
      await new Promise((resolve) => limited.close(resolve));
    }
  });

  it('stopped while its request is out (the server holds it): the signal reason, not notSent', async () => {
    const holding = await inProcessServer({ holdMs: 30_000 });
    try {
      const reason = new InterruptedError('interrupted by SIGTERM');
      const controller = new AbortController();
      const client = clientOf(holding.url, { signal: controller.signal });
      setTimeout(() => controller.abort(reason), 300);
      const error = (await client.createOrder(body, `k-${randomUUID()}`).catch((e: unknown) => e)) as InterruptedError;
      expect(error).toBe(reason);
      expect(error.notSent).toBe(false);
    } finally {
      await holding.close();
    }
  });

  it('stopped before its first attempt: notSent', async () => {
    const controller = new AbortController();
    controller.abort(new InterruptedError('interrupted by SIGTERM'));
    const client = clientOf(server.url, { signal: controller.signal });
    await expect(client.createOrder(body, `k-${randomUUID()}`)).rejects.toMatchObject({
      message: 'interrupted by SIGTERM',
      notSent: true,
    });
  });
});

describe('a plan stopped while every row waited to try again, its server down', () => {
  it('nothing was charged, said, and the rows left never sent are counted with the way on', async () => {
    const url = await nothingListening();
    const controller = new AbortController();
    const { io } = capturedIo({ json: true, stderrIsTTY: false });
    const journal = freshJournal();
    let retries = 0;
    const client = clientOf(url, {
      signal: controller.signal,
      // Both rows refused a connection once: then the run is stopped while they wait.
      onRetry: () => {
        if (++retries === 2) controller.abort(new InterruptedError('interrupted by SIGINT'));
      },
    });
    const path = join(tempDir(), `plan-${randomUUID()}.csv`);
    writeFileSync(path, 'amazon-us-25,1\nsteam-us-20,1\n');
    // The catalog is not read from the server that is down: the rows go unchecked, as when it cannot be read.
    const unchecked = Object.assign(Object.create(client) as ApiClient, {
      listProducts: () => Promise.reject(new Error('the catalog cannot be read')),
    });
    const deps = planDeps(io, journal, url, controller.signal, unchecked);
    const error = (await runPlan({ plan: path, concurrency: 2 }, deps).catch((e: unknown) => e)) as InterruptedError;
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error.message).toBe(
      'interrupted by SIGINT: the plan stopped before any row of it was sent, so nothing was charged; 2 rows of it are left never sent',
    );
    expect(error.hint).toBe('run the same command again to place them: giftcodes order pending lists them');
    expect(journal.read().intents.map((i) => i.phase)).toEqual(['prepared', 'prepared']);
  });
});

describe('a plan stopped as a row was about to go', () => {
  it('that row is written back as never sent and not counted as maybe charged; the same plan again orders each row once', async () => {
    const controller = new AbortController();
    const { io } = capturedIo({ json: true, stderrIsTTY: false });
    const journal = freshJournal();
    const real = clientOf(server.url, { signal: controller.signal, retries: 0 });
    let posts = 0;
    const api = Object.assign(Object.create(real) as ApiClient, {
      createOrder: (b: string, key: string) => {
        // The second row: the signal arrives as it is about to go (as while it waits out another row's Retry-After).
        if (++posts === 2) controller.abort(new InterruptedError('interrupted by SIGINT'));
        return real.createOrder(b, key);
      },
    });
    const path = join(tempDir(), `plan-${randomUUID()}.csv`);
    writeFileSync(path, 'amazon-us-25,1\nsteam-us-20,1\namazon-us-25,3\n');
    await expect(
      runPlan({ plan: path, concurrency: 1 }, planDeps(io, journal, server.url, controller.signal, api)),
    ).rejects.toMatchObject({
      exitCode: 130,
      message: expect.stringMatching(
        /^interrupted by SIGINT: the plan stopped, and 1 row of it may have been charged$/,
      ),
    });
    const left = journal.read().intents.map((i) => [i.productId, i.quantity, i.phase]);
    expect(left).toContainEqual(['steam-us-20', 1, 'prepared']);
    expect(left).not.toContainEqual(['steam-us-20', 1, 'sending']);

    const { io: againIo, out } = capturedIo({ json: true, stderrIsTTY: false });
    const again = clientOf(server.url, { retries: 0 });
    await runPlan(
      { plan: path, concurrency: 1 },
      planDeps(againIo, journal, server.url, new AbortController().signal, again),
    );
    const rows = JSON.parse(out()) as { order?: { id: string } }[];
    expect(rows.map((r) => r.order?.id).filter(Boolean)).toHaveLength(3);
    expect(new Set(rows.map((r) => r.order?.id)).size).toBe(3);
    expect(journal.read().intents).toEqual([]);
  });
});
