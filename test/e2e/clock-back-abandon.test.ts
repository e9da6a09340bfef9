// An adversarial review, confirmed by the server's ledger: an order interrupted while its request was out (the
// server placed it; no answer reached the run), then the machine's clock goes back a few hours (a dual-boot machine
// whose other system keeps the hardware clock in local time, a VM restored, a clock set by hand). The same command is
// refused as future-dated (exit 2), and its hint offers `order abandon`. Abandoned, the same command again places a
// second order without a word: with a right clock it sends the abandoned key again ("that order if it was placed,
// never both", recover.ts ofThisRequest), but the abandoned record's staleness (intent.ts staleness) is 'future', so
// `fresh()` dropped it and no rule was left that said or asked anything: two charges. A record dated ahead of the clock
// is fresh now: its key is tried again, and refused as a note dated ahead of the clock is, its age unknown.
import { describe, expect, it } from 'vitest';
import { chargesFor, loggedIn, runCli, servedApi } from '../helpers/e2e.js';
import { clockBack } from '../helpers/clock.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--fulfil-after', '0']);

describe('an order interrupted while out, then the clock set back, then abandoned as the hint offers', () => {
  it('the same command again tries the abandoned key and is refused, its age unknown: one charge, the key said', async () => {
    const configDir = await loggedIn(served.server);
    const place = ['order', 'place', '--product', 'zalando-de-25', '--quantity', '3'];
    const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(await chargesFor(served.server, 'zalando-de-25', 3)).toHaveLength(1);

    const later = { NODE_OPTIONS: `--import=${clockBack(3)}` };
    const refused = await runCli(place, { configDir, env: later });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('in the future');
    const [left] = await pendingNow(configDir);
    const abandoned = await runCli(['order', 'abandon', left!.key], { configDir, env: later });
    expect(abandoned.code, abandoned.stderr).toBe(0);

    const again = await runCli(place, { configDir, env: later });
    // Its key is tried again, as within its day, and refused: dated ahead of the clock, its age cannot be told (the
    // server may have forgotten it). Said so, nothing sent, and the way to a new order is a key of its own.
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(left!.key);
    expect(again.stderr).toContain("ahead of this machine's clock");
    expect(again.stderr).toContain('--idempotency-key NEW_KEY');
    expect(await chargesFor(served.server, 'zalando-de-25', 3)).toHaveLength(1);
    // Run again as it was, it is refused again, never a second order without a word.
    const twice = await runCli(place, { configDir, env: later });
    expect(twice.code, twice.stderr).toBe(2);
    expect(await chargesFor(served.server, 'zalando-de-25', 3)).toHaveLength(1);
  }, 120_000);
});
