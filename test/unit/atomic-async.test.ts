// The asynchronous durable writes of the journal (issue 16): a directory fsync shared by the callers that
// ask while one runs, never one that began before a caller asked; staged files that leave nothing behind.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { stageFile, syncDirectory, writeFileAtomic } from '../../src/files/atomic.js';
import { tempDir } from '../helpers/e2e.js';

/** Directory fsyncs begun (through the mocked open(dir, 'r')), each finished by the test. */
const dirSyncs: { dir: string; finish: () => void }[] = [];
let holdDirSyncs = false;

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: async (path: string, flags: string, mode?: number) => {
      if (!holdDirSyncs || flags !== 'r') return real.open(path, flags, mode);
      return { sync: () => new Promise<void>((finish) => dirSyncs.push({ dir: path, finish })), close: () => Promise.resolve() };
    },
  };
});

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
    }
  });
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

  it('an unwritable place is a LocalError naming the file, and leaves no temporary file', async () => {
    const dir = join(tempDir(), 'missing', 'deeper');
    await expect(writeFileAtomic(join(dir, 'x.json'), 'x', 'journal file')).rejects.toMatchObject({ exitCode: 8, message: expect.stringContaining(join(dir, 'x.json')) });
  });
});
