// --out a symbolic link is refused before anything is charged (exit 2, naming the link and where it
// points), also with --force; and one writer per --out path: a second run while the first writes fails
// at once with out_busy, also when the first is stopped (SIGSTOP), and the file is the first run's, whole.
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, loggedIn, runCli, spawnCli, startServer, tempDir, type TestServer } from '../helpers/e2e.js';

function expectLinkIntact(link: string, pointsTo: string): void {
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readlinkSync(link)).toBe(pointsTo);
}

describe('--out a symbolic link', () => {
  let server: TestServer;
  let configDir: string;
  beforeAll(async () => {
    server = await startServer(['--fulfil-after', '0']);
    configDir = await loggedIn(server);
  });
  afterAll(() => server.stop());

  const variants: { name: string; make: (dir: string) => { link: string; pointsTo: string }; force: boolean; dangling?: boolean }[] = [
    {
      name: 'a link to an existing file',
      force: false,
      make: (dir) => {
        writeFileSync(join(dir, 'real.csv'), 'keep me\n');
        symlinkSync(join(dir, 'real.csv'), join(dir, 'codes.csv'));
        return { link: join(dir, 'codes.csv'), pointsTo: join(dir, 'real.csv') };
      },
    },
    {
      name: 'a dangling link',
      force: false,
      dangling: true,
      make: (dir) => {
        symlinkSync(join(dir, 'elsewhere', 'planted.csv'), join(dir, 'codes.csv'));
        return { link: join(dir, 'codes.csv'), pointsTo: join(dir, 'elsewhere', 'planted.csv') };
      },
    },
    {
      name: 'a link with --force',
      force: true,
      make: (dir) => {
        writeFileSync(join(dir, 'real.csv'), 'keep me\n');
        symlinkSync('real.csv', join(dir, 'codes.csv'));
        return { link: join(dir, 'codes.csv'), pointsTo: 'real.csv' };
      },
    },
    {
      name: 'a dangling link with --force',
      force: true,
      dangling: true,
      make: (dir) => {
        symlinkSync('planted.csv', join(dir, 'codes.csv'));
        return { link: join(dir, 'codes.csv'), pointsTo: 'planted.csv' };
      },
    },
    {
      name: 'a link to a directory',
      force: false,
      make: (dir) => {
        mkdirSync(join(dir, 'real'));
        symlinkSync(join(dir, 'real'), join(dir, 'codes.csv'));
        return { link: join(dir, 'codes.csv'), pointsTo: join(dir, 'real') };
      },
    },
  ];

  for (const variant of variants) {
    it(`order place --out ${variant.name}: refused (exit 2) before the order is placed, the link untouched`, async () => {
      const dir = tempDir();
      const { link, pointsTo } = variant.make(dir);
      const before = await ledger(server);
      const args = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--out', link, '--interval', '0.1', ...(variant.force ? ['--force'] : [])];
      const result = await runCli(args, { configDir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${link} is a symbolic link to ${pointsTo}`);
      if (variant.dangling) expect(result.stderr).toContain('does not exist');
      if (variant.force) expect(result.stderr).toContain('--force does not replace a link');
      expect(result.stderr).toMatch(/hint: give the real path \(--out .+\), or remove the link first: rm /);
      expect((await ledger(server)).orders).toEqual(before.orders);
      expectLinkIntact(link, pointsTo);
      if (existsSync(join(dir, 'real.csv'))) expect(readFileSync(join(dir, 'real.csv'), 'utf8')).toBe('keep me\n');
      expect(existsSync(join(dir, 'planted.csv'))).toBe(false);
      expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
      expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
    });
  }

  it('codes get and order watch refuse a link too, in --json with the code out_is_symlink', async () => {
    const placed = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--wait', '--interval', '0.1', '--json'], { configDir });
    expect(placed.code, placed.stderr).toBe(0);
    const id = JSON.parse(placed.stdout).id as string;
    const dir = tempDir();
    symlinkSync('planted.csv', join(dir, 'codes.csv'));
    for (const args of [
      ['codes', 'get', id, '--out', join(dir, 'codes.csv'), '--json'],
      ['order', 'watch', id, '--out', join(dir, 'codes.csv'), '--force', '--interval', '0.1', '--json'],
    ]) {
      const result = await runCli(args, { configDir });
      expect(result.code, args.join(' ')).toBe(2);
      expect(JSON.parse(result.stderr).error).toMatchObject({ code: 'out_is_symlink', exitCode: 2 });
    }
    expect(existsSync(join(dir, 'planted.csv'))).toBe(false);
    expectLinkIntact(join(dir, 'codes.csv'), 'planted.csv');
  });
});

describe('one writer per --out path', () => {
  let server: TestServer;
  const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
  let first: string;
  let second: string;
  beforeAll(async () => {
    // Every answer takes 150 ms: an export of many pages lasts long enough for a second run to meet it.
    server = await startServer(['--fulfil-after', '0', '--latency', '150']);
    const ids: string[] = [];
    for (const quantity of [3000, 5]) {
      const placed = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', String(quantity), '--wait', '--interval', '0.1', '--json'], { baseUrl: server.url, env });
      expect(placed.code, placed.stderr).toBe(0);
      ids.push(JSON.parse(placed.stdout).id as string);
    }
    [first, second] = ids as [string, string];
  });
  afterAll(() => server.stop());

  /** Starts `codes get <first> --out target` and resolves once its lock is beside the target. */
  async function firstWriter(target: string) {
    const run = spawnCli(['codes', 'get', first, '--out', target, '--format', 'jsonl'], { baseUrl: server.url, env, timeoutMs: 120_000 });
    run.proc.stdin?.end();
    const lock = join(target, '..', `.codes.jsonl.giftcodes.lock`);
    while (!existsSync(lock)) {
      if (run.proc.exitCode !== null) throw new Error(`the first run ended before taking the lock: ${(await run.result).stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return { ...run, lock };
  }

  it('a second codes get to the same path fails at once with out_busy naming the first pid; the file is the first run\'s, whole', async () => {
    const target = join(tempDir(), 'codes.jsonl');
    const winner = await firstWriter(target);
    const loser = await runCli(['codes', 'get', second, '--out', target, '--format', 'jsonl', '--force', '--json'], { baseUrl: server.url, env });
    expect(loser.code, loser.stderr).toBe(2);
    const error = JSON.parse(loser.stderr).error;
    expect(error).toMatchObject({ code: 'out_busy', exitCode: 2 });
    expect(error.message).toContain(`pid ${winner.proc.pid}`);
    expect(error.message).toContain(target);
    const won = await winner.result;
    expect(won.code, won.stderr).toBe(0);
    const records = readFileSync(target, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { code: string });
    const expected = await runCli(['codes', 'get', first, '--format', 'jsonl'], { baseUrl: server.url, env });
    expect(records).toEqual(expected.stdout.trimEnd().split('\n').map((line) => JSON.parse(line)));
    expect(records).toHaveLength(3000);
    expect(existsSync(winner.lock)).toBe(false);
    expect(readdirSync(join(target, '..'))).toEqual(['codes.jsonl']);
  });

  it('a stopped writer (SIGSTOP) still holds the path: the second run is refused, the first completes after SIGCONT', async () => {
    const target = join(tempDir(), 'codes.jsonl');
    const stopped = await firstWriter(target);
    stopped.proc.kill('SIGSTOP');
    try {
      const loser = await runCli(['codes', 'get', second, '--out', target, '--format', 'jsonl', '--force'], { baseUrl: server.url, env });
      expect(loser.code, loser.stderr).toBe(2);
      expect(loser.stderr).toContain(`another giftcodes process (pid ${stopped.proc.pid}) is writing ${target}`);
      expect(loser.stderr).toContain(`hint: wait for pid ${stopped.proc.pid} to finish`);
    } finally {
      stopped.proc.kill('SIGCONT');
    }
    const done = await stopped.result;
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(target, 'utf8').trimEnd().split('\n')).toHaveLength(3000);
  });

  it('a lock left by a killed writer is taken over by the next run', async () => {
    const target = join(tempDir(), 'codes.jsonl');
    const killed = await firstWriter(target);
    killed.proc.kill('SIGKILL');
    await killed.result;
    expect(existsSync(killed.lock)).toBe(true);
    const next = await runCli(['codes', 'get', second, '--out', target, '--format', 'jsonl'], { baseUrl: server.url, env });
    expect(next.code, next.stderr).toBe(0);
    expect(readFileSync(target, 'utf8').trimEnd().split('\n')).toHaveLength(5);
    expect(readdirSync(join(target, '..'))).toEqual(['codes.jsonl']);
  });
});
