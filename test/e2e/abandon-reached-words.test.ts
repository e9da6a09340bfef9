// An adversarial review of `order abandon` of a note whose codes reached the user: an order printed to
// stdout (no --out), its run killed after the `delivered` phase was written and before its end (failpoint
// `delivered`). journal.ts abandon reads reached() === 'delivered' (the phase alone says so) and ends it delivered;
// abandon.ts reachedAlready then reads intent.out!.path, which a stdout order has not: "unexpected internal error:
// Cannot read properties of undefined (reading 'path')", exit 1, "this is a bug", after the note was already ended.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargesFor, journalIntents, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const served = servedApi(['--fulfil-after', '0']);

describe('order abandon of a stdout order cut after it was delivered', () => {
  it('says what happened instead of an internal error', async () => {
    const configDir = await loggedIn(served.server);
    const killed = await runCli(['order', 'place', '--product', 'tesco-uk-20', '--quantity', '1'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'delivered=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    // Read from the journal's files: `order pending` would settle it first.
    const [left] = journalIntents(configDir);
    expect(left).toBeDefined();
    const abandoned = await runCli(['order', 'abandon', left!.key], { configDir });
    expect(abandoned.stderr).not.toContain('unexpected internal error');
    expect(abandoned.code, abandoned.stderr).toBe(0);
  }, 120_000);

  // A plan row's note, its codes file in place: abandon says "Its command run again places a new order"; the plan run
  // again reads the row as delivered and orders nothing (one charge), so the words are wrong for a row.
  it("a plan row's note with its codes in its file: the words say what the plan does next", async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, 'pl.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-25,2,r.csv\n');
    const killed = await runCli(['order', 'place', '--plan', plan, '--yes'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'codes.committed=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = journalIntents(configDir);
    const abandoned = await runCli(['order', 'abandon', left!.key], { configDir });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    const again = await runCli(['order', 'place', '--plan', plan, '--yes'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(await chargesFor(served.server, 'amazon-us-25', 2)).toHaveLength(1);
    expect(abandoned.stderr.replace(/\s+/g, ' ')).not.toContain('Its command run again places a new order');
  }, 120_000);
});
