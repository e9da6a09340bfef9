// An interrupted `order place` whose order a person then read with `codes get` (or `order watch`): that command
// finished it in its run's place, so the interrupted run's hint ("run the same command again") now places a
// second order. A review peeked at the codes, ran the same command again, and was charged twice without a word.
// Now codes get says what it finished, and the same order place asks first at a terminal, and says it elsewhere.
import { existsSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, loggedIn, runCli, servedApi, spawnCli, tempDir, unstamped } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--fulfil-after', '4000'], { login: true });
// For the tests whose runs are killed at a failpoint rather than caught while their order is pending: each of their
// orders waited out the 4 s above (12 s of the file), which none of them is about.
const done = servedApi(['--fulfil-after', '0']);
const inTerminal = giftcodesTerminals();

describe('an interrupted order place finished by codes get, then the same command again', () => {
  it('codes get says it finished it; the same command asks at a terminal (No sends nothing), and says so without one', async () => {
    const { configDir, url: baseUrl, server } = served;
    const out = join(tempDir(), 'codes.csv');
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--out', out];
    const before = (await ledger(server)).orders.length;

    // Placed, then stopped while it waits for the order to complete (its codes not written yet).
    const first = spawnCli(place, { configDir, baseUrl });
    first.proc.stdin?.end();
    for (let i = 0; i < 200 && (await ledger(server)).orders.length === before; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await ledger(server)).orders.length).toBe(before + 1);
    first.proc.kill('SIGTERM');
    const stopped = await first.result;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('run the same command again');

    const { orderId, key } = (await pendingNow(configDir))[0]! as { orderId: string; key: string };
    expect(orderId).toMatch(/^ord_/);

    // The person peeks at the codes: this ends the interrupted order, and says so.
    const peek = await runCli(['codes', 'get', orderId, '--wait', '--out', '-'], { configDir, baseUrl });
    expect(peek.code, peek.stderr).toBe(0);
    expect(unstamped(peek.stderr)).toContain(
      `this finished the interrupted order place of 3 × amazon-us-25 (key ${key}, started `,
    );
    expect(peek.stderr).toContain('so that order place run again places a second order');

    // At a terminal the same command asks first; No sends nothing.
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: baseUrl });
    // Wrapped at the terminal's width: the words are matched across its lines.
    const question = (await t.waitFor(/Place a second order of 3 × amazon-us-25\?/)).replace(/\s+/g, ' ');
    expect(question).toMatch(
      new RegExp(
        `The interrupted order ${orderId} of 3 × amazon-us-25 was finished by codes get at \\S+ \\(its codes written to standard output\\)\\. Place a second order`,
      ),
    );
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect((await ledger(server)).orders.length).toBe(before + 1);

    // Without a terminal: said on stderr, then the second order (a script asked for it).
    const again = await runCli([...place, '--force'], { configDir, baseUrl });
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr)).toContain(
      `the interrupted order ${orderId} of 3 × amazon-us-25 was finished by codes get at `,
    );
    expect(again.stderr).toContain(
      '(its codes written to standard output): this run places a second order of 3 × amazon-us-25, with its own key',
    );
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 300_000);

  // The 130 hint offers `order resume <key>` beside the same command again: a review took the first, then ran the
  // command again, and was charged twice without a word (resume recorded no finishedBy).
  it('order resume finished it: the same command then says it places a second order', async () => {
    const { configDir, url: baseUrl, server } = served;
    const place = ['order', 'place', '--product', 'steam-us-50', '--quantity', '1', '--wait', '--interval', '0.2'];
    const before = (await ledger(server)).orders.length;
    const first = spawnCli(place, { configDir, baseUrl });
    first.proc.stdin?.end();
    for (let i = 0; i < 200 && (await ledger(server)).orders.length === before; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    first.proc.kill('SIGINT');
    const stopped = await first.result;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(/order resume \S+/);
    const { orderId, key } = (await pendingNow(configDir))[0]! as { orderId: string; key: string };
    const resumed = await runCli(['order', 'resume', key, '--interval', '0.2'], { configDir, baseUrl });
    expect(resumed.code, resumed.stderr).toBe(0);
    // Its log ends as order place's does (a person's day: a resume's cron log had no closing line).
    expect(unstamped(resumed.stderr).trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^done: finished the order of 1 × steam-us-50 \\(key ${key}\\): order ${orderId} completed; took `),
    );
    expect((await ledger(server)).orders.length).toBe(before + 1);
    const again = await runCli(place, { configDir, baseUrl });
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr)).toContain(
      `the interrupted order ${orderId} of 1 × steam-us-50 was finished by order resume at `,
    );
    expect(again.stderr).toContain('this run places a second order of 1 × steam-us-50, with its own key');
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 120_000);

  // A review: killed once its codes file took its place ("codes in file"), then codes get to another file wrote a
  // second copy of the codes without a word of the first. Killed between the rename and its mark (codes.committed),
  // the same without a word still (a later review).
  it.each(['codes.committed', 'codes.renamed'])(
    'killed at %s, codes get to another file says both files hold them',
    async (failpoint) => {
      const { url: baseUrl } = done;
      const configDir = await loggedIn(done.server, DEMO_KEYS.test);
      const dir = tempDir();
      const first = join(dir, 'a.csv');
      const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', first], {
        configDir,
        baseUrl,
        env: { GIFTCODES_FAILPOINTS: `${failpoint}=kill` },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const { orderId } = (await pendingNow(configDir))[0]! as { orderId: string };
      const second = await runCli(['codes', 'get', orderId, '--out', join(dir, 'b.csv')], { configDir, baseUrl });
      expect(second.code, second.stderr).toBe(0);
      expect(unstamped(second.stderr)).toContain(
        `warning: the codes of order ${orderId} are in ${first} too, written there by an earlier run that was interrupted before its end was recorded (order place, or codes get or order watch finishing it). Both files hold the same codes: hand out one of them`,
      );
      // The same file again (a re-run of codes get into a.csv itself): nothing to say.
      const same = await runCli(['codes', 'get', orderId, '--out', first], { configDir, baseUrl });
      expect(same.stderr).not.toContain('too:');
    },
    120_000,
  );

  // A review: `codes get ID --query 'length'` printed null and ended the interrupted `order place --out F` as if its
  // codes had reached you; order pending then said every order reached you, F never written.
  it('codes get --query leaves an interrupted order place to finish, and says so; order resume then writes its file', async () => {
    const { url: baseUrl } = done;
    const configDir = await loggedIn(done.server, DEMO_KEYS.test);
    const first = join(tempDir(), 'a.csv');
    const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', first], {
      configDir,
      baseUrl,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const { orderId, key } = (await pendingNow(configDir))[0]! as { orderId: string; key: string };
    const queried = await runCli(['codes', 'get', orderId, '--wait', '--query', 'length', '--interval', '0.2'], {
      configDir,
      baseUrl,
    });
    expect(queried.code, queried.stderr).toBe(0);
    expect(queried.stdout).toBe('null\n');
    expect(queried.stderr).toContain(`(key ${key}) is left to finish: what --query printed is not its codes`);
    expect(queried.stderr).not.toContain('this finished');
    const pending = await pendingNow(configDir);
    expect(pending).toHaveLength(1);
    const resumed = await runCli(['order', 'resume', key], { configDir, baseUrl });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(first)).toBe(true);
  }, 120_000);
});

// A review (F4): an interrupted `order place` finished by a variant of itself (another --out, none, or no --wait: the
// person wrote the codes to another disk after a full one), then the original command, as its hint said: a second
// order without a word. The variant now records itself as the finisher, as codes get and order resume do.
describe('an interrupted order place finished by a variant of itself, then the original command', () => {
  const variants: {
    name: string;
    original: (dir: string) => string[];
    variant: (dir: string) => string[];
    by: (dir: string) => string;
  }[] = [
    {
      name: 'another --out',
      original: (dir) => ['--out', join(dir, 'first.csv')],
      variant: (dir) => ['--out', join(dir, 'second.csv')],
      by: (dir) => `order place --out ${join(dir, 'second.csv')}`,
    },
    {
      name: 'no --out, then --out',
      original: () => [],
      variant: (dir) => ['--out', join(dir, 'second.csv')],
      by: (dir) => `order place --out ${join(dir, 'second.csv')}`,
    },
    {
      name: 'no --wait',
      original: () => ['--wait', '--interval', '0.2'],
      variant: () => [],
      by: () => 'order place without --wait',
    },
  ];
  for (const [i, v] of variants.entries())
    it(`${v.name}: the variant says it finished it, and the original command says it places a second order`, async () => {
      const { url: baseUrl, server } = done;
      const configDir = await loggedIn(done.server, DEMO_KEYS.test);
      const dir = tempDir();
      const place = ['order', 'place', '--product', 'amazon-us-50', '--quantity', String(71 + i)];
      const before = (await ledger(server)).orders.length;
      const killed = await runCli([...place, ...v.original(dir)], {
        configDir,
        baseUrl,
        env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const variant = await runCli([...place, ...v.variant(dir)], { configDir, baseUrl });
      expect(variant.code, variant.stderr).toBe(0);
      expect(variant.stderr).toContain('resuming the interrupted order');
      expect(variant.stderr.replace(/\s+/g, ' ')).toContain('so that command run again places a new order');
      expect((await ledger(server)).orders.length).toBe(before + 1);
      expect(await pendingNow(configDir)).toEqual([]);
      const again = await runCli([...place, ...v.original(dir)], { configDir, baseUrl });
      expect(again.code, again.stderr).toBe(0);
      expect(unstamped(again.stderr).replace(/\s+/g, ' ')).toContain(`was finished by ${v.by(dir)} at `);
      expect(again.stderr).toContain(`this run places a second order of ${71 + i} × amazon-us-50, with its own key`);
      expect((await ledger(server)).orders.length).toBe(before + 2);
    }, 120_000);

  // A review of that fix: a variant killed after it took the order over rewrote the note's file, and the command that
  // began the order, finishing it then, was called a variant of the variant (and recorded as its own finisher); and
  // the same file through a linked folder was taken for another file.
  it('the command that began it finishes it after a variant was killed, or names its file through a link: not a variant', async () => {
    const { url: baseUrl } = done;
    const configDir = await loggedIn(done.server, DEMO_KEYS.test);
    const dir = tempDir();
    const place = ['order', 'place', '--product', 'amazon-us-50', '--quantity', '81'];
    const kill = { GIFTCODES_FAILPOINTS: 'request.sent=kill' };
    const first = ['--out', join(dir, 'first.csv')];
    expect((await runCli([...place, ...first], { configDir, baseUrl, env: kill })).signal).toBe('SIGKILL');
    expect((await runCli([...place, '--out', join(dir, 'second.csv')], { configDir, baseUrl, env: kill })).signal).toBe(
      'SIGKILL',
    );
    const own = await runCli([...place, ...first], { configDir, baseUrl });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toContain('resuming the interrupted order');
    expect(own.stderr).not.toContain('in place of its own command');
    rmSync(join(dir, 'first.csv'));
    const next = await runCli([...place, ...first], { configDir, baseUrl });
    expect(next.code, next.stderr).toBe(0);
    // Recorded as its own command's other run (E17), never as the variant that was killed.
    expect(unstamped(next.stderr).replace(/\s+/g, ' ')).toContain('was finished by another run of this same command');
    expect(next.stderr).not.toContain('finished by order place --out');
    // Through a link to the same folder: the same file.
    symlinkSync(dir, join(dir, '..', `${basename(dir)}-link`));
    const linked = ['order', 'place', '--product', 'amazon-us-50', '--quantity', '82'];
    expect((await runCli([...linked, '--out', join(dir, 'c.csv')], { configDir, baseUrl, env: kill })).signal).toBe(
      'SIGKILL',
    );
    const through = await runCli([...linked, '--out', join(dir, '..', `${basename(dir)}-link`, 'c.csv')], {
      configDir,
      baseUrl,
    });
    expect(through.code, through.stderr).toBe(0);
    expect(through.stderr).not.toContain('in place of its own command');
  }, 120_000);

  // A review (E17): the same command finishing it recorded no finisher, so the run that was interrupted, run again
  // as its hint said a moment after another run (a cron job, a second window) had finished its order, placed a
  // second order without a word. Now the finishing run is recorded as another run of this same command, and the
  // next run of it says (asks at a terminal) that it places a second order; the one after that is silent again.
  it('the same command finishing it is recorded: run a third time, it says it places a second order', async () => {
    const { url: baseUrl, server } = done;
    const configDir = await loggedIn(done.server, DEMO_KEYS.test);
    const place = ['order', 'place', '--product', 'amazon-us-50', '--quantity', '79'];
    const killed = await runCli(place, { configDir, baseUrl, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const before = (await ledger(server)).orders.length;
    const same = await runCli(place, { configDir, baseUrl });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain('resuming the interrupted order');
    expect(same.stderr).not.toContain('in place of its own command');
    const third = await runCli(place, { configDir, baseUrl });
    expect(third.code, third.stderr).toBe(0);
    expect(unstamped(third.stderr).replace(/\s+/g, ' ')).toContain(
      'was finished by another run of this same command at ',
    );
    expect(third.stderr).toContain('this run places a second order of 79 × amazon-us-50, with its own key');
    const fourth = await runCli(place, { configDir, baseUrl });
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(fourth.stderr).not.toContain('was finished by');
    // The killed run's order (resumed, not placed again), then the third's and the fourth's.
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 120_000);
});

// A person's day: the run after the one that finished the order asked "Place a second order?" naming "its codes in
// a.csv" when a.csv had been moved away; a person who ran the line again to get the codes back read that they were
// there. The words now say the file is gone (or written again since) and name the way to the codes that charges
// nothing, as a plan's re-run says of its rows.
describe('the second order asked about after another run finished the order, its codes file gone since', () => {
  it('says the file is no longer there and names codes get; a file written again since is said so', async () => {
    const { url: baseUrl } = done;
    const configDir = await loggedIn(done.server, DEMO_KEYS.test);
    const dir = tempDir();
    const file = join(dir, 'night.csv');
    const place = ['order', 'place', '--product', 'amazon-us-50', '--quantity', '83', '--out', file];
    const kill = { GIFTCODES_FAILPOINTS: 'request.sent=kill' };
    expect((await runCli(place, { configDir, baseUrl, env: kill })).signal).toBe('SIGKILL');
    const finished = await runCli(place, { configDir, baseUrl });
    expect(finished.code, finished.stderr).toBe(0);
    const id = /order (ord_\w+) completed/.exec(finished.stderr)?.[1];
    expect(id, finished.stderr).toBeDefined();
    renameSync(file, join(dir, 'uploaded.csv'));
    const again = await runCli(place, { configDir, baseUrl });
    expect(again.code, again.stderr).toBe(0);
    const said = unstamped(again.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(`its codes were written to ${file}, no longer there; its codes again, charging nothing: `);
    expect(said).toContain(`giftcodes codes get ${id} --out ${file}`);
    expect(said).not.toContain(`its codes in ${file}`);
  }, 120_000);
});

// An adversarial review: a run killed after its codes file was renamed into place (or whose journal disk filled) says
// "run the same command again: it finds that order, and charges nothing". The person ran `order pending` first (the
// morning routine); the file had been moved by an upload job, so pending settled the order as delivered, and the same
// command then placed a second order without a word. Now pending's settle is recorded as finishing it in that
// command's place, said so on its line, and the same command tells of the second order (asked at a terminal).
describe('an interrupted order whose codes reached the user, settled by order pending, then the same command', () => {
  const fast = servedApi([], { login: true });

  it('pending says the same command is a new order; that command then says it places a second one', async () => {
    const { configDir, url: baseUrl, server } = fast;
    const dir = tempDir();
    const out = join(dir, 'x.csv');
    const place = ['order', 'place', '--product', 'apple-us-25', '--quantity', '2', '--out', out];
    const before = (await ledger(server)).orders.length;
    const killed = await runCli(place, { configDir, baseUrl, env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(existsSync(out)).toBe(true);
    renameSync(out, join(dir, 'uploaded.csv'));

    const pending = await runCli(['order', 'pending'], { configDir, baseUrl });
    expect(pending.code, pending.stderr).toBe(0);
    expect(unstamped(pending.stderr).replace(/\s+/g, ' ').trimEnd()).toMatch(
      // Its file since moved: said so, not "codes in x.csv", with the way to them again that charges nothing.
      /the interrupted order (ord_\w+) had already reached you \(codes written to \S+x\.csv, no longer there; its codes again, charging nothing: .*giftcodes codes get \1 --out \S+x\.csv\); it is complete, and its command run again places a new order$/m,
    );

    const again = await runCli(place, { configDir, baseUrl });
    expect(unstamped(again.stderr)).toMatch(
      // x.csv moved by the upload job: said so, with the way to its codes that charges nothing.
      /the interrupted order (ord_\w+) of 2 × apple-us-25 was finished by order pending at \S+ \(its codes were written to \S+x\.csv, no longer there; its codes again, charging nothing: .*giftcodes codes get \1 --out \S+x\.csv\): this run places a second order of 2 × apple-us-25, with its own key/,
    );
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 60_000);
});

// A review (stop 78, F2): `codes get --out` finishing an interrupted order place, killed right after its rename: the
// file held the codes, but nothing recorded it in the interrupted order. `order resume` then looped on "X exists" (its
// hint named itself), the same command said "exists, pass --force", and "another --out file" wrote the same codes into
// a second file without a word: codes sold twice. Now codes get records its file in the interrupted order before the
// rename, as order place does, so each of them finds the codes already written, and a second file is refused.
describe('codes get finishing an interrupted order, killed right after its rename', () => {
  const fast = servedApi([], { login: true });

  /** An order place killed once its order was accepted, then codes get of it killed right after its file's rename. */
  async function killedTwice(
    product: string,
    quantity: number,
    watch = false,
    o: { getTo?: string; at?: string } = {},
  ) {
    const { configDir, url: baseUrl, server } = fast;
    const dir = tempDir();
    const own = join(dir, 's.csv');
    const out = o.getTo ? join(dir, o.getTo) : own;
    const place = ['order', 'place', '--product', product, '--quantity', String(quantity), '--out', own];
    const before = (await ledger(server)).orders.length;
    const placed = await runCli(place, { configDir, baseUrl, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } });
    expect(placed.signal, placed.stderr).toBe('SIGKILL');
    const { orderId, key } = (await pendingNow(configDir))[0]! as { orderId: string; key: string };
    const got = await runCli(
      watch ? ['order', 'watch', orderId, '--out', out] : ['codes', 'get', orderId, '--wait', '--out', out],
      {
        configDir,
        baseUrl,
        env: { GIFTCODES_FAILPOINTS: `${o.at ?? 'codes.renamed'}=kill` },
      },
    );
    expect(got.signal, got.stderr).toBe('SIGKILL');
    expect(existsSync(out)).toBe(true);
    const charged = async () => (await ledger(server)).orders.length - before;
    return { configDir, baseUrl, dir, out, own, place, key, charged };
  }

  // A second review (stop 78): codes get to another file than the order's own --out, killed after its rename (at
  // codes.committed, its mark not yet written, or at codes.renamed): order resume wrote the order's own file too, no
  // word, or every word named that file, "no longer there", which was never written, and its advice wrote a second.
  it('codes get to another file, killed after its rename: order pending and order resume go by that file; the own --out is never written', async () => {
    for (const at of ['codes.committed', 'codes.renamed']) {
      const { configDir, baseUrl, key, out, own, charged } = await killedTwice('amazon-us-25', 2, false, {
        getTo: 'B.csv',
        at,
      });
      // Its note names that file: listed with it (its mark not yet written), or settled as having reached it.
      expect((await pendingNow(configDir)).map((row) => (row as { out?: string }).out)).toEqual([out]);
      const pending = await runCli(['order', 'pending'], { configDir, baseUrl });
      expect(pending.stdout + pending.stderr, at).not.toContain(own);
      const resumed = await runCli(['order', 'resume', key], { configDir, baseUrl });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr, at).not.toContain(own);
      expect(resumed.stderr, at).toContain(out);
      expect(existsSync(own), at).toBe(false);
      expect(await pendingNow(configDir)).toEqual([]);
      expect(await charged()).toBe(1);
    }
  }, 60_000);

  it('order resume finds the codes had already reached the file: nothing written, the order settled', async () => {
    const { configDir, baseUrl, key, out, charged } = await killedTwice('amazon-us-25', 3);
    const resumed = await runCli(['order', 'resume', key], { configDir, baseUrl });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(unstamped(resumed.stderr)).toMatch(
      /the interrupted order ord_\w+ had already reached you \(codes in (\S+)\); it is complete/,
    );
    expect(resumed.stderr).toContain(`(codes in ${out})`);
    expect(await pendingNow(configDir)).toEqual([]);
    expect(await charged()).toBe(1);
  }, 60_000);

  it('the same command finds them already written too; so after order watch --out killed so', async () => {
    for (const watch of [false, true]) {
      const { configDir, baseUrl, place, out, charged } = await killedTwice('steam-us-20', 2, watch);
      const again = await runCli(place, { configDir, baseUrl });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`the codes were already written to ${out}`);
      expect(await pendingNow(configDir)).toEqual([]);
      expect(await charged()).toBe(1);
    }
  }, 60_000);

  // The chaos run (stop 78) found codes left in a hidden temporary file: codes get killed after it recorded its
  // temporary file, then codes get again, whose sweep kept the recorded file and whose own record then orphaned it.
  it('codes get killed before its rename, then codes get again: no temporary file of the codes left behind', async () => {
    const { configDir, url: baseUrl } = fast;
    const dir = tempDir();
    const out = join(dir, 'h.csv');
    const placed = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--out', out], {
      configDir,
      baseUrl,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(placed.signal, placed.stderr).toBe('SIGKILL');
    const { orderId } = (await pendingNow(configDir))[0]! as { orderId: string };
    const get = ['codes', 'get', orderId, '--wait', '--out', out];
    const killed = await runCli(get, {
      configDir,
      baseUrl,
      env: { GIFTCODES_FAILPOINTS: 'codes.identity-written=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toHaveLength(1);
    const again = await runCli(get, { configDir, baseUrl });
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(await pendingNow(configDir)).toEqual([]);
  }, 60_000);

  // A third review (stop 78): codes get --out B killed before its rename (its temporary file complete), then the
  // order's own command: the temporary file beside B, every code in it, was left for good by every next step, and
  // the command was told it was a variant of an `order place --out B` that never ran.
  it('codes get to another file killed before its rename, then the same command: nothing left beside that file, no variant said', async () => {
    for (const at of ['codes.tmp-written', 'codes.identity-written']) {
      const { configDir, url: baseUrl, server } = fast;
      const dir = tempDir();
      const own = join(dir, 'a.csv');
      const place = ['order', 'place', '--product', 'apple-us-25', '--quantity', '3', '--out', own];
      const before = (await ledger(server)).orders.length;
      const placed = await runCli(place, { configDir, baseUrl, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } });
      expect(placed.signal, placed.stderr).toBe('SIGKILL');
      const { orderId } = (await pendingNow(configDir))[0]! as { orderId: string };
      const got = await runCli(['codes', 'get', orderId, '--wait', '--out', join(dir, 'b.csv')], {
        configDir,
        baseUrl,
        env: { GIFTCODES_FAILPOINTS: `${at}=kill` },
      });
      expect(got.signal, got.stderr).toBe('SIGKILL');
      expect(readdirSync(dir).filter((n) => n.startsWith('.b.csv.giftcodes-'))).not.toEqual([]);
      const again = await runCli(place, { configDir, baseUrl });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr, at).not.toContain('in place of its own command');
      expect(readdirSync(dir).sort(), at).toEqual(['a.csv']);
      expect(await pendingNow(configDir)).toEqual([]);
      expect((await ledger(server)).orders.length).toBe(before + 1);
    }
  }, 60_000);

  // A third review (stop 78, F12): codes get of order X to B killed after its rename, then another order's codes
  // get --force to B: written over without a word, and X then read as "had already reached you (codes in B)", its
  // codes in no file.
  it("codes get --force over the file an interrupted note of another order records says that order's codes went", async () => {
    const { configDir, baseUrl, out, key } = await killedTwice('amazon-us-25', 2, false, { getTo: 'B.csv' });
    const x = ((await pendingNow(configDir)).find((row) => row.key === key) as { orderId: string }).orderId;
    const y = await runCli(['order', 'place', '--product', 'steam-us-20', '--quantity', '1', '--wait', '--json'], {
      configDir,
      baseUrl,
    });
    expect(y.code, y.stderr).toBe(0);
    const yId = (JSON.parse(y.stdout) as { id: string }).id;
    const forced = await runCli(['codes', 'get', yId, '--out', out, '--force'], { configDir, baseUrl });
    expect(forced.code, forced.stderr).toBe(0);
    expect(unstamped(forced.stderr)).toContain(
      `${out} held the codes of order ${x}, written over now with those of ${yId}`,
    );
    expect(forced.stderr).toContain(`giftcodes codes get ${x} --out OTHER_FILE`);
    // The note's record of that file is dropped: order pending no longer closes it as "reached you (codes in B)" (a
    // fourth review); it is left to finish, and resume meets the file as another order's.
    const pending = await runCli(['order', 'pending'], { configDir, baseUrl });
    expect(pending.stderr).not.toContain('had already reached you');
    expect((await pendingNow(configDir)).map((row) => row.key)).toContain(key);
    const resumed = await runCli(['order', 'resume', key], { configDir, baseUrl });
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(unstamped(resumed.stderr)).toContain(`holds the codes of order ${yId}`);
    const got = await runCli(['codes', 'get', x, '--out', join(dirname(out), 'x.csv')], { configDir, baseUrl });
    expect(got.code, got.stderr).toBe(0);
    expect(await pendingNow(configDir)).toEqual([]);
  }, 60_000);

  it('another --out is refused: the codes already reached a file, never written into a second one', async () => {
    const { configDir, baseUrl, dir, place, out, charged } = await killedTwice('apple-us-25', 2);
    const other = join(dir, 'other.csv');
    const elsewhere = await runCli([...place.slice(0, -1), other], { configDir, baseUrl });
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(unstamped(elsewhere.stderr)).toContain(`had already reached you: its codes were written to ${out}`);
    expect(existsSync(other)).toBe(false);
    expect(await charged()).toBe(1);
  }, 60_000);
});

// A second review (stop 78, F8): a single order place finishing a plan row's interrupted order said "that command run
// again places a new order" of the plan, which reads the row as done and orders nothing.
describe("a single order place finishing a plan row's interrupted order", () => {
  const quick = servedApi([], { login: true });

  it('says the plan reads the row as done; the plan run again orders nothing of it', async () => {
    const { configDir, url: baseUrl, server } = quick;
    const dir = tempDir();
    const plan = join(dir, 'p.csv');
    writeFileSync(plan, 'amazon-us-10,1\n');
    const before = (await ledger(server)).orders.length;
    const killed = await runCli(['order', 'place', '--plan', plan], {
      configDir,
      baseUrl,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const single = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--wait', '--out', join(dir, 'q.csv')],
      { configDir, baseUrl },
    );
    expect(single.code, single.stderr).toBe(0);
    expect(unstamped(single.stderr)).toContain(
      'this run finishes a row of the plan p.csv in its place, which that plan run again reads as done',
    );
    expect(single.stderr).not.toContain('places a new order');
    const again = await runCli(['order', 'place', '--plan', plan], { configDir, baseUrl });
    expect(again.code, again.stderr).toBe(0);
    expect((await ledger(server)).orders.length).toBe(before + 1);
  }, 60_000);
});
