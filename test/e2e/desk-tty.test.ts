// Issue 14 at a real terminal (tmux): the live confirmation names the price; long output goes through the pager.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { History } from '../../src/journal/history.js';
import { DEMO_KEYS, ledger, loggedIn, servedApi, tempDir } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi();
const inTerminal = giftcodesTerminals();

describe('at a terminal', () => {
  it('a live order asks with product, quantity and the catalog price', async () => {
    const { server } = served;
    const configDir = await loggedIn(server, DEMO_KEYS.live);
    const before = (await ledger(server)).orders.length;
    const t = inTerminal(
      ['order', 'place', '--env', 'live', '--product', 'amazon-us-10', '--quantity', '3'],
      configDir,
    );
    await t.waitFor(/LIVE order for 3 × amazon-us-10 at 10\.00 USD each, 30\.00 USD in all\?/);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/)).toContain('[exit 130]');
    expect((await ledger(server)).orders.length).toBe(before);
  });

  it('a list longer than the screen goes through the pager; --no-pager prints it', async () => {
    const configDir = tempDir();
    const history = new History(join(configDir, 'history'));
    for (let i = 0; i < 60; i++) {
      const time = new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString();
      history.record({
        key: `key-${i}`,
        orderId: `ord_${String(i).padStart(4, '0')}`,
        productId: 'amazon-us-10',
        quantity: 1,
        status: 'completed',
        environment: 'test',
        profile: 'default',
        baseUrl: served.url,
        createdAt: time,
        updatedAt: time,
        endedAt: time,
        outcome: 'delivered',
      });
    }
    // The pager counts the lines it was given, so the screen shows that it ran and what it got.
    const paged = inTerminal(['order', 'list'], configDir, { GIFTCODES_PAGER: "wc -l | sed 's/^/PAGED /'" });
    const screen = await paged.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    expect(screen).toMatch(/PAGED 61/);
    expect(screen).not.toContain('ord_0059');
    paged.close();
    const plain = inTerminal(['order', 'list', '--no-pager'], configDir, {
      GIFTCODES_PAGER: "wc -l | sed 's/^/PAGED /'",
    });
    const shown = await plain.waitFor(/\[exit \d+\]/);
    // The screen keeps the last rows: the oldest order, printed straight to the terminal.
    expect(shown).toContain('ord_0000');
    expect(shown).not.toContain('PAGED');
  });

  it(
    'a plan whose summary the pager fails to show (not installed) prints it plainly, and says so (issue 29)',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      const plan = join(tempDir(), 'pager.csv');
      // More rows than the terminal's 40 lines: the summary goes to the pager.
      writeFileSync(plan, Array.from({ length: 45 }, (_, i) => `amazon-us-10,${i + 100}`).join('\n'));
      const t = inTerminal(['order', 'place', '--plan', plan], configDir, {
        GIFTCODES_PAGER: 'giftcodes-no-such-pager',
      });
      const screen = await t.waitFor(/\[exit \d+\]/, 90_000);
      expect(screen).toContain('[exit 0]');
      expect(screen).toMatch(/the pager "giftcodes-no-such-pager" failed \(exit 127\): printed without it/);
      // The summary's last row reached the screen.
      expect(screen).toMatch(/\n45 +amazon-us-10 +144 +ord_/);
    },
  );
});
