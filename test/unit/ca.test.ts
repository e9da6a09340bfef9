// The CA sources read from disk (src/config/ca.ts): --ca-file, SSL_CERT_FILE and SSL_CERT_DIR's directories as
// OpenSSL lays them out. What a certificate is does not matter here (the e2e transport test trusts a real CA
// through each); these are PEM-shaped blocks, told apart by their body.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trustedCa } from '../../src/config/ca.js';
import { isCliError } from '../../src/errors.js';
import { tempDir } from '../helpers/e2e.js';

const pem = (body: string): string => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`;
const bodies = (text: string | undefined): string[] =>
  (text ?? '').match(/(?<=-----BEGIN CERTIFICATE-----\n)[^\n]+/g) ?? [];

async function exitCodeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (error) {
    if (isCliError(error)) return error.exitCode;
    throw error;
  }
  return undefined;
}

describe('SSL_CERT_DIR read as OpenSSL lays a directory out', () => {
  it('reads *.pem, *.crt, *.cer and hash links, each file once however many names it has; skips CRLs, other names and files without a certificate', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'Corp_Root.pem'), pem('CORP'));
    symlinkSync('Corp_Root.pem', join(dir, '5d3a8f2b.0'));
    symlinkSync(join(dir, 'Corp_Root.pem'), join(dir, 'again.crt'));
    writeFileSync(join(dir, 'other.cer'), pem('OTHER'));
    writeFileSync(join(dir, '0a1b2c3d.1'), pem('HASHED'));
    writeFileSync(join(dir, '5d3a8f2b.r0'), pem('A-CRL-NAME'));
    writeFileSync(join(dir, 'README'), pem('NOT-A-CERTIFICATE-NAME'));
    writeFileSync(join(dir, 'notes.pem'), 'no certificate here\n');
    mkdirSync(join(dir, 'sub.pem'));
    expect(bodies(await trustedCa({ fileWhere: '--ca-file', certDir: dir })).sort()).toEqual([
      'CORP',
      'HASHED',
      'OTHER',
    ]);
  });

  it('a file SSL_CERT_FILE names is not read again from the directory; empty list entries are passed over', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bundle.crt'), `${pem('ONE')}\n${pem('TWO')}\n`);
    writeFileSync(join(dir, 'three.pem'), pem('THREE'));
    const second = tempDir();
    writeFileSync(join(second, 'four.pem'), pem('FOUR'));
    const text = await trustedCa({
      fileWhere: '--ca-file',
      certFile: join(dir, 'bundle.crt'),
      certDir: `${delimiter}${dir}${delimiter}${delimiter}${second}`,
    });
    expect(bodies(text).sort()).toEqual(['FOUR', 'ONE', 'THREE', 'TWO']);
  });

  it('a link to nothing is passed over (a certificate removed without its hash link); a directory without certificates adds none', async () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'removed.pem'), join(dir, '11223344.0'));
    expect(await trustedCa({ fileWhere: '--ca-file', certDir: dir })).toBeUndefined();
    writeFileSync(join(dir, 'kept.pem'), pem('KEPT'));
    expect(bodies(await trustedCa({ fileWhere: '--ca-file', certDir: dir }))).toEqual(['KEPT']);
  });

  it('a directory that is missing, or that others can write, is exit 8; so is a certificate file in it others can write', async () => {
    const dir = tempDir();
    expect(await exitCodeOf(trustedCa({ fileWhere: '--ca-file', certDir: join(dir, 'missing') }))).toBe(8);
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(await exitCodeOf(trustedCa({ fileWhere: '--ca-file', certDir: open }))).toBe(8);
    const planted = join(dir, 'planted');
    mkdirSync(planted);
    writeFileSync(join(planted, 'evil.pem'), pem('EVIL'));
    chmodSync(join(planted, 'evil.pem'), 0o666);
    expect(await exitCodeOf(trustedCa({ fileWhere: '--ca-file', certDir: planted }))).toBe(8);
  });
});

describe('CA files', () => {
  it('--ca-file and SSL_CERT_FILE add up; each must hold a certificate (exit 2) and be readable (exit 8)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'flag.pem'), pem('FLAG'));
    writeFileSync(join(dir, 'system.pem'), pem('SYSTEM'));
    writeFileSync(join(dir, 'empty.pem'), 'nothing\n');
    expect(
      bodies(
        await trustedCa({ file: join(dir, 'flag.pem'), fileWhere: '--ca-file', certFile: join(dir, 'system.pem') }),
      ),
    ).toEqual(['FLAG', 'SYSTEM']);
    expect(await exitCodeOf(trustedCa({ fileWhere: '--ca-file', certFile: join(dir, 'empty.pem') }))).toBe(2);
    expect(await exitCodeOf(trustedCa({ fileWhere: '--ca-file', certFile: join(dir, 'missing.pem') }))).toBe(8);
    expect(await trustedCa({ fileWhere: '--ca-file' })).toBeUndefined();
  });

  // Broke: `cannot read the CA file /nonexist (--ca-file): ENOENT`, the errno alone, the same hint for every cause.
  it('one that cannot be read says why in words, with a hint for that cause and for what named it', async () => {
    const dir = tempDir();
    const refusal = async (sources: Parameters<typeof trustedCa>[0]): Promise<unknown> =>
      trustedCa(sources).then(
        () => undefined,
        (error: unknown) => error,
      );
    const missing = join(dir, 'nope.pem');
    expect(await refusal({ file: missing, fileWhere: '--ca-file' })).toMatchObject({
      exitCode: 8,
      code: 'ca_file_unreadable',
      message: `cannot read the CA file ${missing} (--ca-file): no such file`,
      hint: 'check the path: give --ca-file the path of a PEM file of CA certificates',
    });
    expect(await refusal({ fileWhere: '--ca-file', certFile: missing })).toMatchObject({
      message: `cannot read the CA file ${missing} (SSL_CERT_FILE): no such file`,
      hint: 'check the path: point SSL_CERT_FILE at a PEM file of CA certificates, or unset it',
    });
    const certs = join(dir, 'certs');
    mkdirSync(certs);
    expect(await refusal({ file: certs, fileWhere: 'GIFTCODES_CA_FILE' })).toMatchObject({
      exitCode: 8,
      message: `cannot read the CA file ${certs} (GIFTCODES_CA_FILE): it is a directory`,
      hint: "a directory of certificates is SSL_CERT_DIR's: give GIFTCODES_CA_FILE the path of a PEM file of CA certificates",
    });
    // A directory others can write (/tmp, 1777) is said to be a directory, never told to be chmodded (a review).
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    expect(await refusal({ file: shared, fileWhere: '--ca-file' })).toMatchObject({
      exitCode: 8,
      message: `cannot read the CA file ${shared} (--ca-file): it is a directory`,
    });
    writeFileSync(join(dir, 'plain'), 'x');
    expect(await refusal({ fileWhere: '--ca-file', certDir: join(dir, 'plain') })).toMatchObject({
      exitCode: 8,
      message: `cannot read the CA directory ${join(dir, 'plain')} (SSL_CERT_DIR): it is not a directory`,
    });
    expect(await refusal({ fileWhere: '--ca-file', certDir: join(dir, 'gone') })).toMatchObject({
      message: `cannot read the CA directory ${join(dir, 'gone')} (SSL_CERT_DIR): no such directory`,
    });
  });

  it.skipIf(process.getuid?.() === 0)('a CA file this user cannot read: permission denied, and the chmod', async () => {
    const file = join(tempDir(), 'locked.pem');
    writeFileSync(file, pem('LOCKED'));
    chmodSync(file, 0o200);
    await expect(trustedCa({ file, fileWhere: '--ca-file' })).rejects.toMatchObject({
      exitCode: 8,
      message: `cannot read the CA file ${file} (--ca-file): permission denied: this user cannot read it`,
      hint: `make it readable by this user (as its owner: chmod 644 ${file}), or give --ca-file the path of a PEM file of CA certificates`,
    });
  });
});
