// The order lifecycle's exceptions, each closed (issue 21): the same codes into a second file, a delivered
// intent reused by a new order, a stdout closed at start taken as delivered, a failed order's intent ended
// before its JSON was flushed. Each through the built CLI against a real server; what is pending is read
// from the journal's files, never through `order pending` (which settles what reached the user).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, journalFiles, ledger, loggedIn, ROOT, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { recordOutput } from '../helpers/leaks.js';

const PRODUCT = 'amazon-us-25';

/** The CLI under `sh -c`, for what a shell does to its descriptors first (`exec 1>&-`, `> /dev/full`). */
function shell(script: string, args: string[], configDir: string): { code: number | null; stdout: string; stderr: string } {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, GIFTCODES_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' };
  delete env.GIFTCODES_API_KEY;
  delete env.GIFTCODES_BASE_URL;
  const run = spawnSync('sh', ['-c', script.replace('CLI', quoted)], { env, cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  recordOutput(`sh -c ${script} ${args.join(' ')}`, run.stdout, run.stderr);
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('exactly once, without exceptions', () => {
  // Logged in once up front: each test's fresh() config dir is then a copy of that login.
  const served = servedApi(['--fulfil-after', '100', '--fail-orders', '0'], { login: true });

  const fresh = async (): Promise<string> => loggedIn(served.server, undefined, tempDir());
  const charges = async (quantity: number): Promise<string[]> => (await ledger(served.server)).orders.filter((o) => o.product_id === PRODUCT && o.quantity === quantity).map((o) => String(o.order_id));

  it('gap 1: codes renamed into mon.csv, then the same order with --out tue.csv: refused (exit 2) naming mon.csv, nothing charged, tue.csv never written; --force too; the same command again is a new order', { timeout: 90_000 }, async () => {
    const configDir = await fresh();
    const dir = tempDir();
    const mon = join(dir, 'mon.csv');
    const tue = join(dir, 'tue.csv');
    const place = (out: string, ...more: string[]): string[] => ['order', 'place', '--product', PRODUCT, '--quantity', '731', '--out', out, '--interval', '0.05', ...more];
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
    const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as { orderId: string; out: string; outcome: string }[];
    expect(listed.find((r) => r.out === mon)).toMatchObject({ outcome: 'delivered', orderId: (await charges(731))[0] });
    // A person who wants a second order gets one, with its own codes.
    const second = await runCli(place(tue), { configDir });
    expect(second.code, second.stderr).toBe(0);
    const ids = await charges(731);
    expect(ids).toHaveLength(2);
    expect(readFileSync(tue, 'utf8').split('\n')[1]!.split(',')[0]).toBe(ids.find((id) => !readFileSync(mon, 'utf8').includes(id)));
  });

  it('gap 1: the same --out path again is the same command run again: the file is recognised, nothing written or charged (exit 0)', { timeout: 60_000 }, async () => {
    const configDir = await fresh();
    const mon = join(tempDir(), 'mon.csv');
    const args = ['order', 'place', '--product', PRODUCT, '--quantity', '732', '--out', mon, '--interval', '0.05'];
    expect((await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' } })).signal).toBe('SIGKILL');
    const before = readFileSync(mon, 'utf8');
    const again = await runCli(args, { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('the codes were already written');
    expect(readFileSync(mon, 'utf8')).toBe(before);
    expect(await charges(732)).toHaveLength(1);
    expect(journalFiles(configDir)).toEqual([]);
  });

  it('gap 2: an order killed after it reached stdout is done: the identical order place is a new order, with or without order pending in between', { timeout: 90_000 }, async () => {
    for (const [quantity, between] of [[733, false], [734, true]] as const) {
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
  });

  it('gap 3: stdout closed at start (exec 1>&-) is not a delivery: exit 8, the order stays pending, and the next run delivers it without a second charge', { timeout: 60_000 }, async () => {
    const configDir = await fresh();
    const args = ['order', 'place', '--product', PRODUCT, '--quantity', '735', '--json'];
    const closed = shell('exec 1>&-; exec CLI', args, configDir);
    expect(closed.code, closed.stderr).toBe(8);
    expect(closed.stderr).toContain('standard output');
    expect(journalFiles(configDir)).toHaveLength(1);
    // A shell's own `> /dev/null` is the user's choice, and is a delivery.
    const discarded = shell('exec CLI > /dev/null', ['order', 'place', '--product', PRODUCT, '--quantity', '736', '--json'], configDir);
    expect(discarded.code, discarded.stderr).toBe(0);
    const again = await runCli(args, { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming');
    expect(await charges(735)).toEqual([(JSON.parse(again.stdout) as { id: string }).id]);
    expect(journalFiles(configDir)).toEqual([]);
  });
});

describe('a failed order reaches the user before its intent ends (gap 4)', () => {
  const served = servedApi(['--fulfil-after', '100', '--fail-orders', '1']);

  it('--wait --json > /dev/full: exit 8 and the intent pending; the next run prints the failed order and exits 6, nothing left', { timeout: 60_000 }, async () => {
    const configDir = await loggedIn(served.server);
    const args = ['order', 'place', '--product', PRODUCT, '--quantity', '1', '--wait', '--interval', '0.05', '--json'];
    const full = shell('exec CLI > /dev/full', args, configDir);
    expect(full.code, full.stderr).toBe(8);
    expect(journalFiles(configDir)).toHaveLength(1);
    const again = await runCli(args, { configDir });
    expect(again.code, again.stderr).toBe(6);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'failed' });
    expect(journalFiles(configDir)).toEqual([]);
    const orders = (await ledger(served.server)).orders;
    expect(orders).toHaveLength(1);
    const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as { outcome: string }[];
    expect(listed).toMatchObject([{ outcome: 'failed' }]);
  });
});
