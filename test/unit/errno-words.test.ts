// An ENOENT from creating a file is said by what failed (src/files/errno.ts): a review wrote codes to /proc/x.csv and
// was told "the directory does not exist (ENOENT)", and to create it, though /proc exists.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errnoMeaning } from '../../src/files/errno.js';
import { tempDir } from '../helpers/e2e.js';

describe('errnoMeaning of ENOENT with the path that failed', () => {
  it('a directory that is there: the system would not create the file; one that is not: it does not exist', () => {
    const dir = tempDir();
    expect(errnoMeaning('ENOENT', join(dir, 'x.csv')).reason).toBe(
      `${dir} exists, but the system would not create a file in it`,
    );
    expect(errnoMeaning('ENOENT', join(dir, 'x.csv')).hint).not.toContain('create it');
    expect(errnoMeaning('ENOENT', join(dir, 'gone', 'x.csv')).reason).toBe('the directory does not exist');
    expect(errnoMeaning('ENOENT').reason).toBe('the directory does not exist');
  });
});
