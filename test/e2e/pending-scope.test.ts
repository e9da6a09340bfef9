// `--profile` and `--env` narrow `order pending` and `order resume --all` as they narrow `order list`. A support review:
// `order pending --profile small` listed another reseller's unfinished order as small's (with no PROFILE column to
// tell them apart), and `order resume --all --profile small` took it up too.
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, loggedIn, runCli, servedApi, unstamped } from '../helpers/e2e.js';

const served = servedApi(['--fulfil-after', '0']);

type Pending = { key: string; profile: string; environment: string; orderId: string | null };

describe('order pending and order resume --all, narrowed by --profile and --env', () => {
  it('list and take up only the orders of the profile and environment given; the rest is said and left', async () => {
    const { server } = served;
    const configDir = await loggedIn(server, DEMO_KEYS.test);
    const small = await runCli(['login', '--profile', 'small', '--api-key-stdin', '--base-url', server.url], {
      configDir,
      input: DEMO_KEYS.smallTest,
    });
    expect(small.code, small.stderr).toBe(0);
    const kill = { GIFTCODES_FAILPOINTS: 'order.accepted=kill' };
    const place = ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1'];
    expect((await runCli(place, { configDir, env: kill })).code).not.toBe(0);
    expect((await runCli([...place, '--profile', 'small'], { configDir, env: kill })).code).not.toBe(0);
    const charged = (await ledger(server)).orders.length;

    const all = JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout) as Pending[];
    expect(all.map((p) => p.profile).sort()).toEqual(['default', 'small']);
    const mine = await runCli(['order', 'pending', '--json', '--profile', 'small'], { configDir });
    expect(mine.code, mine.stderr).toBe(0);
    expect((JSON.parse(mine.stdout) as Pending[]).map((p) => p.profile)).toEqual(['small']);
    const live = await runCli(['order', 'pending', '--env', 'live'], { configDir });
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toBe('no pending orders (live): every one placed from here reached you\n');
    // Both profiles in one table: whose each row is.
    const table = await runCli(['order', 'pending'], { configDir, env: { COLUMNS: '200' } });
    expect(table.stdout).toMatch(/PROFILE/);
    expect(table.stdout).toMatch(/\bsmall\b/);
    expect((await runCli(['order', 'pending', '--env', 'all'], { configDir })).code).toBe(2);
    // A typo in --profile is not "every one reached you" (an adversarial review): named, with the nearest profile.
    const typo = await runCli(['order', 'pending', '--profile', 'smal'], { configDir });
    expect(typo.code).toBe(0);
    expect(typo.stdout).toContain(
      'no order in the local record was placed with the profile "smal": did you mean small?',
    );
    expect(typo.stdout).not.toContain('reached you');
    const typoResume = await runCli(['order', 'resume', '--all', '--profile', 'smal'], { configDir });
    expect(typoResume.stdout + typoResume.stderr).toContain('did you mean small?');

    const resumed = await runCli(['order', 'resume', '--all', '--profile', 'small'], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const ofProfile = (profile: string): string => all.find((p) => p.profile === profile)!.orderId!;
    expect(resumed.stdout).toContain(ofProfile('small'));
    expect(resumed.stdout + resumed.stderr).not.toContain(ofProfile('default'));
    expect(unstamped(resumed.stderr)).toContain(
      `1 unfinished order of other profiles or environments was left as it was (this run takes up the orders of profile "small" only): GIFTCODES_CONFIG_DIR=${configDir} giftcodes order pending lists every one`,
    );
    const left = JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout) as Pending[];
    expect(left.map((p) => p.profile)).toEqual(['default']);
    // Resumed under their keys: nothing charged again.
    expect((await ledger(server)).orders.length).toBe(charged);
  });
});
