// What a failed write tells the user (files/atomic.ts): each errno in words with the hint for its cause, the
// path and the errno once; and writeFileAtomicSync's whole-file and permission rules.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalError } from '../../src/errors.js';
import { localError, writeFileAtomic, writeFileAtomicSync } from '../../src/files/atomic.js';
import { errnoMeaning } from '../../src/files/errno.js';
import { tempDir } from '../helpers/e2e.js';

describe('errnoMeaning', () => {
  it.each([
    ['ENOSPC', 'no space left on the device', 'free some space on that disk, then run the same command again'],
    ['EDQUOT', 'disk quota exceeded', 'free some space within your quota, then run the same command again'],
    ['EROFS', 'the file system is read-only', 'use a path on a writable disk, or remount it read-write'],
    ['EACCES', 'permission denied', 'use a path you can write to, or fix its permissions'],
    ['EPERM', 'permission denied', 'use a path you can write to, or fix its permissions'],
    ['EISDIR', 'it is a directory', 'give a file name, e.g. --out codes.csv'],
    ['ENOTDIR', 'a part of the path is not a directory', 'check the path'],
    ['ENOENT', 'the directory does not exist', 'create it first, or choose another path'],
    ['EIO', 'an input/output error from the disk', 'check the disk (dmesg), then run the same command again'],
    ['EMFILE', 'too many open files', 'raise the open-file limit (ulimit -n), then run the same command again'],
    ['ENFILE', 'too many open files', 'raise the open-file limit (ulimit -n), then run the same command again'],
    ['EFBIG', 'the file is too large for the file system', 'use a path on another disk'],
    ['EXDEV', 'EXDEV', 'fix the cause, then run the same command again'],
    [undefined, 'unknown error', 'fix the cause, then run the same command again'],
  ])('%s: %s', (code, reason, hint) => {
    expect(errnoMeaning(code)).toEqual({ reason, hint });
  });
});

describe('localError', () => {
  const errno = (code?: string): Error => Object.assign(new Error('x'), code ? { code } : {});

  it('names what and where, the reason, then the errno when the words are not the errno itself', () => {
    const error = localError(errno('ENOSPC'), '/d/f.json', 'journal file', 'journal_unwritable');
    expect(error).toBeInstanceOf(LocalError);
    expect(error).toMatchObject({
      exitCode: 8,
      code: 'journal_unwritable',
      message: 'cannot write the journal file /d/f.json: no space left on the device (ENOSPC)',
      hint: 'free some space on that disk, then run the same command again',
    });
    expect(localError(errno('EXDEV'), '/f').message).toBe('cannot write the file /f: EXDEV');
    expect(localError(errno(), '/f')).toMatchObject({
      code: 'local_error',
      message: 'cannot write the file /f: unknown error',
    });
    expect(localError(undefined, '/f').message).toBe('cannot write the file /f: unknown error');
  });

  it('a LocalError passes unchanged', () => {
    const already = new LocalError('cannot write the directory /d: permission denied (EACCES)');
    expect(localError(already, '/other')).toBe(already);
  });
});

describe('writeFileAtomicSync and writeFileAtomic', () => {
  it('a large file is written whole, 0600, under its own name only', async () => {
    const dir = tempDir();
    const big = 'é'.repeat(3 * 1024 * 1024);
    writeFileAtomicSync(join(dir, 'big.json'), big);
    await writeFileAtomic(join(dir, 'big2.json'), big, 'file', { syncDir: false });
    for (const name of ['big.json', 'big2.json']) {
      expect(readFileSync(join(dir, name), 'utf8')).toBe(big);
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    }
    expect(readdirSync(dir).sort()).toEqual(['big.json', 'big2.json']);
  });

  it('a failure names the file as `what` says, with the hint for its cause', () => {
    const dir = join(tempDir(), 'missing');
    expect(() => writeFileAtomicSync(join(dir, 'config.json'), '{}', 'config file')).toThrow(
      expect.objectContaining({
        exitCode: 8,
        message: `cannot write the config file ${join(dir, 'config.json')}: the directory does not exist (ENOENT)`,
        hint: 'create it first, or choose another path',
      }),
    );
  });
});
