// An adversarial review, counted by the server's ledger: a person's order reached them (`--out codes.csv`, exit 0); the
// file was then moved or deleted (emptied into a shop's back office, dragged to the wrong folder), and the person ran
// the same line again to "get the codes back". That line is a new order by the documented rule, and nothing said so: at
// a terminal a test order was placed without a question, and a live one was asked only "Place a LIVE order …?", nothing
// of the order of this very request delivered to this very file, nor of `codes get`, which writes those codes again for
// nothing. Two charges. At a terminal it is asked now; off one (a cron job whose upload moves its file every night) the
// next run is a new order, as before.
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOTH_KEYS, chargesFor, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--fulfil-after', '0']);
const inTerminal = giftcodesTerminals();

describe('an order delivered to a file, the file moved away, then the same line again at a terminal', () => {
  it('says the earlier order of this very request and its codes get before a second charge', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    const out = join(dir, 'codes.csv');
    const place = ['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', out];
    const first = await runCli(place, { configDir, baseUrl: served.url });
    expect(first.code, first.stderr).toBe(0);
    const [orderId] = await chargesFor(served.server, 'amazon-us-10', 2);
    expect(orderId).toMatch(/^ord_/);
    // The file goes elsewhere (a back office's import folder); the person wants the codes again.
    renameSync(out, join(dir, 'imported.csv'));

    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: served.url });
    const screen = (await t.waitFor(/\[exit \d+\]|\(y\/N\)|\(Y\/n\)/, 30_000)).replace(/\s+/g, ' ');
    expect(screen).toContain(`The order ${orderId} of 2 × amazon-us-10 was delivered to ${out}`);
    expect(screen).toContain(`codes get ${orderId} --out ${out}`);
    expect(screen).toContain('Place a second order of 2 × amazon-us-10?');
    t.answer('n');
    expect((await t.waitFor(/\[exit \d+\]/, 30_000)).replace(/\s+/g, ' ')).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'amazon-us-10', 2)).toHaveLength(1);
    // Its codes again, as the question says: nothing charged.
    const got = await runCli(['codes', 'get', orderId!, '--out', out], { configDir, baseUrl: served.url });
    expect(got.code, got.stderr).toBe(0);
    expect(await chargesFor(served.server, 'amazon-us-10', 2)).toHaveLength(1);
  }, 120_000);

  it('off a terminal (a cron job whose upload moved its file) the same line is a new order, as each night is', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    const out = join(dir, 'night.csv');
    const place = ['order', 'place', '--product', 'steam-us-50', '--quantity', '3', '--out', out];
    expect((await runCli(place, { configDir, baseUrl: served.url })).code).toBe(0);
    renameSync(out, join(dir, 'uploaded.csv'));
    const next = await runCli(place, { configDir, baseUrl: served.url });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('second order');
    expect(await chargesFor(served.server, 'steam-us-50', 3)).toHaveLength(2);
  }, 120_000);
});
