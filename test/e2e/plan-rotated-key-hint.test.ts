// A review: the refusal of a plan's row sent with another key of the same reseller gave as its way on
// `GIFTCODES_CONFIG_DIR=… giftcodes order resume plan-…`, which `order resume` runs with the key of the profile the
// order was placed in; after a key rotated in that profile that is the new key, so the hint pasted as printed was
// refused (exit 3). The hint now carries the old key where the profile no longer holds it, as a placeholder
// (GIFTCODES_API_KEY=OLD_KEY: giftcodes keeps no key it was given before), and is the plain command where the profile
// the order was placed in still holds its key (another profile of the reseller, the plan run from the same folder).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, chargesFor, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { ROTATED, twoKeySeed } from '../helpers/rotated-key.js';

const served = servedApi(() => ['--seed', twoKeySeed(), '--fulfil-after', '0']);

/** The hint's `order resume` as printed, run as a shell would run it pasted, `OLD_KEY` filled in with `oldKey`. */
function pasted(stderr: string, oldKey: string): Promise<Awaited<ReturnType<typeof runCli>>> {
  const command = /((?:[A-Z_]+=\S+ )*)giftcodes order resume (plan-[0-9a-f]+)/.exec(stderr.replace(/\s+/g, ' '));
  expect(command, stderr).not.toBeNull();
  const env = Object.fromEntries(
    command![1]!
      .trim()
      .split(' ')
      .filter(Boolean)
      .map((word) => word.replace('OLD_KEY', oldKey).split('=') as [string, string]),
  );
  const { GIFTCODES_CONFIG_DIR: configDir, ...rest } = env;
  return runCli(['order', 'resume', command![2]!], { configDir: configDir!, env: rest });
}

describe("the refusal's hint for a row another key of the reseller sent, pasted as printed", () => {
  it('a key rotated in the profile: the hint carries the old key (OLD_KEY), and pasted with it the row is finished', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\napple-us-50,2,h-{batch}.csv\n');
    const night = ['order', 'place', '--plan', plan, '--batch', 'h1', '--yes'];
    const killed = await runCli(night, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const login = await runCli(['login', '--api-key-stdin'], { configDir, input: ROTATED });
    expect(login.code, login.stderr).toBe(0);

    const again = await runCli(night, { configDir });
    expect(again.code, again.stderr).toBe(2);
    const said = again.stderr.replace(/\s+/g, ' ');
    expect(said).toContain('the old API key, which profile "default" no longer holds, in place of OLD_KEY');
    expect(said).toMatch(/GIFTCODES_API_KEY=OLD_KEY GIFTCODES_CONFIG_DIR=\S+ giftcodes order resume plan-/);
    const resumed = await pasted(again.stderr, DEMO_KEYS.test);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(join(dir, 'h-h1.csv'))).toBe(true);
    expect(await chargesFor(served.server, 'apple-us-50', 2)).toHaveLength(1);
  }, 120_000);

  it('another profile of the reseller, the same plan from the same folder: the plain resume, which reads its key', async () => {
    const configDir = await loggedIn(served.server);
    const second = await runCli(['login', '--profile', 'night2', '--base-url', served.url, '--api-key-stdin'], {
      configDir,
      input: ROTATED,
    });
    expect(second.code, second.stderr).toBe(0);
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\napple-us-50,6,p-{batch}.csv\n');
    const night = ['order', 'place', '--plan', plan, '--batch', 'h2', '--yes'];
    const killed = await runCli(night, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');

    const again = await runCli(['--profile', 'night2', ...night], { configDir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).not.toContain('OLD_KEY');
    const resumed = await pasted(again.stderr, 'unused');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(join(dir, 'p-h2.csv'))).toBe(true);
    expect(await chargesFor(served.server, 'apple-us-50', 6)).toHaveLength(1);
  }, 120_000);
});
