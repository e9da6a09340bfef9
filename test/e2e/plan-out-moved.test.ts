// An adversarial review, confirmed by the server's ledger: a plan row's order was placed, then its codes file could
// not be written (a full disk: exit 8, "order … was placed"); the person pointed the row's out cell at another disk
// and ran the same plan again. An out cell is part of a row's key, so the row had a new key, the run asked about "a
// changed plan" (the old row "may have been charged", though the tool held its order id), and with --yes placed the
// row a second time. `order place --out` to another file after the same error finishes the same order; so does the
// plan now: a row whose out cell alone changed finishes the earlier order under its key and writes its codes to the
// new file, charging nothing new.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BOTH_KEYS,
  chargesFor,
  ledger,
  loggedIn,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  until,
} from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--fulfil-after', '0']);
const inTerminal = giftcodesTerminals();

interface Row {
  row: number;
  key: string;
  order?: { id: string; status: string };
  out?: string;
  count?: number;
  already?: boolean;
  resumed?: boolean;
  movedFrom?: string;
}

/** The orders the server placed under these keys. */
async function chargedUnder(keys: readonly string[]): Promise<unknown[]> {
  return (await ledger(served.server)).orders.filter((o) => keys.includes(String(o.idempotency_key)));
}

/**
 * Runs the plan once with its first row's codes file made unwritable after its order was placed (the row's directory
 * replaced by a file while the run waits at `order.accepted`): the run ends as on a full disk, exit 8, the order placed.
 */
async function placedNotWritten(
  configDir: string,
  plan: string,
  args: readonly string[],
  broken: string,
): Promise<{ orderId: string; key: string }> {
  const go = join(tempDir(), 'go');
  const { proc, result } = spawnCli(['order', 'place', '--plan', plan, ...args, '--interval', '0.1'], {
    configDir,
    env: { GIFTCODES_FAILPOINTS: `order.accepted=wait:${go}` },
  });
  proc.stdin?.end();
  const left = await until(async () => {
    const pending = await pendingNow(configDir);
    return pending.some((i) => i.orderId !== null) ? pending : undefined;
  });
  rmSync(broken, { recursive: true, force: true });
  writeFileSync(broken, 'not a directory\n');
  writeFileSync(go, '');
  const first = await result;
  expect(first.code, first.stderr).toBe(8);
  const [placed] = left.filter((i) => i.orderId !== null);
  expect(first.stderr).toContain(`order ${placed!.orderId} was placed`);
  return { orderId: placed!.orderId!, key: placed!.key };
}

describe('a plan row placed whose codes file could not be written, then its out cell pointed elsewhere', () => {
  it('the same plan again finishes that order into the new file: one charge, said as the earlier order', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    mkdirSync(join(dir, 'full'));
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,7,full/a-{batch}.csv\nsteam-us-20,2,s-{batch}.csv\n');
    const args = ['--batch', 'd1'];
    const { orderId, key } = await placedNotWritten(configDir, plan, args, join(dir, 'full'));
    expect(await chargesFor(served.server, 'amazon-us-10', 7)).toEqual([orderId]);
    // The person points the row at another disk and runs the same command (with --yes, as the review did).
    mkdirSync(join(dir, 'big'));
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,7,big/a-{batch}.csv\nsteam-us-20,2,s-{batch}.csv\n');
    const again = await runCli(['order', 'place', '--plan', plan, ...args, '--yes', '--interval', '0.1'], {
      configDir,
    });
    expect(again.code, again.stderr).toBe(0);
    // One order of the row, by the ledger: the earlier one, under its key.
    expect(await chargesFor(served.server, 'amazon-us-10', 7)).toEqual([orderId]);
    // The row's status says it is the earlier order, its file the new one.
    const line = again.stdout.split('\n').find((l) => l.startsWith('2 '));
    expect(line).toMatch(
      new RegExp(`^2 +amazon-us-10 +7 +${orderId} +earlier order: completed +${key} +\\S*a-d1\\.csv \\(7\\)$`),
    );
    expect(
      readFileSync(join(dir, 'big', 'a-d1.csv'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(8);
    const said = again.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(
      `row 2: finishing the order ${orderId} of 7 × amazon-us-10 an earlier run of this plan placed (and charged) for ${join(dir, 'full', 'a-d1.csv')}, whose codes never reached you (key ${key}): only the row's out file changed since, so its codes go to ${join(dir, 'big', 'a-d1.csv')} now, and no second order is placed`,
    );
    expect(said).toContain('its codes written to the new out file the plan names now (no second order)');
    expect(said).not.toContain('may have been charged');
    expect(said).not.toContain('changed plan');
    expect(await pendingNow(configDir)).toEqual([]);
    // The same command once more: both rows delivered by earlier runs, nothing written or charged.
    const third = await runCli(['order', 'place', '--plan', plan, ...args, '--json'], { configDir });
    expect(third.code, third.stderr).toBe(0);
    expect((JSON.parse(third.stdout) as Row[]).map((r) => [r.row, r.key === key, r.already])).toEqual([
      [2, true, true],
      [3, false, true],
    ]);
    expect(await chargesFor(served.server, 'amazon-us-10', 7)).toEqual([orderId]);
  }, 60_000);

  // A second adversarial review: the finishing run wrote the new file and was cut before it said so (its log's pipe
  // closed, a kill); the same command was refused for "the file exists", and --force --yes placed a second order over
  // the first one's codes, which were then nowhere.
  it('the finishing run cut after it wrote the new file: the same command ends that order, charging nothing', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    mkdirSync(join(dir, 'full'));
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,13,full/a.csv\n');
    const { orderId } = await placedNotWritten(configDir, plan, [], join(dir, 'full'));
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,13,a.csv\n');
    const cut = await runCli(['order', 'place', '--plan', plan, '--interval', '0.1'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' },
    });
    expect(cut.signal, cut.stderr).toBe('SIGKILL');
    const written = readFileSync(join(dir, 'a.csv'), 'utf8');
    const again = await runCli(['order', 'place', '--plan', plan, '--interval', '0.1'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('exists');
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe(written);
    expect(await chargesFor(served.server, 'amazon-us-10', 13)).toEqual([orderId]);
    expect(await pendingNow(configDir)).toEqual([]);
  }, 60_000);

  // The same review: two shops' restock.csv in two directories under one --batch share their rows' keys; one shop's
  // moved row finished the other's order, and that shop's plan then read as delivered.
  it("another directory's plan of the same name does not finish this one's order", async () => {
    const configDir = await loggedIn(served.server);
    const alpha = join(tempDir(), 'alpha');
    const beta = join(tempDir(), 'beta');
    mkdirSync(join(alpha, 'full'), { recursive: true });
    mkdirSync(beta, { recursive: true });
    writeFileSync(join(alpha, 'restock.csv'), 'product,quantity,out\namazon-us-10,17,full/amz.csv\n');
    writeFileSync(join(beta, 'restock.csv'), 'product,quantity,out\namazon-us-10,17,amz.csv\n');
    const { orderId } = await placedNotWritten(
      configDir,
      join(alpha, 'restock.csv'),
      ['--batch', 'd1'],
      join(alpha, 'full'),
    );
    const other = await runCli(['order', 'place', '--plan', join(beta, 'restock.csv'), '--batch', 'd1', '--yes'], {
      configDir,
    });
    expect(other.stderr).not.toContain(`finishing the order ${orderId}`);
    expect(readFileSync(join(beta, 'amz.csv'), 'utf8')).not.toBe('');
    const orders = await chargesFor(served.server, 'amazon-us-10', 17);
    expect(orders).toHaveLength(2);
    expect(orders[0]).toBe(orderId);
  }, 60_000);

  it('off a terminal, a changed quantity stays a changed plan: asked, and the earlier row said as placed and charged', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    mkdirSync(join(dir, 'full'));
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,9,full/a.csv\n');
    const { orderId, key } = await placedNotWritten(configDir, plan, [], join(dir, 'full'));
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,8,a.csv\n');
    const refused = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(refused.code, refused.stderr).toBe(2);
    const said = refused.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(
      `never finished (it was placed and charged): 9 × amazon-us-10 (order ${orderId}, placed and charged, its codes never reached you; key ${key}, `,
    );
    expect(said).toContain(`giftcodes codes get ${orderId} --out CODES_FILE`);
    expect(said).not.toContain('may have been charged');
    expect(said).toContain('ordering 1 row of a changed plan needs confirmation');
    expect(await chargesFor(served.server, 'amazon-us-10', 8)).toHaveLength(0);
  }, 60_000);
});

describe('a live plan row whose request went out unanswered (killed), then its out cell changed', () => {
  it('off a terminal it asks (another file), in words of finishing; --yes finishes that order, no second', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    const plan = join(dir, 'live.csv');
    writeFileSync(plan, 'product,quantity,out\napple-us-25,3,a.csv\n');
    const live = ['order', 'place', '--env', 'live', '--plan', plan, '--interval', '0.1'];
    const killed = await runCli([...live, '--yes'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    expect(left).toMatchObject({ orderId: null });
    expect(await chargedUnder([left!.key])).toHaveLength(1);
    writeFileSync(plan, 'product,quantity,out\napple-us-25,3,b.csv\n');
    const asked = await runCli(live, { configDir });
    expect(asked.code, asked.stderr).toBe(2);
    expect(asked.stderr.replace(/\s+/g, ' ')).toContain(
      `finishing 1 earlier order into another codes file (line 2: 3 × apple-us-25, to ${join(dir, 'b.csv')}) needs confirmation`,
    );
    expect(asked.stderr).toContain('--yes writes its codes to the new file and places no second order');
    expect(asked.stderr).not.toContain('changed plan');
    const yes = await runCli([...live, '--yes', '--json'], { configDir });
    expect(yes.code, yes.stderr).toBe(0);
    const [row] = JSON.parse(yes.stdout) as Row[];
    expect(row).toMatchObject({ key: left!.key, resumed: true, movedFrom: join(dir, 'a.csv'), count: 3 });
    expect(yes.stderr.replace(/\s+/g, ' ')).toContain(
      'an earlier run of this plan sent (its answer lost, so it may have been placed)',
    );
    expect(await chargedUnder([left!.key])).toHaveLength(1);
    expect(
      (await ledger(served.server)).orders.filter(
        (o) => o.product_id === 'apple-us-25' && o.quantity === 3 && o.environment === 'live',
      ),
    ).toHaveLength(1);
  }, 60_000);
});

describe('a live plan row placed, its codes file unwritable, then its out cell changed, at a terminal', () => {
  // The review's question was "Order 1 row of the changed plan now (line 2: 200 × amazon-us-10)? (y/N)", and the
  // warning said the old row "may have been charged", though the tool held its order id.
  it('asks to finish that order into the new file, naming it; yes writes its codes there, no second charge', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    mkdirSync(join(dir, 'full'));
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\ngoogle-play-us-25,4,full/g.csv\n');
    const { orderId } = await placedNotWritten(configDir, plan, ['--env', 'live', '--yes'], join(dir, 'full'));
    writeFileSync(plan, 'product,quantity,out\ngoogle-play-us-25,4,g.csv\n');
    const t = inTerminal(
      ['order', 'place', '--env', 'live', '--plan', plan, '--interval', '0.1'],
      configDir,
      { GIFTCODES_BASE_URL: served.url },
      { columns: 200, rows: 40 },
      dir,
    );
    const asked = (await t.waitFor(/\(y\/N\)/)).replace(/\s+/g, ' ');
    expect(asked).toContain(
      `Finish the order an earlier run of this plan placed and could not write the codes of, into the new out file (line 2: 4 × google-play-us-25, order ${orderId}, to ${join(dir, 'g.csv')})? No second order is placed.`,
    );
    expect(asked).not.toContain('changed plan');
    expect(asked).not.toContain('may have been charged');
    t.answer('y');
    const screen = await t.waitFor(/\[exit \d+\]/, 60_000);
    expect(screen).toContain('[exit 0]');
    expect(screen).toMatch(new RegExp(`google-play-us-25 +4 +${orderId} +earlier order: completed`));
    expect(await chargesFor(served.server, 'google-play-us-25', 4)).toEqual([orderId]);
    expect(readFileSync(join(dir, 'g.csv'), 'utf8').trim().split('\n')).toHaveLength(5);
  }, 90_000);
});
