// The order lifecycle's exceptions, each closed (issue 21): the same codes into a second file, a delivered
// intent reused by a new order, a stdout closed at start taken as delivered, a failed order's intent ended
// before its JSON was flushed. Each through the built CLI against a real server; what is pending is read
// from the journal's files, never through `order pending` (which settles what reached the user).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  chargesFor,
  DEMO_KEYS,
  journalFiles,
  ledger,
  loggedIn,
  ROOT,
  runCli,
  startServer,
  tempDir,
  type TestServer,
} from '../helpers/e2e.js';
import { recordOutput } from '../helpers/leaks.js';

const PRODUCT = 'amazon-us-25';

/** The CLI under `sh -c`, for what a shell does to its descriptors first (`exec 1>&-`, `> /dev/full`). */
function shell(
  script: string,
  args: string[],
  configDir: string,
): { code: number | null; stdout: string; stderr: string } {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, GIFTCODES_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' };
  delete env.GIFTCODES_API_KEY;
  delete env.GIFTCODES_BASE_URL;
  const run = spawnSync('sh', ['-c', script.replace('CLI', quoted)], {
    env,
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  recordOutput(`sh -c ${script} ${args.join(' ')}`, run.stdout, run.stderr);
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('exactly once, without exceptions', () => {
  let server: TestServer;
  let template: string;
  beforeAll(async () => {
    server = await startServer(['--fulfil-after', '100', '--fail-orders', '0']);
    template = await loggedIn(server);
  });
  afterAll(() => server.stop());

  const fresh = async (): Promise<string> => loggedIn(server, undefined, tempDir());
  const charges = (quantity: number): Promise<string[]> => chargesFor(server, PRODUCT, quantity);

  it(
    'gap 1: codes renamed into mon.csv, then the same order with --out tue.csv: refused (exit 2) naming mon.csv, nothing charged, tue.csv never written; --force too; the same command again is a new order',
    { timeout: 300_000 },
    async () => {
      void template;
      const configDir = await fresh();
      const dir = tempDir();
      const mon = join(dir, 'mon.csv');
      const tue = join(dir, 'tue.csv');
      const place = (out: string, ...more: string[]): string[] => [
        'order',
        'place',
        '--product',
        PRODUCT,
        '--quantity',
        '731',
        '--out',
        out,
        '--interval',
        '0.05',
        ...more,
      ];
      const killed = await runCli(place(mon), { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' } });
      expect(killed.signal).toBe('SIGKILL');
      expect(existsSync(mon)).toBe(true);
      const refused = await runCli(place(tue, '--force'), { configDir });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`its codes were written to ${mon}`);
      expect(refused.stderr).toContain('never written into a second file');
      expect(existsSync(tue)).toBe(false);
      expect(await charges(731)).toHaveLength(1);
      expect(journalFiles(configDir)).toEqual([]);
      // `order list` still has it, with where its codes went.
      const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as {
        orderId: string;
        out: string;
        outcome: string;
      }[];
      expect(listed.find((r) => r.out === mon)).toMatchObject({
        outcome: 'delivered',
        orderId: (await charges(731))[0],
      });
      // A person who wants a second order gets one, with its own codes.
      const second = await runCli(place(tue), { configDir });
      expect(second.code, second.stderr).toBe(0);
      const ids = await charges(731);
      expect(ids).toHaveLength(2);
      expect(readFileSync(tue, 'utf8').split('\n')[1]!.split(',')[0]).toBe(
        ids.find((id) => !readFileSync(mon, 'utf8').includes(id)),
      );
    },
  );

  it(
    'gap 1: the same --out path again is the same command run again: the file is recognised, nothing written or charged (exit 0)',
    { timeout: 300_000 },
    async () => {
      const configDir = await fresh();
      const mon = join(tempDir(), 'mon.csv');
      const args = ['order', 'place', '--product', PRODUCT, '--quantity', '732', '--out', mon, '--interval', '0.05'];
      expect((await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' } })).signal).toBe(
        'SIGKILL',
      );
      const before = readFileSync(mon, 'utf8');
      const again = await runCli(args, { configDir });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('the codes were already written');
      expect(readFileSync(mon, 'utf8')).toBe(before);
      expect(await charges(732)).toHaveLength(1);
      expect(journalFiles(configDir)).toEqual([]);
    },
  );

  it(
    'an order killed before its rename stays pending when another export clears its temporary file at that path: its own codes are written, never taken for delivered (review)',
    { timeout: 300_000 },
    async () => {
      const configDir = await fresh();
      const file = join(tempDir(), 'f.json');
      const args = ['order', 'place', '--product', PRODUCT, '--quantity', '737', '--out', file, '--interval', '0.05'];
      expect(
        (await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.identity-written=kill' } })).signal,
      ).toBe('SIGKILL');
      const other = JSON.parse(
        (await runCli(['order', 'place', '--product', 'steam-us-20', '--quantity', '1', '--json'], { configDir }))
          .stdout,
      ) as { id: string };
      const exported = await runCli(['codes', 'get', other.id, '--wait', '--interval', '0.05', '--out', file], {
        configDir,
      });
      expect(exported.code, exported.stderr).toBe(0);
      expect(journalFiles(configDir)).toHaveLength(1);
      const again = await runCli([...args, '--force'], { configDir });
      expect(again.code, again.stderr).toBe(0);
      const ids = await charges(737);
      expect(ids).toHaveLength(1);
      const codes = JSON.parse(readFileSync(file, 'utf8')) as unknown[];
      expect(codes).toHaveLength(737);
      expect(journalFiles(configDir)).toEqual([]);
    },
  );

  it(
    'a key you chose names one order: reused after that order reached you, it is refused (exit 2) before anything is sent, with or without --out (review)',
    { timeout: 300_000 },
    async () => {
      const configDir = await fresh();
      const dir = tempDir();
      const key = `mine-${Date.now()}`;
      const place = (...more: string[]): string[] => [
        'order',
        'place',
        '--product',
        PRODUCT,
        '--quantity',
        '738',
        '--idempotency-key',
        key,
        ...more,
      ];
      expect((await runCli(place('--out', join(dir, 'a.json')), { configDir })).code).toBe(0);
      for (const more of [['--out', join(dir, 'b.json')], ['--json']]) {
        const again = await runCli(place(...more), { configDir });
        expect(again.code, again.stderr).toBe(2);
        expect(again.stderr).toContain(`the idempotency key ${key} already placed order`);
      }
      expect(existsSync(join(dir, 'b.json'))).toBe(false);
      expect(await charges(738)).toHaveLength(1);
    },
  );

  it(
    'the same plan on another environment is other orders: a test run, then the live run, orders both (review)',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(server, DEMO_KEYS.live, await fresh());
      const dir = tempDir();
      const plan = join(dir, 'nightly.csv');
      writeFileSync(plan, 'product,quantity,out\napple-us-25,3,codes.csv\napple-us-25,4\n');
      const test = await runCli(['order', 'place', '--plan', plan, '--env', 'test', '--json'], { configDir });
      expect(test.code, test.stderr).toBe(0);
      rmSync(join(dir, 'codes.csv'));
      const live = await runCli(['order', 'place', '--plan', plan, '--env', 'live', '--yes', '--json'], { configDir });
      expect(live.code, live.stderr).toBe(0);
      const rows = JSON.parse(live.stdout) as { already?: boolean; order?: { id: string } }[];
      expect(rows.every((row) => row.already === undefined && row.order !== undefined)).toBe(true);
      const book = (await ledger(server)).orders.filter((o) => o.product_id === 'apple-us-25');
      expect(book.map((o) => `${String(o.environment)} ${String(o.quantity)}`).sort()).toEqual([
        'live 3',
        'live 4',
        'test 3',
        'test 4',
      ]);
    },
  );

  it(
    "a plan at --concurrency 32 leaves no Node warning on stderr (every request in flight listens to the run's signal)",
    { timeout: 300_000 },
    async () => {
      const configDir = await fresh();
      const plan = join(tempDir(), 'wide.csv');
      writeFileSync(
        plan,
        `product,quantity\n${Array.from({ length: 40 }, (_, i) => `steam-us-20,${i + 2}`).join('\n')}\n`,
      );
      const run = await runCli(['order', 'place', '--plan', plan, '--json', '--concurrency', '32'], { configDir });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/Warning|trace-warnings/);
      expect(JSON.parse(run.stdout)).toHaveLength(40);
    },
  );

  it(
    'gap 2: an order killed after it reached stdout is done: the identical order place is a new order, with or without order pending in between',
    { timeout: 300_000 },
    async () => {
      for (const [quantity, between] of [
        [733, false],
        [734, true],
      ] as const) {
        const configDir = await fresh();
        const args = ['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--json'];
        const killed = await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'delivered=kill' } });
        expect(killed.signal).toBe('SIGKILL');
        const first = (JSON.parse(killed.stdout) as { id: string }).id;
        if (between) expect((await runCli(['order', 'pending', '--json'], { configDir })).stdout.trim()).toBe('[]');
        const next = await runCli(args, { configDir });
        expect(next.code, next.stderr).toBe(0);
        expect(next.stderr).not.toContain('resuming');
        const second = (JSON.parse(next.stdout) as { id: string }).id;
        expect(second).not.toBe(first);
        expect((await charges(quantity)).sort()).toEqual([first, second].sort());
        expect(journalFiles(configDir)).toEqual([]);
      }
    },
  );

  it(
    'gap 3: stdout closed at start (exec 1>&-) is not a delivery: exit 8, the order stays pending, and the next run delivers it without a second charge',
    { timeout: 300_000 },
    async () => {
      const configDir = await fresh();
      const args = ['order', 'place', '--product', PRODUCT, '--quantity', '735', '--json'];
      const closed = shell('exec 1>&-; exec CLI', args.slice(0, -1), configDir);
      expect(closed.code, closed.stderr).toBe(8);
      expect(closed.stderr).toContain('standard output');
      // The error and hint, all a cron recipe's `tail -n 2` mails, say the order was placed and that the same command
      // picks it up; --json's error names it (a review, stop 78: neither said a charge, nor which).
      const [error, hint] = closed.stderr.trimEnd().split('\n').slice(-2);
      expect(error).toMatch(/: the order ord_\w+ was placed, and is not taken as having reached you$/);
      expect(hint).toMatch(/; it picks up the same order, never a second charge$/);
      const reported = JSON.parse(
        shell('exec 1>&-; exec CLI', [...args.slice(0, -1), '--json'], configDir)
          .stderr.trim()
          .split('\n')
          .at(-1)!,
      ) as {
        error: { code: string; orderId?: string };
      };
      expect(reported.error).toMatchObject({ code: 'output_failed', orderId: expect.stringMatching(/^ord_/) });
      expect(journalFiles(configDir)).toHaveLength(1);
      // Only an order's delivery asks: a command that delivers no order runs as before (a parent's stdio 'ignore' is the same descriptor).
      expect(shell('exec 1>&-; exec CLI', ['order', 'pending', '--json'], configDir).code).toBe(0);
      // A shell's own `> /dev/null` is the user's choice, and is a delivery.
      const discarded = shell(
        'exec CLI > /dev/null',
        ['order', 'place', '--product', PRODUCT, '--quantity', '736', '--json'],
        configDir,
      );
      expect(discarded.code, discarded.stderr).toBe(0);
      const again = await runCli(args, { configDir });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('resuming');
      expect(await charges(735)).toEqual([(JSON.parse(again.stdout) as { id: string }).id]);
      expect(journalFiles(configDir)).toEqual([]);
    },
  );

  // The docs answer a parent's read-write /dev/null (Python's DEVNULL) with --out: a review's nightly job did so,
  // exited 8 every night with its codes file written, and stopped ordering (the order stayed pending).
  it(
    'gap 3, with --out: codes written to a file reached the user, a stdout nobody reads is no failure: exit 0, and the next night is a new order',
    { timeout: 300_000 },
    async () => {
      const configDir = await fresh();
      const dir = tempDir();
      for (const night of [1, 2]) {
        const out = join(dir, `night${night}.csv`);
        const args = ['order', 'place', '--product', PRODUCT, '--quantity', '747', '--out', out, '--interval', '0.05'];
        const run = shell('exec 1>&-; exec CLI', args, configDir);
        expect(run.code, run.stderr).toBe(0);
        expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(748);
        expect(journalFiles(configDir)).toEqual([]);
      }
      expect(await charges(747)).toHaveLength(2);
    },
  );
});

describe('codes get --query of a failed order', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(['--fulfil-after', '100', '--fail-orders', '1']);
  });
  afterAll(() => server.stop());

  // codes get --query gathers the codes without an export, and read the API's order_failed as a refusal: exit 4, and
  // the order's record left "order placed" (a desk review). Without --query it was 6, the record failed.
  it('codes get --query of a failed order: exit 6, and its record says failed', async () => {
    const configDir = await loggedIn(server);
    const placed = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '1', '--json'], { configDir });
    expect(placed.code, placed.stderr).toBe(0);
    const { id } = JSON.parse(placed.stdout) as { id: string };
    await new Promise((resolve) => setTimeout(resolve, 400));
    const queried = await runCli(['codes', 'get', id, '--query', 'length(@)'], { configDir });
    expect(queried.code, queried.stderr).toBe(6);
    expect(queried.stdout).toBe('');
    const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as {
      outcome: string;
    }[];
    expect(listed).toMatchObject([{ outcome: 'failed' }]);
  });
});

describe('a failed order reaches the user before its intent ends (gap 4)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(['--fulfil-after', '100', '--fail-orders', '1']);
  });
  afterAll(() => server.stop());

  it(
    '--wait --json > /dev/full: exit 8 and the intent pending; the next run prints the failed order and exits 6, nothing left',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(server);
      const args = [
        'order',
        'place',
        '--product',
        PRODUCT,
        '--quantity',
        '1',
        '--wait',
        '--interval',
        '0.05',
        '--json',
      ];
      const full = shell('exec CLI > /dev/full', args, configDir);
      expect(full.code, full.stderr).toBe(8);
      expect(journalFiles(configDir)).toHaveLength(1);
      const again = await runCli(args, { configDir });
      expect(again.code, again.stderr).toBe(6);
      expect(JSON.parse(again.stdout)).toMatchObject({ status: 'failed' });
      expect(journalFiles(configDir)).toEqual([]);
      const orders = (await ledger(server)).orders;
      expect(orders).toHaveLength(1);
      const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as {
        outcome: string;
      }[];
      expect(listed).toMatchObject([{ outcome: 'failed' }]);
    },
  );

  // A review's DEVNULL job (the docs' --out) met one failed order and exited 8 every night after, resuming it.
  it(
    'a failed order with --out and a stdout nobody reads: its failure is said (exit 6), the order recorded; the next night is a new order',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(server);
      const dir = tempDir();
      for (const night of [1, 2]) {
        const args = ['order', 'place', '--product', PRODUCT, '--quantity', '2', '--out', join(dir, `n${night}.csv`)];
        const run = shell('exec 1>&-; exec CLI', [...args, '--interval', '0.05'], configDir);
        expect(run.code, run.stderr).toBe(6);
        expect(journalFiles(configDir)).toEqual([]);
      }
      expect((await ledger(server)).orders.filter((o) => o.quantity === 2)).toHaveLength(2);
    },
  );
});
