// doctor at an 80-column terminal: a check's long detail and its hint are broken at their spaces under their first
// word; the terminal had cut them mid-word (`node v22.23.3 /work/bin22/n` / `ode`, a person's day). A pipe or a log
// keeps one line per check, as the cron recipe reads it.
import { describe, expect, it } from 'vitest';
import { runCli, servedApi } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi([], { login: true });
const terminal = giftcodesTerminals();

describe('doctor at a terminal 80 columns wide', () => {
  it('each check on lines within the width, its detail under the detail column; piped, one line each', async () => {
    const screen = await terminal(['doctor'], served.configDir, {}, { columns: 80, rows: 40 }).waitFor(
      /\[exit \d+\]/,
      30_000,
    );
    const lines = screen.split('\n').filter((l) => !l.startsWith('[exit'));
    // This test's temporary directory is long: the config line's detail is continued under its column.
    const config = lines.findIndex((l) => /^✓ config {3}/.test(l));
    expect(config, screen).toBeGreaterThanOrEqual(0);
    expect(lines[config + 1], screen).toMatch(/^ {11}\S/);
    for (const line of lines)
      if (line.length > 80)
        // Only a word wider than a line (a long path), alone after its label or indent, for the terminal to fold.
        expect(line.replace(/^[✓✗-] \w+ +/, '').trim(), `${line}\n${screen}`).toMatch(/^(hint: )?\S+( \\)?$/);

    const piped = await runCli(['doctor'], { configDir: served.configDir });
    const checks = piped.stdout.trimEnd().split('\n');
    expect(
      checks.filter((l) => !/^ +hint: /.test(l)).every((l) => /^(ok {2}|FAIL|skip) \w+ +\S/.test(l)),
      piped.stdout,
    ).toBe(true);
    expect(checks.find((l) => l.startsWith('ok   config '))).toMatch(
      /: mode 0700, writable, no one else can write it$/,
    );
  });
});
