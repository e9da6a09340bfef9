// How a process reads other processes' logs (src/journal/log.ts readLog, otherLogs; Journal.read and find):
// a log only grows, so each read takes only what was appended since the last (a keyed begin beside a long
// plan used to parse that plan's whole log, twice, under the lock); a log that cannot be read is never taken
// for one compacted away (it may hold the only note of a charged order); and a read without the lock that
// meets a log compacted between the listing and its read starts over instead of missing the intent.
import {
  ftruncateSync,
  openSync as realOpen,
  closeSync,
  appendFileSync,
  unlinkSync,
  writeFileSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const hooks: {
  open?: ((file: string) => void) | undefined;
  readFile?: ((file: string) => void) | undefined;
  bytesRead: number;
} = { bytesRead: 0 };
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openSync = ((file: string, ...rest: unknown[]) => {
    if (hooks.open && typeof file === 'string' && (file.endsWith('.log') || file.endsWith('.unreadable')))
      hooks.open(file);
    return (fs.openSync as (...a: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.openSync;
  const readSync = ((...args: unknown[]) => {
    const n = (fs.readSync as (...a: unknown[]) => number)(...args);
    hooks.bytesRead += n;
    return n;
  }) as typeof fs.readSync;
  const readFileSync = ((file: unknown, ...rest: unknown[]) => {
    if (typeof file === 'string') hooks.readFile?.(file);
    const read = (fs.readFileSync as (...a: unknown[]) => string | Buffer)(file, ...rest);
    if (typeof file === 'string' && file.endsWith('.log')) hooks.bytesRead += Buffer.byteLength(read);
    return read;
  }) as typeof fs.readFileSync;
  return { ...fs, default: { ...fs, openSync, readSync, readFileSync }, openSync, readSync, readFileSync };
});

const { newIntent } = await import('../../src/journal/intent.js');
const { Journal } = await import('../../src/journal/journal.js');
const { currentOwner } = await import('../../src/journal/owner.js');
const { intentFile, intentText, readLog } = await import('../../src/journal/log.js');
const { deadPid, journalDir } = await import('../helpers/e2e.js');
const { smallSpec: spec } = await import('../helpers/journal.js');
type Intent = import('../../src/journal/intent.js').Intent;

function sending(key: string, owner: Intent['owner']): Intent {
  return { ...newIntent(spec, key, Date.now() - 60_000), phase: 'sending', owner };
}

const line = (entry: unknown): string => `${JSON.stringify(entry)}\n`;

/** A log as another process leaves it: its header, then each intent's state. */
function writeLog(dir: string, pid: number, owner: Intent['owner'], intents: Intent[]): string {
  const file = join(dir, `${pid}-0123456789ab.log`);
  writeFileSync(file, line({ log: 1, owner }) + intents.map((i) => line({ key: i.key, intent: i })).join(''));
  return file;
}

describe('a log that cannot be read', () => {
  it('is listed by order pending, and no order is begun beside it (it may hold a charged one)', async () => {
    const dir = journalDir();
    const pid = deadPid();
    const owner = { pid, boot: currentOwner().boot };
    const log = writeLog(dir, pid, owner, [sending('X', owner)]);
    hooks.open = (file) => {
      if (file === log) throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });
    };
    try {
      const journal = new Journal(dir);
      expect(journal.read()).toEqual({ intents: [], unreadable: [{ file: log, reason: 'EACCES' }] });
      // The same order again, unkeyed: it would be a second charge once the log is readable and resumed.
      await expect(journal.begin(spec)).rejects.toMatchObject({
        code: 'journal_unreadable',
        message: expect.stringContaining(log),
      });
      await expect(journal.begin({ ...spec, key: 'Y' })).rejects.toMatchObject({ code: 'journal_unreadable' });
    } finally {
      hooks.open = undefined;
    }
    // Readable again: the interrupted order is found, and taken over (the same key, so the server charges it once).
    const begun = await new Journal(dir).begin(spec);
    expect(begun).toMatchObject({ resumed: true, intent: { key: 'X' } });
  });
});

describe('a read without the lock, while another run compacts its log as it exits', () => {
  it('starts over, and finds the intent in the file the log became', () => {
    const dir = journalDir();
    const owner = { pid: process.ppid, boot: currentOwner().boot }; // alive: the runner's parent
    const x = sending('K', owner);
    const log = writeLog(dir, process.ppid, owner, [x]);
    let opened = 0;
    // The other run's exit: K's file written (after this read listed the directory), its log removed.
    hooks.open = (file) => {
      if (file !== log || ++opened > 1) return;
      writeFileSync(intentFile(dir, 'K'), intentText(x));
      unlinkSync(log);
    };
    try {
      const seen = new Journal(dir).read();
      expect(seen).toEqual({ intents: [x], unreadable: [] });
      expect(opened).toBe(1);
    } finally {
      hooks.open = undefined;
    }
  });
});

describe('a log read again', () => {
  it('reads only what was appended since, and sees every change', () => {
    const dir = journalDir();
    const owner = { pid: process.ppid, boot: currentOwner().boot };
    const many = Array.from({ length: 500 }, (_, i) => sending(`row-${i}`, owner));
    const file = writeLog(dir, process.ppid, owner, many);
    expect(readLog(file).live.size).toBe(500);
    hooks.bytesRead = 0;
    const size = statSync(file).size;
    const ended = line({ key: 'row-0', ended: many[0]!.createdAt });
    appendFileSync(file, ended);
    const again = readLog(file);
    expect(again.live.size).toBe(499);
    expect(again.live.has('row-0')).toBe(false);
    // The appended line and the few kilobytes before it that vouch for the rest: not the 500 rows again.
    expect(hooks.bytesRead).toBeLessThanOrEqual(ended.length + 4096);
    expect(hooks.bytesRead).toBeLessThan(size / 10);
  });

  it('reads a line cut short once its newline is written, and never before', () => {
    const dir = journalDir();
    const owner = { pid: process.ppid, boot: currentOwner().boot };
    const file = writeLog(dir, process.ppid, owner, []);
    const text = line({ key: 'A', intent: sending('A', owner) });
    appendFileSync(file, text.slice(0, 40));
    expect(readLog(file)).toMatchObject({ bad: [] });
    expect(readLog(file).live.size).toBe(0);
    appendFileSync(file, text.slice(40));
    expect([...readLog(file).live.keys()]).toEqual(['A']);
    expect(readLog(file).bad).toEqual([]);
  });

  it('is read whole again when it was cut back (a failed fsync) or rewritten in place', () => {
    const dir = journalDir();
    const owner = { pid: process.ppid, boot: currentOwner().boot };
    const a = sending('A', owner);
    const file = writeLog(dir, process.ppid, owner, [a]);
    const confirmed = statSync(file).size;
    appendFileSync(file, line({ key: 'A', ended: a.createdAt }));
    expect(readLog(file).live.size).toBe(0);
    // Cut back to what an fsync confirmed: A is pending again.
    const fd = realOpen(file, 'r+');
    ftruncateSync(fd, confirmed);
    closeSync(fd);
    expect([...readLog(file).live.keys()]).toEqual(['A']);
    // Rewritten in place (same file, same inode), longer than before: its own lines, not a tail of the old ones.
    const b = sending('B', owner);
    const c = sending('C', owner);
    writeFileSync(file, line({ log: 1, owner }) + line({ key: 'B', intent: b }) + line({ key: 'C', intent: c }));
    expect([...readLog(file).live.keys()].sort()).toEqual(['B', 'C']);
    expect(readLog(file).bad).toEqual([]);
  });
});

describe('a log that cannot be read, in words', () => {
  it('names the log and why: permission denied for EACCES and EPERM, else its errno, else the error’s message', async () => {
    const dir = journalDir();
    const pid = deadPid();
    const owner = { pid, boot: currentOwner().boot };
    const log = writeLog(dir, pid, owner, [sending('X', owner)]);
    const hint =
      'it may hold an order placed earlier: fix its permissions (as the user who runs giftcodes), then run the command again';
    const cases: [Error, string][] = [
      [Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }), 'permission denied'],
      [Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' }), 'permission denied'],
      [Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }), 'EIO'],
      [new Error('the disk went away'), 'the disk went away'],
    ];
    try {
      for (const [error, reason] of cases) {
        hooks.open = (file) => {
          if (file === log) throw error;
        };
        await expect(new Journal(dir).begin({ ...spec, key: 'Y' })).rejects.toMatchObject({
          code: 'journal_unreadable',
          message: `cannot read the order journal's log ${log}: ${reason}`,
          hint,
        });
      }
      expect(new Journal(dir).read().unreadable).toEqual([{ file: log, reason: 'error' }]);
    } finally {
      hooks.open = undefined;
    }
  });
});

describe('a read without the lock that keeps meeting changes', () => {
  it('starts over when an intent file listed is gone by its read', () => {
    const dir = journalDir();
    const owner = { pid: process.ppid, boot: currentOwner().boot };
    const x = sending('K', owner);
    writeFileSync(intentFile(dir, 'K'), intentText(x));
    let reads = 0;
    hooks.readFile = (file) => {
      if (file === intentFile(dir, 'K') && ++reads === 1)
        throw Object.assign(new Error('ENOENT: gone'), { code: 'ENOENT' });
    };
    try {
      expect(new Journal(dir).read()).toEqual({ intents: [x], unreadable: [] });
      expect(reads).toBe(2);
    } finally {
      hooks.readFile = undefined;
    }
  });

  it('gives up after a few attempts with journal_busy, in words, when a log vanishes on every read', () => {
    const dir = journalDir();
    const owner = { pid: process.ppid, boot: currentOwner().boot };
    const log = writeLog(dir, process.ppid, owner, [sending('K', owner)]);
    hooks.open = (file) => {
      if (file === log) throw Object.assign(new Error('ENOENT: gone'), { code: 'ENOENT' });
    };
    try {
      expect(() => new Journal(dir).read()).toThrow(
        expect.objectContaining({
          code: 'journal_busy',
          message: `the order journal ${dir} kept changing while it was read`,
          hint: 'run the command again',
        }),
      );
    } finally {
      hooks.open = undefined;
    }
  });

  it('a log set aside and removed by a person meanwhile is no longer reported', () => {
    const dir = journalDir();
    const pid = deadPid();
    const aside = join(dir, `${pid}-0123456789ab.log.unreadable`);
    writeFileSync(aside, line({ log: 1, owner: { pid, boot: currentOwner().boot } }) + 'not json\n');
    expect(new Journal(dir).read().unreadable).toEqual([
      { file: aside, reason: 'line 2 is not a journal entry; the readable ones are intent files now' },
    ]);
    hooks.open = (file) => {
      if (file === aside) throw Object.assign(new Error('ENOENT: gone'), { code: 'ENOENT' });
    };
    try {
      expect(new Journal(dir).read()).toEqual({ intents: [], unreadable: [] });
    } finally {
      hooks.open = undefined;
    }
  });
});

// A review: a keyed run's own intent file damaged, the same command sent its key again, was answered with its own
// order, took it for another machine's (exit 4) and hinted a new one: a second charge for a person who followed it.
describe("a key's own intent file that cannot be read", () => {
  it('begin with that key sends nothing (exit 8, journal_unreadable, the file named); another key begins, the file left', async () => {
    const dir = journalDir();
    const file = intentFile(dir, 'night-1');
    writeFileSync(file, intentText(sending('night-1', { pid: deadPid() })).slice(0, 40));
    const journal = new Journal(dir);
    await expect(journal.begin({ ...spec, key: 'night-1' })).rejects.toMatchObject({
      exitCode: 8,
      code: 'journal_unreadable',
      message: expect.stringContaining(`the journal's file of the key night-1, ${file}, cannot be read`),
      hint: expect.stringContaining(`then move the file out of ${dir}`),
    });
    expect(journal.find('night-1')).toBeUndefined();
    const other = await journal.begin({ ...spec, key: 'night-2' });
    expect(other.intent.key).toBe('night-2');
    expect(statSync(file).size).toBe(40);
    // Its key readable again (the file moved away): it begins.
    unlinkSync(file);
    expect((await journal.begin({ ...spec, key: 'night-1' })).intent.key).toBe('night-1');
  });
});
