// An adversarial review: a run killed right after its codes file took its place (before the journal noted it) leaves
// its note `written`, which `order pending` shows as "codes in file". A support person who did not run that command
// cleared it with `order abandon <key>`: the abandon said the order's "codes stay on the server: giftcodes codes get
// <id> --out CODES_FILE", nothing of the file that held them, and its record lost that file. Following it wrote the same
// codes into a second file, and codes get said nothing of the first: the same codes in two files, each to be handed
// out. Such a note is ended as delivered to its file now, as every other command that takes a note over ends it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargesFor, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--fulfil-after', '0']);

describe('a note whose codes file is in place, abandoned, then its codes got as a support person would', () => {
  it('is recorded as delivered to that file, says so, and the file is named when the codes are written again', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const out = join(dir, 'w.csv');
    const place = ['order', 'place', '--product', 'steam-us-50', '--quantity', '2', '--out', out];
    const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' } });
    expect(killed.signal).toBe('SIGKILL');
    const [orderId] = await chargesFor(served.server, 'steam-us-50', 2);
    const [left] = await pendingNow(configDir);
    expect(left!.orderId).toBe(orderId);

    const abandoned = await runCli(['order', 'abandon', left!.key, '--json'], { configDir });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    expect(abandoned.stderr).toContain(`not abandoned: the codes of order ${orderId}`);
    expect(abandoned.stderr).toContain(`already in ${out}`);
    expect(abandoned.stderr).not.toContain('CODES_FILE');
    expect(JSON.parse(abandoned.stdout)).toEqual({
      abandoned: null,
      delivered: left!.key,
      orderId,
      productId: 'steam-us-50',
      quantity: 2,
      out,
    });
    expect(await pendingNow(configDir)).toEqual([]);
    const list = await runCli(['order', 'list', '--json'], { configDir });
    expect(JSON.parse(list.stdout)).toMatchObject([{ orderId, outcome: 'delivered', out }]);

    const second = join(dir, 'w2.csv');
    const got = await runCli(['codes', 'get', orderId!, '--out', second], { configDir });
    expect(got.code, got.stderr).toBe(0);
    expect(readFileSync(second, 'utf8')).toBe(readFileSync(out, 'utf8'));
    expect(got.stderr).toContain(out);
    // Its own command again is a second order, said as one (the record names who finished it).
    const again = await runCli([...place.slice(0, -1), join(dir, 'w3.csv')], { configDir });
    expect(again.stderr).toContain('finished by order abandon');
    expect(await chargesFor(served.server, 'steam-us-50', 2)).toHaveLength(2);
  }, 120_000);
});
