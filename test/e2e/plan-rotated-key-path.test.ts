// An adversarial review, confirmed by the server's ledger: a plan killed while a row's request was out under the
// reseller's first key, the key rotated (`login` again in the same profile with a second key of the same reseller),
// and the same plan file run again through another path to its folder (a cron line's symlinked /srv/current/… and a
// person's `cd` into the release; macOS's /tmp and /private/tmp). The plan's directory was kept as written, not as
// its real path, so the row sent through the symlink was taken for another plan's: not refused, a warning only, and
// --yes ordered it again (two charges). One folder reached by two paths is one plan (plan.ts planDirOf); a same-name
// copy in another folder is still another plan.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargesFor, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { ROTATED, twoKeySeed } from '../helpers/rotated-key.js';

const served = servedApi(() => ['--seed', twoKeySeed(), '--fulfil-after', '0']);

describe('a plan killed under one key, the key rotated, the plan run again by another path to its folder', () => {
  it('the same file reached through a symlinked folder is refused as through its own path (one charge)', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    mkdirSync(join(dir, 'release'));
    symlinkSync(join(dir, 'release'), join(dir, 'current'));
    writeFileSync(join(dir, 'release', 'night.csv'), 'product,quantity,out\napple-us-50,3,x-{batch}.csv\n');
    const killed = await runCli(
      ['order', 'place', '--plan', join(dir, 'current', 'night.csv'), '--batch', 'n1', '--yes'],
      {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
      },
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(await chargesFor(served.server, 'apple-us-50', 3)).toHaveLength(1);
    const login = await runCli(['login', '--api-key-stdin'], { configDir, input: ROTATED });
    expect(login.code, login.stderr).toBe(0);

    const again = await runCli(['order', 'place', '--plan', 'night.csv', '--batch', 'n1', '--yes'], {
      configDir,
      cwd: join(dir, 'release'),
    });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('an order is never resumed with another API key than its own');
    expect(await chargesFor(served.server, 'apple-us-50', 3)).toHaveLength(1);
  }, 120_000);
});
