// A person's path through an interrupted live order (a persona walkthrough at a terminal): the same command run
// again resumes it, with no question, since it was confirmed when placed and may be charged already. Asked
// again, it read as a new order, "no" printed "cancelled: nothing was sent" for an order already charged, and
// without a terminal or --yes the resume was refused (exit 2) though it charges nothing new. A plan stopped by
// Ctrl-C says how to finish its rows, and a live plan run again asks only about its new rows.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BOTH_KEYS,
  chargesFor,
  heldRequests,
  loggedIn,
  releaseHeld,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
} from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

const inTerminal = giftcodesTerminals();

describe('an interrupted live order, run again', () => {
  const served = servedApi(['--fulfil-after', '0']);

  it('resumes without asking (no terminal, no --yes): one charge, nothing pending', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'netflix-us-30', '--quantity', '4'];
    const killed = await runCli([...place, '--yes'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');

    const again = await runCli(place, { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming the interrupted order for 4 × netflix-us-30');
    expect(await pendingNow(configDir)).toEqual([]);
    expect(await chargesFor(served.server, 'netflix-us-30', 4)).toHaveLength(1);
  });

  // An adversarial review: `order resume <key>` of a live order never sent waited at "Place the live order now?", the
  // nightly job placed the same order meanwhile (another run holding the note: a second order, by the rule), and the
  // yes was a second charge.
  it('a resume asked about at a terminal while another run placed the same order: asked again, as a second order', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'apple-us-25', '--quantity', '7', '--yes'];
    const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'intent.written=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    const t = inTerminal(['order', 'resume', left!.key], configDir, { GIFTCODES_BASE_URL: served.server.url });
    await t.waitFor(/Place the live order for 7 × apple-us-25 now\?/, 30_000);
    const nightly = await runCli(place, { configDir });
    expect(nightly.code, nightly.stderr).toBe(0);
    expect(await chargesFor(served.server, 'apple-us-25', 7)).toHaveLength(1);
    t.answer('y');
    const again = (await t.waitFor(/Place this one too/, 30_000)).replace(/\s+/g, ' ');
    expect(again).toContain('Another giftcodes run placed 7 × apple-us-25 while you were asked (ord_');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'apple-us-25', 7)).toHaveLength(1);
  });

  // A review: a second run killed before it sent anything, while the question waited, was taken for an order placed;
  // the No by default left the order the person had said yes to unplaced.
  it('another run that sent nothing meanwhile is no order placed: the yes places this one, asked once', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'apple-us-50', '--quantity', '3', '--yes'];
    const kill = { GIFTCODES_FAILPOINTS: 'intent.written=kill' };
    expect((await runCli(place, { configDir, env: kill })).signal).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    const t = inTerminal(['order', 'resume', left!.key], configDir, { GIFTCODES_BASE_URL: served.server.url });
    await t.waitFor(/Place the live order for 3 × apple-us-50 now\?/, 30_000);
    expect((await runCli(place, { configDir, env: kill })).signal).toBe('SIGKILL');
    t.answer('y');
    const screen = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toContain('Place this one too');
    expect(await chargesFor(served.server, 'apple-us-50', 3)).toHaveLength(1);
  });

  it('a new live order without a terminal or --yes is still refused before anything is sent', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const refused = await runCli(['order', 'place', '--env', 'live', '--product', 'tesco-uk-20', '--quantity', '3'], {
      configDir,
    });
    expect(refused.code, refused.stderr).toBe(2);
    expect(await chargesFor(served.server, 'tesco-uk-20', 3)).toHaveLength(0);
  });
});

describe('a live plan interrupted, run again', () => {
  const held = servedApi(['--hold', '600000', '--fulfil-after', '0']);

  it('Ctrl-C names the way to finish its rows; the plan run again resumes them without asking', async () => {
    const configDir = await loggedIn(held.server, BOTH_KEYS);
    const plan = join(tempDir(), 'live.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,5\n');
    const args = ['order', 'place', '--env', 'live', '--plan', plan, '--batch', 'd 1'];
    const running = spawnCli([...args, '--yes'], { configDir });
    running.proc.stdin?.end();
    await heldRequests(held.server);
    running.proc.kill('SIGINT');
    const stopped = await running.result;
    expect(await releaseHeld(held.server)).toBe(1);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('interrupted by SIGINT: the plan stopped, and 1 row of it may have been charged');
    expect(stopped.stderr).toContain(
      `run the same command again to finish them (the same --batch 'd 1') (with GIFTCODES_CONFIG_DIR=${configDir} in its environment, as this run had)`,
    );

    // No terminal and no --yes: its one row was confirmed when it was placed, and is only resumed.
    const again = await runCli(args, { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming its interrupted order');
    // Its summary says whose order it was: "1 of 1 rows ordered (5 codes, 50.00 USD)" read as this run's charge (an
    // adversarial review).
    expect(again.stderr).toMatch(
      /: 1 of 1 row ordered \(5 codes, [^;)]*; it was an earlier run's interrupted order, finished under its key\)/,
    );
    expect(await pendingNow(configDir)).toEqual([]);
    expect(await chargesFor(held.server, 'amazon-us-10', 5)).toHaveLength(1);
  });

  // An adversarial review: `order resume --all` placed one live order never sent (yes), then No (or Ctrl-C) at the
  // next said "cancelled: nothing was sent", exit 130, of a run that had just charged 250 USD; and the No stopped the
  // orders after it too.
  it('resume --all: a No leaves that order and goes on; Ctrl-C says the orders this run already finished', async () => {
    for (const ending of ['no', 'ctrl-c'] as const) {
      const configDir = await loggedIn(held.server, BOTH_KEYS);
      const products = ending === 'no' ? ['apple-us-25', 'steam-us-20'] : ['netflix-us-30', 'steam-us-50'];
      for (const product of products) {
        const killed = await runCli(
          ['order', 'place', '--env', 'live', '--product', product, '--quantity', '3', '--yes'],
          {
            configDir,
            env: { GIFTCODES_FAILPOINTS: 'intent.written=kill' },
          },
        );
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
      }
      const t = inTerminal(['order', 'resume', '--all'], configDir, { GIFTCODES_BASE_URL: held.server.url });
      await t.waitFor(/Place the live order for 3 × \S+ now\?/, 30_000);
      t.answer('y');
      await heldRequests(held.server);
      expect(await releaseHeld(held.server)).toBe(1);
      await t.waitFor(/(Place the live order for 3 × \S+ now\?[^]*){2}/, 30_000);
      if (ending === 'no') t.answer('n');
      else t.press('C-c');
      // A hint's command wider than the terminal is continued on the next line with ` \` (output/wrap.ts).
      const screen = (await t.waitFor(/\[exit \d+\]/, 30_000)).replace(/ \\\n/g, ' ').replace(/\s+/g, ' ');
      const charged = (await Promise.all(products.map((p) => chargesFor(held.server, p, 3)))).map((c) => c.length);
      expect(charged.sort()).toEqual([0, 1]);
      expect(screen).not.toContain('cancelled: nothing was sent');
      if (ending === 'no') {
        expect(screen).toContain('[exit 0]');
        expect(screen).toMatch(
          /left 1 order unsent, as answered: (GIFTCODES_CONFIG_DIR=\S+ )?giftcodes order pending lists it/,
        );
      } else {
        expect(screen).toContain('[exit 130]');
        expect(screen).toMatch(
          /cancelled at the order with key \S+, which was not sent; this run took up 1 order before it \(above\)/,
        );
      }
      expect(await pendingNow(configDir)).toHaveLength(1);
      t.close();
    }
  });

  it('a row readied behind the one out was never sent: said so everywhere, and a resume of it at a terminal asks first', async () => {
    // An adversarial review: a live plan with a typo (10 for 1) stopped by Ctrl-C said 2 rows "may have been charged"
    // where 1 had been sent; with the plan fixed, `order resume --all` then placed the readied row, never sent, for
    // the first time, under "same request, no second charge".
    const configDir = await loggedIn(held.server, BOTH_KEYS);
    const plan = join(tempDir(), 'typo.csv');
    writeFileSync(plan, 'product,quantity\napple-us-25,10\nsteam-us-20,10\n');
    const running = spawnCli(['order', 'place', '--env', 'live', '--plan', plan, '--concurrency', '1', '--yes'], {
      configDir,
    });
    running.proc.stdin?.end();
    await heldRequests(held.server);
    running.proc.kill('SIGINT');
    const stopped = await running.result;
    expect(await releaseHeld(held.server)).toBe(1);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('the plan stopped, and 1 row of it may have been charged');
    const pending = JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout) as {
      key: string;
      productId: string;
      phase: string;
    }[];
    const readied = pending.find((row) => row.productId === 'steam-us-20')!;
    expect(readied.phase).toBe('prepared');
    const table = await runCli(['order', 'pending'], { configDir, env: { COLUMNS: '120' } });
    expect(table.stdout).toMatch(/steam-us-20 +10 .*never sent/);
    expect(table.stderr).toContain('never sent ones charged nothing');
    // At a terminal, its resume asks (a live order placed for the first time); No sends nothing.
    const t = inTerminal(['order', 'resume', readied.key], configDir, { GIFTCODES_BASE_URL: held.server.url });
    const asked = (await t.waitFor(/Place the live order/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toContain('placing 10 × steam-us-20 with key');
    expect(asked).toContain('so this is its first request');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(held.server, 'steam-us-20', 10)).toHaveLength(0);
  });
});

describe('resume --all stopped after an order whose answer was lost', () => {
  const dropping = servedApi(['--drop-after-commit', '1', '--fulfil-after', '0']);

  // A review: the first order went out and its answer was lost (exit 5, "may or may not have been placed"), Ctrl-C at
  // the next question said "cancelled: nothing was sent", exit 130, of a run whose order the ledger held.
  it('Ctrl-C at the next question counts it among the orders the run took up', async () => {
    const configDir = await loggedIn(dropping.server, BOTH_KEYS);
    for (const product of ['amazon-us-10', 'amazon-us-50']) {
      const killed = await runCli(
        ['order', 'place', '--env', 'live', '--product', product, '--quantity', '1', '--yes'],
        {
          configDir,
          env: { GIFTCODES_FAILPOINTS: 'intent.written=kill' },
        },
      );
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
    }
    const t = inTerminal(['order', 'resume', '--all', '--retries', '0'], configDir, {
      GIFTCODES_BASE_URL: dropping.server.url,
    });
    await t.waitFor(/Place the live order for 1 × \S+ now\?/, 30_000);
    t.answer('y');
    await t.waitFor(/(Place the live order for 1 × \S+ now\?[^]*){2}/, 30_000);
    t.press('C-c');
    // A hint's command wider than the terminal is continued on the next line with ` \` (output/wrap.ts).
    const screen = (await t.waitFor(/\[exit \d+\]/, 30_000)).replace(/ \\\n/g, ' ').replace(/\s+/g, ' ');
    expect(screen).toContain('[exit 130]');
    expect(screen).not.toContain('cancelled: nothing was sent');
    expect(screen).toMatch(/which was not sent; this run took up 1 order before it \(above\)/);
    const charged = await Promise.all(['amazon-us-10', 'amazon-us-50'].map((p) => chargesFor(dropping.server, p, 1)));
    expect(charged.flat()).toHaveLength(1);
  });
});
