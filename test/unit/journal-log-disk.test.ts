// The log writer's disk calls, seen and faulted (src/journal/log.ts): compaction's steps in their order, each
// durable before the next (intent files, their directory fsync, removals, another, the log, another); a failed
// removal; short reads and writes; a write that fails; the real fdatasync; what a reader remembers of a log.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const hooks: {
  steps: string[];
  unlink?: ((file: string) => void) | undefined;
  maxRead?: number | undefined;
  maxWrite?: number | undefined;
  write?: (() => void) | undefined;
  writes: number;
  bytesRead: number;
  datasyncs: number;
  /** The error the next fdatasync given to the thread pool fails with. */
  datasyncError?: NodeJS.ErrnoException | undefined;
} = {
  steps: [],
  writes: 0,
  bytesRead: 0,
  datasyncs: 0,
};
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const unlinkSync = ((file: string) => {
    hooks.unlink?.(file);
    hooks.steps.push(`unlink ${basename(file)}`);
    fs.unlinkSync(file);
  }) as typeof fs.unlinkSync;
  const renameSync = ((from: string, to: string) => {
    if (from.endsWith('.log')) hooks.steps.push(`rename ${basename(from)} ${basename(to)}`);
    fs.renameSync(from, to);
  }) as typeof fs.renameSync;
  const readSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
    const n = fs.readSync(fd, buffer, offset, Math.min(length, hooks.maxRead ?? length), position);
    hooks.bytesRead += n;
    return n;
  }) as typeof fs.readSync;
  // Both forms the log uses: a Buffer's range, and a string (its position and encoding), each cut to maxWrite bytes.
  const writeSync = ((fd: number, data: Buffer | string, offset: number | null, length: number | BufferEncoding) => {
    hooks.write?.();
    hooks.writes++;
    if (typeof data === 'string') {
      const bytes = Buffer.from(data, typeof length === 'string' ? length : 'utf8');
      return fs.writeSync(fd, bytes, 0, Math.min(bytes.length, hooks.maxWrite ?? bytes.length));
    }
    const size = length as number;
    return fs.writeSync(fd, data, offset!, Math.min(size, hooks.maxWrite ?? size));
  }) as typeof fs.writeSync;
  const fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    hooks.datasyncs++;
    const failed = hooks.datasyncError;
    hooks.datasyncError = undefined;
    fs.fdatasync(fd, (error) => callback(failed ?? error));
  }) as typeof fs.fdatasync;
  const fdatasyncSync = ((fd: number) => {
    hooks.datasyncs++;
    fs.fdatasyncSync(fd);
  }) as typeof fs.fdatasyncSync;
  const mocked = { unlinkSync, renameSync, readSync, writeSync, fdatasync, fdatasyncSync };
  return { ...fs, ...mocked, default: { ...fs, ...mocked } };
});
vi.mock('../../src/files/atomic.js', async (importOriginal) => {
  const atomic = await importOriginal<typeof import('../../src/files/atomic.js')>();
  return {
    ...atomic,
    writeFileAtomic: (path: string, data: string, what?: string, o?: { syncDir?: boolean }) => {
      hooks.steps.push(`write ${basename(path)} as ${what} syncDir ${String(o?.syncDir)}`);
      return atomic.writeFileAtomic(path, data, what, o);
    },
    syncDirectory: (dir: string) => {
      hooks.steps.push('sync');
      return atomic.syncDirectory(dir);
    },
  };
});

const { readdirSync, readFileSync, statSync } = await import('node:fs');
const { newIntent } = await import('../../src/journal/intent.js');
const { currentOwner } = await import('../../src/journal/owner.js');
const { compactLog, intentFile, intentText, IntentLog, otherLogs, readLog } = await import('../../src/journal/log.js');
const { deadPid, journalDir } = await import('../helpers/e2e.js');
const { smallSpec: spec } = await import('../helpers/journal.js');
type Intent = import('../../src/journal/intent.js').Intent;

const T = '2026-06-01T12:00:00.000Z';
function intent(key: string, o: Partial<Intent> = {}): Intent {
  return { ...newIntent(spec, key, Date.parse(T)), phase: 'sending', ...o };
}

const line = (entry: unknown): string => `${JSON.stringify(entry)}\n`;

/** A dead process's log holding these lines after its header. */
function deadLog(dir: string, entries: readonly unknown[]): string {
  const pid = deadPid();
  const file = join(dir, `${pid}-0a.log`);
  writeFileSync(file, line({ log: 1, owner: { pid, boot: currentOwner().boot } }) + entries.map(line).join(''));
  return file;
}

const nameOf = (key: string): string => basename(intentFile('/', key));

describe('compaction, step by step', () => {
  it('intent files, a directory fsync, the removals, another, the log, another; files that are not the log’s intents stay', async () => {
    const dir = journalDir();
    writeFileSync(intentFile(dir, 'b'), intentText(intent('b')));
    // Not to be touched: a note holding b's intent, a .json that is no intent, a copy of an intent the log does not hold.
    writeFileSync(join(dir, 'b.json.bak'), intentText(intent('b')));
    writeFileSync(join(dir, 'notes.json'), '{"not": "an intent"}');
    writeFileSync(join(dir, 'copy-of-d.json'), intentText(intent('d')));
    const log = deadLog(dir, [
      { key: 'a', intent: intent('a') },
      { key: 'b', ended: T },
    ]);
    hooks.steps = [];
    await compactLog(dir, readLog(log));
    expect(hooks.steps).toEqual([
      `write ${nameOf('a')} as journal file syncDir false`,
      'sync',
      `unlink ${nameOf('b')}`,
      'sync',
      `unlink ${basename(log)}`,
      'sync',
    ]);
    expect(readdirSync(dir).sort()).toEqual([nameOf('a'), 'b.json.bak', 'copy-of-d.json', 'notes.json'].sort());
  });

  it('a copy of a live intent under another name is removed, though the log ended nothing', async () => {
    const dir = journalDir();
    writeFileSync(join(dir, 'by-hand.json'), intentText(intent('a')));
    const log = deadLog(dir, [{ key: 'a', intent: intent('a', { phase: 'accepted', orderId: 'ord_a' }) }]);
    hooks.steps = [];
    await compactLog(dir, readLog(log));
    expect(hooks.steps).toEqual([
      `write ${nameOf('a')} as journal file syncDir false`,
      'sync',
      'unlink by-hand.json',
      'sync',
      `unlink ${basename(log)}`,
      'sync',
    ]);
  });

  it('nothing live and nothing removed: the log goes with one fsync; a log with bad lines is set aside instead', async () => {
    const dir = journalDir();
    const empty = deadLog(dir, []);
    hooks.steps = [];
    await compactLog(dir, readLog(empty));
    expect(hooks.steps).toEqual([`unlink ${basename(empty)}`, 'sync']);
    const bad = deadLog(dir, [{ key: 'a', intent: intent('a') }, { key: 'z' }]);
    hooks.steps = [];
    await compactLog(dir, readLog(bad));
    expect(hooks.steps).toEqual([
      `write ${nameOf('a')} as journal file syncDir false`,
      'sync',
      `rename ${basename(bad)} ${basename(bad)}.unreadable`,
      'sync',
    ]);
  });

  it('an intent file gone meanwhile is fine; one that cannot be removed stops compaction, the log kept', async () => {
    const dir = journalDir();
    writeFileSync(intentFile(dir, 'b'), intentText(intent('b')));
    const log = deadLog(dir, [{ key: 'b', ended: T }]);
    const fail = (code: string) => (file: string) => {
      if (file.endsWith('.json') || (code === 'EBUSY' && file === log))
        throw Object.assign(new Error(`${code}: unlink '${file}'`), { code });
    };
    hooks.unlink = fail('EACCES');
    try {
      await expect(compactLog(dir, readLog(log))).rejects.toMatchObject({ code: 'EACCES' });
      expect(readdirSync(dir).sort()).toEqual([basename(log), nameOf('b')].sort());
      hooks.unlink = fail('ENOENT');
      await compactLog(dir, readLog(log));
      expect(readdirSync(dir)).toEqual([nameOf('b')]);
      // The log itself cannot be removed: an error, not a silent leftover.
      const other = deadLog(dir, []);
      hooks.unlink = (file) => {
        if (file === other) throw Object.assign(new Error(`EBUSY: unlink '${file}'`), { code: 'EBUSY' });
      };
      await expect(compactLog(dir, readLog(other))).rejects.toMatchObject({ code: 'EBUSY' });
    } finally {
      hooks.unlink = undefined;
    }
  });
});

describe('the disk, short and failing', () => {
  it('short writes go on where they stopped, and short reads too: every line is whole', async () => {
    const dir = journalDir();
    const log = new IntentLog(dir);
    hooks.maxWrite = 7;
    hooks.maxRead = 50;
    hooks.writes = 0;
    // Characters of two, three and four bytes: a write cut inside one goes on at the right byte.
    const body = '{"note":"café ✓ 🎁"}';
    try {
      await log.append([
        { key: 'a', intent: intent('a', { body }) },
        { key: 'b', intent: intent('b') },
      ]);
      const read = readLog(log.file!);
      expect([[...read.live.keys()], read.bad]).toEqual([['a', 'b'], []]);
      expect(read.live.get('a')?.body).toBe(body);
    } finally {
      hooks.maxWrite = hooks.maxRead = undefined;
    }
    const text = readFileSync(log.file!, 'utf8');
    expect(text.split('\n')).toHaveLength(4);
    // The writes were short indeed: 7 bytes each, the file's size in all.
    expect(hooks.writes).toBe(Math.ceil(Buffer.byteLength(text) / 7));
  });

  it('after short writes the log still knows its size: an fsync that fails cuts back to the confirmed lines exactly', async () => {
    const dir = journalDir();
    let failSync = false;
    const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    const { fdatasyncSync } = await import('node:fs');
    const { fsyncDirectory, syncDirectory } = await import('../../src/files/atomic.js');
    const sync = {
      datasync: (fd: number) => (failSync ? Promise.reject(eio) : Promise.resolve(fdatasyncSync(fd))),
      datasyncSync: (fd: number) => fdatasyncSync(fd),
      syncDirectory,
      syncDirectorySync: fsyncDirectory,
    };
    const log = new IntentLog(dir, sync);
    hooks.maxWrite = 7;
    try {
      await log.append([{ key: 'a', intent: intent('a', { body: '{"note":"café ✓ 🎁"}' }) }]);
      const confirmed = readFileSync(log.file!, 'utf8');
      failSync = true;
      await expect(log.append([{ key: 'b', intent: intent('b') }])).rejects.toBe(eio);
      // The line no fsync confirmed is cut, to the byte: the confirmed ones stay whole.
      expect(readFileSync(log.file!, 'utf8')).toBe(confirmed);
    } finally {
      hooks.maxWrite = undefined;
    }
    expect([...log.live.keys()]).toEqual(['a']);
  });

  it('a write that fails fails its append and every later one, and the line is not in the log’s state', async () => {
    const dir = journalDir();
    const log = new IntentLog(dir);
    await log.append([{ key: 'a', intent: intent('a') }]);
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    hooks.write = () => {
      throw enospc;
    };
    try {
      await expect(log.append([{ key: 'b', intent: intent('b') }])).rejects.toBe(enospc);
    } finally {
      hooks.write = undefined;
    }
    expect([...log.live.keys()]).toEqual(['a']);
    await expect(log.append([{ key: 'c', intent: intent('c') }])).rejects.toBe(enospc);
  });

  it('on a real disk, append and appendSync each call fdatasync', async () => {
    const log = new IntentLog(journalDir());
    hooks.datasyncs = 0;
    await log.append([{ key: 'a', intent: intent('a') }]);
    expect(hooks.datasyncs).toBe(1);
    log.appendSync([{ key: 'b', intent: intent('b') }]);
    expect(hooks.datasyncs).toBe(2);
  });

  it('on a real disk, an fdatasync that fails fails its lines and every later one: the log is not trusted again', async () => {
    const log = new IntentLog(journalDir());
    await log.append([{ key: 'warm', intent: intent('warm') }]);
    const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5, syscall: 'fdatasync' });
    hooks.datasyncError = eio;
    await expect(log.append([{ key: 'a', intent: intent('a') }])).rejects.toBe(eio);
    await expect(log.append([{ key: 'b', intent: intent('b') }])).rejects.toBe(eio);
    expect([...log.live.keys()]).toEqual(['warm']);
  });
});

describe('what a reader remembers of a log', () => {
  /** A log of another (live) process, a few dozen kilobytes long. */
  function bigLog(dir: string): string {
    const owner = { pid: process.ppid, boot: currentOwner().boot };
    const file = join(dir, `${process.ppid}-0a.log`);
    writeFileSync(
      file,
      line({ log: 1, owner }) +
        Array.from({ length: 100 }, (_, i) => line({ key: `r${i}`, intent: intent(`r${i}`, { owner }) })).join(''),
    );
    return file;
  }

  it('an unchanged log read again costs only the few kilobytes that vouch for it', () => {
    const file = bigLog(journalDir());
    readLog(file);
    hooks.bytesRead = 0;
    expect(readLog(file).live.size).toBe(100);
    expect(hooks.bytesRead).toBeLessThanOrEqual(4096);
  });

  it('a log read through otherLogs is remembered while listed, forgotten once not, and only for its own directory', () => {
    const dir = journalDir();
    const elsewhere = bigLog(journalDir());
    const file = bigLog(dir);
    const size = statSync(file).size;
    readLog(elsewhere);
    otherLogs(dir, undefined);
    hooks.bytesRead = 0;
    otherLogs(dir, undefined);
    expect(hooks.bytesRead).toBeLessThanOrEqual(4096);
    otherLogs(dir, undefined, []);
    hooks.bytesRead = 0;
    readLog(elsewhere);
    expect(hooks.bytesRead).toBeLessThanOrEqual(4096);
    hooks.bytesRead = 0;
    readLog(file);
    expect(hooks.bytesRead).toBe(size);
  });
});
