// Where the webhook secret comes from: the file (trimmed, refused when others own or can write it), the
// environment, or the command line with a warning that is kept out of --json mode's stderr.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Io } from '../../src/output/io.js';
import { readSecretFile, resolveWebhookSecret } from '../../src/webhooks/secret.js';

function testIo(json = false): { io: Io; stderr: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  const io = new Io({ stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: {}, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false });
  io.setMode({ json, quiet: false, verbose: false });
  return { io, stderr: () => text };
}

const dir = mkdtempSync(join(tmpdir(), 'giftcodes-secret-'));
function secretFile(name: string, content: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

const posix = process.platform !== 'win32';
const root = process.getuid?.() === 0;

describe('readSecretFile', () => {
  it('returns the content without its trailing line break', () => {
    const { io, stderr } = testIo();
    expect(readSecretFile(secretFile('lf', 'whsec_file_1\n'), io)).toBe('whsec_file_1');
    expect(readSecretFile(secretFile('crlf', 'whsec_file_2\r\n'), io)).toBe('whsec_file_2');
    expect(readSecretFile(secretFile('bare', 'whsec_file_3'), io)).toBe('whsec_file_3');
    expect(stderr()).toBe('');
  });

  it('an empty file is exit 2, a missing or unreadable one exit 8', () => {
    const { io } = testIo();
    expect(() => readSecretFile(secretFile('empty', '\n'), io)).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining('empty') }));
    expect(() => readSecretFile(join(dir, 'absent'), io)).toThrow(expect.objectContaining({ exitCode: 8, message: expect.stringContaining('ENOENT') }));
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    expect(() => readSecretFile(sub, io)).toThrow(expect.objectContaining({ exitCode: 8 }));
    expect(() => readSecretFile(secretFile('two-lines', 'whsec_a\nwhsec_b\n'), io)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  it.skipIf(!posix || root)('a file of mode 000 is exit 8 (unreadable)', () => {
    const { io } = testIo();
    expect(() => readSecretFile(secretFile('locked', 'whsec_x\n', 0o000), io)).toThrow(expect.objectContaining({ exitCode: 8, message: expect.stringContaining('EACCES') }));
  });

  it.skipIf(!posix)('a file others can write is refused with exit 8 and the chmod to run; one others can read is used with a warning', () => {
    const { io, stderr } = testIo();
    const open = secretFile('world-writable', 'whsec_x\n', 0o666);
    expect(() => readSecretFile(open, io)).toThrow(expect.objectContaining({ exitCode: 8, hint: `run: chmod 600 ${open}` }));
    expect(() => readSecretFile(secretFile('group-writable', 'whsec_x\n', 0o620), io)).toThrow(expect.objectContaining({ exitCode: 8 }));
    const readable = secretFile('readable', 'whsec_readable\n', 0o644);
    expect(readSecretFile(readable, io)).toBe('whsec_readable');
    expect(stderr()).toContain(`the secret file ${readable} is readable by other users (mode 0644); run: chmod 600 ${readable}`);
    expect(stderr()).not.toContain('whsec_readable');
  });

  it.skipIf(!posix || !root)('as root, a file another user owns is refused with exit 8', async () => {
    const { chownSync } = await import('node:fs');
    const { io } = testIo();
    const path = secretFile('other-owner', 'whsec_x\n');
    chownSync(path, 65534, 65534);
    // Root's own files pass; this one belongs to nobody.
    expect(() => readSecretFile(path, io)).toThrow(expect.objectContaining({ exitCode: 8, message: expect.stringContaining('another user') }));
  });
});

describe('resolveWebhookSecret', () => {
  it('takes --secret-file, then GIFTCODES_WEBHOOK_SECRET; an empty variable is no secret', () => {
    const { io, stderr } = testIo();
    const file = secretFile('sources', 'whsec_from_file\n');
    expect(resolveWebhookSecret({ flagName: '--secret', file, env: { GIFTCODES_WEBHOOK_SECRET: 'whsec_env' } }, io)).toBe('whsec_from_file');
    expect(resolveWebhookSecret({ flagName: '--secret', env: { GIFTCODES_WEBHOOK_SECRET: 'whsec_env' } }, io)).toBe('whsec_env');
    expect(resolveWebhookSecret({ flagName: '--secret', env: { GIFTCODES_WEBHOOK_SECRET: '' } }, io)).toBeUndefined();
    expect(stderr()).toBe('');
  });

  it('a secret on the command line works, with one warning naming the flag and the ways out', () => {
    const { io, stderr } = testIo();
    expect(resolveWebhookSecret({ flag: 'whsec_argv', flagName: '--webhook-secret', env: { GIFTCODES_WEBHOOK_SECRET: 'whsec_env' } }, io)).toBe('whsec_argv');
    expect(stderr()).toMatch(/^(\S+Z )?warning: --webhook-secret shows the webhook secret to every user of this machine in ps output; set GIFTCODES_WEBHOOK_SECRET or use --secret-file instead\n$/);
  });

  it('says nothing on stderr in --json mode', () => {
    const { io, stderr } = testIo(true);
    expect(resolveWebhookSecret({ flag: 'whsec_argv', flagName: '--secret', env: {} }, io)).toBe('whsec_argv');
    expect(stderr()).toBe('');
  });

  it('the flag and the file together are a usage error', () => {
    const { io } = testIo();
    expect(() => resolveWebhookSecret({ flag: 'whsec_argv', flagName: '--secret', file: secretFile('both', 'x'), env: {} }, io)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
