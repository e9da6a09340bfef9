// Where the webhook secret comes from: the file (trimmed, refused when others own or can write it), the
// environment, or the command line. Its warnings are returned, never printed: the verbs print them (their
// wording on stderr, and the command line's kept out of --json mode, are pinned in test/e2e/webhook-schemes.test.ts).
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSecretFile, resolveWebhookSecret } from '../../src/webhooks/secret.js';

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
  it('returns the content without its trailing line break, and no warning', () => {
    expect(readSecretFile(secretFile('lf', 'whsec_file_1\n'))).toStrictEqual({ secret: 'whsec_file_1' });
    expect(readSecretFile(secretFile('crlf', 'whsec_file_2\r\n'))).toStrictEqual({ secret: 'whsec_file_2' });
    expect(readSecretFile(secretFile('bare', 'whsec_file_3'))).toStrictEqual({ secret: 'whsec_file_3' });
  });

  it('an empty file is exit 2, a missing or unreadable one exit 8', () => {
    expect(() => readSecretFile(secretFile('empty', '\n'))).toThrow(
      expect.objectContaining({ exitCode: 2, message: expect.stringContaining('empty') }),
    );
    expect(() => readSecretFile(join(dir, 'absent'))).toThrow(
      expect.objectContaining({ exitCode: 8, message: expect.stringContaining('ENOENT') }),
    );
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    expect(() => readSecretFile(sub)).toThrow(expect.objectContaining({ exitCode: 8 }));
    expect(() => readSecretFile(secretFile('two-lines', 'whsec_a\nwhsec_b\n'))).toThrow(
      expect.objectContaining({ exitCode: 2 }),
    );
  });

  it.skipIf(!posix || root)('a file of mode 000 is exit 8 (unreadable)', () => {
    expect(() => readSecretFile(secretFile('locked', 'whsec_x\n', 0o000))).toThrow(
      expect.objectContaining({ exitCode: 8, message: expect.stringContaining('EACCES') }),
    );
  });

  it.skipIf(!posix)(
    'a file others can write is refused with exit 8 and the chmod to run; one others can read is used with a warning',
    () => {
      const open = secretFile('world-writable', 'whsec_x\n', 0o666);
      expect(() => readSecretFile(open)).toThrow(
        expect.objectContaining({ exitCode: 8, hint: `run: chmod 600 ${open}` }),
      );
      expect(() => readSecretFile(secretFile('group-writable', 'whsec_x\n', 0o620))).toThrow(
        expect.objectContaining({ exitCode: 8 }),
      );
      const readable = secretFile('readable', 'whsec_readable\n', 0o644);
      const { secret, fileWarning } = readSecretFile(readable);
      expect(secret).toBe('whsec_readable');
      expect(fileWarning).toBe(
        `the secret file ${readable} is readable by other users (mode 0644); run: chmod 600 ${readable}`,
      );
    },
  );

  it.skipIf(!posix || !root)('as root, a file another user owns is refused with exit 8', async () => {
    const { chownSync } = await import('node:fs');
    const path = secretFile('other-owner', 'whsec_x\n');
    chownSync(path, 65534, 65534);
    // Root's own files pass; this one belongs to nobody.
    expect(() => readSecretFile(path)).toThrow(
      expect.objectContaining({ exitCode: 8, message: expect.stringContaining('another user') }),
    );
  });
});

describe('resolveWebhookSecret', () => {
  it('takes --secret-file, then GIFTCODES_WEBHOOK_SECRET; an empty variable is no secret; none of them warned', () => {
    const file = secretFile('sources', 'whsec_from_file\n');
    expect(
      resolveWebhookSecret({ flagName: '--secret', file, env: { GIFTCODES_WEBHOOK_SECRET: 'whsec_env' } }),
    ).toStrictEqual({ secret: 'whsec_from_file' });
    expect(
      resolveWebhookSecret({ flagName: '--secret', env: { GIFTCODES_WEBHOOK_SECRET: 'whsec_env' } }),
    ).toStrictEqual({ secret: 'whsec_env' });
    expect(resolveWebhookSecret({ flagName: '--secret', env: { GIFTCODES_WEBHOOK_SECRET: '' } })).toStrictEqual({
      secret: undefined,
    });
  });

  it("a secret on the command line works, with the flag's warning naming the flag and the ways out", () => {
    expect(
      resolveWebhookSecret({
        flag: 'whsec_argv',
        flagName: '--webhook-secret',
        env: { GIFTCODES_WEBHOOK_SECRET: 'whsec_env' },
      }),
    ).toStrictEqual({
      secret: 'whsec_argv',
      flagWarning:
        '--webhook-secret shows the webhook secret to every user of this machine in ps output; set GIFTCODES_WEBHOOK_SECRET or use --secret-file instead',
    });
  });

  it.skipIf(!posix)("a file others can read comes back with the file's warning", () => {
    const file = secretFile('sources-readable', 'whsec_readable\n', 0o644);
    expect(resolveWebhookSecret({ flagName: '--secret', file, env: {} })).toStrictEqual({
      secret: 'whsec_readable',
      fileWarning: `the secret file ${file} is readable by other users (mode 0644); run: chmod 600 ${file}`,
    });
  });

  it('the flag and the file together are a usage error', () => {
    expect(() =>
      resolveWebhookSecret({ flag: 'whsec_argv', flagName: '--secret', file: secretFile('both', 'x'), env: {} }),
    ).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
