// A person's day at 80–100 columns: `order pending` left out ORDER, the id a support person quotes to the provider,
// before ENV, which said `test` on every row. ENV now gives way first where every row is of one environment (said
// once under the table); while rows mix live and test it stays.
import { describe, expect, it } from 'vitest';
import { loggedIn, runCli, servedApi } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--fulfil-after', '0']);
const inTerminal = giftcodesTerminals();

describe('order pending on a narrow terminal', () => {
  it('leaves out ENV before ORDER when every row is of one environment, and says it once', async () => {
    const configDir = await loggedIn(served.server);
    for (const quantity of ['3', '4']) {
      const killed = await runCli(['order', 'place', '--product', 'steam-us-20', '--quantity', quantity], {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
    }
    const t = inTerminal(
      ['order', 'pending'],
      configDir,
      { GIFTCODES_BASE_URL: served.url },
      { columns: 100, rows: 30 },
    );
    const screen = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(screen).toContain('[exit 0]');
    const header = screen.split('\n').find((line) => line.startsWith('KEY'))!;
    expect(header).toMatch(/\bORDER\b/);
    expect(header).not.toMatch(/\bENV\b/);
    expect(screen).toMatch(/env of every row: test/);
    expect(screen).toMatch(/ord_\w{24}/);
  }, 60_000);
});
