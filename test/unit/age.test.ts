// The pieces of encrypted codes files (src/export/age.ts, recipients.ts, format.ts): the spool's cipher read back
// at any offset, the age stream as a sink (decrypted by the age library itself), and the names and recipients.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { Decrypter, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import { encryptingSink, recipientProblem, SpoolCipher } from '../../src/export/age.js';
import { decryptFile, readIdentities } from '../../src/export/decrypt.js';
import { formatFor, namesAgeFile, type TextSink } from '../../src/export/format.js';
import { recipientsFor } from '../../src/export/recipients.js';
import { withRecipients, type WaitFlags } from '../../src/commands/wait-flags.js';
import type { ConfigStore } from '../../src/config/store.js';
import { tempDir, unstamped } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';

describe('SpoolCipher', () => {
  it('reads back any slice of what it wrote, from any offset, and writes no plaintext', () => {
    const cipher = new SpoolCipher();
    const plain = randomBytes(10_000);
    // Written in uneven pieces, as the CSV writer spools pages.
    const disk = Buffer.alloc(plain.length);
    for (let at = 0; at < plain.length;) {
      const size = Math.min(1 + ((at * 7) % 1013), plain.length - at);
      cipher.apply(plain.subarray(at, at + size), at).copy(disk, at);
      at += size;
    }
    expect(disk.equals(plain)).toBe(false);
    for (const [start, end] of [
      [0, 10_000],
      [5, 17],
      [15, 16],
      [4095, 8193],
      [9999, 10_000],
    ] as const)
      expect(cipher.apply(disk.subarray(start, end), start).equals(plain.subarray(start, end))).toBe(true);
  });
});

describe('encryptingSink', () => {
  it('streams many writes into one age file the age library decrypts, reusing the caller buffer safely', async () => {
    const identity = await generateX25519Identity();
    const chunks: Buffer[] = [];
    const age = await encryptingSink({ write: async (chunk) => void chunks.push(Buffer.from(chunk)) }, [
      await identityToRecipient(identity),
    ]);
    const expected: Buffer[] = [];
    const reused = Buffer.alloc(50_000);
    for (let i = 0; i < 40; i++) {
      reused.fill(i);
      expected.push(Buffer.from(reused));
      await age.sink.write(reused);
      await age.sink.write(`line ${i}\n`);
      expected.push(Buffer.from(`line ${i}\n`));
    }
    await age.close();
    const file = Buffer.concat(chunks);
    expect(file.subarray(0, 22).toString('latin1')).toBe('age-encryption.org/v1\n');
    const decrypter = new Decrypter();
    decrypter.addIdentity(identity);
    expect(Buffer.from(await decrypter.decrypt(file)).equals(Buffer.concat(expected))).toBe(true);
  });

  it('a failing inner sink fails the next write and close, never hangs', async () => {
    const identity = await generateX25519Identity();
    const age = await encryptingSink(
      {
        write: () => Promise.reject(new Error('disk full')),
      },
      [await identityToRecipient(identity)],
    );
    const big = Buffer.alloc(200_000, 1);
    await expect(
      (async () => {
        for (let i = 0; i < 20; i++) await age.sink.write(big);
        await age.close();
      })(),
    ).rejects.toThrow('disk full');
  });
});

describe('names and recipients', () => {
  const recipient = 'age1ltrss057ry2zz9atsjjyladvsj8ed9ajh7tctwn0hrsaq7qufqwqujnhqk';

  it('the format of an age file is named before .age', () => {
    expect(formatFor('codes.csv.age', undefined)).toBe('csv');
    expect(formatFor('/x/Codes.XLSX.AGE', undefined)).toBe('xlsx');
    expect(formatFor('codes.age', undefined)).toBe('json');
    expect(formatFor('codes.age', 'jsonl')).toBe('jsonl');
    expect(namesAgeFile('codes.csv.age')).toBe(true);
    expect(namesAgeFile('/dir/.age')).toBe(false);
    expect(namesAgeFile('-')).toBe(false);
    expect(() => formatFor('codes.txt.age', undefined)).toThrow('the extension .txt names no format');
  });

  it('recipientProblem: X25519 and its typos, SSH, secret keys', () => {
    expect(recipientProblem(recipient)).toBeUndefined();
    expect(recipientProblem(recipient.slice(0, -1))).toContain('58 lower-case Bech32');
    expect(recipientProblem(recipient.toUpperCase())).toContain('starts with age1');
    expect(recipientProblem('ssh-ed25519 AAAAC3Nza')).toContain('SSH recipients are not supported');
    expect(recipientProblem('AGE-SECRET-KEY-1ABC')).toContain('secret key');
  });

  it('recipientsFor: flags before the profile; .age and recipients together; stdout', async () => {
    const base = { stdoutIsTTY: false };
    expect(await recipientsFor({ ...base, out: 'c.csv.age', flags: [recipient] })).toEqual([recipient]);
    expect(await recipientsFor({ ...base, out: 'c.csv.age', profile: { name: 'p', recipients: [recipient] } })).toEqual(
      [recipient],
    );
    expect(await recipientsFor({ ...base, out: 'c.csv' })).toBeUndefined();
    expect(await recipientsFor({ ...base, out: undefined, profile: { name: 'p', recipients: [recipient] } })).toBe(
      undefined,
    );
    expect(await recipientsFor({ ...base, out: '-', flags: [recipient] })).toEqual([recipient]);
    await expect(recipientsFor({ ...base, out: 'c.csv', flags: [recipient] })).rejects.toMatchObject({
      code: 'out_not_age',
      exitCode: 2,
    });
    await expect(recipientsFor({ ...base, out: 'c.csv.age' })).rejects.toMatchObject({ code: 'recipient_missing' });
    await expect(recipientsFor({ stdoutIsTTY: true, out: '-', flags: [recipient] })).rejects.toMatchObject({
      code: 'encrypted_to_terminal',
    });
    // A checksum error only the library sees (the shape is right).
    const typo = `${recipient.slice(0, -1)}${recipient.endsWith('k') ? 'q' : 'k'}`;
    await expect(recipientsFor({ ...base, out: 'c.age', flags: [typo] })).rejects.toMatchObject({
      code: 'recipient_invalid',
    });
  });
});

describe('the identity file of codes decrypt', () => {
  // A path that names no file is a usage error (exit 2), as a missing input file is; a key file there that cannot be
  // read is a local file (docs/exit-codes.md: exit 8). Said in words with the way on for its cause, not as a bare errno.
  it('missing: exit 2; a directory: exit 8; named, in words, with a hint for the cause', () => {
    const dir = tempDir();
    const missing = join(dir, 'key.txt');
    expect(() => readIdentities(missing)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        code: 'identity_unreadable',
        message: `cannot read the identity file ${missing}: no such file`,
        hint: expect.stringMatching(/^check the path: .*age-keygen -o key\.txt/),
      }),
    );
    expect(() => readIdentities(dir)).toThrow(
      expect.objectContaining({
        exitCode: 8,
        message: `cannot read the identity file ${dir}: it is a directory`,
        hint: expect.stringMatching(/key file inside it/),
      }),
    );
  });
});

describe('the file codes decrypt reads', () => {
  // A reviewer: `codes decrypt /tmp --identity key.txt` was exit 2 with no hint, where --identity /tmp is 8, as the
  // table has a directory where a file should be (docs/exit-codes.md).
  it('missing: exit 2; a directory: exit 8, with the way on', async () => {
    const dir = tempDir();
    const key = join(dir, 'key.txt');
    writeFileSync(key, `${await generateX25519Identity()}\n`);
    const sink = { write: () => undefined } as unknown as TextSink;
    const stdin = new PassThrough();
    await expect(decryptFile(join(dir, 'none.age'), key, sink, stdin)).rejects.toMatchObject({
      exitCode: 2,
      code: 'input_unreadable',
    });
    await expect(decryptFile(dir, key, sink, stdin)).rejects.toMatchObject({
      exitCode: 8,
      code: 'input_unreadable',
      message: `cannot read ${dir}: it is a directory`,
      hint: `give the encrypted codes file inside it, e.g. ${join(dir, 'codes.csv.age')}`,
    });
  });
});

describe("codes to stdout encrypted by the profile's encrypt-to", () => {
  const recipient = 'age1ltrss057ry2zz9atsjjyladvsj8ed9ajh7tctwn0hrsaq7qufqwqujnhqk';
  const deps = (json: boolean) => {
    const captured = capturedIo({ json });
    return {
      captured,
      deps: {
        io: captured.io,
        config: () => Promise.resolve({ profile: () => ({ encryptTo: [recipient] }) } as unknown as ConfigStore),
        currentTarget: () => Promise.resolve({ profile: 'shop', environment: 'live' as const, baseUrl: 'https://x' }),
      },
    };
  };
  const said =
    'standard output is an age-encrypted file (the encrypt-to of profile "shop"): read it with giftcodes codes decrypt ENCRYPTED_FILE --identity key.txt\n';

  it('is said on stderr, with --json too (its stdout is no JSON)', async () => {
    for (const json of [false, true]) {
      const { captured, deps: d } = deps(json);
      const flags = await withRecipients<WaitFlags>({}, d, { outDefaultsToStdout: true });
      expect(flags.encryptTo).toEqual([recipient]);
      expect(unstamped(captured.err())).toBe(said);
    }
  });

  it('is not said for a file (named .age), nor for --encrypt-to given on the command line', async () => {
    const file = deps(false);
    await withRecipients({ out: 'codes.csv.age' }, file.deps);
    expect(file.captured.err()).toBe('');
    const given = deps(false);
    expect((await withRecipients({ out: '-', encryptTo: [recipient] }, given.deps)).encryptTo).toEqual([recipient]);
    expect(given.captured.err()).toBe('');
  });
});
