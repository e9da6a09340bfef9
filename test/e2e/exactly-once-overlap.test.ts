// A hostile review of issue 16's overlapped journal (rows armed ahead, the summary's rows ended in two
// batched durable steps, settle by a `delivered` record, begin's staged intent): each test is one attempt
// to break exactly-once, against `giftcodes serve` over real HTTP, checked on the server's ledger.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import {
  journalFiles,
  loggedIn,
  ordersWithKeyPrefix,
  pendingIntents,
  runCli,
  spawnCli,
  startServer,
  tempDir,
  type TestServer,
} from '../helpers/e2e.js';
import { gate, stderrShows } from '../helpers/gate.js';
import { mountSupport, readOnlyDisk, unmountAll } from '../helpers/mounts.js';
import { pendingNow } from '../helpers/pending.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(['--fulfil-after', '50']);
});
afterAll(() => {
  unmountAll();
  return server.stop();
});

async function pendingKeys(configDir: string): Promise<string[]> {
  return (await pendingNow(configDir)).map((i) => i.key);
}

function intentFiles(configDir: string): string[] {
  return journalFiles(configDir);
}

function writePlan(dir: string, rows: number, tag: string): string {
  const plan = join(dir, `plan-${randomUUID()}.csv`);
  writeFileSync(
    plan,
    `# ${tag} ${Math.random()}\nproduct,quantity\n${Array.from({ length: rows }, (_, i) => `amazon-us-10,${i + 1}`).join('\n')}\n`,
  );
  return plan;
}

async function planKeys(plan: string, configDir: string): Promise<string[]> {
  const dry = await runCli(['order', 'place', '--plan', plan, '--dry-run', '--json'], { configDir });
  expect(dry.code, dry.stderr).toBe(0);
  return (JSON.parse(dry.stdout) as { key: string }[]).map((r) => r.key);
}

/** A fresh config dir and a plan of `rows` rows: its file, the rows' keys and the keys' common prefix. */
async function freshPlan(
  rows: number,
  tag: string,
): Promise<{ configDir: string; dir: string; plan: string; keys: string[]; prefix: string }> {
  const configDir = await loggedIn(server);
  const dir = tempDir();
  const plan = writePlan(dir, rows, tag);
  const keys = await planKeys(plan, configDir);
  return { configDir, dir, plan, keys, prefix: keys[0]!.slice(0, 17) };
}

describe('settle by a delivered record', () => {
  // A record written before an intent existed never settles it (unit: order-drive.test.ts, settleReached).
  // Reusing the key after delivery is now refused outright (issue 21's review): the server may have
  // forgotten the key (a second charge), and it would put the same codes into a second file.
  it(
    'a key reused after its order reached you is refused before anything is sent: the same codes never go into a second file',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(server);
      const dir = tempDir();
      const key = `reuse-${Date.now()}`;
      const args = (file: string): string[] => [
        'order',
        'place',
        '--product',
        'steam-us-20',
        '--quantity',
        '2',
        '--idempotency-key',
        key,
        '--out',
        join(dir, file),
        '--interval',
        '0.05',
      ];
      const first = await runCli(args('a.csv'), { configDir });
      expect(first.code, first.stderr).toBe(0);
      const again = await runCli(args('b.csv'), { configDir });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain(`the idempotency key ${key} already placed order`);
      expect(existsSync(join(dir, 'b.csv'))).toBe(false);
      expect(await pendingKeys(configDir)).toEqual([]);
      expect(await ordersWithKeyPrefix(server, key)).toHaveLength(1);
    },
  );
});

describe('a plan killed between its two batched end steps', () => {
  // The rows' records say `delivered`, their intents (`accepted`) are still there: any command's settle
  // ends them, none is sent or refreshed again, and the same plan reports each as already delivered.
  it(
    'order resume --all settles every row, sends nothing; the plan again reports the same orders',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(server);
      const dir = tempDir();
      const plan = writePlan(dir, 6, 'between');
      const keys = await planKeys(plan, configDir);
      const killed = await runCli(['order', 'place', '--plan', plan, '--json', '--concurrency', '3'], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'delivered=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const summary = JSON.parse(killed.stdout) as { key: string; order: { id: string } }[];
      expect(summary.map((r) => r.key)).toEqual(keys);
      expect(intentFiles(configDir)).toHaveLength(6);

      const resumed = await runCli(['order', 'resume', '--all', '--json'], { configDir });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toEqual([]);
      expect(resumed.stderr.match(/had already reached you/g)).toHaveLength(6);
      expect(intentFiles(configDir)).toEqual([]);

      const again = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
      expect(again.code, again.stderr).toBe(0);
      const rows = JSON.parse(again.stdout) as { key: string; already?: boolean; order: { id: string } }[];
      expect(rows.every((r) => r.already === true)).toBe(true);
      expect(rows.map((r) => r.order.id)).toEqual(summary.map((r) => r.order.id));
      const orders = await ordersWithKeyPrefix(server, keys[0]!.slice(0, 17));
      expect(orders).toHaveLength(6);
      expect(new Set(orders.map((o) => o.idempotency_key)).size).toBe(6);
    },
  );
});

describe('other commands while a plan has rows out and rows armed', () => {
  // While every row's POST pauses after its answer, the plan's workers hold their next rows armed
  // (`sending` on disk, nothing sent): `order pending` and `order resume --all` from another process must
  // neither settle nor send any row the live plan holds.
  it(
    "order pending and order resume --all leave the live plan's rows alone; one order per row",
    { timeout: 300_000 },
    async () => {
      const { configDir, plan, prefix } = await freshPlan(6, 'meanwhile');
      const held = gate();
      const { proc, result } = spawnCli(['order', 'place', '--plan', plan, '--json', '--concurrency', '2'], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: held.at('request.sent') },
        timeoutMs: 120_000,
      });
      proc.stdin?.end();
      // Wait for the first row held after its answer: the other worker's row answered or out, rows armed behind them.
      await stderrShows(proc, 'failpoint request.sent');
      expect(intentFiles(configDir).length).toBeGreaterThanOrEqual(2);
      const pending = await runCli(['order', 'pending', '--json'], { configDir });
      expect(pending.code, pending.stderr).toBe(0);
      expect(pending.stderr).not.toContain('already reached you');
      const resumed = await runCli(['order', 'resume', '--all', '--json'], { configDir });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toEqual([]);
      expect((await ordersWithKeyPrefix(server, prefix)).length).toBeLessThanOrEqual(4);
      held.open();

      const done = await result;
      expect(done.code, done.stderr).toBe(0);
      const rows = JSON.parse(done.stdout) as { key: string; order: { id: string } }[];
      const orders = await ordersWithKeyPrefix(server, prefix);
      expect(orders).toHaveLength(6);
      for (const row of rows) expect(orders.find((o) => o.idempotency_key === row.key)?.order_id).toBe(row.order.id);
      expect(await pendingKeys(configDir)).toEqual([]);
    },
  );
});

describe('two runs of one plan at once', () => {
  // Each row is one key: whichever run holds it, the other is refused that row (intent_busy) or reads it
  // as delivered; never a second order. A third run then reports every row, and nothing stays pending.
  it('one order per row on the ledger, and the plan again reports them all', { timeout: 300_000 }, async () => {
    const { configDir, plan, prefix } = await freshPlan(12, 'twice');
    const args = ['order', 'place', '--plan', plan, '--json', '--concurrency', '3'];
    const [a, b] = await Promise.all([
      runCli(args, { configDir, timeoutMs: 120_000 }),
      runCli(args, { configDir, timeoutMs: 120_000 }),
    ]);
    for (const run of [a, b]) expect([0, 2], run.stderr).toContain(run.code);
    let orders = await ordersWithKeyPrefix(server, prefix);
    expect(new Set(orders.map((o) => o.idempotency_key)).size).toBe(orders.length);

    const again = await runCli(args, { configDir });
    expect(again.code, again.stderr).toBe(0);
    const rows = JSON.parse(again.stdout) as { key: string; order: { id: string } }[];
    orders = await ordersWithKeyPrefix(server, prefix);
    expect(orders).toHaveLength(12);
    for (const row of rows) expect(orders.find((o) => o.idempotency_key === row.key)?.order_id).toBe(row.order.id);
    expect(await pendingKeys(configDir)).toEqual([]);
    expect(intentFiles(configDir)).toEqual([]);
  });
});

const noMounts = mountSupport();

describe.skipIf(noMounts !== undefined)("the journal's disk turns read-only in the middle of a plan", () => {
  // A remount read-only is refused (busy) while a file is open for writing there: tried until it takes.
  const remount = async (dir: string, mode: 'ro' | 'rw'): Promise<void> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };

  // At `request.sent` (answered, `accepted` not yet written) and at `delivered` (the records written, the
  // intents not yet removed): whatever write fails, every row is one order, and once the disk is writable
  // again the natural recovery leaves nothing pending.
  for (const point of ['request.sent', 'delivered'] as const) {
    it(
      `read-only from ${point} on: exit 8, one order per row, recovered once writable`,
      { timeout: 300_000 },
      async () => {
        const configDir = readOnlyDisk();
        await remount(configDir, 'rw');
        await loggedIn(server, undefined, configDir);
        const dir = tempDir();
        const plan = writePlan(dir, 6, `ro-${point}`);
        const keys = await planKeys(plan, configDir);
        const prefix = keys[0]!.slice(0, 17);
        const held = gate();
        const { proc, result } = spawnCli(['order', 'place', '--plan', plan, '--json', '--concurrency', '2'], {
          configDir,
          env: { GIFTCODES_FAILPOINTS: held.at(point) },
          timeoutMs: 120_000,
        });
        proc.stdin?.end();
        await stderrShows(proc, `failpoint ${point}`);
        await remount(configDir, 'ro');
        held.open();
        const failed = await result;
        await remount(configDir, 'rw');
        expect(failed.code, failed.stderr).toBe(8);
        expect(failed.stderr).not.toMatch(/\n\s+at /);
        const charged = await ordersWithKeyPrefix(server, prefix);
        expect(new Set(charged.map((o) => o.idempotency_key)).size).toBe(charged.length);

        const again = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
        expect(again.code, again.stderr).toBe(0);
        const rows = JSON.parse(again.stdout) as { key: string; order: { id: string } }[];
        const orders = await ordersWithKeyPrefix(server, prefix);
        expect(orders).toHaveLength(6);
        for (const row of rows) expect(orders.find((o) => o.idempotency_key === row.key)?.order_id).toBe(row.order.id);
        expect(await pendingKeys(configDir)).toEqual([]);
        expect(intentFiles(configDir)).toEqual([]);
      },
    );
  }
});

describe('a plan SIGKILLed at random instants, again and again, then run to the end', () => {
  // Five kills at random times (each run a little further on, or not), with no recovery between them but
  // the next run of the same plan: then one full run. One order per row, each reported, nothing pending.
  it(
    'one order per row on the ledger, the last run reports every one, nothing pending',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(server);
      const dir = tempDir();
      const plan = join(dir, `plan-${randomUUID()}.csv`);
      writeFileSync(
        plan,
        `# random ${Math.random()}\nproduct,quantity,out\n${Array.from({ length: 10 }, (_, i) => `amazon-us-10,${i + 1}`).join('\n')}\nsteam-us-20,2,a.csv\nsteam-us-20,3,b.csv\n`,
      );
      const keys = await planKeys(plan, configDir);
      const prefix = keys[0]!.slice(0, 17);
      const args = ['order', 'place', '--plan', plan, '--json', '--concurrency', '3', '--interval', '0.05'];
      for (let i = 0; i < 5; i++) {
        const { proc, result } = spawnCli(args, { configDir, timeoutMs: 120_000 });
        proc.stdin?.end();
        const delay = 150 + Math.floor(Math.random() * 500);
        const timer = setTimeout(() => proc.kill('SIGKILL'), delay);
        const run = await result;
        clearTimeout(timer);
        expect(run.signal === 'SIGKILL' || run.code === 0, `after ${delay} ms: ${run.code} ${run.stderr}`).toBe(true);
        const charged = await ordersWithKeyPrefix(server, prefix);
        expect(new Set(charged.map((o) => o.idempotency_key)).size).toBe(charged.length);
      }
      const last = await runCli(args, { configDir, timeoutMs: 120_000 });
      expect(last.code, last.stderr).toBe(0);
      const rows = JSON.parse(last.stdout) as { key: string; order: { id: string } }[];
      expect(rows.map((r) => r.key)).toEqual(keys);
      const orders = await ordersWithKeyPrefix(server, prefix);
      expect(orders).toHaveLength(12);
      for (const row of rows) expect(orders.find((o) => o.idempotency_key === row.key)?.order_id).toBe(row.order.id);
      expect(readFileSync(join(dir, 'a.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(3);
      expect(readFileSync(join(dir, 'b.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(4);
      expect(await pendingKeys(configDir)).toEqual([]);
      expect(intentFiles(configDir)).toEqual([]);
    },
  );
});

describe('an intent file renamed by hand', () => {
  // find(key) reads the key's own file first; an intent under another name is found by the scan. Resumed,
  // it is saved under its own name: the renamed copy must not stay behind as a second pending intent.
  for (const point of ['intent.written', 'order.accepted'] as const) {
    it(`killed at ${point}, renamed, resumed: one order, nothing pending`, { timeout: 300_000 }, async () => {
      const configDir = await loggedIn(server);
      const key = `renamed-${point}-${Date.now()}`;
      const killed = await runCli(
        ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--idempotency-key', key],
        {
          configDir,
          env: { GIFTCODES_FAILPOINTS: `${point}=kill` },
        },
      );
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      // The killed run's intent is in its log until a journal command compacts it into its own file.
      expect((await pendingIntents(configDir)).map((i) => i.key)).toEqual([key]);
      const journal = join(configDir, 'journal');
      const [file] = readdirSync(journal).filter((n) => n.endsWith('.json'));
      writeFileSync(join(journal, 'restored.json'), readFileSync(join(journal, file!)));
      execFileSync('rm', [join(journal, file!)]);
      const resumed = await runCli(['order', 'resume', '--all', '--json'], { configDir });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await pendingKeys(configDir)).toEqual([]);
      expect(intentFiles(configDir)).toEqual([]);
      expect(await ordersWithKeyPrefix(server, key)).toHaveLength(1);
    });
  }
});

describe('a plan row and an order place --out at the same file', () => {
  // `order place --out` holds its file's lock from before its charge (b245ebf): a second writer is refused
  // with nothing charged. A plan row's out file must be held as long: otherwise a place run while the row's
  // POST is out charges, writes the file, and the row (charged too) can then never deliver its codes there.
  it(
    'the later one is refused before its charge; every order charged is delivered, nothing pending',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(server);
      const dir = tempDir();
      const plan = join(dir, `plan-${randomUUID()}.csv`);
      writeFileSync(plan, `# shared out ${Math.random()}\nproduct,quantity,out\nsteam-us-20,2,codes.csv\n`);
      const [key] = await planKeys(plan, configDir);
      const held = gate();
      const { proc, result } = spawnCli(['order', 'place', '--plan', plan, '--json', '--interval', '0.05'], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: held.at('request.sent') },
        timeoutMs: 120_000,
      });
      proc.stdin?.end();
      await stderrShows(proc, 'failpoint request.sent');
      const placeKey = `shared-out-${Date.now()}`;
      const place = await runCli(
        [
          'order',
          'place',
          '--product',
          'steam-us-20',
          '--quantity',
          '3',
          '--idempotency-key',
          placeKey,
          '--out',
          join(dir, 'codes.csv'),
          '--interval',
          '0.05',
        ],
        { configDir },
      );
      held.open();
      const planRun = await result;
      const charged = [...(await ordersWithKeyPrefix(server, key!)), ...(await ordersWithKeyPrefix(server, placeKey))];
      // The plan locked codes.csv before its row's charge: place is refused (out_busy), nothing charged.
      expect(planRun.code, planRun.stderr).toBe(0);
      expect(place.code, place.stderr).toBe(2);
      expect(place.stderr).toContain('another giftcodes process');
      expect(charged, `place: ${place.code} ${place.stderr}\nplan: ${planRun.code} ${planRun.stderr}`).toHaveLength(1);
      expect(await pendingKeys(configDir)).toEqual([]);
    },
  );
});

describe('a plan interrupted (SIGINT) with rows out and rows armed', () => {
  // Armed rows (`sending` on disk, nothing sent) are left when the run stops: the same plan again sends
  // each with its key. Exit 130, no stack trace; then one order per row and nothing pending.
  it('exit 130; the plan again places exactly the missing rows', { timeout: 300_000 }, async () => {
    const { configDir, plan, prefix } = await freshPlan(6, 'sigint');
    const held = gate();
    const { proc, result } = spawnCli(['order', 'place', '--plan', plan, '--json', '--concurrency', '2'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: held.at('request.sent') },
      timeoutMs: 120_000,
    });
    proc.stdin?.end();
    await stderrShows(proc, 'failpoint request.sent');
    // Interrupted while held; released then, as the pause would have ended: the rows out stop on their own.
    proc.kill('SIGINT');
    held.open();
    const stopped = await result;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).not.toMatch(/\n\s+at /);
    const before = await ordersWithKeyPrefix(server, prefix);
    expect(before.length).toBeLessThan(6);

    const again = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    const rows = JSON.parse(again.stdout) as { key: string; order: { id: string } }[];
    const orders = await ordersWithKeyPrefix(server, prefix);
    expect(orders).toHaveLength(6);
    for (const o of before)
      expect(orders.find((a) => a.idempotency_key === o.idempotency_key)?.order_id).toBe(o.order_id);
    for (const row of rows) expect(orders.find((o) => o.idempotency_key === row.key)?.order_id).toBe(row.order.id);
    expect(await pendingKeys(configDir)).toEqual([]);
    expect(intentFiles(configDir)).toEqual([]);
  });
});
