// `order show` at an 80-column terminal: a long value (the `here` line of an order whose run was killed, with the
// order resume that finishes it) is broken at its spaces under its first word; the terminal had cut it mid-word
// under the labels (`…written here yet (/tmp/` / `h-day31-run/…`, a support desk's day). A pipe gets one line.
import { describe, expect, it } from 'vitest';
import { configCopy, runCli, servedApi } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });
const terminal = giftcodesTerminals();

describe('order show at a terminal 80 columns wide', () => {
  it("the here line's words whole, its lines under the value column; piped, one line", async () => {
    const configDir = configCopy(served.configDir);
    const out = `${configDir}/codes-of-the-december-restock-for-the-shop.csv`;
    const killed = await runCli(['order', 'place', '--product', 'steam-us-20', '--quantity', '3', '--out', out], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const listed = await runCli(['order', 'list', '--query', '[0].orderId', '--raw'], { configDir });
    const id = listed.stdout.trim();
    expect(id).toMatch(/^ord_/);

    const screen = await terminal(['order', 'show', id], configDir, {}, { columns: 80, rows: 24 }).waitFor(
      /\[exit \d+\]/,
      30_000,
    );
    expect(screen).toContain('[exit 0]');
    const lines = screen.split('\n');
    const here = lines.findIndex((l) => l.startsWith('here '));
    expect(here, screen).toBeGreaterThan(0);
    expect(lines[here]).toMatch(/^here {9}completed on the server; its codes were not written here yet$/);
    // The rest of it under the value column, each line within the 80 columns but a word wider than a line alone (this
    // test's long temporary directory: kept whole, for the terminal to fold).
    const rest = lines.slice(
      here + 1,
      lines.findIndex((l) => l.startsWith('[exit')),
    );
    expect(rest.length, screen).toBeGreaterThan(0);
    for (const line of rest) {
      expect(line, screen).toMatch(/^ {13}\S/);
      if (line.length > 80) expect(line.trim(), screen).toMatch(/^\S+( \\)?$/);
    }
    expect(rest.some((l) => l.trim() === 'finish it with:')).toBe(true);
    expect(rest.join(' ')).toContain(`(${out});`);

    const piped = await runCli(['order', 'show', id], { configDir });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(
      /^here {9}completed on the server; its codes were not written here yet \(.*order resume \S+$/m,
    );
  });
});
