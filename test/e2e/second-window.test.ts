// The same order started again in a second window while the first still waits on the API. By the journal's rules a
// live process's intent is never taken over, so a second run is a second order: a person at a terminal is asked
// first (No sends nothing), and a run without one says so in its log before placing it.
import { describe, expect, it } from 'vitest';
import { heldRequests, ledger, releaseHeld, runCli, servedApi, spawnCli, unstamped } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--hold', '60000', '--fulfil-after', '0'], { login: true });
const inTerminal = giftcodesTerminals();
const PLACE = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1'];

describe('order place while another run places the same order', () => {
  it('at a terminal asks first, and No sends nothing; without one it is said, then a second order', async () => {
    const { configDir, url: baseUrl, server } = served;
    const before = (await ledger(server)).orders.length;
    const first = spawnCli(PLACE, { configDir, baseUrl });
    first.proc.stdin?.end();
    await heldRequests(server);
    const pid = first.proc.pid!;

    const t = inTerminal(PLACE, configDir, { GIFTCODES_BASE_URL: baseUrl });
    await t.waitFor(
      new RegExp(
        `Another giftcodes run \\(pid ${pid}\\) is placing 1 × amazon-us-25 right now\\. Place a second order of 1 × amazon-us-25\\?`,
      ),
    );
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');

    // A guided order's own confirmation answers its order, not this question: it is still asked.
    const guided = inTerminal(['order', 'place', '--product', 'amazon-us-25'], configDir, {
      GIFTCODES_BASE_URL: baseUrl,
    });
    await guided.waitFor(/Quantity of amazon-us-25/);
    guided.answer('1');
    await guided.waitFor(/Codes file, e\.g\. codes\.csv/);
    guided.press('Enter');
    await guided.waitFor(/Place a test order for 1 × amazon-us-25/);
    guided.answer('y');
    await guided.waitFor(new RegExp(`Another giftcodes run \\(pid ${pid}\\) is placing 1 × amazon-us-25 right now`));
    guided.answer('n');
    expect(await guided.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');

    // Without a terminal, --json too: said on stderr, then the second order.
    const log = runCli([...PLACE, '--json'], { configDir, baseUrl });
    await heldRequests(server, 2);
    expect(await releaseHeld(server)).toBe(2);
    const [firstRun, second] = [await first.result, await log];
    expect(firstRun.code, firstRun.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(unstamped(second.stderr)).toContain(
      `another giftcodes run (pid ${pid}) is placing 1 × amazon-us-25 right now: this run places a second order of 1 × amazon-us-25, with its own key\n`,
    );
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 300_000);
});

// A review: an order killed while its request was out, then the same command twice at once (a person's retry beside
// the cron job's). The second run found the interrupted order taken by the first a moment before its own begin, and
// placed a second order without a word. It resumes that order or places nothing.
describe('two runs of one interrupted order at once', () => {
  const fresh = servedApi(['--fulfil-after', '0'], { login: true });

  it('one resumes it; the other places nothing (exit 2, naming the run that has it), never a second order', async () => {
    const { configDir, url: baseUrl, server } = fresh;
    const killed = await runCli(PLACE, { configDir, baseUrl, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal).toBe('SIGKILL');
    const before = (await ledger(server)).orders.length;
    // The first re-run holds the journal's lock a while at each turn: the second reads the interrupted order as
    // free, then waits for the lock while the first takes the order over.
    const first = spawnCli(PLACE, { configDir, baseUrl, env: { GIFTCODES_FAILPOINTS: 'journal.locked=pause:1500' } });
    first.proc.stdin?.end();
    await new Promise<void>((resolve) => {
      const look = (chunk: Buffer): void => {
        if (!chunk.toString().includes('failpoint journal.locked')) return;
        first.proc.stderr?.off('data', look);
        resolve();
      };
      first.proc.stderr?.on('data', look);
    });
    const second = await runCli(PLACE, { configDir, baseUrl });
    const firstRun = await first.result;
    const runs = [firstRun, second].sort((a, b) => (a.code ?? -1) - (b.code ?? -1));
    expect(runs.map((r) => r.code)).toEqual([0, 2]);
    expect(runs[0]!.stderr).toContain('resuming the interrupted order for 1 × amazon-us-25');
    expect(runs[1]!.stderr).toMatch(/another giftcodes process \(pid \d+\) is working on the order with key /);
    // This server's one order: the killed run's, which the resume's request under its key was answered with.
    expect(before).toBe(1);
    expect((await ledger(server)).orders.length).toBe(1);
  }, 120_000);
});
