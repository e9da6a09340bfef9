// Ctrl-C while an order's request is out (no answer yet), then `order abandon`: the server may have placed and
// charged the order, and the API cannot be asked by key. A review did this to "cancel" a typo, was told the order had
// no codes by every command it tried, placed the same order again and was charged twice, the first out of reach. Now
// the abandoned record says its request went out, order show and codes get name the way to it, and the same order
// placed again within a day sends its request under the abandoned key: that order if it was placed, never both.
import { describe, expect, it } from 'vitest';
import { ledger, runCli, servedApi, spawnCli, unstamped } from '../helpers/e2e.js';

// Each order request is held 1.5 s before the server answers it: the interruption lands while it is out.
const served = servedApi(['--hold', '1500', '--fulfil-after', '0'], { login: true });

describe('an order abandoned while its request was out, then placed again', () => {
  it('the same order again is that order (one charge), and each command on the way names the way to it', async () => {
    const { configDir, url: baseUrl, server } = served;
    const place = ['order', 'place', '--product', 'amazon-us-100', '--quantity', '2'];
    const before = (await ledger(server)).orders.length;
    const first = spawnCli(place, { configDir, baseUrl });
    first.proc.stdin?.end();
    // Interrupted while the request is held: sent, no answer.
    await new Promise((resolve) => setTimeout(resolve, 700));
    first.proc.kill('SIGINT');
    const stopped = await first.result;
    expect(stopped.code, stopped.stderr).toBe(130);
    // The held request is committed on the server all the same.
    for (let i = 0; i < 100 && (await ledger(server)).orders.length === before; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await ledger(server)).orders.length).toBe(before + 1);

    const pending = await runCli(['order', 'pending', '--json'], { configDir, baseUrl });
    const { key } = (JSON.parse(pending.stdout) as { key: string }[])[0]!;
    const abandoned = await runCli(['order', 'abandon', key], { configDir, baseUrl });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    expect(unstamped(abandoned.stderr)).toContain(
      `its key was ${key}; it may have been placed before it was abandoned: the same order placed again within a day of `,
    );
    expect(abandoned.stderr).toContain('giftcodes order place --product amazon-us-100 --quantity 2\n');

    // Neither order show nor codes get says it has no codes: both name the same order again.
    const shown = await runCli(['order', 'show', key], { configDir, baseUrl });
    expect(shown.stdout.replace(/\s+/g, ' ')).toContain('it may have been placed before it was abandoned');
    const codes = await runCli(['codes', 'get', key], { configDir, baseUrl });
    expect(codes.code).toBe(4);
    expect(codes.stderr).toContain('so its codes are not known here');
    expect(codes.stderr).not.toContain('so it has no codes');
    expect(codes.stderr).toContain('giftcodes order place --product amazon-us-100 --quantity 2');

    // The same order again: its request goes under the abandoned key, and the server replays the order it placed.
    const again = await runCli(place, { configDir, baseUrl });
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr)).toContain(`abandoned at `);
    expect(again.stderr).toContain(
      `(key ${key}) may have been placed before it was stopped: this run sends its request again under that key`,
    );
    const orders = (await ledger(server)).orders;
    expect(orders.length).toBe(before + 1);
    expect(again.stdout).toContain(String(orders.at(-1)!.order_id));

    // Once that order reached the user, the next same order is a new one, with a key of its own.
    const third = await runCli(place, { configDir, baseUrl });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).not.toContain('abandoned');
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 120_000);
});
