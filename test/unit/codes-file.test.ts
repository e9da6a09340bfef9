// src/journal/codes-file.ts on its own, against real files: which recorded codes file an intent can prove
// delivered, which it can prove renamed into place, and which it can no longer account for. Each rule here
// decides whether an order's codes are written again, so a wrong answer hands the same codes out twice.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliveredFile, fileIdentity, recordedFileState, renamedFile } from '../../src/journal/codes-file.js';
import { INTENT_VERSION, type FileIdentity, type Intent } from '../../src/journal/intent.js';
import { tempDir } from '../helpers/e2e.js';

function intentOf(files: FileIdentity[] | undefined, orderId: string | null = 'ord_1'): Intent {
  return {
    version: INTENT_VERSION,
    key: 'restock-1',
    body: '{"product_id":"amazon-us-25","quantity":2}',
    fingerprint: 'f',
    phase: 'accepted',
    createdAt: '2026-11-29T00:00:00.000Z',
    updatedAt: '2026-11-29T00:00:00.000Z',
    owner: { pid: 1 },
    profile: 'default',
    environment: 'test',
    baseUrl: 'http://127.0.0.1:1',
    keyId: 'k',
    productId: 'amazon-us-25',
    quantity: 2,
    orderId: orderId ?? undefined,
    files,
  };
}

/** A complete temporary file of codes for `ord_1`, its identity recorded before the rename to `codes.json`. */
function written(): { dir: string; temp: string; target: string; identity: FileIdentity } {
  const dir = tempDir();
  const temp = join(dir, '.codes.json.tmp');
  const target = join(dir, 'codes.json');
  writeFileSync(temp, '[{"code":"A-1"},{"code":"A-2"}]\n');
  return { dir, temp, target, identity: { ...fileIdentity(temp, 'ord_1', target), count: 2, format: 'json' } };
}

describe('recordedFileState', () => {
  it('an intent that recorded no codes file has nothing to account for, before and after its order id is known', () => {
    expect(recordedFileState(intentOf(undefined, null))).toBeUndefined();
    expect(recordedFileState(intentOf(undefined))).toBeUndefined();
    expect(recordedFileState(intentOf([], null))).toBeUndefined();
  });

  it('a temporary file still there unchanged is pending: the rename never happened, the codes may be written', () => {
    const { temp, identity } = written();
    expect(recordedFileState(intentOf([identity]))).toEqual({ state: 'pending', identity });
    expect(identity.temp).toBe(temp);
  });

  it('a file renamed into place without its mark is found at its path: neither pending nor unaccounted', () => {
    const { temp, target, identity } = written();
    renameSync(temp, target);
    expect(recordedFileState(intentOf([identity]))).toBeUndefined();
    expect(deliveredFile(intentOf([identity]), target)).toEqual(identity);
  });

  it('neither the temporary file nor the target holds it, and no mark: unaccounted (the codes are not written again)', () => {
    const { temp, target, identity } = written();
    renameSync(temp, target);
    rmSync(target);
    expect(recordedFileState(intentOf([identity]))).toEqual({ state: 'unaccounted', identity });
  });

  it('a temporary file whose content changed since is no pending rename', () => {
    const { temp, identity } = written();
    writeFileSync(temp, '[{"code":"B-1"},{"code":"B-2"}]\n');
    expect(recordedFileState(intentOf([identity]))).toEqual({ state: 'unaccounted', identity });
  });

  it('a file marked renamed is delivered even once moved away: its state is not asked again', () => {
    const { temp, target, identity } = written();
    renameSync(temp, target);
    rmSync(target);
    const marked = { ...identity, renamed: true };
    expect(recordedFileState(intentOf([marked]))).toBeUndefined();
    expect(renamedFile(intentOf([marked]))).toEqual(marked);
  });

  it("another order's identity (an earlier order under the same intent) is not this order's file", () => {
    const { temp, target, identity } = written();
    renameSync(temp, target);
    rmSync(target);
    const other = { ...identity, orderId: 'ord_0' };
    expect(recordedFileState(intentOf([other]))).toBeUndefined();
    expect(renamedFile(intentOf([{ ...other, renamed: true }]))).toBeUndefined();
    // Its own identity after another order's still counts.
    expect(recordedFileState(intentOf([other, identity]))).toEqual({ state: 'unaccounted', identity });
  });
});

describe('renamedFile', () => {
  it('an identity of older versions (no temporary file named) is renamed when it has its count, and only then', () => {
    const { identity } = written();
    const legacy = { ...identity, temp: undefined };
    expect(renamedFile(intentOf([legacy]))).toEqual(legacy);
    expect(renamedFile(intentOf([{ ...legacy, count: undefined }]))).toBeUndefined();
    // A temporary file named and no mark: the rename is not proven.
    expect(renamedFile(intentOf([identity]))).toBeUndefined();
  });
});

describe('deliveredFile', () => {
  it('is the identity whose file is at the path now, content included; another path or order proves nothing', () => {
    const { dir, temp, target, identity } = written();
    renameSync(temp, target);
    expect(deliveredFile(intentOf([identity]), target)).toEqual(identity);
    expect(deliveredFile(intentOf([identity]), join(dir, 'other.json'))).toBeUndefined();
    expect(deliveredFile(intentOf([{ ...identity, orderId: 'ord_0' }]), target)).toBeUndefined();
    expect(deliveredFile(intentOf(undefined), target)).toBeUndefined();
  });

  it('a file at the path with the same size but other codes (rewritten in place) is not the delivered file', () => {
    const { temp, target, identity } = written();
    renameSync(temp, target);
    writeFileSync(target, '[{"code":"B-1"},{"code":"B-2"}]\n');
    expect(deliveredFile(intentOf([identity]), target)).toBeUndefined();
  });

  it('a file put in its place (another inode) is not the delivered file, even with the same codes', () => {
    const { temp, target, identity } = written();
    writeFileSync(target, '[{"code":"A-1"},{"code":"A-2"}]\n');
    rmSync(temp);
    expect(deliveredFile(intentOf([identity]), target)).toBeUndefined();
  });

  it('a file cut short at the path is not the delivered file', () => {
    const { temp, target, identity } = written();
    renameSync(temp, target);
    writeFileSync(target, '[{"code":"A-1"}]\n');
    expect(deliveredFile(intentOf([identity]), target)).toBeUndefined();
  });
});

describe('fileIdentity', () => {
  // Was exit 1 (an unexpected internal error) when the temporary file was gone by the time its identity was taken.
  it('a temporary file gone under the run is a local file failing (exit 8), named', () => {
    const temp = join(tempDir(), '.codes.csv.giftcodes-1-0123456789ab.tmp');
    expect(() => fileIdentity(temp, 'ord_1', '/x/codes.csv')).toThrow(
      expect.objectContaining({
        exitCode: 8,
        code: 'write_failed',
        message: `cannot read the temporary codes file ${temp}: it is gone (ENOENT)`,
        hint: 'nothing else may remove or change a codes file while giftcodes writes it',
      }),
    );
    // Any other failure in the system's words: a directory where the file was.
    const dir = tempDir();
    expect(() => fileIdentity(dir, 'ord_1', '/x/codes.csv')).toThrow(
      expect.objectContaining({
        exitCode: 8,
        message: expect.stringMatching(/codes file [^:]+: (?!it is gone).* \(EISDIR\)$/),
      }),
    );
  });
});
