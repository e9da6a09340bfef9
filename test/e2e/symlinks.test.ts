// --out a symbolic link is refused before anything is charged (exit 2, naming the link and where it
// points), also with --force; and one writer per --out path: a second run while the first writes fails
// at once with out_busy, also when the first is stopped (SIGSTOP), and the file is the first run's, whole.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, runCli, servedApi, spawnCli, tempDir } from '../helpers/e2e.js';

function expectLinkIntact(link: string, pointsTo: string): void {
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readlinkSync(link)).toBe(pointsTo);
}

describe('--out a symbolic link', () => {
  const served = servedApi(['--fulfil-after', '0'], { login: true });

  const variants: {
    name: string;
    make: (dir: string) => { link: string; pointsTo: string };
    force: boolean;
    dangling?: boolean;
  }[] = [
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
      const { configDir } = served;
      const dir = tempDir();
      const { link, pointsTo } = variant.make(dir);
      const before = await ledger(served.server);
      const args = [
        'order',
        'place',
        '--product',
        'amazon-us-25',
        '--quantity',
        '1',
        '--out',
        link,
        '--interval',
        '0.1',
        ...(variant.force ? ['--force'] : []),
      ];
      const result = await runCli(args, { configDir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${link} is a symbolic link to ${pointsTo}`);
      if (variant.dangling) expect(result.stderr).toContain('does not exist');
      if (variant.force) expect(result.stderr).toContain('--force does not replace a link');
      expect(result.stderr).toMatch(/hint: give the real path \(--out .+\), or remove the link first: rm /);
      expect((await ledger(served.server)).orders).toEqual(before.orders);
      expectLinkIntact(link, pointsTo);
      if (existsSync(join(dir, 'real.csv'))) expect(readFileSync(join(dir, 'real.csv'), 'utf8')).toBe('keep me\n');
      expect(existsSync(join(dir, 'planted.csv'))).toBe(false);
      expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
      expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
    });
  }

  it('codes get and order watch refuse a link too, in --json with the code out_is_symlink', async () => {
    const { configDir } = served;
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--wait', '--interval', '0.1', '--json'],
      { configDir },
    );
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
  const BIG = 10_000;
  // Every answer takes 250 ms: an export of ten pages lasts long enough for a second run to meet it.
  const served = servedApi(['--fulfil-after', '0', '--latency', '250']);
  const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
  let first: string;
  let second: string;
  let third: string;
  beforeAll(async () => {
    const ids: string[] = [];
    for (const quantity of [BIG, 5, BIG]) {
      const placed = await runCli(
        [
          'order',
          'place',
          '--product',
          'amazon-us-25',
          '--quantity',
          String(quantity),
          '--wait',
          '--interval',
          '0.1',
          '--json',
        ],
        { baseUrl: served.url, env },
      );
      expect(placed.code, placed.stderr).toBe(0);
      ids.push(JSON.parse(placed.stdout).id as string);
    }
    [first, second, third] = ids as [string, string, string];
  });

  /** Codes written to a temporary file beside the target: the export is under way (the pre-flight's brief lock is not). */
  function exporting(dir: string): boolean {
    return readdirSync(dir).some((name) => {
      if (!name.endsWith('.tmp')) return false;
      try {
        return statSync(join(dir, name)).size > 1000;
      } catch {
        return false;
      }
    });
  }

  /** Starts `codes get <first> --out target` and resolves once it is writing the codes, holding the lock. */
  async function firstWriter(target: string) {
    const run = spawnCli(['codes', 'get', first, '--out', target, '--format', 'jsonl'], {
      baseUrl: served.url,
      env,
      timeoutMs: 120_000,
    });
    run.proc.stdin?.end();
    const lock = join(target, '..', `.codes.jsonl.giftcodes.lock`);
    while (!exporting(join(target, '..'))) {
      if (run.proc.exitCode !== null)
        throw new Error(`the first run ended before writing: ${(await run.result).stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(existsSync(lock)).toBe(true);
    return { ...run, lock };
  }

  it("two codes get to one path at once: one writes, the other fails at once with out_busy; the file is the winner's, whole", async () => {
    const target = join(tempDir(), 'codes.jsonl');
    // Both exports take seconds (ten slow pages): started together, they overlap.
    const runs = [first, third].map((id) => {
      const run = spawnCli(['codes', 'get', id, '--out', target, '--format', 'jsonl', '--force', '--json'], {
        baseUrl: served.url,
        env,
        timeoutMs: 120_000,
      });
      run.proc.stdin?.end();
      return { id, pid: run.proc.pid, result: run.result };
    });
    const results = await Promise.all(runs.map((run) => run.result));
    expect(results.map((r) => r.code).sort(), results.map((r) => r.stderr).join('\n')).toEqual([0, 2]);
    const winner = runs[results.findIndex((r) => r.code === 0)]!;
    const loser = results.find((r) => r.code === 2)!;
    const error = JSON.parse(loser.stderr).error;
    expect(error).toMatchObject({ code: 'out_busy', exitCode: 2 });
    expect(error.message).toBe(`another giftcodes process (pid ${winner.pid}) is writing ${target}`);
    const records = readFileSync(target, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { code: string });
    const expected = await runCli(['codes', 'get', winner.id, '--format', 'jsonl'], { baseUrl: served.url, env });
    expect(records).toEqual(
      expected.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    );
    expect(records).toHaveLength(BIG);
    expect(readdirSync(join(target, '..'))).toEqual(['codes.jsonl']);
  });

  it('a stopped writer (SIGSTOP) still holds the path: the second run is refused, the first completes after SIGCONT', async () => {
    const target = join(tempDir(), 'codes.jsonl');
    const stopped = await firstWriter(target);
    stopped.proc.kill('SIGSTOP');
    try {
      const loser = await runCli(['codes', 'get', second, '--out', target, '--format', 'jsonl', '--force'], {
        baseUrl: served.url,
        env,
      });
      expect(loser.code, loser.stderr).toBe(2);
      expect(loser.stderr).toContain(`another giftcodes process (pid ${stopped.proc.pid}) is writing ${target}`);
      expect(loser.stderr).toContain(`hint: wait for pid ${stopped.proc.pid} to finish`);
    } finally {
      stopped.proc.kill('SIGCONT');
    }
    const done = await stopped.result;
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(target, 'utf8').trimEnd().split('\n')).toHaveLength(BIG);
  });

  it('a lock left by a killed writer is taken over by the next run', async () => {
    const target = join(tempDir(), 'codes.jsonl');
    const killed = await firstWriter(target);
    killed.proc.kill('SIGKILL');
    await killed.result;
    expect(existsSync(killed.lock)).toBe(true);
    const next = await runCli(['codes', 'get', second, '--out', target, '--format', 'jsonl'], {
      baseUrl: served.url,
      env,
    });
    expect(next.code, next.stderr).toBe(0);
    expect(readFileSync(target, 'utf8').trimEnd().split('\n')).toHaveLength(5);
    expect(readdirSync(join(target, '..'))).toEqual(['codes.jsonl']);
  });
});
