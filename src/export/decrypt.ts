// `giftcodes codes decrypt`: an age file (what --encrypt-to wrote, or `age -r`) back to its plaintext, streamed
// chunk by chunk, with an age identity file (what age-keygen wrote). Each way it can go wrong is one line and
// exit 2: the identity file malformed, the file not an age file, no identity matching its recipients, the file
// damaged or cut short (its chunks are authenticated, the last one marked as last), the input or identity file
// named on the command line missing; an identity or input file there that cannot be read (permission, a
// directory) is exit 8 (docs/exit-codes.md).
import { createReadStream, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LocalError, UsageError } from '../errors.js';
import { whyUnreadable } from '../files/errno.js';
import type { TextSink } from './format.js';

const AGE_MAGIC = 'age-encryption.org/v1\n';
const ARMOR_BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';
/** An armored file is text, small by nature; it is decoded whole (the binary format streams). */
const ARMOR_MAX_BYTES = 64 * 1024 * 1024;

/** The identities of an identity file: `AGE-SECRET-KEY-1...` lines; `#` comments and blank lines skipped. */
export function readIdentities(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // A path that names no file is a usage error (exit 2), as a missing input file is; a key file there that cannot
    // be read is a local resource (docs/exit-codes.md: 8).
    const code = (error as NodeJS.ErrnoException).code;
    const Failure = code === 'ENOENT' || code === 'ENOTDIR' ? UsageError : LocalError;
    throw new Failure(`cannot read the identity file ${path}: ${whyUnreadable(error, 'file')}`, {
      code: 'identity_unreadable',
      hint: identityHint(code, path),
    });
  }
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const malformed = (why: string): UsageError =>
    new UsageError(`the identity file ${path} is not an age identity file: ${why}`, {
      code: 'identity_invalid',
      hint: 'an identity file holds AGE-SECRET-KEY-1... lines, as age-keygen -o key.txt writes them',
    });
  if (lines.length === 0) throw malformed('it holds no key');
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('-----BEGIN') && line.includes('PRIVATE KEY'))
      throw malformed('SSH keys are not supported as identities here (decrypt with age -d -i)');
    if (!line.startsWith('AGE-SECRET-KEY-')) throw malformed(`key ${index + 1} does not start with AGE-SECRET-KEY-`);
  }
  return lines;
}

/** The way on from an identity file that cannot be read, for its cause. */
function identityHint(code: string | undefined, path: string): string {
  const keyFile = 'give --identity the key file age-keygen wrote (age-keygen -o key.txt)';
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return `check the path: ${keyFile}`;
    case 'EISDIR':
      return `give the key file inside it, e.g. --identity ${join(path, 'key.txt')}`;
    case 'EACCES':
    case 'EPERM':
      return `make it readable by this user (as its owner: chmod 600 ${path}), or ${keyFile}`;
    default:
      return keyFile;
  }
}

/** Decrypts the age file at `input` ('-' for stdin) into `sink`, with the identities of `identityPath`. */
export async function decryptFile(
  input: string,
  identityPath: string,
  sink: TextSink,
  stdin: NodeJS.ReadableStream,
): Promise<void> {
  const identities = readIdentities(identityPath);
  const { Decrypter, armor } = await import('age-encryption');
  const decrypter = new Decrypter();
  for (const [index, identity] of identities.entries()) {
    try {
      decrypter.addIdentity(identity);
    } catch (error) {
      throw new UsageError(
        `the identity file ${identityPath} is not an age identity file: key ${index + 1} is malformed (${reason(error)})`,
        {
          code: 'identity_invalid',
          hint: 'an identity file holds AGE-SECRET-KEY-1... lines, as age-keygen writes them',
        },
      );
    }
  }
  const name = input === '-' ? 'standard input' : input;
  const source = await openSource(input, stdin);
  const head = await source.peek(Math.max(AGE_MAGIC.length, ARMOR_BEGIN.length));
  let stream: ReadableStream<Uint8Array>;
  if (head.toString('latin1').startsWith(ARMOR_BEGIN)) {
    const text = (await source.all(ARMOR_MAX_BYTES)).toString('latin1');
    let bytes: Uint8Array;
    try {
      bytes = armor.decode(text);
    } catch (error) {
      throw damaged(name, `its armor is malformed (${reason(error)})`);
    }
    stream = new Blob([bytes]).stream();
  } else if (head.toString('latin1').startsWith(AGE_MAGIC)) {
    stream = source.stream();
  } else {
    source.close();
    throw new UsageError(`${name} is not an age file (it does not start with ${JSON.stringify(AGE_MAGIC.trim())})`, {
      code: 'not_age_file',
      hint: 'give a file written with --encrypt-to (codes.csv.age) or by age -r',
    });
  }
  let plaintext: ReadableStream<Uint8Array>;
  try {
    plaintext = await decrypter.decrypt(stream);
  } catch (error) {
    source.close();
    const why = reason(error);
    if (/no identity matched/.test(why))
      throw new UsageError(`no key in ${identityPath} can decrypt ${name}: it was encrypted to other recipients`, {
        code: 'identity_mismatch',
        hint: 'give the identity file whose public key (age-keygen -y) the codes were encrypted to',
      });
    if (/stream ended/.test(why)) throw damaged(name, 'it is cut short inside its header');
    throw damaged(name, `its header is malformed (${why})`);
  }
  const reader = plaintext.getReader();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw damaged(name, `it is cut short or altered (${reason(error)})`);
      }
      if (chunk.done) break;
      await sink.write(chunk.value);
    }
  } finally {
    reader.releaseLock();
    source.close();
  }
}

function damaged(name: string, why: string): UsageError {
  return new UsageError(`${name} cannot be decrypted: ${why}`, {
    code: 'age_file_damaged',
    hint: 'copy the whole file again (a partial download or copy is cut short)',
  });
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Source {
  /** The first `n` bytes (fewer at the end of the input), kept for the stream. */
  peek(n: number): Promise<Buffer>;
  /** The whole input, at most `max` bytes. */
  all(max: number): Promise<Buffer>;
  /** The whole input as a stream of bytes, the peeked ones first. */
  stream(): ReadableStream<Uint8Array>;
  close(): void;
}

/** The way on from a directory given as the file to decrypt: the encrypted codes file inside it. */
function inputInside(input: string): string {
  return `give the encrypted codes file inside it, e.g. ${join(input, 'codes.csv.age')}`;
}

/** The input file, or stdin, read once: a few bytes looked at first, then the rest streamed. */
async function openSource(input: string, stdin: NodeJS.ReadableStream): Promise<Source> {
  let readable: Readable;
  if (input === '-') readable = stdin as Readable;
  else {
    // As the identity file: a path that names no file is 2; a directory where the file should be, or a file this
    // user cannot read, is a local resource (docs/exit-codes.md: 8).
    const handle = await open(input, 'r').catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      const Failure = code === 'ENOENT' || code === 'ENOTDIR' ? UsageError : LocalError;
      throw new Failure(`cannot read ${input}: ${whyUnreadable(error, 'file')}`, {
        code: 'input_unreadable',
        hint: code === 'EISDIR' ? inputInside(input) : 'give the path of the encrypted codes file',
      });
    });
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw new LocalError(`cannot read ${input}: it is a directory`, {
        code: 'input_unreadable',
        hint: inputInside(input),
      });
    }
    readable = createReadStream('', { fd: handle, autoClose: true, highWaterMark: 64 * 1024 });
  }
  const iterator = readable[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let peeked = Buffer.alloc(0);
  let ended = false;
  const next = async (): Promise<Buffer | undefined> => {
    const { done, value } = await iterator.next();
    if (done) {
      ended = true;
      return undefined;
    }
    return typeof value === 'string' ? Buffer.from(value) : value;
  };
  return {
    async peek(n) {
      while (peeked.length < n && !ended) {
        const chunk = await next();
        if (chunk) peeked = Buffer.concat([peeked, chunk]);
      }
      return peeked.subarray(0, n);
    },
    async all(max) {
      const parts: Buffer[] = [peeked];
      let size = peeked.length;
      for (let chunk = await next(); chunk; chunk = await next()) {
        size += chunk.length;
        if (size > max) throw damaged(input, 'its armor is larger than an armored file can be here');
        parts.push(chunk);
      }
      return Buffer.concat(parts);
    },
    stream() {
      let first: Buffer | undefined = peeked;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (first) {
            const bytes = first;
            first = undefined;
            if (bytes.length > 0)
              return controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
          }
          const chunk = await next();
          if (chunk) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
          else controller.close();
        },
      });
    },
    close() {
      if (input !== '-') readable.destroy();
    },
  };
}
