// `codes get` of a large order at a terminal printed every code and stopped there: 5,000 codes scrolled past where
// no one could hand them out (a person's day). After them, on stderr, the way to a file (--out) is said; a pipe or a
// redirect still gets the codes alone, as scripts read them.
import { describe, expect, it } from 'vitest';
import { runCli, servedApi } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });
const terminal = giftcodesTerminals();

async function placed(quantity: number): Promise<string> {
  const order = await runCli(
    ['order', 'place', '--product', 'amazon-us-10', '--quantity', String(quantity), '--json'],
    {
      configDir: served.configDir,
    },
  );
  expect(order.code, order.stderr).toBe(0);
  return (JSON.parse(order.stdout) as { id: string }).id;
}

describe('codes get to a terminal', () => {
  it('more codes than a screen: printed, then the --out that keeps them in a file; a few: printed alone', async () => {
    const many = await placed(25);
    const screen = await terminal(['codes', 'get', many], served.configDir, {}, { columns: 80, rows: 24 }).waitFor(
      /\[exit \d+\]/,
      30_000,
    );
    expect(screen).toContain('[exit 0]');
    expect(screen.replace(/ \\\n/g, ' ').replace(/\s+/g, ' ')).toMatch(
      new RegExp(
        `printed 25 codes of ${many} on the terminal; to keep them in a file, run: (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes codes get ${many} --out ${many}\\.csv \\(\\.xlsx for a spreadsheet\\)`,
      ),
    );

    const few = await placed(2);
    const short = await terminal(['codes', 'get', few], served.configDir, {}, { columns: 80, rows: 24 }).waitFor(
      /\[exit \d+\]/,
      30_000,
    );
    expect(short).toContain('[exit 0]');
    expect(short).not.toContain('to keep them in a file');
  });

  it('in a pipe: the codes alone on stdout, and no such line on stderr', async () => {
    const many = await placed(25);
    const piped = await runCli(['codes', 'get', many], { configDir: served.configDir });
    expect(piped.code, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout)).toHaveLength(25);
    expect(piped.stderr).not.toContain('to keep them in a file');
  });
});
