// An --out whose extension names no format giftcodes writes (`codes.xls`, `codes.txt`) is refused, exit 2,
// naming the formats, before anything is fetched or charged, unless --format says which: never a silent JSON.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configCopy, ledger, runCli, servedApi, tempDir } from '../helpers/e2e.js';

describe('--out extensions', () => {
  const served = servedApi(['--fulfil-after', '0'], { login: true });
  const fresh = (): string => {
    const configDir = configCopy(served.configDir);
    return configDir;
  };

  it.each(['codes.xls', 'codes.txt', 'Codes.TXT'])(
    'order place --out %s: exit 2 naming the formats, nothing charged',
    async (name) => {
      const configDir = fresh();
      const out = join(tempDir(), name);
      const before = (await ledger(served.server)).orders.length;
      const result = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--out', out], {
        configDir,
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`names no format giftcodes writes (csv, json, jsonl or xlsx)`);
      expect(result.stderr).toContain('--format');
      expect((await ledger(served.server)).orders.length).toBe(before);
      expect(existsSync(out)).toBe(false);
    },
  );

  it('codes get --out codes.xls is refused; with --format csv it is written as CSV; no extension is JSON', async () => {
    const configDir = fresh();
    const placed = JSON.parse(
      (
        await runCli(
          ['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--wait', '--interval', '0.05', '--json'],
          { configDir },
        )
      ).stdout,
    ) as { id: string };
    const dir = tempDir();
    const refused = await runCli(['codes', 'get', placed.id, '--out', join(dir, 'codes.xls')], { configDir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('the extension .xls names no format');
    const csv = await runCli(['codes', 'get', placed.id, '--out', join(dir, 'codes.txt'), '--format', 'csv'], {
      configDir,
    });
    expect(csv.code, csv.stderr).toBe(0);
    expect(readFileSync(join(dir, 'codes.txt'), 'utf8')).toMatch(/^order_id,code,/);
    const bare = await runCli(['codes', 'get', placed.id, '--out', join(dir, 'codes')], { configDir });
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'codes'), 'utf8'))).toHaveLength(2);
  });

  it('a plan row whose out names no format: exit 2, nothing ordered', async () => {
    const configDir = fresh();
    const dir = tempDir();
    const plan = join(dir, 'plan.csv');
    writeFileSync(
      plan,
      `product,quantity,out\namazon-us-25,4,${join(dir, 'a.csv')}\namazon-us-25,5,${join(dir, 'b.xls')}\n`,
    );
    const before = (await ledger(served.server)).orders.length;
    const result = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('line 3');
    expect(result.stderr).toContain('the extension .xls names no format');
    expect((await ledger(served.server)).orders.length).toBe(before);
  });
});
