// A hostile review of exactly-once (issue 12, after the order machine was merged): each test is one break
// found by trying, reproduced against `giftcodes serve` over real HTTP, then fixed.
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ledger, loggedIn, pendingIntents, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { gate } from '../helpers/gate.js';
import { pendingNow } from '../helpers/pending.js';

const PRODUCT = 'steam-us-20';

const served = servedApi(['--fulfil-after', '100']);

async function chargedWithKey(key: string): Promise<unknown[]> {
  return (await ledger(served.server)).orders.filter((o) => o.idempotency_key === key);
}

/** A place --out killed once its order was accepted: one orphan intent holding the order id. */
/**
 * A place --out killed once the API accepted it: its intent, looked at. `toEdit`: by running order pending, whose lock
 * turns the killed run's log into the intent file a test edits.
 */
async function orphanAccepted(
  configDir: string,
  dir: string,
  quantity: number,
  o: { toEdit?: boolean } = {},
): Promise<{ key: string; orderId: string }> {
  const killed = await runCli(
    ['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--out', join(dir, 'place.csv')],
    {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    },
  );
  expect(killed.signal).toBe('SIGKILL');
  const [intent] = await (o.toEdit ? pendingIntents : pendingNow)(configDir);
  expect(intent?.orderId).toMatch(/^ord_/);
  return { key: intent!.key, orderId: intent!.orderId! };
}

describe('order place --plan: a row out file that cannot be written', () => {
  // Broke: the plan checked its rows' out files only when writing the codes, after the order was charged:
  // a row naming an existing file or a symbolic link placed (and charged) an order, then exited 2 and left
  // it pending; every re-run of the plan failed the same way. `order place --out` refuses both up front.
  for (const kind of ['an existing file', 'a dangling symbolic link'] as const) {
    it(`${kind}: refused before anything is sent, nothing charged, nothing pending`, { timeout: 300_000 }, async () => {
      const dir = tempDir();
      const configDir = await loggedIn(served.server);
      const out = join(dir, 'codes.csv');
      if (kind === 'an existing file') writeFileSync(out, 'mine\n');
      else symlinkSync(join(dir, 'nowhere.csv'), out);
      const plan = join(dir, `plan-${randomUUID()}.csv`);
      writeFileSync(plan, `product,quantity,out\n${PRODUCT},1,codes.csv\n`);
      const charged = (await ledger(served.server)).orders.length;
      // The dry run refuses it too, so the plan is mended before it runs (plan-run.test.ts has its cases).
      for (const dryRun of [['--dry-run'], []]) {
        const result = await runCli(['order', 'place', '--plan', plan, ...dryRun], { configDir });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain('line 2:');
        expect(result.stderr).toContain('nothing was ordered');
      }
      expect((await ledger(served.server)).orders).toHaveLength(charged);
      expect(await pendingNow(configDir)).toEqual([]);
      if (kind === 'an existing file') expect(readFileSync(out, 'utf8')).toBe('mine\n');
    });
  }
});

describe('codes get to stdout whose reader has gone', () => {
  // Broke: `codes get <id>` with stdout on a closed pipe wrote nothing, exited 0 (as cat did; now exit 8) and then
  // settled the interrupted `order place` of that order as delivered: it left `order pending`, and the
  // codes had reached no one. A closed pipe is not a delivery.
  for (const verb of ['codes get', 'order watch --out -'] as const) {
    it(
      `${verb}: leaves the interrupted order pending; resume then delivers it with no second charge`,
      { timeout: 300_000 },
      async () => {
        const dir = tempDir();
        const configDir = await loggedIn(served.server);
        const { key, orderId } = await orphanAccepted(configDir, dir, 3);
        const env: NodeJS.ProcessEnv = { ...process.env, GIFTCODES_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' };
        delete env.GIFTCODES_API_KEY;
        const args =
          verb === 'codes get'
            ? ['codes', 'get', orderId, '--wait', '--interval', '0.1']
            : ['order', 'watch', orderId, '--out', '-', '--interval', '0.1'];
        const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        proc.stdout.destroy();
        let stderr = '';
        proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
        expect(code, stderr).toBe(8);
        expect(stderr).toContain('(the reader closed the pipe)');
        expect((await pendingNow(configDir)).map((i) => i.key)).toEqual([key]);
        const resumed = await runCli(['order', 'resume', '--all'], { configDir });
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(readFileSync(join(dir, 'place.csv'), 'utf8').trim().split('\n')).toHaveLength(4);
        expect(await chargedWithKey(key)).toHaveLength(1);
        expect(await pendingNow(configDir)).toEqual([]);
      },
    );
  }
});

describe('codes get of an order id that an intent of another server also holds', () => {
  // Broke: codes get and order watch settled every interrupted intent with the same order id, whatever
  // server it was placed on: the same id on the live and the test service (or two services) made a live
  // order vanish from `order pending` when the test order's codes were fetched.
  it('leaves the other server’s intent pending', { timeout: 300_000 }, async () => {
    const dir = tempDir();
    const configDir = await loggedIn(served.server);
    const { key, orderId } = await orphanAccepted(configDir, dir, 1, { toEdit: true });
    // The intent now names another server that happens to use the same order id.
    const journal = join(configDir, 'journal');
    const [name] = readdirSync(journal).filter((n) => n.endsWith('.json'));
    const file = join(journal, name!);
    const intent = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...intent, baseUrl: 'http://127.0.0.1:9' }));
    // An order id the journal knows is read where it was placed (issue 30: every id works in every verb): here
    // the other server, which is down. Nothing is written, and the other server's intent stays pending.
    const got = await runCli(
      ['codes', 'get', orderId, '--wait', '--interval', '0.1', '--retries', '0', '--out', join(dir, 'other.csv')],
      { configDir },
    );
    expect(got.code, got.stderr).toBe(5);
    expect(got.stderr).toContain('http://127.0.0.1:9');
    expect(existsSync(join(dir, 'other.csv'))).toBe(false);
    expect((await pendingNow(configDir)).map((i) => i.key)).toEqual([key]);
  });
});

describe('--idempotency-key reused for another product', () => {
  // Broke: the refusal (422 idempotency_key_reused) was recorded under the same key and replaced the record
  // of the order that key had placed: `order list` no longer showed a delivered, charged order.
  it('keeps the record of the order the key placed', { timeout: 300_000 }, async () => {
    const configDir = await loggedIn(served.server);
    const key = `adv-${Date.now()}`;
    const first = await runCli(
      ['order', 'place', '--product', PRODUCT, '--quantity', '1', '--idempotency-key', key, '--json'],
      { configDir },
    );
    expect(first.code, first.stderr).toBe(0);
    const orderId = (JSON.parse(first.stdout) as { id: string }).id;
    const reused = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--idempotency-key', key],
      { configDir },
    );
    expect(reused.code).toBe(4);
    const list = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as {
      key: string;
      orderId?: string;
      outcome: string;
    }[];
    expect(list.filter((r) => r.key === key)).toEqual([expect.objectContaining({ orderId, outcome: 'delivered' })]);
    expect(await chargedWithKey(key)).toHaveLength(1);
    expect(await pendingNow(configDir)).toEqual([]);
  });
});

describe('order place --plan run twice at once', () => {
  // Broke: a run read which rows were delivered only when it started. An overlapping run of the same plan
  // that delivered a row (its codes in the row's out file) made the first run place that row again (the
  // same key, so the same order), find the out file taken, exit 2 and leave an order pending that had
  // been delivered; `order resume --all` then failed on it every time.
  // A run readies (begins and arms) its next row while the current row's request is out (issue 16): paused
  // on row 2, the first run already holds row 3 too, so the row the second run delivers is row 4.
  it(
    'a row the other run delivered meanwhile is read, not placed; nothing is left pending',
    { timeout: 300_000 },
    async () => {
      const dir = tempDir();
      const configDir = await loggedIn(served.server);
      const plan = join(dir, `plan-${randomUUID()}.csv`);
      writeFileSync(plan, `product,quantity,out\n${PRODUCT},4\n${PRODUCT},3\n${PRODUCT},5,b.csv\n`);
      // Held after its first POST until the second run is done (a 5 s pause could run out first on a loaded machine).
      const held = gate();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        GIFTCODES_CONFIG_DIR: configDir,
        CI: 'true',
        NO_COLOR: '1',
        GIFTCODES_FAILPOINTS: held.at('request.sent'),
      };
      delete env.GIFTCODES_API_KEY;
      const first = spawn(
        process.execPath,
        [BIN, 'order', 'place', '--plan', plan, '--concurrency', '1', '--json', '--interval', '0.1'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let firstOut = '';
      let firstErr = '';
      first.stdout.on('data', (chunk: Buffer) => (firstOut += chunk.toString()));
      const paused = new Promise<void>((resolve) =>
        first.stderr.on('data', (chunk: Buffer) => {
          firstErr += chunk.toString();
          if (firstErr.includes('failpoint request.sent')) resolve();
        }),
      );
      const firstCode = new Promise<number | null>((resolve) => first.on('close', resolve));
      await paused;
      // The first run holds rows 2 and 3; the second delivers row 4 while the first is stopped.
      const second = await runCli(
        ['order', 'place', '--plan', plan, '--concurrency', '1', '--json', '--interval', '0.1'],
        { configDir },
      );
      held.open();
      expect(second.code).toBe(2);
      const secondRows = JSON.parse(second.stdout) as { row: number; key: string; error?: { code: string } }[];
      expect(secondRows.find((r) => r.row === 2)?.error?.code).toBe('intent_busy');
      expect(secondRows.find((r) => r.row === 3)?.error?.code).toBe('intent_busy');
      expect(secondRows.find((r) => r.row === 4)?.error).toBeUndefined();
      expect(await firstCode, firstErr).toBe(0);
      const firstRows = JSON.parse(firstOut) as { row: number; already?: boolean; error?: unknown }[];
      expect(firstRows.find((r) => r.row === 4)).toMatchObject({ already: true });
      expect(firstRows.filter((r) => r.error !== undefined)).toEqual([]);
      expect(readFileSync(join(dir, 'b.csv'), 'utf8').trim().split('\n')).toHaveLength(6);
      expect(await pendingNow(configDir)).toEqual([]);
      const charged = (await ledger(served.server)).orders.filter((o) =>
        String(o.idempotency_key).startsWith(secondRows[0]!.key.slice(0, 17)),
      );
      expect(charged).toHaveLength(3);
    },
  );
});

describe('order place --plan: one out file named two ways', () => {
  // Broke: rows were told apart by their resolved path only, so `d/codes.csv` and `link-to-d/codes.csv`
  // passed as two files: the second row was charged, then found the file the first wrote and stayed pending.
  it('is refused before anything is sent', { timeout: 300_000 }, async () => {
    const { server } = served;
    const dir = tempDir();
    const configDir = await loggedIn(server);
    mkdirSync(join(dir, 'd'));
    symlinkSync(join(dir, 'd'), join(dir, 'link-to-d'));
    const plan = join(dir, `plan-${randomUUID()}.csv`);
    writeFileSync(plan, `product,quantity,out\n${PRODUCT},1,d/codes.csv\n${PRODUCT},2,link-to-d/codes.csv\n`);
    const before = (await ledger(server)).orders.length;
    const result = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 3: out file');
    expect((await ledger(server)).orders.length).toBe(before);
    expect(await pendingNow(configDir)).toEqual([]);
  });
});
