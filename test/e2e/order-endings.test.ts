// Orders end to end, their other endings: an order that fails, --timeout, and interruption (SIGINT, SIGTERM,
// SIGKILL, a request still in progress) with resume and abandon. (Split from order.test.ts so the two run on
// two workers: both are in npm test's end-to-end subset on every Node line.)
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  heldRequests,
  journalFiles,
  ledger,
  loggedIn,
  BOTH_KEYS,
  DEMO_KEYS,
  releaseHeld,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  unstamped,
  withServer,
  type RunResult,
  type TestServer,
} from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

/** `order place <args>` started, once the server holds its request (in flight: sent, no answer yet). */
async function placeInFlight(
  server: TestServer,
  configDir: string,
  args: string[],
): Promise<ReturnType<typeof spawnCli>> {
  const placing = spawnCli(['order', 'place', ...args], { configDir });
  placing.proc.stdin?.end();
  await heldRequests(server);
  return placing;
}

/**
 * One `giftcodes serve --fulfil-after 0` for the file's tests that need no other flag: each started its own, ~0.15 s
 * of CPU a start. Each places its own product and quantity, and reads the server's orders only by them.
 */
const instant = servedApi(['--fulfil-after', '0']);
const withInstant = <T>(fn: (server: TestServer) => Promise<T>): Promise<T> => fn(instant.server);

describe('order watch endings', () => {
  it('exits 6 when the order fails, printing the final order with --json', async () => {
    await withServer(['--fulfil-after', '200', '--fail-orders', '1'], async (server) => {
      const configDir = await loggedIn(server);
      const placed = JSON.parse(
        (await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--json'], { configDir }))
          .stdout,
      );
      const watched = await runCli(['order', 'watch', placed.id, '--interval', '0.1', '--json'], { configDir });
      expect(watched.code).toBe(6);
      expect(JSON.parse(watched.stdout).status).toBe('failed');
      expect(JSON.parse(watched.stderr).error).toMatchObject({ exitCode: 6, orderId: placed.id });
      const waited = await runCli(
        ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--wait', '--interval', '0.1'],
        { configDir },
      );
      expect(waited.code).toBe(6);
      expect(journalFiles(configDir)).toEqual([]);
    });
  });

  // A review: a failed live order's hint ordered it anew without --env live (pasted, a test order, its codes on
  // stdout), and its log ended with a `done: ordered …` line that a morning's grep counted as a restock.
  it('a failed live order ends with its error, no done: line, and a hint that orders it anew as it was placed', async () => {
    await withServer(['--fulfil-after', '100', '--fail-orders', '1'], async (server) => {
      const configDir = await loggedIn(server, BOTH_KEYS);
      const out = join(tempDir(), 'live.csv');
      const failed = await runCli(
        ['order', 'place', '--env', 'live', '--yes', '--product', 'amazon-us-10', '--quantity', '1', '--out', out],
        { configDir },
      );
      expect(failed.code, failed.stderr).toBe(6);
      expect(failed.stderr).not.toContain(' done: ');
      const lines = failed.stderr.trim().split('\n');
      // The provider's reason in the error line: a cron job's mail is its last two lines (a person's day).
      expect(lines.at(-2)).toMatch(/ error: order ord_\w+ ended failed \(fulfilment_failed\)$/);
      expect(lines.at(-1)).toContain(
        `to order it anew: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order place --env live --product amazon-us-10 --quantity 1 --out ${out}`,
      );
    });
  });

  // A review: a cron job's GIFTCODES_BASE_URL (a server other than the profile's); its failed order's hint, pasted in
  // a shell without that variable, placed the new order at the profile's own server.
  it("a failed order's hint orders it anew at the server GIFTCODES_BASE_URL named", async () => {
    await withServer(['--fulfil-after', '100', '--fail-orders', '1'], async (failing) => {
      await withServer([], async (own) => {
        const configDir = await loggedIn(own);
        const failed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--wait'], {
          configDir,
          env: { GIFTCODES_BASE_URL: failing.url },
        });
        expect(failed.code, failed.stderr).toBe(6);
        expect(failed.stderr.trim().split('\n').at(-1)).toContain(
          `to order it anew: GIFTCODES_CONFIG_DIR=${configDir} giftcodes --base-url ${failing.url} order place --env test --product amazon-us-10 --quantity 2`,
        );
      });
    });
  });

  // A review: a failed plan row finished by order resume (or watch, or codes get) was hinted a lone order place, and
  // the plan's next run ordered the row again under its next key: two orders for one row.
  it("a failed plan row finished by hand is its plan's to order anew, never an order place of its own", async () => {
    await withServer(['--fulfil-after', '100', '--fail-orders', '1'], async (server) => {
      const configDir = await loggedIn(server);
      const plan = join(tempDir(), 'rows.csv');
      writeFileSync(plan, 'product,quantity\namazon-us-50,1\n');
      const killed = await runCli(['order', 'place', '--plan', plan], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      });
      expect(killed.signal).toBe('SIGKILL');
      const [row] = (await pendingNow(configDir)) as {
        orderId: string;
        key: string;
      }[];
      expect(row!.key).toMatch(/^plan-/);
      const watched = await runCli(['order', 'watch', row!.orderId, '--interval', '0.1', '--json'], { configDir });
      expect(watched.code).toBe(6);
      const { hint } = JSON.parse(watched.stderr.trim().split('\n').at(-1)!).error as { hint: string };
      expect(hint).toContain('its plan, run again with the same file name and --batch, orders that row anew');
      expect(hint).not.toContain('giftcodes order place');
    });
  });

  it('codes get of a failed order (exit 6) ends the interrupted order place of it as failed: nothing left to resume (issue 29)', async () => {
    await withServer(['--fulfil-after', '100', '--fail-orders', '1'], async (server) => {
      const configDir = await loggedIn(server);
      const out = join(tempDir(), 'codes.csv');
      const killed = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--out', out], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      });
      expect(killed.signal).toBe('SIGKILL');
      const [intent] = (await pendingNow(configDir)) as {
        orderId: string;
        key: string;
      }[];
      // Asked by a prefix of its key, as order pending shows it: the order it resolves to is what ends (the ref as
      // typed was passed on as the order id, and the interrupted order place was left pending).
      const got = await runCli(
        ['codes', 'get', intent!.key.slice(0, 12), '--wait', '--interval', '0.1', '--out', out],
        {
          configDir,
        },
      );
      expect(got.code, got.stderr).toBe(6);
      expect(journalFiles(configDir)).toEqual([]);
      const [record] = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as {
        outcome: string;
        orderId: string;
      }[];
      expect(record).toMatchObject({ orderId: intent!.orderId, outcome: 'failed' });
      expect(existsSync(out)).toBe(false);
    });
  });

  it('an order placed without waiting that the API later fails reads as failed in order list, not delivered', async () => {
    await withServer(['--fulfil-after', '300', '--fail-orders', '1'], async (server) => {
      const configDir = await loggedIn(server);
      const placed = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--json'], {
        configDir,
      });
      expect(placed.code, placed.stderr).toBe(0);
      const id = (JSON.parse(placed.stdout) as { id: string }).id;
      const out = join(tempDir(), 'f.csv');
      const got = await runCli(['codes', 'get', id, '--wait', '--interval', '0.1', '--out', out], { configDir });
      expect(got.code, got.stderr).toBe(6);

      const delivered = await runCli(['order', 'list', '--status', 'delivered', '--json'], { configDir });
      expect(JSON.parse(delivered.stdout)).toEqual([]);
      const failed = await runCli(['order', 'list', '--status', 'failed', '--json'], { configDir });
      expect(JSON.parse(failed.stdout)).toMatchObject([{ orderId: id, status: 'failed', outcome: 'failed' }]);
      const queried = await runCli(['order', 'list', '--query', "[?outcome=='delivered'].orderId"], { configDir });
      expect(JSON.parse(queried.stdout)).toEqual([]);
      const csv = await runCli(['order', 'list', '--format', 'csv'], { configDir });
      expect(csv.stdout.split('\n')[1]).toContain(`,${id},amazon-us-25,3,failed,failed,`);
      const text = await runCli(['order', 'list'], { configDir });
      const row = text.stdout.split('\n').find((line) => line.startsWith(id));
      expect(row).toMatch(/ failed +order failed /);
    });
  });

  it('exits 7 on --timeout, keeping a waiting place to resume', async () => {
    await withServer(['--fulfil-after', '60000'], async (server) => {
      const configDir = await loggedIn(server);
      const placed = JSON.parse(
        (await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--json'], { configDir }))
          .stdout,
      );
      const watched = await runCli(['order', 'watch', placed.id, '--interval', '0.1', '--timeout', '0.5'], {
        configDir,
      });
      expect(watched.code).toBe(7);
      expect(watched.stderr).toContain(placed.id);
      // A script learns which order it gave up on from the error's members, not from its prose (a review).
      const json = await runCli(['order', 'watch', placed.id, '--interval', '0.1', '--timeout', '0.5', '--json'], {
        configDir,
      });
      expect(json.code).toBe(7);
      expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!)).toMatchObject({
        error: { code: 'wait_timeout', exitCode: 7, orderId: placed.id },
      });
      const waited = await runCli(
        [
          'order',
          'place',
          '--product',
          'amazon-us-50',
          '--quantity',
          '1',
          '--wait',
          '--interval',
          '0.1',
          '--timeout',
          '0.5',
        ],
        { configDir },
      );
      expect(waited.code).toBe(7);
      expect(waited.stderr).toContain('order resume');
      const pending = await pendingNow(configDir);
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({ productId: 'amazon-us-50', phase: 'accepted', state: 'interrupted' });
      const ordersBefore = (await ledger(server)).orders.length;
      const again = await runCli(
        [
          'order',
          'place',
          '--product',
          'amazon-us-50',
          '--quantity',
          '1',
          '--wait',
          '--interval',
          '0.1',
          '--timeout',
          '0.3',
        ],
        { configDir },
      );
      expect(again.code).toBe(7);
      expect(again.stderr).toContain('resuming');
      expect((await ledger(server)).orders.length).toBe(ordersBefore);
    });
  });
});

// A support review: the hint of an order placed with --base-url that ended failed, read by order watch or codes get
// --wait, said `to order it anew: giftcodes order place --env test --product … --quantity …`: pasted, the new order went
// to the profile's own server, where order place's own ending named --base-url.
describe('order watch and codes get --wait of a failed order recorded here', () => {
  it('say how to order it anew where it was placed: its server, profile and environment', async () => {
    await withInstant(async (home) => {
      await withServer(['--fulfil-after', '300', '--fail-orders', '1'], async (failing) => {
        const configDir = await loggedIn(home);
        const placed = await runCli(
          ['order', 'place', '--base-url', failing.url, '--product', 'amazon-us-10', '--quantity', '5', '--json'],
          { configDir },
        );
        expect(placed.code, placed.stderr).toBe(0);
        const { id } = JSON.parse(placed.stdout) as { id: string };
        const anew = `to order it anew: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order place --product amazon-us-10 --quantity 5 --env test --base-url ${failing.url}\n`;
        const watched = await runCli(['order', 'watch', id], { configDir });
        expect(watched.code, watched.stderr).toBe(6);
        expect(unstamped(watched.stderr)).toContain(anew);
        const codes = await runCli(['codes', 'get', id, '--wait'], { configDir });
        expect(codes.code, codes.stderr).toBe(6);
        expect(unstamped(codes.stderr)).toContain(anew);
        // The server given by GIFTCODES_BASE_URL (a cron job's environment) is said too: pasted in a shell without
        // it, the hint placed the new order on the profile's own server (an adversarial review).
        const viaEnv = await runCli(['order', 'watch', id], { configDir, env: { GIFTCODES_BASE_URL: failing.url } });
        expect(viaEnv.code, viaEnv.stderr).toBe(6);
        expect(unstamped(viaEnv.stderr)).toContain(anew);
      });
    });
  }, 60_000);
});

// A support review: an order placed with GIFTCODES_API_KEY in a config directory with no profile, resumed without
// the key, read `no profile named "default"` and `create it with: … (profiles: default)`.
describe('order resume of an order placed with a key given for its run', () => {
  it('without that key: names no profile that is not saved, and says to give the key again; with it: resumed', async () => {
    await withInstant(async (server) => {
      const configDir = tempDir();
      const env = { GIFTCODES_API_KEY: DEMO_KEYS.test, GIFTCODES_BASE_URL: server.url };
      const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1'], {
        configDir,
        env: { ...env, GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const pending = (await pendingNow(configDir)) as {
        key: string;
      }[];
      const key = pending[0]!.key;
      const bare = await runCli(['order', 'resume', key], { configDir });
      expect(bare.code).toBe(3);
      expect(unstamped(bare.stderr)).toContain(
        `create it with: GIFTCODES_CONFIG_DIR=${configDir} giftcodes login --profile default (no profile is saved here); or give the key for this run in GIFTCODES_API_KEY`,
      );
      expect(bare.stderr).not.toContain('(profiles: default)');
      const withKey = await runCli(['order', 'resume', key], { configDir, env });
      expect(withKey.code, withKey.stderr).toBe(0);
    });
  }, 60_000);
});

describe('order resume --all of an order the provider failed', () => {
  // A person's day read a cron log's "1 of 1 orders could not be resumed … order pending lists what is left" of a
  // night whose order was resumed, ended failed, and left nothing pending.
  it('says it ended failed (exit 6), and names order pending only while something is left', async () => {
    await withServer(['--fulfil-after', '0', '--fail-orders', '1'], async (server) => {
      const configDir = await loggedIn(server);
      const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1'], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const resumed = await runCli(['order', 'resume', '--all'], { configDir });
      expect(resumed.code, resumed.stderr).toBe(6);
      expect(resumed.stderr).toContain('error: 1 of 1 orders ended failed');
      expect(resumed.stderr).not.toContain('order pending');
      expect(await pendingNow(configDir)).toEqual([]);
    });
  }, 60_000);
});

describe('a run that does not stop when asked', () => {
  // An adversarial review: a run that did not stop within 5 s of Ctrl-C (a held step: a slow disk, the journal's
  // lock) was ended with exit 130 and not a word of its order. Here the step after the API's answer is held.
  it('has not stopped 5 s after SIGINT: ended, and says so with the way to its order', async () => {
    await withServer(['--fulfil-after', '100'], async (server) => {
      const configDir = await loggedIn(server);
      const placing = spawnCli(['order', 'place', '--product', 'apple-us-25', '--quantity', '2'], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'request.sent=pause:20000' },
      });
      placing.proc.stdin?.end();
      let stderr = '';
      placing.proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      for (let i = 0; i < 400 && !stderr.includes('failpoint request.sent: pause'); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stderr).toContain('failpoint request.sent: pause');
      placing.proc.kill('SIGINT');
      const ended = await placing.result;
      expect(ended.code).toBe(130);
      expect(ended.stderr).toContain(
        'error: interrupted by SIGINT; it had not stopped 5 s later, so it was ended there',
      );
      expect(ended.stderr).toContain(
        `hint: an order it was placing is kept: see GIFTCODES_CONFIG_DIR=${configDir} giftcodes order pending`,
      );
      const pending = (await pendingNow(configDir)) as unknown[];
      expect(pending).toHaveLength(1);
    });
  }, 60_000);
});

describe('an interrupted order place --out run again another way', () => {
  // An adversarial review: re-typed with --json and no --out, the resume wrote the first run's file without a word.
  it('with --json alone: resumed, and the file its codes go to is said', async () => {
    await withInstant(async (server) => {
      const configDir = await loggedIn(server);
      const dir = tempDir();
      const file = join(dir, 'c.csv');
      const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', file], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const again = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--json'], {
        configDir,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`no second charge; its codes go to ${file}, the file it was started with`);
      expect(existsSync(file)).toBe(true);
    });
  }, 60_000);
});

describe('an interrupted order never sent, run again', () => {
  // An adversarial review: the same order place finishing an order killed before its request went said "same key,
  // same request, no second charge" of what was its first charge.
  it('says it places the order now, its first request, never "no second charge"', async () => {
    await withInstant(async (server) => {
      const configDir = await loggedIn(server);
      const place = ['order', 'place', '--product', 'amazon-us-10', '--quantity', '4'];
      const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'intent.written=kill' } });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const again = await runCli(place, { configDir });
      expect(again.code, again.stderr).toBe(0);
      expect(unstamped(again.stderr)).toMatch(
        /^placing the interrupted order for 4 × amazon-us-10 started \S+ \(key \S+\): its run was interrupted before it sent the order, so this is its first request$/m,
      );
      expect(again.stderr).not.toContain('no second charge');
      // Its last line says this run placed it (review F2: "this run placed no order of its own").
      expect(unstamped(again.stderr)).toMatch(/^done: ordered 4 × amazon-us-10: order ord_\w+ /m);
      expect(again.stderr).not.toContain('placed no order of its own');
    });
  }, 60_000);
});

describe('an order stopped while it waited to try again, nothing sent', () => {
  // An adversarial review: stopped between attempts none of which wrote a byte, the order was left "may have been
  // charged", its hint to resume it. Nothing was sent: it says so, and is left never sent, as order pending says.
  it('Ctrl-C during the wait: exit 130, nothing charged said, the order left never sent with both ways on', async () => {
    const configDir = tempDir();
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    /** `args` against the port nothing listens on, stopped with Ctrl-C once it waits to try again. */
    const stoppedWaiting = async (args: string[]): Promise<RunResult> => {
      const running = spawnCli(args, {
        configDir,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test, GIFTCODES_BASE_URL: `http://127.0.0.1:${port}` },
      });
      running.proc.stdin?.end();
      let stderr = '';
      running.proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      for (let i = 0; i < 400 && !stderr.includes('trying again'); i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(stderr).toContain('connection refused');
      running.proc.kill('SIGINT');
      const ended = await running.result;
      expect(ended.code, ended.stderr).toBe(130);
      return ended;
    };
    const said = unstamped(
      (await stoppedWaiting(['order', 'place', '--product', 'amazon-us-10', '--quantity', '3'])).stderr,
    );
    expect(said).toMatch(/^error: interrupted by SIGINT; nothing was sent, so nothing was charged$/m);
    expect(said).toMatch(
      /^hint: run the same command again to place it \(with [^)]*\), or drop it: .*giftcodes order abandon \S+/m,
    );
    const [left] = await pendingNow(configDir);
    expect([left!.productId, left!.phase, left!.state]).toEqual(['amazon-us-10', 'prepared', 'interrupted']);

    // order resume of it, stopped the same way: the same words (a review found a bare "interrupted by SIGINT").
    const resumed = await stoppedWaiting(['order', 'resume', left!.key]);
    expect(unstamped(resumed.stderr)).toMatch(
      /^error: interrupted by SIGINT; nothing was sent, so nothing was charged$/m,
    );
    expect((await pendingNow(configDir)).map((i) => i.phase)).toEqual(['prepared']);
  }, 60_000);
});

describe('interruption and recovery', () => {
  // Each new order request is held until the test releases it (POST /_admin/release): the request is in flight
  // for as long as the test needs, however slow the machine.
  const served = servedApi(['--hold', '600000', '--fulfil-after', '100']);

  it('SIGINT mid-request exits 130, keeps the intent, and resume finishes it with one charge', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const before = (await ledger(server)).orders.length;
    const { proc, result } = await placeInFlight(server, configDir, ['--product', 'netflix-us-30', '--quantity', '4']);
    proc.kill('SIGINT');
    const interrupted = await result;
    expect(await releaseHeld(server)).toBe(1);
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(/order resume/);
    expect(interrupted.stderr).toContain('interrupted by SIGINT');
    expect(interrupted.stderr).not.toContain('exiting now');
    const pending = await pendingNow(configDir);
    expect(pending).toHaveLength(1);
    const resumed = await runCli(['order', 'resume', pending[0]!.key, '--json'], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).quantity).toBe(4);
    const orders = (await ledger(server)).orders.slice(before);
    expect(orders.filter((o) => o.quantity === 4 && o.product_id === 'netflix-us-30')).toHaveLength(1);
    expect(await pendingNow(configDir)).toEqual([]);
  });

  it('a request still in progress after every retry keeps the intent (exit 5), and resume finishes it', async () => {
    const configDir = await loggedIn(served.server);
    // The first attempt stays held past its 3 s; the retry meets it in progress (a 409 is quick, even loaded).
    const first = await runCli(
      ['order', 'place', '--product', 'amazon-us-50', '--quantity', '9', '--request-timeout', '3', '--retries', '1'],
      { configDir },
    );
    expect(first.code, first.stderr).toBe(5);
    expect(first.stderr).toContain('request_in_progress');
    expect(await releaseHeld(served.server)).toBe(1);
    expect(first.stderr).toMatch(/order resume [0-9a-f-]{36}/);
    const pending = await pendingNow(configDir);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ productId: 'amazon-us-50', quantity: 9, phase: 'sending' });
    const resumed = await runCli(['order', 'resume', '--all', '--json'], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const results = JSON.parse(resumed.stdout);
    expect(results).toHaveLength(1);
    const charged = (await ledger(served.server)).orders.filter(
      (o) => o.product_id === 'amazon-us-50' && o.quantity === 9,
    );
    expect(charged.map((o) => o.order_id)).toEqual([results[0].order.id]);
  });

  it('SIGTERM (a cron timeout) also stops gracefully with the resume hint', async () => {
    const configDir = await loggedIn(served.server);
    const { proc, result } = await placeInFlight(served.server, configDir, [
      '--product',
      'tesco-uk-20',
      '--quantity',
      '2',
    ]);
    proc.kill('SIGTERM');
    const stopped = await result;
    expect(await releaseHeld(served.server)).toBe(1);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('interrupted by SIGTERM');
    expect(stopped.stderr).toMatch(/order resume [0-9a-f-]{36}/);
    expect(stopped.stderr).not.toContain('exiting now');
  });

  it('abandon drops an interrupted intent and warns that the order may exist', async () => {
    const configDir = await loggedIn(served.server);
    const { proc, result } = await placeInFlight(served.server, configDir, [
      '--product',
      'tesco-uk-20',
      '--quantity',
      '1',
    ]);
    proc.kill('SIGKILL');
    await result;
    expect(await releaseHeld(served.server)).toBe(1);
    const pending = await pendingNow(configDir);
    expect(pending).toHaveLength(1);
    expect(pending[0]!.state).toBe('interrupted');
    const abandoned = await runCli(['order', 'abandon', pending[0]!.key], { configDir });
    expect(abandoned.code).toBe(0);
    expect(abandoned.stderr).toMatch(/may have been placed/);
    expect(journalFiles(configDir)).toEqual([]);
  });
});
