// Faults from the server's own flags: 503s and 429s are retried to success and --verbose shows each attempt;
// a server that is gone, or never answers, ends with exit 5 within --request-timeout/--retries bounds.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  DEMO_KEYS,
  journalIntents,
  loggedIn,
  runCli,
  servedApi,
  STAMP,
  startServer,
  unstamped,
  type RunResult,
  type TestServer,
  seedFile,
} from '../helpers/e2e.js';

const withKey = (server: TestServer) => ({ baseUrl: server.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });

/** A seed file of `count` products: the catalog is then count/1000 pages of the largest page the client asks for. */
function catalogSeed(count: number): string {
  const products = Array.from({ length: count }, (_, i) => ({
    id: `card-${i + 1}`,
    name: `Card ${i + 1}`,
    brand: 'Faulty',
    price: 500,
    currency: 'USD',
  }));
  return seedFile({ products });
}

/** The --verbose attempt lines, without the time that starts each off a terminal (every stderr line does). */
function attemptLines(result: RunResult): string[] {
  return unstamped(result.stderr)
    .split('\n')
    .filter((line) => /^GET \/v1\//.test(line));
}

describe('503s from --fail-rate 0.5', () => {
  // 6,000 products: 6 pages of the 1,000 the client asks for, so a run almost always meets a 503.
  const served = servedApi(['--fail-rate', '0.5', '--seed', catalogSeed(6000)]);

  it('are retried until the whole catalog is read, each attempt a --verbose line with the key redacted', async () => {
    // A run that happens to meet no 503 proves nothing about retries: try again (every run must still succeed).
    let retried: RunResult | undefined;
    for (let run = 0; run < 5 && !retried; run++) {
      const result = await runCli(['catalog', 'list', '--json', '--verbose', '--retries', '20'], {
        ...withKey(served.server),
        timeoutMs: 120_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toHaveLength(6000);
      if (/ 503 /.test(result.stderr)) retried = result;
    }
    expect(retried, 'no run met a 503').toBeDefined();
    const lines = attemptLines(retried!);
    expect(lines.some((line) => / 503 \d+ms attempt 1\/21$/.test(line))).toBe(true);
    expect(lines.some((line) => / 200 \d+ms attempt ([2-9]|1\d|2[01])\/21$/.test(line))).toBe(true);
    expect(unstamped(retried!.stderr)).toMatch(/^ {2}retrying in \d+\.\ds$/m);
    expect(retried!.stderr).not.toContain(DEMO_KEYS.test);
  });

  it('with --retries 0 a 503 is exit 5 naming the status', async () => {
    // With a share of 0.5, twelve single-attempt pings all succeeding is 1 in 4096.
    let failed: RunResult | undefined;
    for (let run = 0; run < 12 && !failed; run++) {
      const result = await runCli(['ping', '--retries', '0'], withKey(served.server));
      if (result.code !== 0) failed = result;
    }
    expect(failed, 'no ping met a 503').toBeDefined();
    expect(failed!.code).toBe(5);
    expect(failed!.stderr).toContain('HTTP 503 service_unavailable');
  });
});

describe('429s from --rate-limit 1', () => {
  // 1,200 products: two pages of 1,000, the second one asked for within the same second.
  const served = servedApi(['--rate-limit', '1', '--seed', catalogSeed(1200)]);

  it('the second page is rate limited, Retry-After is honoured, and the catalog is read whole', async () => {
    const result = await runCli(['catalog', 'list', '--json', '--verbose'], withKey(served.server));
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(1200);
    // A log (stderr not a terminal) says when each attempt was made, as it says when everything else happened.
    const stamped = result.stderr.split('\n').filter((line) => / attempt \d\/6$|retrying in/.test(line));
    expect(stamped.length).toBeGreaterThanOrEqual(3);
    for (const line of stamped) expect(line).toMatch(STAMP);
    const lines = attemptLines(result);
    expect(lines[0]).toMatch(/^GET \/v1\/catalog 200 \d+ms attempt 1\/6$/);
    expect(lines.some((line) => /^GET \/v1\/catalog\?cursor=\S+ 429 \d+ms attempt 1\/6$/.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(/^GET \/v1\/catalog\?cursor=\S+ 200 \d+ms attempt [2-6]\/6$/);
    // The server asks for one second; the client's jittered backoff is shorter, so it waits the second.
    expect(result.stderr).toContain('  retrying in 1.0s');
  });
});

describe('a server that is gone, or never answers', () => {
  it('a stopped server: exit 5 after --retries 1 (two attempts), with a hint', async () => {
    const server = await startServer();
    const configDir = await loggedIn(server);
    await server.stop();
    const result = await runCli(['ping', '--request-timeout', '1', '--retries', '1', '--verbose'], {
      configDir,
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`cannot reach ${server.url}`);
    expect(result.stderr).toContain('after 2 attempts');
    // The hint names this cause and its fixes: the address nothing listens on, serve, and where the base URL was
    // set (login saved it in the profile: --base-url is not what to check).
    expect(result.stderr).toMatch(
      new RegExp(
        `hint: nothing listens on 127\\.0\\.0\\.1:${server.port}: start the reference server with (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes serve --port ${server.port}, or check the base URL of profile "default" \\((GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes config set base-url URL\\)`,
      ),
    );
    expect(attemptLines(result)).toHaveLength(2);
  });

  it('a base URL given in GIFTCODES_BASE_URL (a cron job): the hint says to check that variable, not --base-url', async () => {
    const server = await startServer();
    await server.stop();
    const result = await runCli(['ping', '--request-timeout', '1', '--retries', '0'], {
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test, GIFTCODES_BASE_URL: server.url },
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      new RegExp(`hint: nothing listens on 127\\.0\\.0\\.1:${server.port}: .*, or check GIFTCODES_BASE_URL\n`),
    );
    expect(result.stderr).not.toContain('--base-url');
  });

  it('a server that accepts and never answers: each attempt ends at --request-timeout, then exit 5', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const result = await runCli(['ping', '--request-timeout', '1', '--retries', '1', '--json'], {
        baseUrl: url,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
        timeoutMs: 120_000,
      });
      expect(result.code).toBe(5);
      const error = (JSON.parse(result.stderr.trim()) as { error: Record<string, unknown> }).error;
      expect(error).toMatchObject({ code: 'timeout', exitCode: 5 });
      expect(error.message).toContain('no complete answer within 1s');
      expect(error.message).toContain('after 2 attempts');
      expect(error.hint).toContain('--request-timeout');
      expect(error.hint).not.toContain('giftcodes serve');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  // A person's day: `cannot reach …` at 2 a.m. left a person wondering whether the night's order was charged.
  it('order place to a server that is gone: the error says nothing was sent or charged; nothing is left pending', async () => {
    const server = await startServer();
    const configDir = await loggedIn(server);
    await server.stop();
    const result = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '5', '--retries', '0'], {
      configDir,
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(5);
    expect(unstamped(result.stderr)).toContain(
      `error: cannot reach ${server.url} (POST /v1/orders: connection refused); nothing was sent, so nothing was charged\n`,
    );
    expect(journalIntents(configDir)).toEqual([]);
    // A key given may have been sent by a run elsewhere: of this run only (a review).
    const keyed = await runCli(
      [
        'order',
        'place',
        '--product',
        'amazon-us-10',
        '--quantity',
        '5',
        '--retries',
        '0',
        '--idempotency-key',
        'inv-7',
      ],
      { configDir, timeoutMs: 60_000 },
    );
    expect(keyed.code).toBe(5);
    expect(unstamped(keyed.stderr)).toContain('(POST /v1/orders: connection refused); this run sent nothing\n');
  });

  // A person's day: a cron log stayed empty for two minutes while a slow API was retried, then said it gave up.
  it('each attempt tried again is a stamped line of a log, with its cause and wait; --quiet says none', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const run = (extra: string[]) =>
        runCli(['ping', '--request-timeout', '0.5', '--retries', '2', ...extra], {
          baseUrl: url,
          env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
          timeoutMs: 120_000,
        });
      const logged = await run([]);
      expect(logged.code).toBe(5);
      const lines = logged.stderr.trim().split('\n');
      expect(lines).toHaveLength(4);
      for (const [i, line] of lines.slice(0, 2).entries())
        expect(line).toMatch(
          new RegExp(
            `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z cannot reach ${url} \\(GET /v1/ping: no complete answer within 0\\.5s\\); trying again (at once|in \\d+\\.\\d s) \\(attempt ${i + 2} of 3\\)$`,
          ),
        );
      expect(lines[2]).toContain('error: cannot reach');
      const quiet = await run(['--quiet']);
      expect(quiet.code).toBe(5);
      expect(quiet.stderr).not.toContain('trying again');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
