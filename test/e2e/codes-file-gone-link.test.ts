// an adversarial review (adversarial review of 1b08667, deliveredToGone), by the server's ledger: an order delivered to
// <dir>/link/codes.csv, where link is a symlink to <dir>/real (a synced folder, macOS's /tmp → /private/tmp, a cwd that
// process.cwd() returns resolved), the file then moved away, and the same order asked for the same file by its other
// spelling at a terminal: history.ts keeps resolve(out) (no realpath), recover.ts compares resolve() strings, so no
// question is asked and a second order is placed. Two charges.
import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOTH_KEYS, chargesFor, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--fulfil-after', '0']);
const inTerminal = giftcodesTerminals();

describe('an order delivered to a file through a symlinked folder, the file moved, the line again by the real path', () => {
  it('asks before the second order, as for the same spelling', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const first = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', join(dir, 'link', 'codes.csv')],
      { configDir, baseUrl: served.url },
    );
    expect(first.code, first.stderr).toBe(0);
    renameSync(join(dir, 'real', 'codes.csv'), join(dir, 'imported.csv'));
    const t = inTerminal(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', join(dir, 'real', 'codes.csv')],
      configDir,
      { GIFTCODES_BASE_URL: served.url },
    );
    const screen = (await t.waitFor(/\[exit \d+\]|\(y\/N\)|\(Y\/n\)/, 30_000)).replace(/\s+/g, ' ');
    if (screen.includes('(y/N)')) t.answer('n');
    expect(screen).toContain('Place a second order of 2 × amazon-us-10?');
    expect(await chargesFor(served.server, 'amazon-us-10', 2)).toHaveLength(1);
  }, 120_000);
});
