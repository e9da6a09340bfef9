// The edges of exactly-once (issue 12): stdout that cannot take the order, an intent from another host or
// boot, one dated in the future or older than a day, a process stopped inside the journal lock, and a
// refused first attempt followed by the corrected command. Real HTTP against `giftcodes serve`.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run as pending } from '../../src/commands/order/pending.js';
import { storedRecords } from '../helpers/journal.js';
import {
  BIN,
  chargesFor,
  configCopy,
  DEMO_KEYS,
  journalFiles,
  loggedIn,
  runCli,
  servedApi,
  spawnCli,
  type PendingIntent,
} from '../helpers/e2e.js';
import { gate, stderrShows } from '../helpers/gate.js';
import { ranHere } from '../helpers/inprocess.js';
import { pendingNow } from '../helpers/pending.js';
import { freePort } from '../helpers/ports.js';

const PRODUCT = 'steam-us-20';

const served = servedApi(['--fulfil-after', '100']);

/**
 * One order of `quantity` killed after its POST, made once for the enclosing describe (a killed run is ~0.2 s of CPU):
 * its logged-in config dir and the order's key, read inside a test. Each test copies the dir, so each resume of it
 * replays that one order, charged once in all whatever each test's runs did.
 */
function orphanedOnce(quantity: number): () => { configDir: string; key: string } {
  let orphaned: { configDir: string; key: string } | undefined;
  beforeAll(async () => {
    const configDir = await loggedIn(served.server);
    orphaned = { configDir, key: await orphanAfterPost(configDir, quantity) };
  }, 300_000);
  return () => orphaned!;
}

function charges(quantity: number): Promise<string[]> {
  return chargesFor(served.server, PRODUCT, quantity);
}

/** A logged-in config dir and the restock a cron job runs into its --out file `name` (with --force, --json). */
async function restockTo(name: string, quantity: number): Promise<{ configDir: string; file: string; args: string[] }> {
  const configDir = await loggedIn(served.server);
  const file = join(configDir, name);
  return {
    configDir,
    file,
    args: [
      'order',
      'place',
      '--product',
      PRODUCT,
      '--quantity',
      String(quantity),
      '--out',
      file,
      '--force',
      '--interval',
      '0.05',
      '--json',
    ],
  };
}

/** The intent files themselves (a killed run's intents are in its log until the next journal command, e.g. order pending, compacts it). */
function intentFileNames(configDir: string): string[] {
  return readdirSync(join(configDir, 'journal')).filter((name) => name.endsWith('.json'));
}

/**
 * `order pending --json` for a config dir, run by the verb's own run(deps) in this process (ranHere: the dependencies
 * a CLI run builds), with its writes: its journal lock turns a killed run's log into the intent files editIntent
 * edits. A CLI run of it costs ~0.1 s of CPU; what order pending prints, and its exit code, are CLI runs below.
 */
async function pendingHere(configDir: string): Promise<PendingIntent[]> {
  return JSON.parse(
    (await ranHere(configDir, (deps) => pending(deps), { globals: { json: true } })).out,
  ) as PendingIntent[];
}

/** Runs the CLI with stdout on /dev/full, or on a pipe whose reader has gone. */
function runBadStdout(
  args: string[],
  configDir: string,
  how: 'full' | 'closed',
): Promise<{ code: number | null; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIFTCODES_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' };
  delete env.GIFTCODES_API_KEY;
  const full = how === 'full' ? openSync('/dev/full', 'w') : undefined;
  const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', full ?? 'pipe', 'pipe'] });
  if (full !== undefined) closeSync(full);
  proc.stdout?.destroy();
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
}

/**
 * A place killed after its POST: one orphan intent in phase `sending` (the order exists on the server). `toEdit`:
 * looked at by running order pending, whose lock turns the killed run's log into the intent file editIntent edits.
 */
async function orphanAfterPost(configDir: string, quantity: number, o: { toEdit?: boolean } = {}): Promise<string> {
  const killed = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--json'], {
    configDir,
    env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
  });
  expect(killed.signal).toBe('SIGKILL');
  const [intent] = await (o.toEdit ? pendingHere : pendingNow)(configDir);
  expect(intent).toMatchObject({ phase: 'sending', state: 'interrupted' });
  return intent!.key;
}

function editIntent(configDir: string, change: (intent: Record<string, unknown>) => void): void {
  const [name] = intentFileNames(configDir);
  const file = join(configDir, 'journal', name!);
  const intent = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(intent);
  writeFileSync(file, JSON.stringify(intent));
}

describe('stdout that cannot take the order: exit 8, the intent stays pending, the re-run prints it once', () => {
  const commands: {
    name: string;
    args: (q: number, key: string) => string[];
    setup?: boolean;
    parse: (out: string) => string;
  }[] = [
    {
      name: 'place --json',
      args: (q) => ['order', 'place', '--product', PRODUCT, '--quantity', String(q), '--json'],
      parse: (o) => (JSON.parse(o) as { id: string }).id,
    },
    {
      name: 'place (text)',
      args: (q) => ['order', 'place', '--product', PRODUCT, '--quantity', String(q)],
      parse: (o) => /^order\s+(\S+)/m.exec(o)![1]!,
    },
    {
      name: 'place --wait',
      args: (q) => ['order', 'place', '--product', PRODUCT, '--quantity', String(q), '--wait', '--interval', '0.05'],
      parse: (o) => /^order\s+(\S+)/m.exec(o)![1]!,
    },
    {
      name: 'resume <key> --json',
      setup: true,
      args: (_q, key) => ['order', 'resume', key, '--json'],
      parse: (o) => (JSON.parse(o) as { id: string }).id,
    },
    {
      name: 'resume --all',
      setup: true,
      args: () => ['order', 'resume', '--all'],
      parse: (o) => /^order\s+(\S+)/m.exec(o)![1]!,
    },
    {
      name: 'resume --all --json',
      setup: true,
      args: () => ['order', 'resume', '--all', '--json'],
      parse: (o) => (JSON.parse(o) as { order: { id: string } }[])[0]!.order.id,
    },
  ];
  // The resume cases start from one order killed after its POST (orphanedOnce), so ORPHANED is charged once in all.
  const ORPHANED = 300;
  const orphaned = orphanedOnce(ORPHANED);
  let q = 300;
  for (const command of commands) {
    for (const how of ['full', 'closed'] as const) {
      const quantity = command.setup ? ORPHANED : ++q;
      it.concurrent(
        `${command.name} with stdout ${how === 'full' ? 'on /dev/full' : 'on a closed pipe'}`,
        { timeout: 300_000 },
        async () => {
          const configDir = command.setup ? configCopy(orphaned().configDir) : await loggedIn(served.server);
          const key = command.setup ? orphaned().key : '';
          const bad = await runBadStdout(command.args(quantity, key), configDir, how);
          expect(bad.code, bad.stderr).toBe(8);
          expect(bad.stderr).toMatch(how === 'full' ? /no space left on the device/ : /the reader closed the pipe/);
          const left = await pendingNow(configDir);
          expect(left).toHaveLength(1);
          expect(left[0]!.phase).toBe('accepted');
          const again = await runCli(command.args(quantity, left[0]!.key), { configDir });
          expect(again.code, again.stderr).toBe(0);
          const charged = await charges(quantity);
          expect(charged).toHaveLength(1);
          expect(command.parse(again.stdout)).toBe(charged[0]);
          expect(await pendingNow(configDir)).toEqual([]);
        },
      );
    }
  }
});

describe('stderr whose reader went away: the order still reaches stdout, exit 0, charged once', () => {
  // `giftcodes order place … 2>&1 | head -1`, or a log reader that died: a notice on stderr met EPIPE, which
  // no one handled, and the run died with exit 1 before printing the order (the intent left pending).
  const commands: { name: string; args: (q: number) => string[]; parse: (out: string) => string }[] = [
    {
      name: 'place (text)',
      args: (q) => ['order', 'place', '--product', PRODUCT, '--quantity', String(q)],
      parse: (o) => /^order\s+(\S+)/m.exec(o)![1]!,
    },
    {
      name: 'place --wait',
      args: (q) => ['order', 'place', '--product', PRODUCT, '--quantity', String(q), '--wait', '--interval', '0.05'],
      parse: (o) => /^order\s+(\S+)/m.exec(o)![1]!,
    },
    {
      name: 'place --out -',
      args: (q) => [
        'order',
        'place',
        '--product',
        PRODUCT,
        '--quantity',
        String(q),
        '--out',
        '-',
        '--format',
        'csv',
        '--interval',
        '0.05',
      ],
      parse: (o) => o.split('\r\n')[1]!.split(',')[0]!,
    },
  ];
  let q = 420;
  for (const command of commands) {
    const quantity = ++q;
    it.concurrent(command.name, { timeout: 300_000 }, async () => {
      const configDir = await loggedIn(served.server);
      const { proc, result } = spawnCli(command.args(quantity), { configDir });
      proc.stdin?.end();
      proc.stderr?.destroy();
      const ended = await result;
      expect(ended.code).toBe(0);
      const charged = await charges(quantity);
      expect(charged).toHaveLength(1);
      expect(command.parse(ended.stdout)).toBe(charged[0]);
      expect(await pendingNow(configDir)).toEqual([]);
    });
  }
});

describe('owners are pid + start time + boot, never the host name', () => {
  it(
    'an intent left under another host name (unshare --uts) is resumed by order place: one charge',
    { timeout: 300_000 },
    async () => {
      const unshare = spawnSync('unshare', ['--uts', 'true']);
      if (unshare.status !== 0) return expect.fail('unshare --uts is needed (root): ' + String(unshare.stderr));
      const configDir = await loggedIn(served.server);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        GIFTCODES_CONFIG_DIR: configDir,
        CI: 'true',
        GIFTCODES_FAILPOINTS: 'request.sent=kill',
      };
      delete env.GIFTCODES_API_KEY;
      const script = `hostname giftcodes-elsewhere && exec "${process.execPath}" "${BIN}" order place --product ${PRODUCT} --quantity 401 --json`;
      const killed = spawnSync('unshare', ['--uts', 'sh', '-c', script], { env, encoding: 'utf8' });
      expect(killed.signal ?? killed.status).not.toBe(0);
      expect(journalFiles(configDir)).toHaveLength(1);
      const again = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '401', '--json'], {
        configDir,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('resuming the interrupted order');
      expect(await charges(401)).toEqual([(JSON.parse(again.stdout) as { id: string }).id]);
      expect(await pendingNow(configDir)).toEqual([]);
    },
  );

  it(
    'an intent of another boot whose pid is alive here is not held: place resumes it, abandon takes it',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      await orphanAfterPost(configDir, 402, { toEdit: true });
      // This very test runner's pid is alive on this boot: with another boot id it proves nothing.
      editIntent(
        configDir,
        (intent) => (intent.owner = { pid: process.pid, boot: '6b2c1f00-0000-4000-8000-000000000000' }),
      );
      const again = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '402', '--json'], {
        configDir,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(await charges(402)).toEqual([(JSON.parse(again.stdout) as { id: string }).id]);

      const key = await orphanAfterPost(configDir, 403, { toEdit: true });
      editIntent(
        configDir,
        (intent) => (intent.owner = { pid: process.pid, boot: '6b2c1f00-0000-4000-8000-000000000000' }),
      );
      const abandoned = await runCli(['order', 'abandon', key], { configDir });
      expect(abandoned.code, abandoned.stderr).toBe(0);
      expect(abandoned.stdout).toContain(`abandoned ${key}`);
      expect(await pendingNow(configDir)).toEqual([]);
    },
  );
});

describe('time: stale and future-dated intents are never resumed silently', () => {
  // Each test starts from one order killed after its POST (orphanedOnce), then dates its copy elsewhere in time: DATED
  // is charged once in all.
  const DATED = 501;
  const orphaned = orphanedOnce(DATED);

  it(
    'order pending gives the way out of a stale or future-dated order only when it lists one',
    { timeout: 300_000 },
    async () => {
      const configDir = configCopy(orphaned().configDir);
      // What order pending says of the fresh one is read by its run in this process (ranHere), whose journal lock
      // writes the intent file editIntent edits as a CLI run's would; the stale one below is a CLI run, exit code and all.
      const fresh = await ranHere(configDir, (deps) => pending(deps));
      expect(fresh.out).toContain('interrupted');
      expect(fresh.out + fresh.err).toContain('finish it with:');
      expect(fresh.out + fresh.err).not.toContain('--force-stale');
      editIntent(configDir, (intent) => (intent.createdAt = new Date(Date.now() - 25 * 3600_000).toISOString()));
      const stale = await runCli(['order', 'pending'], { configDir });
      expect(stale.code, stale.stderr).toBe(0);
      expect(stale.stdout).toContain('stale');
      // The run's config directory is named before each command (src/output/pinned-hint.ts).
      // One row: named by its key.
      expect(stale.stdout + stale.stderr).toMatch(
        /it is stale: once checked on the server, .*giftcodes order resume \S+ --force-stale, or .*giftcodes order abandon \S+/,
      );
    },
  );

  for (const [label, shiftMs, why] of [
    ['dated 10 minutes in the future', 10 * 60_000, /in the future/],
    ['older than 24 hours', -25 * 3600_000, /more than 24 hours ago/],
  ] as const) {
    it(
      `an intent ${label}: place and resume refuse, naming both ways out; resume --force-stale finishes it with one charge`,
      { timeout: 300_000 },
      async () => {
        const configDir = configCopy(orphaned().configDir);
        const quantity = DATED;
        const { key } = orphaned();
        // The killed run's log turned into the intent file editIntent edits.
        await pendingHere(configDir);
        editIntent(configDir, (intent) => (intent.createdAt = new Date(Date.now() + shiftMs).toISOString()));
        const place = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', String(quantity)], {
          configDir,
        });
        expect(place.code).toBe(2);
        expect(place.stderr).toMatch(why);
        expect(place.stderr).toContain(`giftcodes order resume ${key} --force-stale`);
        expect(place.stderr).toContain(`giftcodes order abandon ${key}`);
        const resume = await runCli(['order', 'resume', key], { configDir });
        expect(resume.code).toBe(2);
        expect(resume.stderr).toMatch(why);
        const all = await runCli(['order', 'resume', '--all', '--json'], { configDir });
        expect(all.code).toBe(2);
        // In --json the JSON document is all there is: each failed order keeps its hint (the way out), and the run's
        // own error is its first failure with that hint, not "the lines above" (a review: none were printed).
        const [failedOne] = JSON.parse(all.stdout) as { key: string; error: { hint?: string } }[];
        expect(failedOne!.error.hint).toContain(`giftcodes order resume ${key} --force-stale`);
        const runError = (
          JSON.parse(all.stderr.trim().split('\n').at(-1)!) as { error: { message: string; hint: string } }
        ).error;
        expect(runError.message).toContain(`1 of 1 orders could not be resumed: ${key}: `);
        expect(runError.hint).toContain(`giftcodes order resume ${key} --force-stale`);
        expect(runError.hint).not.toContain('see the lines above');
        expect(await charges(quantity)).toHaveLength(1);
        // --quiet: the possible second order is said in every mode (a review's --quiet run said nothing).
        const forced = await runCli(['order', 'resume', key, '--force-stale', '--json', '--quiet'], { configDir });
        expect(forced.code, forced.stderr).toBe(0);
        // Sent without an answer more than a day ago, or dated ahead of the clock (its age unknown): the API cannot be
        // asked by key, and a server that forgot it would place a second order. Said so, never "no second charge".
        if (shiftMs < 0) {
          expect(place.stderr).toContain("look in the provider's dashboard for an order of");
          expect(forced.stderr).toContain('more than 24 hours after it was first sent (');
        } else expect(forced.stderr).toContain('ahead of this clock, so when it was sent is unknown');
        expect(forced.stderr).toContain('a server that has forgotten the key places a second order');
        expect(forced.stderr).not.toContain('no second charge');
        expect(await charges(quantity)).toEqual([(JSON.parse(forced.stdout) as { id: string }).id]);
        expect(await pendingNow(configDir)).toEqual([]);
      },
    );
  }
});

// A review: two interrupted orders of one request, and the same command twice at once. Both runs read the first as
// theirs; the one that met it taken exited 2, and the second, free, was left pending.
describe('two interrupted orders of one request, the same command twice at once', () => {
  it(
    'each run resumes one of them: none exits 2, none is left pending, no new order',
    { timeout: 120_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      const args = ['order', 'place', '--product', PRODUCT, '--quantity', '911', '--json'];
      await orphanAfterPost(configDir, 911, { toEdit: true });
      // The second interrupted order of the same request: a copy of the first under a key of its own.
      const [name] = intentFileNames(configDir);
      const first = JSON.parse(readFileSync(join(configDir, 'journal', name!), 'utf8')) as Record<string, unknown>;
      writeFileSync(
        join(configDir, 'journal', 'second-copy.json'),
        JSON.stringify({ ...first, key: 'second-key-911' }),
      );
      expect(await pendingNow(configDir)).toHaveLength(2);
      const slow = spawnCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'journal.locked=pause:1500' } });
      slow.proc.stdin?.end();
      await stderrShows(slow.proc, 'failpoint journal.locked: pause');
      const fast = await runCli(args, { configDir });
      const other = await slow.result;
      expect([other.code, fast.code], `${other.stderr}\n${fast.stderr}`).toEqual([0, 0]);
      for (const run of [other, fast]) expect(run.stderr).toContain('resuming the interrupted order for 911 × ');
      const ids = [other, fast].map((run) => (JSON.parse(run.stdout) as { id: string }).id);
      expect(new Set(ids).size).toBe(2);
      expect((await charges(911)).sort()).toEqual([...ids].sort());
      expect(await pendingNow(configDir)).toEqual([]);
    },
  );
});

describe('a process stopped inside the journal lock keeps its claim', () => {
  it(
    'SIGSTOP for 10 s inside the lock: the other run waits, then places nothing, and no order is printed twice',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      await orphanAfterPost(configDir, 601);
      const args = ['order', 'place', '--product', PRODUCT, '--quantity', '601', '--json'];
      // Held inside the lock until the test lets it go (a 300 ms pause could end before the SIGSTOP on a loaded machine).
      const held = gate();
      const first = spawnCli(args, {
        configDir,
        env: { GIFTCODES_FAILPOINTS: held.at('journal.locked') },
        timeoutMs: 120_000,
      });
      first.proc.stdin?.end();
      await stderrShows(first.proc, 'failpoint journal.locked: wait');
      first.proc.kill('SIGSTOP');
      const second = spawnCli(args, { configDir, timeoutMs: 120_000 });
      second.proc.stdin?.end();
      let secondDone = false;
      void second.result.then(() => (secondDone = true));
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      expect(secondDone, 'the second run must wait for the stopped holder').toBe(false);
      first.proc.kill('SIGCONT');
      held.open();
      const [a, b] = await Promise.all([first.result, second.result]);
      expect(a.code, a.stderr).toBe(0);
      expect(a.stderr).toContain('resuming the interrupted order');
      // The second run had read the interrupted order as free, and meets it taken: it places nothing, and says which
      // run has it. Before, it placed a second order without a word (a review).
      expect(b.code, b.stderr).toBe(2);
      expect(JSON.parse(b.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({
        error: { code: 'intent_busy', message: expect.stringContaining(`(pid ${first.proc.pid})`) },
      });
      expect(b.stdout).toBe('');
      expect(await charges(601)).toEqual([(JSON.parse(a.stdout) as { id: string }).id]);
      expect(await pendingNow(configDir)).toEqual([]);
    },
  );
});

// A review (F8): after an interrupted order, the same command run twice a moment apart (a person's retry beside the
// cron job's, or beside `order resume --all`). The second found the note already held by the first, read that as
// "another run is placing this order", and placed a second order (exit 0; five runs, five charges), where
// docs/exactly-once.md promises it places nothing (exit 2, intent_busy, naming the process that has it).
describe('a run that finds the interrupted order being finished by another run places nothing', () => {
  for (const [name, holder] of [
    ['the same order place', ['order', 'place', '--product', PRODUCT, '--quantity', '612', '--json']],
    ['order resume --all', ['order', 'resume', '--all', '--json']],
  ] as const)
    it(`${name} holds it mid-request: the same order place then exits 2 intent_busy, one charge`, async () => {
      const configDir = await loggedIn(served.server);
      const quantity = name === 'order resume --all' ? 613 : 612;
      await orphanAfterPost(configDir, quantity);
      const args = ['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--json'];
      const held = gate();
      const first = spawnCli(
        holder.map((a) => (a === '612' ? String(quantity) : a)),
        { configDir, env: { GIFTCODES_FAILPOINTS: held.at('request.sent') }, timeoutMs: 120_000 },
      );
      first.proc.stdin?.end();
      await stderrShows(first.proc, 'failpoint request.sent: wait');
      const second = await runCli(args, { configDir });
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).not.toContain('places a second order');
      expect(JSON.parse(second.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({
        error: { code: 'intent_busy', message: expect.stringContaining(`(pid ${first.proc.pid})`) },
      });
      expect(second.stdout).toBe('');
      // With a key of its own it is another order, said as beside the order being finished, with that order's key.
      if (name === 'the same order place') {
        const keyed = await runCli([...args, '--idempotency-key', `own-${quantity}`], { configDir });
        expect(keyed.code, keyed.stderr).toBe(0);
        expect(keyed.stderr).toContain(
          `(pid ${first.proc.pid}) is finishing the interrupted order of ${quantity} × ${PRODUCT} (key `,
        );
      }
      held.open();
      const a = await first.result;
      expect(a.code, a.stderr).toBe(0);
      expect(await charges(quantity)).toHaveLength(name === 'the same order place' ? 2 : 1);
      expect(await pendingNow(configDir)).toEqual([]);
    });
});

// A review of that fix: an order killed before its first send, taken over by the same command (which places it), and
// the same command again meanwhile: it placed a second order, said only on stderr. Refused as for one sent.
describe('a run beside an order place placing an interrupted order never sent places nothing', () => {
  it('exit 2 intent_busy; the holder places it; one charge', async () => {
    const configDir = await loggedIn(served.server);
    const args = ['order', 'place', '--product', PRODUCT, '--quantity', '614', '--json'];
    const killed = await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'intent.written=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const held = gate();
    const first = spawnCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: held.at('intent.written') } });
    first.proc.stdin?.end();
    await stderrShows(first.proc, 'failpoint intent.written: wait');
    const second = await runCli(args, { configDir });
    held.open();
    const a = await first.result;
    expect(a.code, a.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain('"code":"intent_busy"');
    expect(await charges(614)).toHaveLength(1);
  });
});

// A review: a nightly job at the same minute met the night before's order, accepted and then killed (or timed out), a
// second past 24 hours, and exited 2 (stale) where docs/cron-and-plans.md says the next night finishes it. Its order
// id is known, so finishing it only reads that order: no key a server may have forgotten is sent.
describe('an interrupted order whose order id is known is finished at any age', () => {
  it('25 hours after the API accepted it, the same command finishes it: no --force-stale, no second order', async () => {
    const configDir = await loggedIn(served.server);
    const args = ['order', 'place', '--product', PRODUCT, '--quantity', '811', '--json'];
    const killed = await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } });
    expect(killed.signal).toBe('SIGKILL');
    const [left] = await pendingHere(configDir);
    expect(left).toMatchObject({ phase: 'accepted' });
    editIntent(configDir, (intent) => {
      intent.createdAt = new Date(Date.now() - 25 * 3_600_000).toISOString();
    });
    const again = await runCli(args, { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming the interrupted order for 811 × ');
    expect(await charges(811)).toEqual([(JSON.parse(again.stdout) as { id: string }).id]);
    expect(await pendingNow(configDir)).toEqual([]);
  });
});

describe('certain refusals end at once; the corrected command runs without a word about them', () => {
  it(
    'a wrong port (connection refused, nothing sent): exit 5, nothing pending, refused in the record',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      const port = await freePort();
      const wrong = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '701', '--retries', '0'], {
        configDir,
        baseUrl: `http://127.0.0.1:${port}`,
      });
      expect(wrong.code).toBe(5);
      expect(await pendingNow(configDir)).toEqual([]);
      const records = storedRecords(join(configDir, 'history'));
      expect(records).toMatchObject([{ outcome: 'refused', quantity: 701 }]);
      const right = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '701', '--json'], {
        configDir,
      });
      expect(right.code, right.stderr).toBe(0);
      expect(right.stderr).not.toMatch(/interrupted|resum|intent/);
      expect(await charges(701)).toEqual([(JSON.parse(right.stdout) as { id: string }).id]);
    },
  );

  it('a wrong key (401): exit 3, nothing pending; the right key runs at once', { timeout: 300_000 }, async () => {
    const configDir = await loggedIn(served.server);
    const wrong = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '702'], {
      configDir,
      env: { GIFTCODES_API_KEY: 'sc_test_not_a_real_key_0000' },
    });
    expect(wrong.code).toBe(3);
    expect(await pendingNow(configDir)).toEqual([]);
    const right = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '702', '--json'], {
      configDir,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(right.code, right.stderr).toBe(0);
    expect(right.stderr).not.toMatch(/interrupted|resum|intent/);
    expect(await charges(702)).toHaveLength(1);
  });

  it(
    'an unknown product (404): exit 4, nothing pending; the corrected product runs at once',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      const wrong = await runCli(['order', 'place', '--product', 'no-such-product', '--quantity', '703'], {
        configDir,
      });
      expect(wrong.code).toBe(4);
      expect(await pendingNow(configDir)).toEqual([]);
      const right = await runCli(['order', 'place', '--product', PRODUCT, '--quantity', '703', '--json'], {
        configDir,
      });
      expect(right.code, right.stderr).toBe(0);
      expect(right.stderr).not.toMatch(/interrupted|resum|intent/);
      expect(await charges(703)).toHaveLength(1);
    },
  );
});

describe('the local order record', () => {
  it(
    'keeps each ended order (never a key or a code), pruned after history-days (config set history-days)',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      expect((await runCli(['config', 'set', 'history-days', '0'], { configDir })).code).toBe(2);
      expect((await runCli(['config', 'set', 'history-days', 'ten'], { configDir })).code).toBe(2);
      const set = await runCli(['config', 'set', 'history-days', '30'], { configDir });
      expect(set.code, set.stderr).toBe(0);
      const history = join(configDir, 'history');
      const day = 86_400_000;
      const planted = (key: string, daysAgo: number): void => {
        const at = new Date(Date.now() - daysAgo * day).toISOString();
        const record = {
          key,
          productId: PRODUCT,
          quantity: 1,
          environment: 'test',
          profile: 'default',
          baseUrl: served.url,
          createdAt: at,
          updatedAt: at,
          endedAt: at,
          outcome: 'delivered',
        };
        spawnSync('mkdir', ['-p', history]);
        writeFileSync(join(history, `${key}.json`), JSON.stringify(record));
      };
      planted('old-31-days', 31);
      planted('kept-29-days', 29);
      const placed = await runCli(
        ['order', 'place', '--product', PRODUCT, '--quantity', '801', '--out', join(configDir, 'codes.csv')],
        { configDir },
      );
      expect(placed.code, placed.stderr).toBe(0);
      const names = readdirSync(history);
      expect(names).not.toContain('old-31-days.json');
      expect(names).toContain('kept-29-days.json');
      const records = storedRecords(history);
      const mine = records.find((r) => r.quantity === 801);
      expect(mine).toMatchObject({
        outcome: 'delivered',
        productId: PRODUCT,
        quantity: 801,
        environment: 'test',
        profile: 'default',
        out: join(configDir, 'codes.csv'),
      });
      expect(mine!.orderId).toBe((await charges(801))[0]);
      const codes = readFileSync(join(configDir, 'codes.csv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(',').pop()!);
      // Every byte of history/, as stored.
      for (const text of names.map((name) => readFileSync(join(history, name), 'utf8'))) {
        expect(text).not.toContain(DEMO_KEYS.test);
        for (const code of codes) expect(text).not.toContain(code);
      }
    },
  );
});

describe('codes on stdout (--out -) and files at one --out path', () => {
  for (const how of ['full', 'closed'] as const) {
    it(
      `place --out - with stdout ${how === 'full' ? 'on /dev/full' : 'on a closed pipe'}: exit 8, pending; the re-run prints the codes, one charge`,
      { timeout: 300_000 },
      async () => {
        const configDir = await loggedIn(served.server);
        const quantity = how === 'full' ? 901 : 902;
        const args = [
          'order',
          'place',
          '--product',
          PRODUCT,
          '--quantity',
          String(quantity),
          '--out',
          '-',
          '--interval',
          '0.05',
        ];
        const bad = await runBadStdout(args, configDir, how);
        expect(bad.code, bad.stderr).toBe(8);
        expect(await pendingNow(configDir)).toHaveLength(1);
        const again = await runCli(args, { configDir });
        expect(again.code, again.stderr).toBe(0);
        expect(JSON.parse(again.stdout)).toHaveLength(quantity);
        expect(await charges(quantity)).toHaveLength(1);
        expect(await pendingNow(configDir)).toEqual([]);
      },
    );
  }

  it(
    'an order whose codes file was renamed into place is never written again, also when another file has replaced it (--force too): codes get is the deliberate way',
    { timeout: 300_000 },
    async () => {
      const configDir = await loggedIn(served.server);
      const file = join(configDir, 'codes.json');
      const args = [
        'order',
        'place',
        '--product',
        PRODUCT,
        '--quantity',
        '903',
        '--out',
        file,
        '--force',
        '--interval',
        '0.05',
      ];
      const killed = await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' } });
      expect(killed.signal).toBe('SIGKILL');
      const mine = readFileSync(file, 'utf8');
      // Another restock renames its own file (same size, other codes) over the path, as a second writer would.
      writeFileSync(
        `${file}.other`,
        mine.replace(/"code": ?"([^"]+)"/, (_m, code: string) => `"code":"${code.split('').reverse().join('')}"`),
      );
      spawnSync('mv', [`${file}.other`, file]);
      const other = readFileSync(file, 'utf8');
      // The codes reached the user when the rename put them in place: writing them again could sell them twice.
      const again = await runCli(args, { configDir });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain('had already reached you');
      expect(again.stderr).toMatch(/giftcodes codes get \S+ --out CODES_FILE/);
      expect(readFileSync(file, 'utf8')).toBe(other);
      expect(await charges(903)).toHaveLength(1);
      expect(await pendingNow(configDir)).toEqual([]);
      // Settled by that refusal: the same command again is a new order, on purpose.
      const orderId = (await charges(903))[0]!;
      const fetched = await runCli(['codes', 'get', orderId, '--out', file, '--force'], { configDir });
      expect(fetched.code, fetched.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(mine);
      expect(mine).not.toBe(other);
    },
  );

  it('order place --out into a directory that does not exist: exit 2, nothing charged, no lock file tried there', async () => {
    const configDir = await loggedIn(served.server);
    const result = await runCli(
      ['order', 'place', '--product', PRODUCT, '--quantity', '906', '--out', join(configDir, 'missing', 'codes.csv')],
      { configDir },
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('does not exist');
    expect(result.stderr).not.toContain('lock file');
    expect(await charges(906)).toEqual([]);
    expect(await pendingNow(configDir)).toEqual([]);
  });

  it(
    'a second restock to an --out file a running one holds is refused before its charge (out_busy, exit 2), not after',
    { timeout: 300_000 },
    async () => {
      const { configDir, file, args } = await restockTo('held.json', 905);
      // The first run is held right after its POST was answered (until the second has run): it has charged, and must
      // hold the file's lock. A hold, not a pause: a loaded machine could outlast a pause before the second run.
      const held = gate();
      const first = spawnCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: held.at('request.sent') } });
      first.proc.stdin?.end();
      const lock = join(configDir, '.held.json.giftcodes.lock');
      await stderrShows(first.proc, 'failpoint request.sent');
      expect(await charges(905)).toHaveLength(1);
      expect(readdirSync(configDir)).toContain('.held.json.giftcodes.lock');
      const second = await runCli(args, { configDir });
      held.open();
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toContain('out_busy');
      // Only the first run's order was charged, and the first delivers it whole.
      const done = await first.result;
      expect(done.code, done.stderr).toBe(0);
      expect(await charges(905)).toEqual([(JSON.parse(done.stdout) as { id: string }).id]);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveLength(905);
      expect(readdirSync(configDir)).not.toContain(lock.slice(configDir.length + 1));
      expect(await pendingNow(configDir)).toEqual([]);
    },
  );

  it(
    'two identical restocks to one --out at once: two orders, each delivered once, nothing settled by the other',
    { timeout: 300_000 },
    async () => {
      const { configDir, file, args } = await restockTo('codes.json', 904);
      const runs = await Promise.all([runCli(args, { configDir }), runCli(args, { configDir })]);
      // One writer per --out path: when both pre-flights meet at the path lock, one run is refused (out_busy,
      // exit 2) before anything is charged; otherwise both run one after the other at the file.
      const refused = runs.filter((run) => run.code === 2);
      expect(refused.length).toBeLessThanOrEqual(1);
      for (const run of refused) expect(run.stderr).toContain('out_busy');
      const delivered = runs.filter((run) => run.code !== 2);
      for (const run of delivered) expect(run.code, run.stderr).toBe(0);
      const ids = delivered.map((run) => (JSON.parse(run.stdout) as { id: string }).id);
      expect(new Set(ids).size).toBe(delivered.length);
      expect((await charges(904)).sort()).toEqual([...ids].sort());
      expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveLength(904);
      expect(await pendingNow(configDir)).toEqual([]);
    },
  );
});
