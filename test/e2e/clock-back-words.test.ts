// an adversarial review (adversarial review of 8367efd, staleAbandoned 'future'): the words around the refusal of a key abandoned
// while out and dated ahead of the clock. (1) Followed, the hint's `--idempotency-key NEW_KEY` run says "the same
// command without --idempotency-key sends its request again under that key (that order if it was placed, never both)":
// that command was just refused. (2) A plan row's refusal hint says the key "was abandoned without an answer over a
// day ago" while its error says its age cannot be told (plan.ts). (3) The hint's single `order place` then says "its
// plan, run again within the day …, sends that request again (that order if it was placed, never both)", the request the
// plan just refused to send. The ledger: two charges in (1) and (3), as the hints lead (after the dashboard check).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalIntents, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { clockBack } from '../helpers/clock.js';

const served = servedApi(['--fulfil-after', '0']);

describe('a key abandoned while out, the clock set back: the words of the way on', () => {
  it('the --idempotency-key NEW_KEY run does not name the refused command as the way to send the old key', async () => {
    const configDir = await loggedIn(served.server);
    const place = ['order', 'place', '--product', 'zalando-de-25', '--quantity', '3'];
    const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal).toBe('SIGKILL');
    const later = { NODE_OPTIONS: `--import=${clockBack(3)}` };
    const [left] = journalIntents(configDir);
    expect((await runCli(['order', 'abandon', left!.key], { configDir, env: later })).code).toBe(0);
    const refused = await runCli(place, { configDir, env: later });
    expect(refused.code, refused.stderr).toBe(2);
    // Before the refusal, it said it sends the key again: it does not.
    expect(refused.stderr).not.toContain('this run sends its request again under that key');
    const anew = await runCli([...place, '--idempotency-key', 'adv34-new-key'], { configDir, env: later });
    expect(anew.code, anew.stderr).toBe(0);
    expect(anew.stderr).not.toContain(
      'the same command without --idempotency-key sends its request again under that key',
    );
  }, 120_000);

  it("a plan row's refusal hint does not say 'over a day ago', and the hint's single order does not promise the plan resends", async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, 'pl.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-100,2\n');
    const killed = await runCli(['order', 'place', '--plan', plan, '--yes'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
    });
    expect(killed.signal).toBe('SIGKILL');
    const later = { NODE_OPTIONS: `--import=${clockBack(3)}` };
    const [left] = journalIntents(configDir);
    expect((await runCli(['order', 'abandon', left!.key], { configDir, env: later })).code).toBe(0);
    const refused = await runCli(['order', 'place', '--plan', plan, '--yes'], { configDir, env: later });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr.replace(/\s+/g, ' ')).not.toContain('over a day ago');
    const single = await runCli(['order', 'place', '--env', 'test', '--product', 'amazon-us-100', '--quantity', '2'], {
      configDir,
      env: later,
    });
    expect(single.stderr.replace(/\s+/g, ' ')).not.toMatch(
      /its plan, run again within the day .* sends that request again/,
    );
  }, 120_000);
});
