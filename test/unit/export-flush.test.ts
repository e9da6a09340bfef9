import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Flusher } from '../../src/export/write.js';

const MiB = 1024 * 1024;

/** A file handle whose datasync calls are counted and settled by the test. */
function fakeFile() {
  const calls: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const file = {
    datasync: () =>
      new Promise<void>((resolve, reject) => {
        calls.push({ resolve, reject });
      }),
  } as unknown as FileHandle;
  return { file, calls };
}

const failed = (error: unknown) => new Error(`flush failed: ${(error as Error).message}`);
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Flusher: a large codes file is flushed while it is written', () => {
  it('starts a background fdatasync after every 8 MiB, one at a time', async () => {
    const { file, calls } = fakeFile();
    const flusher = new Flusher(file, failed);
    flusher.wrote(4 * MiB);
    expect(calls).toHaveLength(0);
    flusher.wrote(4 * MiB);
    expect(calls).toHaveLength(1);
    // While one runs, no second one starts, however much is written.
    flusher.wrote(20 * MiB);
    expect(calls).toHaveLength(1);
    calls[0]!.resolve();
    await turn();
    // The 20 MiB written meanwhile are due: the next write starts the next flush.
    flusher.wrote(1);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve();
    await turn();
    flusher.wrote(4 * MiB);
    expect(calls).toHaveLength(2);
    await expect(flusher.settled()).resolves.toBeUndefined();
  });

  it('settled() waits for the running flush', async () => {
    const { file, calls } = fakeFile();
    const flusher = new Flusher(file, failed);
    flusher.wrote(8 * MiB);
    let done = false;
    const settled = flusher.settled().then(() => (done = true));
    await turn();
    expect(done).toBe(false);
    calls[0]!.resolve();
    await settled;
    expect(done).toBe(true);
  });

  it('a failed background flush is thrown by settled(): Linux tells one fsync of a write-back error, so the final one could pass over lost data', async () => {
    const { file, calls } = fakeFile();
    const flusher = new Flusher(file, failed);
    flusher.wrote(8 * MiB);
    calls[0]!.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await expect(flusher.settled()).rejects.toThrow('flush failed: EIO');
    // No more flushes after a failure; the error stays.
    flusher.wrote(16 * MiB);
    expect(calls).toHaveLength(1);
    await expect(flusher.settled()).rejects.toThrow('flush failed');
  });

  it('small files are never flushed in the background', async () => {
    const { file, calls } = fakeFile();
    const flusher = new Flusher(file, failed);
    for (let i = 0; i < 100; i++) flusher.wrote(64 * 1024);
    expect(calls).toHaveLength(0);
    await expect(flusher.settled()).resolves.toBeUndefined();
  });
});
