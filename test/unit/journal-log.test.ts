// The journal's group-commit writer (src/journal/log.ts) on real directories, its fsync replaced where a test
// must hold it or fail it: many appends share one fsync, each released only by an fsync that began after its
// line; a failed fsync fails every waiter and every later append; a torn last line is ignored; readers fold
// the logs over the intent files; a dead process's log is compacted, and compacting again (after a kill at
// any step) comes to the same journal.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTENT_VERSION, orderBody, sha256, type Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { compactLog, foldIntents, IntentLog, readLog, type LogSync } from '../../src/journal/log.js';
import { currentOwner } from '../../src/journal/owner.js';
import { tempDir } from '../helpers/e2e.js';

const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

function journalDir(): string {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function intent(key: string, o: Partial<Intent> = {}): Intent {
  const body = orderBody('amazon-us-25', 1);
  const time = '2026-06-01T12:00:00.000Z';
  return {
    version: INTENT_VERSION,
    key,
    profile: 'default',
    environment: 'test',
    baseUrl: 'http://127.0.0.1:4010',
    keyId: 'k1',
    productId: 'amazon-us-25',
    quantity: 1,
    body,
    fingerprint: sha256(body),
    phase: 'prepared',
    createdAt: time,
    updatedAt: time,
    owner: currentOwner(),
    ...o,
  };
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
    const rest = ['b', 'c', 'd', 'e'].map((key) => log.append([{ key, intent: intent(key) }]).then(() => done.push(key)));
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
    const { intent: begun } = await j.begin({ profile: 'default', environment: 'test', baseUrl: 'http://x', keyId: 'k', productId: 'p', quantity: 1 });
    // The process's log is shared by every Journal of the directory: fail its fsync from here on.
    const { logOf } = await import('../../src/journal/log.js');
    const log = logOf(dir) as unknown as { sync: LogSync };
    log.sync = { ...log.sync, datasync: () => Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' })) };
    const failed = { exitCode: 8, code: 'journal_unwritable', message: `cannot write the order journal ${dir}: an input/output error from the disk (EIO)` };
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
    const file = deadLog(dir, [{ key: 'a', intent: intent('a', { phase: 'sending' }) }], JSON.stringify({ key: 'a', intent: intent('a', { phase: 'accepted', orderId: 'ord_1' }) }).slice(0, 80));
    const log = readLog(file);
    expect(log.live.get('a')?.phase).toBe('sending');
    expect(log.bad).toEqual([]);
    expect(new Journal(dir).read().intents.map((i) => i.phase)).toEqual(['sending']);
  });

  it('a whole line that cannot be read is reported, never taken for an intent', () => {
    const dir = journalDir();
    const file = deadLog(dir, [{ key: 'a', intent: intent('a') }, { key: 'b', intent: { version: 99 } }]);
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
    const other = { file: 'x', live: new Map([['a', intent('a', { phase: 'accepted', updatedAt: '2026-06-01T13:00:00.000Z' })]]), ended: new Set<string>(), bad: [] };
    const own = { live: new Map([['a', intent('a', { phase: 'sending' })]]), ended: new Set<string>() };
    expect(foldIntents([intent('a')], [other], own).get('a')).toMatchObject({ source: 'own', intent: { phase: 'sending' } });
    expect(foldIntents([intent('a')], [other], { live: new Map(), ended: new Set() }).get('a')).toMatchObject({ source: 'log', intent: { phase: 'accepted' } });
  });

  it('an intent in a live process’s log is that process’s: never claimed, resumed or abandoned from here', async () => {
    const dir = journalDir();
    // The parent of this test runner is alive: its log (as if it wrote one) holds an orphan-looking intent.
    const file = join(dir, `${process.ppid}-0123456789ab.log`);
    const orphan = intent('o', { owner: { pid: deadPid(), boot: currentOwner().boot } });
    writeFileSync(file, `${JSON.stringify({ log: 1, owner: { pid: process.ppid } })}\n${JSON.stringify({ key: 'o', intent: orphan })}\n`);
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

  const compacted = (dir: string): Record<string, string> =>
    Object.fromEntries(
      readdirSync(dir)
        .sort()
        .map((name) => [name, (JSON.parse(readFileSync(join(dir, name), 'utf8')) as Intent).phase + ':' + (JSON.parse(readFileSync(join(dir, name), 'utf8')) as Intent).key]),
    );

  it('the next lock holder makes a dead log intent files before anything is claimed, then removes it', async () => {
    const { dir, log } = scene();
    const before = new Journal(dir).read().intents.map((i) => [i.key, i.phase, i.orderId]);
    const j = new Journal(dir);
    await j.settleWhere(() => undefined);
    expect(existsSync(log)).toBe(false);
    expect(compacted(dir)).toEqual({ [`${sha256('a').slice(0, 40)}.json`]: 'accepted:a', [`${sha256('c').slice(0, 40)}.json`]: 'accepted:c' });
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
      expect(new Journal(dir).read().intents.map((x) => `${x.phase}:${x.key}`).sort(), `step ${i}`).toEqual(['accepted:a', 'accepted:c']);
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
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a headerless log (killed before its first line was whole) goes by the pid in its name', async () => {
    const dir = journalDir();
    const file = join(dir, `${deadPid()}-0123456789ab.log`);
    writeFileSync(file, '{"log":1,"own');
    await new Journal(dir).settleWhere(() => undefined);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a run removes its own log once every intent in it ended: nothing is left in the journal', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const spec = { profile: 'default', environment: 'test' as const, baseUrl: 'http://x', keyId: 'k', productId: 'p', quantity: 1 };
    const one = await j.begin({ ...spec, key: 'one' });
    const two = await j.begin({ ...spec, key: 'two' });
    await j.end([one.intent], 'abandoned');
    expect(readdirSync(dir).filter((n) => n.endsWith('.log'))).toHaveLength(1);
    await j.end([two.intent], 'abandoned');
    expect(readdirSync(dir)).toEqual([]);
    // The next change starts a new log.
    await j.begin({ ...spec, key: 'three' });
    expect(readdirSync(dir).filter((n) => n.endsWith('.log'))).toHaveLength(1);
  });

  it('a command that ends with intents unended leaves them as intent files, and no log', async () => {
    const dir = journalDir();
    const j = new Journal(dir);
    const spec = { profile: 'default', environment: 'test' as const, baseUrl: 'http://x', keyId: 'k', productId: 'p', quantity: 1 };
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
