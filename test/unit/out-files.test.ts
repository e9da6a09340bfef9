// The --out file's rules on a real directory: a link planted while the codes are fetched is never
// written through nor replaced; the path lock and when it may be taken over; atomic small-file writes
// that fail are a LocalError (exit 8) and leave no temporary file.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode, LocalError, UsageError } from '../../src/errors.js';
import { exportCodes } from '../../src/export/write.js';
import { checkOutTarget, holdOutTarget } from '../../src/export/out-target.js';
import { currentHolder, lockOutTarget, outLockPath } from '../../src/export/out-lock.js';
import { writeFileAtomicSync } from '../../src/files/atomic.js';
import type { Io } from '../../src/output/io.js';
import { deadPid, tempDir } from '../helpers/e2e.js';
import { twoPageApi } from '../helpers/inprocess.js';

function exportTo(out: string, force: boolean, between: () => void = () => undefined) {
  return exportCodes({
    api: twoPageApi(between),
    orderId: 'ord_1',
    out,
    format: 'jsonl',
    force,
    csvRaw: false,
    io: {} as Io,
    signal: new AbortController().signal,
  });
}

async function refusal(promise: Promise<unknown>): Promise<UsageError | LocalError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof UsageError || error instanceof LocalError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('a link planted at --out while the codes are fetched', () => {
  it('without --force: the link is left as it is, nothing is written through it, no temporary file stays', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    const error = await refusal(exportTo(target, false, () => symlinkSync(join(dir, 'planted.jsonl'), target)));
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.code).toBe('out_exists');
    expect(readlinkSync(target)).toBe(join(dir, 'planted.jsonl'));
    expect(existsSync(join(dir, 'planted.jsonl'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });

  it('with --force: refused as a link (out_is_symlink), the link and the file it points to untouched', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    writeFileSync(join(dir, 'real.jsonl'), 'keep me\n');
    const error = await refusal(exportTo(target, true, () => symlinkSync('real.jsonl', target)));
    expect(error.code).toBe('out_is_symlink');
    expect(error.message).toContain(`${target} is a symbolic link to real.jsonl`);
    expect(lstatSync(target).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.jsonl'), 'utf8')).toBe('keep me\n');
    expect(readdirSync(dir).sort()).toEqual(['codes.jsonl', 'real.jsonl']);
  });

  it('with no link, --force replaces an existing file whole and releases the lock', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.jsonl');
    writeFileSync(target, 'old\n');
    const result = await exportTo(target, true);
    expect(result.count).toBe(2);
    expect(readFileSync(target, 'utf8')).toBe('{"code":"A-1"}\n{"code":"A-2"}\n');
    expect(readdirSync(dir)).toEqual(['codes.jsonl']);
  });
});

describe('checkOutTarget', () => {
  // A person's day: `--out exports` (a directory) was told "e.g. --out codes.csv", a file somewhere else.
  it('a directory: the hint names a file in it', () => {
    const dir = join(tempDir(), 'my exports');
    mkdirSync(dir);
    expect(() => checkOutTarget(dir, false)).toThrow(
      expect.objectContaining({ code: 'out_is_directory', hint: `give a file name, e.g. --out '${dir}/codes.csv'` }),
    );
  });

  it('refuses a device or a named pipe, also with --force: the rename would replace it, not write to it', () => {
    expect(() => checkOutTarget('/dev/null', true)).toThrow(
      expect.objectContaining({
        code: 'out_not_a_file',
        exitCode: ExitCode.usage,
        message: '/dev/null is not a regular file (a character device)',
      }),
    );
    const fifo = join(tempDir(), 'codes.csv');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => checkOutTarget(fifo, true)).toThrow(
      expect.objectContaining({ code: 'out_not_a_file', hint: expect.stringContaining('--out -') }),
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});

describe('the --out path lock', () => {
  const held: { release(): void }[] = [];
  afterEach(() => {
    for (const lock of held.splice(0)) lock.release();
  });

  it('one holder at a time: a second lock, the pre-flight check and an export are all refused with out_busy', async () => {
    const target = join(tempDir(), 'codes.jsonl');
    const lock = lockOutTarget(target);
    held.push(lock);
    expect(lock.path).toBe(outLockPath(target));
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toEqual(JSON.parse(JSON.stringify(currentHolder())));
    expect(() => lockOutTarget(target)).toThrow(
      expect.objectContaining({ code: 'out_busy', exitCode: ExitCode.usage }),
    );
    expect(() => checkOutTarget(target, false)).toThrow(expect.objectContaining({ code: 'out_busy' }));
    expect(() => checkOutTarget(target, false, { lockHeldHere: true })).not.toThrow();
    expect((await refusal(exportTo(target, false))).code).toBe('out_busy');
    // Held by the caller: the export uses it and leaves it to the caller to release.
    const result = await exportCodes({
      api: twoPageApi(() => undefined),
      orderId: 'ord_1',
      out: target,
      format: 'jsonl',
      force: false,
      csvRaw: false,
      io: {} as Io,
      signal: new AbortController().signal,
      lock,
    });
    expect(result.count).toBe(2);
    expect(existsSync(lock.path)).toBe(true);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    const again = lockOutTarget(target);
    held.push(again);
  });

  it('a lock of a dead pid, of a reused pid (another start time) or of another boot is taken over', () => {
    const target = join(tempDir(), 'codes.jsonl');
    const me = currentHolder();
    for (const stale of [
      { pid: deadPid() },
      { pid: process.pid, start: '1', boot: me.boot },
      { pid: process.ppid, boot: 'another-boot' },
    ]) {
      writeFileSync(outLockPath(target), JSON.stringify(stale));
      const lock = lockOutTarget(target);
      expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
      lock.release();
    }
  });

  it('a lock of a live process is never taken over, however old, also when that process is stopped', async () => {
    const target = join(tempDir(), 'codes.jsonl');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const start = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
      writeFileSync(outLockPath(target), JSON.stringify({ pid: child.pid, start, boot: currentHolder().boot }));
      child.kill('SIGSTOP');
      expect(() => lockOutTarget(target)).toThrow(
        expect.objectContaining({ code: 'out_busy', message: expect.stringContaining(`pid ${child.pid}`) }),
      );
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("the pre-flight clears a dead writer's lock also when it then refuses an existing file", () => {
    const target = join(tempDir(), 'codes.jsonl');
    writeFileSync(target, 'whole\n');
    writeFileSync(outLockPath(target), JSON.stringify({ pid: deadPid() }));
    expect(() => checkOutTarget(target, false)).toThrow(expect.objectContaining({ code: 'out_exists' }));
    expect(readdirSync(join(target, '..'))).toEqual(['codes.jsonl']);
  });

  it("holdOutTarget (order place --out, plan rows) clears a dead writer's lock too when it refuses an existing file", () => {
    const target = join(tempDir(), 'codes.jsonl');
    writeFileSync(target, 'whole\n');
    writeFileSync(outLockPath(target), JSON.stringify({ pid: deadPid() }));
    expect(() => holdOutTarget(target, false, () => false)).toThrow(expect.objectContaining({ code: 'out_exists' }));
    expect(readdirSync(join(target, '..'))).toEqual(['codes.jsonl']);
  });

  it('an unreadable lock is not taken over: the message names it and says when to remove it', () => {
    const target = join(tempDir(), 'codes.jsonl');
    writeFileSync(outLockPath(target), 'not json');
    expect(() => lockOutTarget(target)).toThrow(
      expect.objectContaining({ code: 'out_busy', hint: expect.stringContaining(`remove ${outLockPath(target)}`) }),
    );
  });
});

describe('writeFileAtomicSync', () => {
  it('a target the system refuses (a directory) is a LocalError naming it, with no temporary file left', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'intent.json'));
    let error: unknown;
    try {
      writeFileAtomicSync(join(dir, 'intent.json'), '{}\n', 'journal file');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LocalError);
    expect((error as LocalError).exitCode).toBe(ExitCode.local);
    expect((error as LocalError).message).toBe(
      `cannot write the journal file ${join(dir, 'intent.json')}: it is a directory (EISDIR)`,
    );
    expect(readdirSync(dir)).toEqual(['intent.json']);
  });

  it('replaces a link at the target instead of writing through it, 0600', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'elsewhere.json'), 'keep me\n');
    symlinkSync(join(dir, 'elsewhere.json'), join(dir, 'config.json'));
    writeFileAtomicSync(join(dir, 'config.json'), '{"a":1}\n');
    expect(lstatSync(join(dir, 'config.json')).isSymbolicLink()).toBe(false);
    expect(lstatSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"a":1}\n');
    expect(readFileSync(join(dir, 'elsewhere.json'), 'utf8')).toBe('keep me\n');
  });
});
