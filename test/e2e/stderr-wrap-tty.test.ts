// At an 80-column terminal our error and hint lines break between words, not inside them: the terminal had shown
// `…connection refused) aft` / `er 6 attempts` and `giftcod` / `es serve` (a person's day). In a pipe each stays one
// line, as a log and `tail -n 2` read it.
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, runCli, tempDir } from '../helpers/e2e.js';
import { freePort } from '../helpers/ports.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const terminal = giftcodesTerminals();

describe('our stderr lines at a terminal 80 columns wide', () => {
  it('an unreachable API: the error and its hint break at spaces, the command in the hint whole on its line', async () => {
    const port = await freePort();
    const args = ['ping', '--base-url', `http://127.0.0.1:${port}`, '--retries', '0'];
    const screen = await terminal(
      args,
      tempDir(),
      { GIFTCODES_API_KEY: DEMO_KEYS.test },
      { columns: 80, rows: 24 },
    ).waitFor(/\[exit 5\]/);
    const lines = screen.split('\n');
    const hint = lines.findIndex((line) => line.startsWith('hint: '));
    expect(hint, screen).toBeGreaterThan(0);
    // The hint's second line starts under its first word, with the command the first line had no room for.
    expect(lines[hint + 1], screen).toBe(`      giftcodes serve --port ${port}, or check --base-url`);
    for (const line of lines) expect(line.length, screen).toBeLessThanOrEqual(80);

    // --quiet joins the hint to the error's line, broken the same way.
    const quiet = await terminal(
      [...args, '--quiet'],
      tempDir(),
      { GIFTCODES_API_KEY: DEMO_KEYS.test },
      { columns: 80, rows: 24 },
    ).waitFor(/\[exit 5\]/);
    const said = quiet.split('\n').filter((line) => line !== '' && !line.startsWith('[exit'));
    expect(said[0], quiet).toMatch(/^error: cannot reach /);
    expect(said.length, quiet).toBeGreaterThan(1);
    for (const line of said.slice(1)) expect(line, quiet).toMatch(/^ {7}\S/);
    for (const line of said) expect(line.length, quiet).toBeLessThanOrEqual(80);

    // The same run with stderr in a pipe: one error line and one hint line, as before.
    const piped = await runCli(args, { env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(piped.code).toBe(5);
    const pipedLines = piped.stderr.trimEnd().split('\n');
    expect(pipedLines, piped.stderr).toHaveLength(2);
    expect(pipedLines[1]).toMatch(
      /hint: nothing listens on .*: start the reference server with giftcodes serve --port \d+, or check --base-url$/,
    );
  });
});
