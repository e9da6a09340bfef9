// Encrypted codes files (docs/codes-and-exports.md, "Encrypted codes files"): every format's bytes pass through one
// more sink, which encrypts them to the recipients in the age v1 format (age-encryption.org/v1) as they are written,
// 64 KiB at a time: what reaches the disk, or stdout, is ciphertext only. The age authors' library
// (age-encryption) does the format; it is loaded here, when a file is encrypted or decrypted, never at start-up.
// The spool the CSV writer keeps on disk (csv.ts) is ciphertext too, under a key that lives in memory only.
import { UsageError } from '../errors.js';
import { nodeCrypto } from '../random.js';
import type { TextSink } from './format.js';

/** An X25519 recipient as age-keygen prints it: `age1` and 58 Bech32 characters. */
const X25519_RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;

/** The recipient types the age library encrypts to, by the prefix each starts with. */
const KNOWN_PREFIXES = ['age1pq1', 'age1tagpq1', 'age1tag1', 'age1'] as const;

/**
 * Why `value` is not a recipient this client can encrypt to, in words, or undefined when it is one. Quick and
 * synchronous (doctor and config set say it without loading the library); the library checks it again.
 */
export function recipientProblem(value: string): string | undefined {
  if (value.startsWith('ssh-')) return 'SSH recipients are not supported (the age library does not encrypt to them)';
  if (value.startsWith('AGE-SECRET-KEY-'))
    return 'that is a secret key (an identity), not a recipient: give its public key (age-keygen -y key.txt)';
  if (!KNOWN_PREFIXES.some((prefix) => value.startsWith(prefix))) return 'a recipient starts with age1';
  if (value.startsWith('age1') && !value.startsWith('age1pq1') && !value.startsWith('age1tag')) {
    if (!X25519_RECIPIENT.test(value)) return 'an X25519 recipient is age1 followed by 58 lower-case Bech32 characters';
  }
  return undefined;
}

/** The recipients, checked: each one age can encrypt to, else exit 2 naming it and where it came from. */
export async function checkRecipients(recipients: readonly string[], source: string): Promise<void> {
  const quick = recipients.map((r) => [r, recipientProblem(r)] as const).find(([, problem]) => problem);
  if (quick) throw badRecipient(quick[0], quick[1]!, source);
  const { Encrypter } = await import('age-encryption');
  for (const recipient of recipients) {
    try {
      new Encrypter().addRecipient(recipient);
    } catch (error) {
      throw badRecipient(recipient, error instanceof Error ? error.message : String(error), source);
    }
  }
}

function badRecipient(recipient: string, why: string, source: string): UsageError {
  const shown = recipient.length > 80 ? `${recipient.slice(0, 77)}...` : recipient;
  return new UsageError(`${source}: "${shown}" is not an age recipient: ${why}`, {
    code: 'recipient_invalid',
    hint: 'make a key pair with age-keygen -o key.txt; its public key (age1...) is the recipient',
  });
}

/** A sink that encrypts everything written to it for `recipients`, writing the age file to `inner`. */
export interface EncryptingSink {
  sink: TextSink;
  /** Ends the age file (its last chunk) and waits until every byte has reached `inner`. */
  close(): Promise<void>;
  /** Stops after a failure elsewhere: nothing more is written to `inner`. */
  abort(reason: unknown): void;
}

export async function encryptingSink(inner: TextSink, recipients: readonly string[]): Promise<EncryptingSink> {
  const { Encrypter } = await import('age-encryption');
  const encrypter = new Encrypter();
  for (const recipient of recipients) encrypter.addRecipient(recipient);
  // Plaintext in at one end, the age file out at the other; each side holds at most a chunk or two.
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = await encrypter.encrypt(input.readable);
  const writer = input.writable.getWriter();
  const reader = output.getReader();
  let failure: { error: unknown } | undefined;
  const pumping = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      await inner.write(value);
    }
  })().catch((error: unknown) => {
    failure ??= { error };
    // Whoever writes next finds the failure, not a stream waiting forever for a reader.
    writer.abort(error).catch(() => undefined);
    throw error;
  });
  // Awaited by close(); a failure before then is reported by the next write.
  pumping.catch(() => undefined);
  const failed = (): never => {
    throw failure!.error;
  };
  return {
    sink: {
      write: async (chunk) => {
        if (failure) failed();
        // A copy: the caller may reuse its buffer once this resolves, and the encryption reads it later.
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
        await writer.ready.catch(failed);
        await writer.write(bytes).catch(failed);
        if (failure) failed();
      },
    },
    close: async () => {
      if (failure) failed();
      await writer.close().catch(failed);
      await pumping;
    },
    abort: (reason) => {
      failure ??= { error: reason };
      writer.abort(reason).catch(() => undefined);
      reader.cancel(reason).catch(() => undefined);
    },
  };
}

/**
 * What keeps a temporary file's bytes unreadable on disk while it is written and read back in any order: AES-256
 * in counter mode under a random key held in memory only (the file dies with the run, and so does the key).
 * The same call encrypts and decrypts the bytes found at `position` in the file (a new buffer; `bytes` is untouched).
 */
export class SpoolCipher {
  private readonly key = nodeCrypto().randomBytes(32);
  private readonly nonce = nodeCrypto().randomBytes(8);

  apply(bytes: Uint8Array, position: number): Buffer {
    const block = Math.floor(position / 16);
    const iv = Buffer.alloc(16);
    this.nonce.copy(iv, 0);
    iv.writeBigUInt64BE(BigInt(block), 8);
    const cipher = nodeCrypto().createCipheriv('aes-256-ctr', this.key, iv);
    const skip = position % 16;
    if (skip > 0) cipher.update(Buffer.alloc(skip));
    return cipher.update(bytes);
  }
}
