// The journal's group-commit writer (src/journal/log.ts) on real directories, its fsync replaced where a test
// must hold it or fail it: many appends share one fsync, each released only by an fsync that began after its
// line; a failed fsync fails every waiter and every later append; a torn last line is ignored; readers fold
// the logs over the intent files; a dead process's log is compacted, and compacting again (after a kill at
// any step) comes to the same journal.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { newIntent, sha256, type Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import {
  compactLog,
  endMark,
  foldIntent,
  foldIntents,
  IntentLog,
  isLogName,
  isSetAsideLog,
  logIsDead,
  otherLogs,
  readLog,
  type LogSync,
  type ReadLog,
} from '../../src/journal/log.js';
import { letGoOfKept, withDirLock } from '../../src/journal/lock.js';
import { currentOwner } from '../../src/journal/owner.js';
import { journalDir } from '../helpers/e2e.js';
import { smallSpec } from '../helpers/journal.js';

const deadPid = (): number =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

const ORDER = {
  profile: 'default',
  environment: 'test' as const,
  baseUrl: 'http://127.0.0.1:4010',
  keyId: 'k1',
  productId: 'amazon-us-25',
  quantity: 1,
};

function intent(key: string, o: Partial<Intent> = {}): Intent {
  return { ...newIntent(ORDER, key, Date.parse('2026-06-01T12:00:00.000Z')), ...o };
}

/** An fsync each test holds until it says so, or fails: `started` counts the fsyncs begun. */
function heldSync(): { sync: LogSync; started: number; release: () => void; failNext: (error: Error) => void } {
  const pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const state = {
    started: 0,
    sync: {
      datasync: () =>
        new Promise<void>((resolve, reject) => {
          state.started++;
          pending.push({ resolve, reject });
        }),
      datasyncSync: () => undefined,
      syncDirectory: () => Promise.resolve(),
      syncDirectorySync: () => undefined,
    } satisfies LogSync,
    release: () => pending.shift()!.resolve(),
    failNext: (error: Error) => pending.shift()!.reject(error),
  };
  return state;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A log as a process now dead left it: its header, then these lines (a torn one included, if given). */
function deadLog(dir: string, lines: readonly unknown[], torn = ''): string {
  const pid = deadPid();
  const file = join(dir, `${pid}-0123456789ab.log`);
  const header = { log: 1, owner: { pid, boot: currentOwner().boot } };
  writeFileSync(file, [header, ...lines].map((line) => `${JSON.stringify(line)}\n`).join('') + torn);
  return file;
}

const fileOf = (dir: string, key: string): string => join(dir, `${sha256(key).slice(0, 40)}.json`);

describe('group commit', () => {
  it('appends made while an fsync runs wait for the next one, which serves them all: 5 appends, 2 fsyncs', async () => {
    const held = heldSync();
    const log = new IntentLog(journalDir(), held.sync);
    const done: string[] = [];
    const first = log.append([{ key: 'a', intent: intent('a') }]).then(() => done.push('a'));
    await tick();
    expect(held.started).toBe(1);
    // Written while the first fsync runs: that fsync may have begun before them, so it never counts for them.
    const rest = ['b', 'c', 'd', 'e'].map((key) =>
      log.append([{ key, intent: intent(key) }]).then(() => done.push(key)),
    );
    await tick();
    expect(held.started).toBe(1);
    expect(done).toEqual([]);
    held.release();
    await first;
    await tick();
    expect(done).toEqual(['a']);
    expect(held.started).toBe(2);
    held.release();
    await Promise.all(rest);
    expect(done.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(held.started).toBe(2);
    expect(log.idle).toBe(true);
  });

  it('each line is in the file the moment append returns, before its fsync (the next lock holder reads it)', () => {
    const held = heldSync();
    const dir = journalDir();
    const log = new IntentLog(dir, held.sync);
    void log.append([{ key: 'a', intent: intent('a', { phase: 'sending' }) }]);
    expect(readLog(log.file!).live.get('a')?.phase).toBe('sending');
    expect(readLog(log.file!).owner).toEqual(currentOwner());
  });

  it('a real disk: 50 concurrent appends take far fewer than 50 fsyncs, and all are read back', async () => {
    const dir = journalDir();
    const log = new IntentLog(dir);
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append([{ key: `k${i}`, intent: intent(`k${i}`) }])));
    expect(log.syncs).toBeLessThan(10);
    expect(readLog(log.file!).live.size).toBe(50);
  });

  it('a failed fsync fails every caller waiting on it, and every later append: the log is not trusted again', async () => {
    const held = heldSync();
    const log = new IntentLog(journalDir(), held.sync);
    const first = log.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    const second = log.append([{ key: 'b', intent: intent('b') }]);
    const eio = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    held.failNext(eio);
    await expect(first).rejects.toBe(eio);
    await expect(second).rejects.toBe(eio);
    await expect(log.append([{ key: 'c', intent: intent('c') }])).rejects.toBe(eio);
    expect(() => log.appendSync([{ key: 'c', intent: intent('c') }])).toThrow(eio);
    // Nothing was written after the failure.
    expect(readLog(log.file!).live.has('c')).toBe(false);
  });

  it('through the journal, a failed fsync is exit 8 in words with its errno, for the step and the steps after', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const { intent: begun } = await j.begin(smallSpec);
    // The process's log is shared by every Journal of the directory: fail its fsync from here on.
    const { logOf } = await import('../../src/journal/log.js');
    const log = logOf(dir) as unknown as { sync: LogSync };
    log.sync = { ...log.sync, datasync: () => Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' })) };
    const failed = {
      exitCode: 8,
      code: 'journal_unwritable',
      message: `cannot write the order journal ${dir}: an input/output error from the disk (EIO)`,
    };
    await expect(j.saveAsync({ ...begun, phase: 'sending' })).rejects.toMatchObject(failed);
    await expect(j.saveAsync({ ...begun, phase: 'sending' })).rejects.toMatchObject(failed);
  });

  it('appendSync makes its line durable at once, and with it every line written before', async () => {
    const held = heldSync();
    let syncs = 0;
    const log = new IntentLog(journalDir(), { ...held.sync, datasyncSync: () => void syncs++ });
    const waiting = log.append([{ key: 'a', intent: intent('a') }]);
    log.appendSync([{ key: 'b', intent: intent('b') }]);
    expect(syncs).toBe(1);
    await waiting; // released by the synchronous fsync, though its own is still held
    expect(log.idle).toBe(false); // that held fsync is still running
    held.release();
  });
});

describe('reading: the logs folded over the files', () => {
  it('a torn last line was never durable: the state before it stands', () => {
    const dir = journalDir();
    const file = deadLog(
      dir,
      [{ key: 'a', intent: intent('a', { phase: 'sending' }) }],
      JSON.stringify({ key: 'a', intent: intent('a', { phase: 'accepted', orderId: 'ord_1' }) }).slice(0, 80),
    );
    const log = readLog(file);
    expect(log.live.get('a')?.phase).toBe('sending');
    expect(log.bad).toEqual([]);
    expect(new Journal(dir).read().intents.map((i) => i.phase)).toEqual(['sending']);
  });

  it('a whole line that cannot be read is reported, never taken for an intent', () => {
    const dir = journalDir();
    const file = deadLog(dir, [
      { key: 'a', intent: intent('a') },
      { key: 'b', intent: { version: 99 } },
    ]);
    expect(readLog(file).bad).toEqual([3]);
    expect(new Journal(dir).read().unreadable).toEqual([{ file, reason: 'line 3 is not a journal entry' }]);
  });

  it('a log is newer than a file; an ended intent is gone, wherever a copy lies; another intent under the same key is not', () => {
    const dir = journalDir();
    writeFileSync(fileOf(dir, 'a'), JSON.stringify(intent('a', { phase: 'sending' })));
    writeFileSync(fileOf(dir, 'b'), JSON.stringify(intent('b', { phase: 'accepted', orderId: 'ord_b' })));
    writeFileSync(join(dir, 'copy-of-b.json'), JSON.stringify(intent('b', { phase: 'accepted', orderId: 'ord_b' })));
    writeFileSync(fileOf(dir, 'c'), JSON.stringify(intent('c', { createdAt: '2026-06-02T00:00:00.000Z' })));
    deadLog(dir, [
      { key: 'a', intent: intent('a', { phase: 'accepted', orderId: 'ord_a', updatedAt: '2026-06-01T12:00:01.000Z' }) },
      { key: 'b', ended: '2026-06-01T12:00:00.000Z' },
      // Ends the intent of key c created at noon, not the one created the next day.
      { key: 'c', ended: '2026-06-01T12:00:00.000Z' },
    ]);
    const { intents } = new Journal(dir).read();
    expect(intents.map((i) => [i.key, i.phase])).toEqual([
      ['a', 'accepted'],
      ['c', 'prepared'],
    ]);
    expect(new Journal(dir).find('b')).toBeUndefined();
    expect(new Journal(dir).find('a')?.orderId).toBe('ord_a');
  });

  it('foldIntents: this process’s own state is the newest of all', () => {
    const other = {
      file: 'x',
      live: new Map([['a', intent('a', { phase: 'accepted', updatedAt: '2026-06-01T13:00:00.000Z' })]]),
      ended: new Set<string>(),
      bad: [],
    };
    const own = { live: new Map([['a', intent('a', { phase: 'sending' })]]), ended: new Set<string>() };
    expect(foldIntents([intent('a')], [other], own).get('a')).toMatchObject({
      source: 'own',
      intent: { phase: 'sending' },
    });
    expect(foldIntents([intent('a')], [other], { live: new Map(), ended: new Set() }).get('a')).toMatchObject({
      source: 'log',
      intent: { phase: 'accepted' },
    });
  });

  it('foldIntent(key) is foldIntents(…).get(key) for every key, on 2,000 generated journals', () => {
    // A small world of keys, times and phases, so the same key often lies in files, logs and this process's
    // own log at once, with ends that match one copy (same createdAt) and not another.
    let seed = 23;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      // The high bits: an LCG's low bits repeat with a short period.
      return Math.floor((seed / 2 ** 31) * n);
    };
    const keys = ['a', 'b', 'c', 'd'];
    const times = ['2026-06-01T12:00:00.000Z', '2026-06-01T12:00:01.000Z', '2026-06-01T12:00:02.000Z'];
    const phases = ['prepared', 'sending', 'accepted'] as const;
    const some = (): Intent => {
      const key = keys[next(keys.length)]!;
      return intent(key, {
        createdAt: times[next(times.length)]!,
        updatedAt: times[next(times.length)]!,
        phase: phases[next(phases.length)]!,
      });
    };
    const ends = (): Set<string> =>
      new Set(Array.from({ length: next(3) }, () => endMark(keys[next(keys.length)]!, times[next(times.length)]!)));
    // A log's state is keyed by its intents' keys (readLog drops a line whose intent is another key's).
    const live = (): Map<string, Intent> =>
      new Map(Array.from({ length: next(4) }, () => some()).map((i) => [i.key, i]));
    let compared = 0;
    for (let journal = 0; journal < 2000; journal++) {
      const files = Array.from({ length: next(4) }, some);
      const logs: ReadLog[] = Array.from({ length: next(3) }, (_, n) => ({
        file: `l${n}`,
        live: live(),
        ended: ends(),
        bad: [],
      }));
      const own = { live: live(), ended: ends() };
      const whole = foldIntents(files, logs, own);
      for (const key of [...keys, 'none']) {
        expect(foldIntent(key, files, logs, own)).toEqual(whole.get(key));
        if (whole.has(key)) compared++;
      }
    }
    // Most lookups find something: the comparison is not of two undefineds.
    expect(compared).toBeGreaterThan(4000);
  });

  it('an intent in a live process’s log is that process’s: never claimed, resumed or abandoned from here', async () => {
    const dir = journalDir();
    // The parent of this test runner is alive: its log (as if it wrote one) holds an orphan-looking intent.
    const file = join(dir, `${process.ppid}-0123456789ab.log`);
    const orphan = intent('o', { owner: { pid: deadPid(), boot: currentOwner().boot } });
    writeFileSync(
      file,
      `${JSON.stringify({ log: 1, owner: { pid: process.ppid } })}\n${JSON.stringify({ key: 'o', intent: orphan })}\n`,
    );
    const j = new Journal(dir);
    await expect(j.claim('o')).rejects.toMatchObject({ code: 'intent_busy' });
    await expect(j.abandon('o')).rejects.toMatchObject({ code: 'intent_busy' });
    expect(existsSync(file)).toBe(true);
  });
});

describe('compaction', () => {
  /** A dead run's log: `a` live (accepted), `b` ended (its file from an earlier run still there), `c` claimed from a hand-made copy. */
  function scene(): { dir: string; log: string } {
    const dir = journalDir();
    writeFileSync(fileOf(dir, 'b'), JSON.stringify(intent('b', { phase: 'sending' })));
    writeFileSync(join(dir, 'by-hand.json'), JSON.stringify(intent('c', { phase: 'sending' })));
    const log = deadLog(dir, [
      { key: 'a', intent: intent('a') },
      { key: 'a', intent: intent('a', { phase: 'accepted', orderId: 'ord_a' }) },
      { key: 'b', intent: intent('b', { phase: 'accepted', orderId: 'ord_b' }) },
      { key: 'b', ended: '2026-06-01T12:00:00.000Z' },
      { key: 'c', intent: intent('c', { phase: 'accepted', orderId: 'ord_c' }) },
    ]);
    return { dir, log };
  }

  // The journal as the next process finds it: this one has let go of the lock it kept after its last turn.
  const listed = (dir: string): string[] => (letGoOfKept(), readdirSync(dir));
  const compacted = (dir: string): Record<string, string> =>
    Object.fromEntries(
      listed(dir)
        .sort()
        .map((name) => [
          name,
          (JSON.parse(readFileSync(join(dir, name), 'utf8')) as Intent).phase +
            ':' +
            (JSON.parse(readFileSync(join(dir, name), 'utf8')) as Intent).key,
        ]),
    );

  it('the next lock holder makes a dead log intent files before anything is claimed, then removes it', async () => {
    const { dir, log } = scene();
    const before = new Journal(dir).read().intents.map((i) => [i.key, i.phase, i.orderId]);
    const j = new Journal(dir);
    await j.settleWhere(() => undefined);
    expect(existsSync(log)).toBe(false);
    expect(compacted(dir)).toEqual({
      [`${sha256('a').slice(0, 40)}.json`]: 'accepted:a',
      [`${sha256('c').slice(0, 40)}.json`]: 'accepted:c',
    });
    expect(new Journal(dir).read().intents.map((i) => [i.key, i.phase, i.orderId])).toEqual(before);
  });

  it('killed at any step, compacting again comes to the same journal', async () => {
    const { dir: whole } = scene();
    await new Journal(whole).settleWhere(() => undefined);
    const expected = compacted(whole);
    // The state after each step of compactLog, as a kill there leaves it: files written; copies removed; log removed.
    const steps: ((dir: string, log: string) => void)[] = [
      () => undefined,
      (dir) => {
        writeFileSync(fileOf(dir, 'a'), JSON.stringify(intent('a', { phase: 'accepted', orderId: 'ord_a' })));
      },
      (dir) => {
        writeFileSync(fileOf(dir, 'a'), JSON.stringify(intent('a', { phase: 'accepted', orderId: 'ord_a' })));
        writeFileSync(fileOf(dir, 'c'), JSON.stringify(intent('c', { phase: 'accepted', orderId: 'ord_c' })));
        unlinkSync(fileOf(dir, 'b'));
      },
      (dir) => {
        writeFileSync(fileOf(dir, 'a'), JSON.stringify(intent('a', { phase: 'accepted', orderId: 'ord_a' })));
        writeFileSync(fileOf(dir, 'c'), JSON.stringify(intent('c', { phase: 'accepted', orderId: 'ord_c' })));
        unlinkSync(fileOf(dir, 'b'));
        unlinkSync(join(dir, 'by-hand.json'));
      },
    ];
    for (const [i, step] of steps.entries()) {
      const { dir, log } = scene();
      step(dir, log);
      // What a reader sees at that instant is already the compacted journal.
      expect(
        new Journal(dir)
          .read()
          .intents.map((x) => `${x.phase}:${x.key}`)
          .sort(),
        `step ${i}`,
      ).toEqual(['accepted:a', 'accepted:c']);
      await new Journal(dir).settleWhere(() => undefined);
      expect(compacted(dir), `step ${i}`).toEqual(expected);
      // And once more: nothing changes.
      await compactLog(dir, { file: log, live: new Map(), ended: new Set() });
      expect(compacted(dir), `step ${i}, again`).toEqual(expected);
    }
  });

  it('a dead log never writes back an intent another log ended', async () => {
    const dir = journalDir();
    const log = deadLog(dir, [{ key: 'a', intent: intent('a', { phase: 'accepted', orderId: 'ord_a' }) }]);
    await compactLog(dir, readLog(log), new Set([`a\n2026-06-01T12:00:00.000Z`]));
    expect(listed(dir)).toEqual([]);
  });

  it('a headerless log (killed before its first line was whole) goes by the pid in its name', async () => {
    const dir = journalDir();
    const file = join(dir, `${deadPid()}-0123456789ab.log`);
    writeFileSync(file, '{"log":1,"own');
    await new Journal(dir).settleWhere(() => undefined);
    expect(listed(dir)).toEqual([]);
  });

  it('a run removes its own log once every intent in it ended: nothing is left in the journal', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const spec = smallSpec;
    const one = await j.begin({ ...spec, key: 'one' });
    const two = await j.begin({ ...spec, key: 'two' });
    await j.end([one.intent], 'abandoned');
    expect(readdirSync(dir).filter((n) => n.endsWith('.log'))).toHaveLength(1);
    await j.end([two.intent], 'abandoned');
    expect(listed(dir)).toEqual([]);
    // The next change starts a new log.
    await j.begin({ ...spec, key: 'three' });
    expect(readdirSync(dir).filter((n) => n.endsWith('.log'))).toHaveLength(1);
  });

  it('a command that ends with intents unended leaves them as intent files, and no log', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const spec = smallSpec;
    const kept = await j.begin({ ...spec, key: 'kept' });
    const sent = await j.saveAsync({ ...kept.intent, phase: 'sending' });
    const gone = await j.begin({ ...spec, key: 'gone' });
    await j.end([gone.intent], 'refused');
    const { finishJournal } = await import('../../src/journal/at-exit.js');
    await finishJournal();
    expect(readdirSync(dir)).toEqual([`${sha256('kept').slice(0, 40)}.json`]);
    expect(JSON.parse(readFileSync(fileOf(dir, 'kept'), 'utf8'))).toEqual(sent);
    expect(new Journal(dir).read().intents).toEqual([sent]);
  });
});

const eio = (): Error => Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
const keysOf = (state: ReadonlyMap<string, Intent>): string[] => [...state.keys()].sort();

/** Descriptors this process holds open on a file (Linux): a log left open keeps its disk from a read-only remount. */
function openOn(file: string): number {
  const real = realpathSync(file);
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === real;
    } catch {
      return false;
    }
  }).length;
}

describe('the writer’s fsyncs, counted', () => {
  it('the first fsync of a new log makes its directory entry durable too, once; syncs counts every fsync', async () => {
    const held = heldSync();
    let entries = 0;
    const log = new IntentLog(journalDir(), { ...held.sync, syncDirectory: () => Promise.resolve(void entries++) });
    const a = log.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    held.release();
    await a;
    expect([log.syncs, entries]).toEqual([1, 1]);
    const b = log.append([{ key: 'b', intent: intent('b') }]);
    await tick();
    held.release();
    await b;
    expect([log.syncs, entries]).toEqual([2, 1]);
    // Compacted and forgotten: the next append makes a new log, whose entry is synced again.
    const first = log.file;
    log.reset();
    const c = log.append([{ key: 'c', intent: intent('c') }]);
    expect(log.file).not.toBe(first);
    await tick();
    held.release();
    await c;
    expect([log.syncs, entries]).toEqual([3, 2]);
  });

  it('appendSync: the same, with the synchronous fsyncs', () => {
    let entries = 0;
    const log = new IntentLog(journalDir(), { ...heldSync().sync, syncDirectorySync: () => void entries++ });
    log.appendSync([{ key: 'a', intent: intent('a') }]);
    expect([log.syncs, entries]).toEqual([1, 1]);
    log.appendSync([{ key: 'b', intent: intent('b') }]);
    expect([log.syncs, entries]).toEqual([2, 1]);
    expect(log.idle).toBe(true);
  });

  it('two logs of one process in one directory are two files (the random part of the name)', async () => {
    const dir = journalDir();
    const one = new IntentLog(dir);
    const two = new IntentLog(dir);
    await one.append([{ key: 'a', intent: intent('a') }]);
    await two.append([{ key: 'b', intent: intent('b') }]);
    expect(one.file).not.toBe(two.file);
    expect(readdirSync(dir)).toHaveLength(2);
  });
});

describe('a failed fsync, against the lines it confirmed', () => {
  it('cuts the log back to the lines an fsync confirmed, and the state back to theirs (a line written during an fsync is not covered by it)', async () => {
    const held = heldSync();
    const log = new IntentLog(journalDir(), held.sync);
    const a = log.append([{ key: 'a', intent: intent('a') }]);
    const upToA = readFileSync(log.file!, 'utf8');
    await tick();
    const b = log.append([
      { key: 'b', intent: intent('b') },
      { key: 'a', ended: intent('a').createdAt },
    ]);
    held.release();
    await a;
    await tick();
    const error = eio();
    held.failNext(error);
    await expect(b).rejects.toBe(error);
    expect(keysOf(log.live)).toEqual(['a']);
    expect([...log.ended]).toEqual([]);
    expect(readFileSync(log.file!, 'utf8')).toBe(upToA);
  });

  it('an fsync returning after a later appendSync confirmed more moves nothing back: a later failure keeps what appendSync confirmed', async () => {
    const held = heldSync();
    const log = new IntentLog(journalDir(), held.sync);
    const a = log.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    log.appendSync([{ key: 'b', intent: intent('b') }]);
    await a;
    held.release(); // the fsync begun for a alone
    await tick();
    expect(held.started).toBe(1);
    expect(log.idle).toBe(true);
    const c = log.append([{ key: 'c', intent: intent('c') }]);
    await tick();
    const error = eio();
    held.failNext(error);
    await expect(c).rejects.toBe(error);
    expect(keysOf(log.live)).toEqual(['a', 'b']);
    expect(keysOf(readLog(log.file!).live)).toEqual(['a', 'b']);
  });

  it('an fsync failing after appendSync confirmed every line cuts nothing (no cut-back fsync), and the log is not trusted again', async () => {
    const held = heldSync();
    let syncs = 0;
    const log = new IntentLog(journalDir(), { ...held.sync, datasyncSync: () => void syncs++ });
    const a = log.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    log.appendSync([{ key: 'b', intent: intent('b') }]);
    await a;
    const error = eio();
    held.failNext(error);
    await tick();
    expect(syncs).toBe(1);
    expect(keysOf(readLog(log.file!).live)).toEqual(['a', 'b']);
    await expect(log.append([{ key: 'c', intent: intent('c') }])).rejects.toBe(error);
  });

  /** A log whose fsync the test holds, and whose synchronous fsync (appendSync's) fails with `error`. */
  function syncFailingLog(error: Error): { held: ReturnType<typeof heldSync>; log: IntentLog } {
    const held = heldSync();
    const log = new IntentLog(journalDir(), {
      ...held.sync,
      datasyncSync: () => {
        throw error;
      },
    });
    return { held, log };
  }

  it('an appendSync failing while an fsync runs fails every waiter; that fsync’s return starts no other', async () => {
    const error = eio();
    const { held, log } = syncFailingLog(error);
    const a = log.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    const b = log.append([{ key: 'b', intent: intent('b') }]);
    expect(() => log.appendSync([{ key: 'c', intent: intent('c') }])).toThrow(error);
    await expect(a).rejects.toBe(error);
    await expect(b).rejects.toBe(error);
    held.release();
    await tick();
    expect(held.started).toBe(1);
    expect(log.idle).toBe(false);
  });

  it('a second failure (the running fsync failing too) leaves the first one standing, for every later append', async () => {
    const first = eio();
    const { held, log } = syncFailingLog(first);
    const a = log.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    expect(() => log.appendSync([{ key: 'b', intent: intent('b') }])).toThrow(first);
    await expect(a).rejects.toBe(first);
    held.failNext(new Error('EIO again'));
    await tick();
    await expect(log.append([{ key: 'c', intent: intent('c') }])).rejects.toBe(first);
  });
});

describe('the log file’s descriptor', () => {
  it('is open while a line waits for its fsync, one for every line, and closed once every line is durable; a read closes its own', async () => {
    const held = heldSync();
    const log = new IntentLog(journalDir(), held.sync);
    const a = log.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    const b = log.append([{ key: 'b', intent: intent('b') }]);
    const c = log.append([{ key: 'c', intent: intent('c') }]);
    expect(openOn(log.file!)).toBe(1);
    held.release();
    await a;
    await tick();
    held.release();
    await Promise.all([b, c]);
    expect(openOn(log.file!)).toBe(0);
    expect(keysOf(readLog(log.file!).live)).toEqual(['a', 'b', 'c']);
    expect(openOn(log.file!)).toBe(0);
  });
});

describe('finish() at a command’s end', () => {
  /** Holds the journal's lock (as a step of this process would) until released. */
  function holdLock(dir: string): { release: () => void; released: Promise<void> } {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const released = withDirLock(dir, () => gate);
    return { release, released };
  }

  const settled = (promise: Promise<unknown>): { done: boolean } => {
    const state = { done: false };
    void promise.then(() => (state.done = true));
    return state;
  };

  it('makes the unended intents files, removes the log, and refuses every later step with ECANCELED', async () => {
    const dir = journalDir();
    const log = new IntentLog(dir);
    await log.append([{ key: 'a', intent: intent('a', { phase: 'sending' }) }]);
    await log.finish();
    expect(readdirSync(dir)).toEqual([`${sha256('a').slice(0, 40)}.json`]);
    expect(log.file).toBeUndefined();
    expect(log.live.size).toBe(0);
    await expect(log.append([{ key: 'b', intent: intent('b') }])).rejects.toMatchObject({
      code: 'ECANCELED',
      message: 'the command ended',
    });
  });

  it('returns at once, without waiting for the lock, with no log, after a failure, or while an fsync runs', async () => {
    const dir = journalDir();
    const lock = holdLock(dir);
    await tick();
    const none = settled(new IntentLog(dir).finish());
    const held = heldSync();
    const failed = new IntentLog(dir, held.sync);
    const lost = failed.append([{ key: 'a', intent: intent('a') }]);
    await tick();
    held.failNext(eio());
    await expect(lost).rejects.toThrow('EIO');
    const afterFailure = settled(failed.finish());
    const busy = new IntentLog(dir, held.sync);
    const waiting = busy.append([{ key: 'b', intent: intent('b') }]);
    await tick();
    const whileSyncing = settled(busy.finish());
    await tick();
    await tick();
    expect([none.done, afterFailure.done, whileSyncing.done]).toEqual([true, true, true]);
    held.release();
    await waiting;
    lock.release();
    await lock.released;
  });

  it('looks again under the lock: a line written, a failure, or a reset meanwhile, and it leaves the log alone', async () => {
    const dir = journalDir();
    const held = heldSync();
    // A step writes while finish waits for the lock.
    const stepped = new IntentLog(dir, held.sync);
    stepped.appendSync([{ key: 'a', intent: intent('a') }]);
    let lock = holdLock(dir);
    const finishing = stepped.finish();
    const step = stepped.append([{ key: 'a', intent: intent('a', { phase: 'sending' }) }]);
    lock.release();
    await finishing;
    expect(existsSync(stepped.file!)).toBe(true);
    await tick();
    held.release();
    await step;
    // A step fails while finish waits.
    const failing = new IntentLog(dir, held.sync);
    failing.appendSync([{ key: 'b', intent: intent('b') }]);
    lock = holdLock(dir);
    const finishing2 = failing.finish();
    const failed = failing.append([{ key: 'b', intent: intent('b', { phase: 'sending' }) }]);
    await tick();
    held.failNext(eio());
    await expect(failed).rejects.toThrow('EIO');
    lock.release();
    await finishing2;
    expect(keysOf(readLog(failing.file!).live)).toEqual(['b']);
    // Compacted meanwhile (its intents ended): nothing left to finish.
    const reset = new IntentLog(dir, held.sync);
    reset.appendSync([{ key: 'c', intent: intent('c') }]);
    lock = holdLock(dir);
    const finishing3 = reset.finish();
    unlinkSync(reset.file!);
    reset.reset();
    lock.release();
    await expect(finishing3).resolves.toBeUndefined();
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toEqual([]);
  });

  it('gives up on the lock after 5 s and leaves the log to the next run', async () => {
    const dir = journalDir();
    const log = new IntentLog(dir);
    await log.append([{ key: 'a', intent: intent('a') }]);
    const lock = holdLock(dir);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const finishing = settled(log.finish());
      await vi.advanceTimersByTimeAsync(4_900);
      expect(finishing.done).toBe(false);
      await vi.advanceTimersByTimeAsync(200);
      expect(finishing.done).toBe(true);
      expect(existsSync(log.file!)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    lock.release();
    await lock.released;
    await withDirLock(dir, () => undefined); // the finish given up on runs once the lock comes
  });
});

describe('what a line says', () => {
  const T1 = '2026-06-01T12:00:00.000Z';
  const T2 = '2026-06-02T12:00:00.000Z';

  it('an end names one intent by its createdAt: the key’s newer intent stays live, in the writer and in a reader', async () => {
    const log = new IntentLog(journalDir());
    await log.append([
      { key: 'a', intent: intent('a', { createdAt: T2, updatedAt: T2 }) },
      { key: 'a', ended: T1 },
    ]);
    expect(keysOf(log.live)).toEqual(['a']);
    expect([...log.ended]).toEqual([endMark('a', T1)]);
    expect(keysOf(readLog(log.file!).live)).toEqual(['a']);
  });

  it('only a first line with `log` and an owner object is the header; a line not JSON, or whose intent is another key’s, is bad', () => {
    const dir = journalDir();
    const owner = currentOwner();
    let n = 0;
    const read = (...lines: unknown[]): ReadLog => {
      const file = join(dir, `${++n}-0a.log`);
      writeFileSync(file, lines.map((l) => `${typeof l === 'string' ? l : JSON.stringify(l)}\n`).join(''));
      return readLog(file);
    };
    const notJson = read({ log: 1, owner }, 'not json {');
    expect([notJson.owner, notJson.bad]).toEqual([owner, [2]]);
    for (const header of [{ owner }, { log: 1, owner: null }, { log: 1, owner: 'x' }]) {
      const log = read(header);
      expect([log.owner, log.bad], JSON.stringify(header)).toEqual([undefined, [1]]);
    }
    const second = read({ log: 1, owner }, { log: 1, owner: { ...owner, pid: 1 } });
    expect([second.owner, second.bad]).toEqual([owner, [2]]);
    const crossed = read({ log: 1, owner }, { key: 'x', intent: intent('y') });
    expect([crossed.live.size, crossed.bad]).toEqual([0, [2]]);
    // An empty line is a whole line too, also when it is all a read finds appended.
    const blank = read({ log: 1, owner });
    appendFileSync(blank.file, '\n');
    expect(readLog(blank.file).bad).toEqual([2]);
  });

  it('a log replaced by another file under its name (a new inode) is read whole again, even when its last kilobytes match', () => {
    const dir = journalDir();
    const owner = currentOwner();
    const filler = Array.from({ length: 150 }, (_, i) => JSON.stringify({ key: `f${i}`, ended: T1 }) + '\n').join('');
    const file = join(dir, `${process.ppid}-0a.log`);
    const text = (key: string): string =>
      `${JSON.stringify({ log: 1, owner })}\n${JSON.stringify({ key, intent: intent(key) })}\n${filler}`;
    writeFileSync(file, text('a'));
    expect(keysOf(readLog(file).live)).toEqual(['a']);
    writeFileSync(`${file}.new`, text('b') + `${JSON.stringify({ key: 'c', intent: intent('c') })}\n`);
    renameSync(`${file}.new`, file);
    expect(keysOf(readLog(file).live)).toEqual(['b', 'c']);
  });
});

describe('who wrote a log, and who reads it', () => {
  const read = (file: string, owner?: ReadLog['owner']): ReadLog => ({
    file,
    owner,
    live: new Map(),
    ended: new Set(),
    bad: [],
  });

  it('a log is dead by its header’s owner; a headerless one by the pid in its name, a name without one is dead', () => {
    const dir = journalDir();
    const dead = { pid: deadPid(), boot: currentOwner().boot };
    expect(logIsDead(read(join(dir, `${process.ppid}-0a.log`), dead))).toBe(true);
    expect(logIsDead(read(join(dir, `${process.ppid}-0a.log`)))).toBe(false);
    expect(logIsDead(read(join(dir, `${process.pid}-0a.log`)))).toBe(false);
    expect(logIsDead(read(join(dir, `${deadPid()}-0a.log`)))).toBe(true);
    expect(logIsDead(read(join(dir, 'notes.log')))).toBe(true);
  });

  it('foldIntents: two logs, or two files, go by updatedAt whichever is read first; any log is over a file, even a later one; a file is the source `file`', () => {
    const newer = intent('a', { phase: 'accepted', orderId: 'ord_a', updatedAt: '2026-06-01T13:00:00.000Z' });
    const older = intent('a', { phase: 'sending', updatedAt: '2026-06-01T12:30:00.000Z' });
    const logOf = (i: Intent): ReadLog => ({ file: 'x', live: new Map([[i.key, i]]), ended: new Set(), bad: [] });
    const none = { live: new Map<string, Intent>(), ended: new Set<string>() };
    expect(foldIntents([], [logOf(newer), logOf(older)], none).get('a')).toEqual({ source: 'log', intent: newer });
    expect(foldIntents([], [logOf(older), logOf(newer)], none).get('a')).toEqual({ source: 'log', intent: newer });
    expect(foldIntents([newer], [logOf(older)], none).get('a')).toEqual({ source: 'log', intent: older });
    expect(foldIntents([older], [], none).get('a')).toEqual({ source: 'file', intent: older });
    // An intent file and a copy of it made by hand under another name (find's last resort reads both).
    expect(foldIntents([newer, older], [], none).get('a')).toEqual({ source: 'file', intent: newer });
    expect(foldIntents([older, newer], [], none).get('a')).toEqual({ source: 'file', intent: newer });
    // This process's own state is over every log, even one updated later.
    expect(foldIntents([], [logOf(newer)], { live: new Map([['a', older]]), ended: new Set() }).get('a')).toEqual({
      source: 'own',
      intent: older,
    });
  });

  it('otherLogs reads every log but this process’s own, and a missing directory holds none', async () => {
    const dir = journalDir();
    const other = deadLog(dir, [{ key: 'a', intent: intent('a') }]);
    const own = new IntentLog(dir);
    await own.append([{ key: 'b', intent: intent('b') }]);
    expect(otherLogs(dir, own.file).logs.map((log) => log.file)).toEqual([other]);
    expect(otherLogs(join(dir, 'missing'), undefined)).toEqual({ logs: [], vanished: [], failed: [] });
  });

  it('log names: <pid>-<hex>.log, and such a log set aside as .unreadable; nothing else', () => {
    expect(isLogName('123-0a1b.log')).toBe(true);
    expect(isLogName('x123-0a1b.log')).toBe(false);
    expect(isSetAsideLog('123-0a1b.log.unreadable')).toBe(true);
    expect(isSetAsideLog('123-0a1b.log')).toBe(false);
    expect(isSetAsideLog('notes.log.unreadable')).toBe(false);
    expect(isSetAsideLog('123-0a1b.log.unreadablX')).toBe(false);
  });
});
