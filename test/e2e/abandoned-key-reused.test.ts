// Review F1: an order placed with --idempotency-key and stopped while its request was out, then abandoned, then the
// same key given for another quantity (a person fixing a typo in it). The server refuses another body under a key
// (422 idempotency_key_reused), which the CLI kept as "may have been charged", with a hint to `order resume` that
// got the same 422 every time, and a pending note that every later run warned of. The key's record says it was sent
// for another request: refused here before anything is sent, naming that order and the way back to it.
import { describe, expect, it } from 'vitest';
import { heldRequests, ledger, loggedIn, releaseHeld, runCli, servedApi, spawnCli } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--admin', '--hold', '60000']);

describe('an abandoned --idempotency-key given again for another quantity', () => {
  it('is refused before anything is sent (exit 2), no note is left, and the abandoned order stays reachable', async () => {
    const { server, url: baseUrl } = served;
    const configDir = await loggedIn(server);
    const first = spawnCli(
      ['order', 'place', '--product', 'steam-us-20', '--quantity', '2', '--idempotency-key', 'myref-001'],
      { configDir, baseUrl },
    );
    first.proc.stdin?.end();
    await heldRequests(server);
    first.proc.kill('SIGINT');
    expect((await first.result).code).toBe(130);
    await releaseHeld(server);
    const abandoned = await runCli(['order', 'abandon', 'myref-001'], { configDir, baseUrl });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    const before = (await ledger(server)).orders.length;
    const typo = await runCli(
      ['order', 'place', '--product', 'steam-us-20', '--quantity', '5', '--idempotency-key', 'myref-001', '--json'],
      { configDir, baseUrl },
    );
    expect(typo.code, typo.stderr).toBe(2);
    const { error } = JSON.parse(typo.stderr.trim().split('\n').at(-1)!) as {
      error: { code: string; message: string; hint: string };
    };
    expect(error.code).toBe('idempotency_key_used');
    expect(error.message).toContain('2 × steam-us-20');
    expect(error.message).toContain('nothing was sent');
    expect(error.hint).toContain('--quantity 2 --idempotency-key myref-001');
    expect(await pendingNow(configDir)).toEqual([]);
    expect((await ledger(server)).orders.length).toBe(before);
    // The way back the hint gives: the abandoned order's own request, sent again under its key (that order, never two).
    const back = await runCli(
      ['order', 'place', '--product', 'steam-us-20', '--quantity', '2', '--idempotency-key', 'myref-001'],
      { configDir, baseUrl },
    );
    expect(back.code, back.stderr).toBe(0);
    expect((await ledger(server)).orders.length).toBe(before);
  }, 60_000);
});
