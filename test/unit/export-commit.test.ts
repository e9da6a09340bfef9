// The delivery tail of a codes file (export/write.ts): the complete temporary file is fsynced, recorded
// (beforeCommit), linked or renamed into place, and its directory fsynced; whatever appeared at the target
// meanwhile is left untouched; a file system without hard links gets check-then-rename; the temporary files
// of dead writers are swept, no one else's.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { exportCodes } from '../../src/export/write.js';
import { removeStaleFor, removeStaleTemps } from '../../src/files/codes-temps.js';
import type { Io } from '../../src/output/io.js';
import { deadPid, tempDir } from '../helpers/e2e.js';
import { twoPageApi } from '../helpers/inprocess.js';

/** What the tail did, in order: the temporary file's fsync, the link or rename, the directory's fsync. */
const steps = vi.hoisted(() => [] as string[]);
/** Errnos the next link / rename / directory fsync fail with, when set. */
const fail = vi.hoisted(() => ({
  link: undefined as string | undefined,
  rename: undefined as string | undefined,
  dirSync: undefined as string | undefined,
  /** The codes file's writes (writeSync of a regular file): an errno, or at most this many bytes a call. */
  write: undefined as string | undefined,
  writeAtMost: undefined as number | undefined,
}));
const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: simulated`), { code });

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      if (args[1] !== 'wx+') return handle;
      const sync = handle.sync.bind(handle);
      return Object.assign(handle, { sync: async () => (await sync(), steps.push('file fsync')) });
    },
    link: async (from: string, to: string) => {
      if (fail.link) throw errno(fail.link);
      await real.link(from, to);
      steps.push('link');
    },
    rename: async (from: string, to: string) => {
      if (fail.rename) throw errno(fail.rename);
      await real.rename(from, to);
      steps.push('rename');
    },
  };
});

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    fsyncSync: (fd: number) => {
      if (real.fstatSync(fd).isDirectory()) {
        if (fail.dirSync) throw errno(fail.dirSync);
        steps.push('directory fsync');
      }
      real.fsyncSync(fd);
    },
    writeSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => {
      if (real.fstatSync(fd).isFile()) {
        if (fail.write) throw errno(fail.write);
        if (fail.writeAtMost !== undefined) length = Math.min(length, fail.writeAtMost);
      }
      return real.writeSync(fd, buffer, offset, length, position);
    },
  };
});

afterEach(() => {
  steps.length = 0;
  fail.link = fail.rename = fail.dirSync = fail.write = undefined;
  fail.writeAtMost = undefined;
});

const CODES = '{"code":"A-1"}\n{"code":"A-2"}\n';

function exportTo(
  out: string,
  o: { force?: boolean; between?: () => void; beforeCommit?: (temp: string) => void } = {},
) {
  return exportCodes({
    api: twoPageApi(o.between ?? (() => undefined)),
    orderId: 'ord_1',
    out,
    format: 'jsonl',
    force: o.force ?? false,
    csvRaw: false,
    io: {} as Io,
    signal: new AbortController().signal,
    ...(o.beforeCommit ? { beforeCommit: o.beforeCommit } : {}),
  });
}

describe('the tail of a codes file', () => {
  it('fsync, the record of the complete file, link, directory fsync; the same file (inode) becomes the target, no temporary file stays', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    let recorded: { temp: string; ino: number; bytes: string } | undefined;
    const result = await exportTo(target, {
      beforeCommit: (temp) => {
        steps.push('recorded');
        recorded = { temp, ino: statSync(temp).ino, bytes: readFileSync(temp, 'utf8') };
      },
    });
    expect(steps).toEqual(['file fsync', 'recorded', 'link', 'directory fsync']);
    expect(result).toEqual({ path: target, count: 2, format: 'jsonl' });
    expect(recorded!.temp).toMatch(
      new RegExp(`^${dir}/\\.codes\\.jsonl\\.giftcodes-${process.pid}-[0-9a-f]{12}\\.tmp$`),
    );
    expect(recorded!.bytes).toBe(CODES);
    expect(statSync(target).ino).toBe(recorded!.ino);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });

  it('--force renames over the existing file', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    writeFileSync(target, 'old\n');
    await exportTo(target, { force: true });
    expect(steps).toEqual(['file fsync', 'rename', 'directory fsync']);
    expect(readFileSync(target, 'utf8')).toBe(CODES);
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });

  it('a file that appeared at the target meanwhile is left untouched (exit 2, out_exists, how to go on)', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    const error = await exportTo(target, { between: () => writeFileSync(target, 'theirs\n') }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: ExitCode.usage,
      code: 'out_exists',
      message: `${target} appeared while the codes were being fetched; it was left untouched`,
      hint: 'pass --force to overwrite it, or choose another --out file',
    });
    expect(readFileSync(target, 'utf8')).toBe('theirs\n');
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });

  it('--force: a directory that appeared at the target is not replaced (exit 2, out_not_a_file)', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    const error = await exportTo(target, { force: true, between: () => mkdirSync(target) }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: ExitCode.usage,
      code: 'out_not_a_file',
      message: `${target} is not a regular file (not a file); it was left untouched`,
      hint: 'give the path of a file',
    });
    expect(statSync(target).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });

  it('a directory fsync that fails is exit 8 naming the directory; the file is in place', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    fail.dirSync = 'EIO';
    const error = await exportTo(target).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: ExitCode.local,
      message: `cannot write the directory ${dir}: an input/output error from the disk (EIO)`,
    });
    expect(readFileSync(target, 'utf8')).toBe(CODES);
  });

  it('a failing rename (--force) or link is exit 8 write_failed naming the file; no temporary file stays, the old file kept', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    writeFileSync(target, 'old\n');
    fail.rename = 'ENOSPC';
    await expect(exportTo(target, { force: true })).rejects.toMatchObject({
      exitCode: ExitCode.local,
      code: 'write_failed',
      message: `cannot write the codes file ${target}: no space left on the device (ENOSPC)`,
    });
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
    expect(readFileSync(target, 'utf8')).toBe('old\n');
    const fresh = join(dir, 'fresh.jsonl');
    fail.link = 'EIO';
    await expect(exportTo(fresh)).rejects.toMatchObject({
      exitCode: ExitCode.local,
      code: 'write_failed',
      message: expect.stringContaining(fresh),
    });
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });
});

describe('a file system without hard links', () => {
  it.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK'])(
    '(link: %s) checks the target, then renames',
    async (code) => {
      const dir = tempDir();
      const target = join(dir, 'codes.jsonl');
      fail.link = code;
      await exportTo(target);
      expect(steps).toEqual(['file fsync', 'rename', 'directory fsync']);
      expect(readFileSync(target, 'utf8')).toBe(CODES);
      expect(readdirSync(dir)).toEqual(['codes.jsonl']);
    },
  );

  it('a file that appeared meanwhile is left untouched there too; a failing rename is exit 8', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    fail.link = 'EPERM';
    await expect(exportTo(target, { between: () => writeFileSync(target, 'theirs\n') })).rejects.toMatchObject({
      code: 'out_exists',
      message: expect.stringContaining('appeared while the codes were being fetched'),
    });
    expect(readFileSync(target, 'utf8')).toBe('theirs\n');
    expect(steps).not.toContain('rename');
    const other = join(dir, 'other.jsonl');
    fail.rename = 'EROFS';
    await expect(exportTo(other)).rejects.toMatchObject({
      exitCode: ExitCode.local,
      code: 'write_failed',
      message: `cannot write the codes file ${other}: the file system is read-only (EROFS)`,
    });
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });
});

describe("the codes file's writes (on the main thread: writeSync)", () => {
  it('a write that takes fewer bytes than asked is followed by the rest, each at its place in the file', async () => {
    for (const most of [1, 3, 7]) {
      const dir = tempDir();
      const target = join(dir, 'codes.jsonl');
      fail.writeAtMost = most;
      await exportTo(target);
      expect(readFileSync(target, 'utf8'), `at most ${most} bytes a write`).toBe(CODES);
    }
  });

  it('a failing write is exit 8 write_failed naming the file and the errno; no temporary file stays, the old file kept', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    writeFileSync(target, 'old\n');
    for (const [code, words] of [
      ['ENOSPC', 'no space left on the device'],
      ['EIO', 'an input/output error from the disk'],
    ]) {
      fail.write = code;
      await expect(exportTo(target, { force: true })).rejects.toMatchObject({
        exitCode: ExitCode.local,
        code: 'write_failed',
        message: `cannot write the codes file ${target}: ${words} (${code})`,
      });
      expect(readFileSync(target, 'utf8')).toBe('old\n');
      expect(readdirSync(dir)).toEqual(['codes.jsonl']);
    }
  });
});

describe('removeStaleTemps', () => {
  it("removes a dead writer's temporary files of this prefix, and nothing else", () => {
    const dir = tempDir();
    const prefix = '.codes.csv.giftcodes-';
    const dead = deadPid();
    const hex = '0123456789ab';
    const names = {
      dead: `${prefix}${dead}-${hex}.tmp`,
      live: `${prefix}${process.ppid}-${hex}.tmp`,
      mine: `${prefix}${process.pid}-${hex}.tmp`,
      notTmp: `${prefix}${dead}-${hex}.part`,
      otherTarget: `.other.csv.giftcodes-${dead}-${hex}.tmp`,
      zero: `${prefix}0-${hex}.tmp`,
      noPid: `${prefix}x-${hex}.tmp`,
      huge: `${prefix}99999999999999999999-${hex}.tmp`,
      // A live writer's file of a target whose name begins as this prefix's files do (`codes.csv.giftcodes-<dead>-z.csv`):
      // its pid is further on, and a review had it taken for the dead pid's.
      lookalike: `${prefix}${dead}-z.csv.giftcodes-${process.ppid}-${hex}.tmp`,
      // The same whose writer is dead too: that target's file, for its own next run to judge.
      lookalikeDead: `${prefix}${process.ppid}-z.csv.giftcodes-${dead}-${hex}.tmp`,
      trailing: `${prefix}${dead}-${hex}.tmp.x`,
      shortRandom: `${prefix}${dead}-abc.tmp`,
    };
    for (const name of Object.values(names)) writeFileSync(join(dir, name), '');
    removeStaleTemps(dir, prefix);
    expect(readdirSync(dir).sort()).toEqual(
      Object.values(names)
        .filter((n) => n !== names.dead)
        .sort(),
    );
  });

  it("removeStaleFor: a target's temporary files and its comparison copies with theirs, a dead run's only", () => {
    const dir = tempDir();
    const [dead, other] = [deadPid(), deadPid()];
    const hex = '0123456789ab';
    const copy = (pid: number): string => `.codes.csv.giftcodes-check-${pid}-${hex}.tmp`;
    const gone = [`.codes.csv.giftcodes-${dead}-${hex}.tmp`, copy(dead), `.${copy(dead)}.giftcodes-${dead}-${hex}.tmp`];
    const kept = [
      'codes.csv',
      copy(process.ppid),
      `.${copy(process.ppid)}.giftcodes-${process.ppid}-${hex}.tmp`,
      // Written by another pid than its copy's name says: not a comparison's own temporary file.
      `.${copy(dead)}.giftcodes-${other}-${hex}.tmp`,
      `.${copy(dead)}.giftcodes-${dead}-${hex}.tmp.giftcodes-${dead}-${hex}.tmp`,
      `.${copy(dead)}.x`,
      `.other.csv.giftcodes-check-${dead}-${hex}.tmp`,
      // Another target's comparison temporary file, its name as long as this one's.
      `..other.csv.giftcodes-check-${dead}-${hex}.tmp.giftcodes-${dead}-${hex}.tmp`,
    ];
    for (const name of [...gone, ...kept]) writeFileSync(join(dir, name), '');
    removeStaleFor(join(dir, 'codes.csv'), undefined, new Set([dead, other]));
    expect(readdirSync(dir).sort()).toEqual(kept.toSorted());
    // Of other pids than `only`'s: left.
    const elsewhere = tempDir();
    for (const name of gone) writeFileSync(join(elsewhere, name), '');
    removeStaleFor(join(elsewhere, 'codes.csv'), undefined, new Set([other]));
    expect(readdirSync(elsewhere).sort()).toEqual(gone.toSorted());
    // Names that only look like a comparison's temporary file: no pid to judge, so never removed.
    const malformed = [
      `..codes.csv.giftcodes-check-x.tmp.giftcodes-y`,
      `..codes.csv.giftcodes-check-${dead}-${hex}.tmp`,
      `..codes.csv.giftcodes-check-${dead}-${hex}.tmp.giftcodes-x`,
    ];
    for (const name of malformed) writeFileSync(join(elsewhere, name), '');
    removeStaleFor(join(elsewhere, 'codes.csv'));
    expect(readdirSync(elsewhere).sort()).toEqual(malformed.toSorted());
  });

  it('with `only`, just the files of those pids', () => {
    const dir = tempDir();
    const prefix = '.codes.csv.giftcodes-';
    const [ours, theirs] = [deadPid(), deadPid()];
    writeFileSync(join(dir, `${prefix}${ours}-0123456789ab.tmp`), '');
    writeFileSync(join(dir, `${prefix}${theirs}-0123456789ab.tmp`), '');
    removeStaleTemps(dir, prefix, undefined, new Set([ours]));
    expect(readdirSync(dir)).toEqual([`${prefix}${theirs}-0123456789ab.tmp`]);
  });

  it("a directory that cannot be read is left alone; an export sweeps its own target's leftovers before it writes", async () => {
    expect(() => removeStaleTemps(join(tempDir(), 'missing'), '.x.giftcodes-')).not.toThrow();
    const dir = tempDir();
    const dead = deadPid();
    writeFileSync(join(dir, `.codes.jsonl.giftcodes-${dead}-0123456789ab.tmp`), 'half');
    writeFileSync(join(dir, `.other.jsonl.giftcodes-${dead}-0123456789ab.tmp`), 'half');
    await exportTo(join(dir, 'codes.jsonl'));
    expect(readdirSync(dir).sort()).toEqual([`.other.jsonl.giftcodes-${dead}-0123456789ab.tmp`, 'codes.jsonl']);
    expect(existsSync(join(dir, 'codes.jsonl'))).toBe(true);
  });
});
