// A config directory shared by two hosts: an intent another machine left is not provably dead here (its pid
// means nothing on this host), so it is taken over only by its key, never by a matching `order place`, and
// `order resume --all` skips it with a warning. GIFTCODES_MACHINE_ID (for tests only) makes two "machines"
// of one host.
import { describe, expect, it } from 'vitest';
import { configCopy, ledger, runCli, servedApi } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

const PRODUCT = 'amazon-us-25';
const A = { GIFTCODES_MACHINE_ID: 'machine-a' };
const B = { GIFTCODES_MACHINE_ID: 'machine-b' };

describe('two machines sharing one config directory', () => {
  const served = servedApi(['--fulfil-after', '50'], { login: true });

  it("another machine's interrupted order is resumed only by its key", { timeout: 300_000 }, async () => {
    const configDir = configCopy(served.configDir);
    const quantity = 41;
    const place = ['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--json'];
    const charges = async (): Promise<number> =>
      (await ledger(served.server)).orders.filter((o) => o.product_id === PRODUCT && o.quantity === quantity).length;

    const killed = await runCli(place, { configDir, env: { ...A, GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [intent] = await pendingNow(configDir);
    const key = intent!.key;

    // The same command on the other machine: refused, nothing sent.
    const matching = await runCli(place, { configDir, env: B });
    expect(matching.code, matching.stderr).toBe(2);
    const lines = matching.stderr.trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ error: { code: 'intent_other_machine', exitCode: 2 } });
    expect(matching.stderr).toContain(key);
    expect(matching.stderr).toContain('machine-a');
    expect(await charges()).toBe(1);

    // The same with the intent's key, in text mode: one line and the hint.
    const keyed = await runCli([...place.slice(0, -1), '--idempotency-key', key], { configDir, env: B });
    expect(keyed.code, keyed.stderr).toBe(2);
    expect(keyed.stderr).toMatch(/^(\S+ )?error: .*machine-a/m);
    expect(keyed.stderr).toMatch(
      new RegExp(
        `^(\\S+ )?hint: once you know that host is not running it: (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes order resume ${key}$`,
        'm',
      ),
    );

    // resume --all skips it with a warning; pending shows it as another machine's.
    const all = await runCli(['order', 'resume', '--all'], { configDir, env: B });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toContain(`skipped the interrupted order with key ${key}`);
    expect(await charges()).toBe(1);
    const pending = await runCli(['order', 'pending'], { configDir, env: B });
    expect(pending.stdout).toContain('on another machine (machine-a)');
    expect((await runCli(['order', 'pending', '--json'], { configDir, env: B })).stdout).toContain(
      '"state": "other-machine"',
    );

    // By its key: taken over, the same order, codes once.
    const resumed = await runCli(['order', 'resume', key, '--json'], { configDir, env: B });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await charges()).toBe(1);
    expect(await pendingNow(configDir)).toEqual([]);
  });

  it('its own machine resumes it as before, by a matching order place', { timeout: 300_000 }, async () => {
    const configDir = configCopy(served.configDir);
    const place = ['order', 'place', '--product', PRODUCT, '--quantity', '43', '--json'];
    const killed = await runCli(place, { configDir, env: { ...A, GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const again = await runCli(place, { configDir, env: A });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming');
    expect(
      (await ledger(served.server)).orders.filter((o) => o.product_id === PRODUCT && o.quantity === 43),
    ).toHaveLength(1);
  });
});
