// Issue 14 at a real terminal (tmux): the live confirmation names the price; long output goes through the pager.
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { History } from '../../src/journal/history.js';
import { BIN, DEMO_KEYS, ledger, loggedIn, startServer, tempDir, type TestServer } from '../helpers/e2e.js';
import { keepingExit, openTerminal, type Terminal } from '../helpers/tmux.js';

let server: TestServer;
let terminal: Terminal | undefined;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});
afterEach(() => {
  terminal?.close();
  terminal = undefined;
});

function inTerminal(args: string[], configDir: string, env: Record<string, string> = {}): Terminal {
  terminal = openTerminal(keepingExit([process.execPath, BIN, ...args]), {
    PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: configDir,
    GIFTCODES_CONFIG_DIR: configDir,
    NO_COLOR: '1',
    ...env,
  });
  return terminal;
}

describe('at a terminal', () => {
  it('a live order asks with product, quantity and the catalog price', async () => {
    const configDir = await loggedIn(server, DEMO_KEYS.live);
    const before = (await ledger(server)).orders.length;
    const t = inTerminal(['order', 'place', '--env', 'live', '--product', 'amazon-us-10', '--quantity', '3'], configDir);
    await t.waitFor(/LIVE order for 3 × amazon-us-10 at 10\.00 USD each, 30\.00 USD in all\?/);
    t.type('n');
    t.press('Enter');
    expect(await t.waitFor(/\[exit \d+\]/)).toContain('[exit 130]');
    expect((await ledger(server)).orders.length).toBe(before);
  });

  it('a list longer than the screen goes through the pager; --no-pager prints it', async () => {
    const configDir = tempDir();
    const history = new History(join(configDir, 'history'));
    for (let i = 0; i < 60; i++) {
      const time = new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString();
      history.record({ key: `key-${i}`, orderId: `ord_${String(i).padStart(4, '0')}`, productId: 'amazon-us-10', quantity: 1, status: 'completed', environment: 'test', profile: 'default', baseUrl: server.url, createdAt: time, updatedAt: time, endedAt: time, outcome: 'delivered' });
    }
    // The pager counts the lines it was given, so the screen shows that it ran and what it got.
    const paged = inTerminal(['order', 'list'], configDir, { GIFTCODES_PAGER: "wc -l | sed 's/^/PAGED /'" });
    const screen = await paged.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    expect(screen).toMatch(/PAGED 61/);
    expect(screen).not.toContain('ord_0059');
    paged.close();
    const plain = inTerminal(['order', 'list', '--no-pager'], configDir, { GIFTCODES_PAGER: "wc -l | sed 's/^/PAGED /'" });
    const shown = await plain.waitFor(/\[exit \d+\]/);
    // The screen keeps the last rows: the oldest order, printed straight to the terminal.
    expect(shown).toContain('ord_0000');
    expect(shown).not.toContain('PAGED');
  });
});
