// The asynchronous durable writes of the journal (issue 16): a directory fsync shared by the callers that
// ask while one runs, never one that began before a caller asked; staged files that leave nothing behind.
// A directory fsync that fails is exit 8 naming the directory, for every caller it served (issue 21).
import * as fs from 'node:fs';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  fsyncDirectory,
  stageFile,
  syncDirectory,
  writeFileAtomic,
  writeFileAtomicSync,
} from '../../src/files/atomic.js';
import { tempDir } from '../helpers/e2e.js';

/** Directory fsyncs begun (through the mocked open(dir, 'r')), each finished (or failed with an errno) by the test. */
const dirSyncs: { dir: string; finish: () => void; fail: (code: string) => void }[] = [];
let holdDirSyncs = false;
/** An errno the next opens of a directory fail with (async), or its fsyncs (sync), when set. */
let dirOpenFails: string | undefined;
let dirFsyncSyncFails: string | undefined;
/** At most this many bytes a write call of a file (the system may write less than asked), when set. */
let writeAtMost: number | undefined;
/** An errno the next fsyncs of a file fail with, when set. */
let fileFsyncFails: string | undefined;
/** A file's fsyncs and the renames, in order. */
const fileSteps: string[] = [];

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated`), { code });
}

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  type Done<T> = (error: NodeJS.ErrnoException | null, value?: T) => void;
  /** Directories "opened" while syncs are held: descriptors of no file, whose fsync waits for the test. */
  const held = new Map<number, string>();
  let nextHeld = 1_000_000;
  return {
    ...real,
    open: (path: string, flags: string, mode: number | undefined, done: Done<number>) => {
      if (flags === 'r' && dirOpenFails) return process.nextTick(done, errno(dirOpenFails));
      if (!holdDirSyncs || flags !== 'r') return real.open(path, flags, mode, done);
      held.set(nextHeld, path);
      process.nextTick(done, null, nextHeld++);
    },
    write: (fd: number, bytes: Buffer, offset: number, length: number, position: number, done: Done<number>) =>
      real.write(fd, bytes, offset, Math.min(length, writeAtMost ?? length), position, done),
    renameSync: (from: string, to: string) => {
      real.renameSync(from, to);
      fileSteps.push(`rename ${to}`);
    },
    fsync: (fd: number, done: Done<void>) => {
      const dir = held.get(fd);
      if (dir === undefined && real.fstatSync(fd).isFile()) {
        if (fileFsyncFails) return process.nextTick(done, errno(fileFsyncFails));
        fileSteps.push(`fsync ${real.fstatSync(fd).size} bytes`);
      }
      if (dir === undefined) return real.fsync(fd, done);
      dirSyncs.push({ dir, finish: () => done(null), fail: (code) => done(errno(code)) });
    },
    close: (fd: number, done: Done<void>) => {
      if (!held.delete(fd)) return real.close(fd, done);
      process.nextTick(done, null);
    },
    fsyncSync: (fd: number) => {
      if (dirFsyncSyncFails && real.fstatSync(fd).isDirectory()) throw errno(dirFsyncSyncFails);
      real.fsyncSync(fd);
    },
  };
});

/** The fsyncs begun of one directory: a test's own, whatever an earlier test left running. */
const of = (dir: string) => dirSyncs.filter((sync) => sync.dir === dir);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('syncDirectory', () => {
  it('a caller who asks while an fsync runs waits for the next one, which serves every such caller', async () => {
    holdDirSyncs = true;
    try {
      const first = syncDirectory('/d');
      await until(() => dirSyncs.length === 1);
      const done: string[] = [];
      const second = syncDirectory('/d').then(() => done.push('second'));
      const third = syncDirectory('/d').then(() => done.push('third'));
      const elsewhere = syncDirectory('/e').then(() => done.push('elsewhere'));
      await until(() => dirSyncs.length === 2);
      expect(dirSyncs.map((s) => s.dir)).toEqual(['/d', '/e']);
      dirSyncs[0]!.finish();
      await first;
      // The running fsync began before they asked: it does not cover their renames.
      await until(() => dirSyncs.length === 3);
      expect(done).toEqual([]);
      dirSyncs[2]!.finish();
      await Promise.all([second, third]);
      expect(done.sort()).toEqual(['second', 'third']);
      dirSyncs[1]!.finish();
      await elsewhere;
      expect(dirSyncs).toHaveLength(3);
      // Nothing running: the next caller starts its own at once.
      const later = syncDirectory('/d');
      await until(() => dirSyncs.length === 4);
      dirSyncs[3]!.finish();
      await later;
    } finally {
      holdDirSyncs = false;
      dirSyncs.length = 0;
    }
  });
});

describe('a directory fsync that fails', () => {
  const inDirectory = (dir: string, code: string) => ({
    exitCode: 8,
    code: 'local_error',
    message: `cannot write the directory ${dir}: ${reasonOf(code)} (${code})`,
  });
  const reasonOf = (code: string) =>
    code === 'EIO'
      ? 'an input/output error from the disk'
      : code === 'ENOSPC'
        ? 'no space left on the device'
        : 'permission denied';

  it('is exit 8 naming the directory, for every caller it served; the next one still runs for its own callers', async () => {
    holdDirSyncs = true;
    try {
      const first = syncDirectory('/f').catch((error: unknown) => error);
      await until(() => of('/f').length === 1);
      const second = syncDirectory('/f').catch((error: unknown) => error);
      const third = syncDirectory('/f').catch((error: unknown) => error);
      of('/f')[0]!.fail('EIO');
      expect(await first).toMatchObject(inDirectory('/f', 'EIO'));
      // The one that failed began before they asked: theirs runs all the same.
      await until(() => of('/f').length === 2);
      const fourth = syncDirectory('/f').then(() => 'synced');
      of('/f')[1]!.fail('ENOSPC');
      expect(await second).toMatchObject(inDirectory('/f', 'ENOSPC'));
      expect(await third).toMatchObject(inDirectory('/f', 'ENOSPC'));
      await until(() => of('/f').length === 3);
      of('/f')[2]!.finish();
      await expect(fourth).resolves.toBe('synced');
    } finally {
      holdDirSyncs = false;
      dirSyncs.length = 0;
    }
  });

  it('a directory that cannot be opened to fsync it is reported too', async () => {
    dirOpenFails = 'EACCES';
    try {
      await expect(syncDirectory('/g')).rejects.toMatchObject(inDirectory('/g', 'EACCES'));
    } finally {
      dirOpenFails = undefined;
    }
  });

  it('after writeFileAtomic: exit 8 naming the directory; the file is in place', async () => {
    const dir = tempDir();
    holdDirSyncs = true;
    try {
      const written = writeFileAtomic(join(dir, 'a.json'), 'a', 'journal file').catch((error: unknown) => error);
      await until(() => of(dir).length === 1);
      of(dir)[0]!.fail('EIO');
      expect(await written).toMatchObject(inDirectory(dir, 'EIO'));
      expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('a');
    } finally {
      holdDirSyncs = false;
      dirSyncs.length = 0;
    }
  });

  it('after writeFileAtomicSync: exit 8 naming the directory, with the hint for its cause; the file is in place', () => {
    const dir = tempDir();
    dirFsyncSyncFails = 'EIO';
    try {
      expect(() => writeFileAtomicSync(join(dir, 'config.json'), '{}', 'config file')).toThrow(
        expect.objectContaining({ ...inDirectory(dir, 'EIO'), hint: expect.stringContaining('dmesg') }),
      );
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{}');
      expect(readdirSync(dir)).toEqual(['config.json']);
    } finally {
      dirFsyncSyncFails = undefined;
    }
  });

  it.each(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF'])(
    'is tolerated when it says the file system cannot fsync a directory (%s)',
    async (code) => {
      const dir = tempDir();
      dirFsyncSyncFails = code;
      try {
        expect(() => fsyncDirectory(dir)).not.toThrow();
        expect(() => writeFileAtomicSync(join(dir, 'b.json'), 'b')).not.toThrow();
      } finally {
        dirFsyncSyncFails = undefined;
      }
      holdDirSyncs = true;
      try {
        const synced = syncDirectory(dir).then(() => 'synced');
        await until(() => of(dir).length === 1);
        of(dir)[0]!.fail(code);
        await expect(synced).resolves.toBe('synced');
      } finally {
        holdDirSyncs = false;
        dirSyncs.length = 0;
      }
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'a real one: Linux answers EINVAL for a directory without fsync (/proc), which is tolerated',
    async () => {
      const fd = fs.openSync('/proc', 'r');
      try {
        expect(() => fs.fsyncSync(fd)).toThrow(expect.objectContaining({ code: 'EINVAL' }));
      } finally {
        fs.closeSync(fd);
      }
      expect(() => fsyncDirectory('/proc')).not.toThrow();
      await expect(syncDirectory('/proc')).resolves.toBeUndefined();
    },
  );
});

describe('writeFileAtomic and stageFile', () => {
  it('many writes at once: every file whole, 0600, no temporary file left', async () => {
    const dir = join(tempDir(), 'many');
    mkdirSync(dir);
    await Promise.all(Array.from({ length: 40 }, (_, i) => writeFileAtomic(join(dir, `f${i}.json`), `{"n":${i}}\n`)));
    expect(readdirSync(dir).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `f${i}.json`).sort());
    expect(readFileSync(join(dir, 'f7.json'), 'utf8')).toBe('{"n":7}\n');
  });

  it('a staged file is invisible until commit; discarded, nothing is left; committed, discard keeps it', async () => {
    const dir = join(tempDir(), 'staged');
    mkdirSync(dir);
    const dropped = await stageFile(join(dir, 'a.json'), 'a');
    expect(existsSync(join(dir, 'a.json'))).toBe(false);
    await dropped.discard();
    expect(readdirSync(dir)).toEqual([]);
    const kept = await stageFile(join(dir, 'b.json'), 'b');
    kept.commit();
    await kept.discard();
    expect(readdirSync(dir)).toEqual(['b.json']);
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe('b');
  });

  it('a file the system takes a few bytes at a time is written whole, fsynced whole, then renamed into place', async () => {
    const dir = join(tempDir(), 'short-writes');
    mkdirSync(dir);
    const text = `${'{"product":"amazon-us-25","note":"é€😀"}\n'.repeat(40)}`;
    fileSteps.length = 0;
    writeAtMost = 7;
    try {
      await writeFileAtomic(join(dir, 'f.json'), text);
    } finally {
      writeAtMost = undefined;
    }
    expect(readFileSync(join(dir, 'f.json'), 'utf8')).toBe(text);
    expect(fileSteps).toEqual([`fsync ${Buffer.byteLength(text)} bytes`, `rename ${join(dir, 'f.json')}`]);
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it("a file's fsync that fails is exit 8 naming it: nothing renamed, no temporary file left, the target as it was", async () => {
    const dir = join(tempDir(), 'fsync-fails');
    mkdirSync(dir);
    await writeFileAtomic(join(dir, 'f.json'), 'before');
    fileSteps.length = 0;
    fileFsyncFails = 'EIO';
    try {
      await expect(writeFileAtomic(join(dir, 'f.json'), 'after', 'journal file')).rejects.toMatchObject({
        exitCode: 8,
        message: expect.stringContaining(`journal file ${join(dir, 'f.json')}`),
      });
    } finally {
      fileFsyncFails = undefined;
    }
    expect(fileSteps).toEqual([]);
    expect(readdirSync(dir)).toEqual(['f.json']);
    expect(readFileSync(join(dir, 'f.json'), 'utf8')).toBe('before');
  });

  it.skipIf(process.platform !== 'linux')(
    'every descriptor it opens is closed, of files and of directories, written, failed or discarded: a plan of 1,000 rows writes the journal thousands of times',
    async () => {
      const dir = join(tempDir(), 'descriptors');
      mkdirSync(dir);
      const open = (): number => readdirSync('/proc/self/fd').length;
      const before = open();
      await Promise.all(Array.from({ length: 30 }, (_, i) => writeFileAtomic(join(dir, `f${i}.json`), `{"n":${i}}`)));
      await Promise.all(Array.from({ length: 10 }, () => syncDirectory(dir)));
      await (await stageFile(join(dir, 'dropped.json'), 'x')).discard();
      fileFsyncFails = 'EIO';
      try {
        await expect(writeFileAtomic(join(dir, 'failed.json'), 'x')).rejects.toMatchObject({ exitCode: 8 });
      } finally {
        fileFsyncFails = undefined;
      }
      expect(open()).toBe(before);
      expect(readdirSync(dir)).toHaveLength(30);
    },
  );

  it('an unwritable place is a LocalError naming the file, and leaves no temporary file', async () => {
    const dir = join(tempDir(), 'missing', 'deeper');
    await expect(writeFileAtomic(join(dir, 'x.json'), 'x', 'journal file')).rejects.toMatchObject({
      exitCode: 8,
      message: expect.stringContaining(join(dir, 'x.json')),
    });
  });
});
