// Where the webhook secret comes from (docs/webhooks.md, The secret): --secret-file or
// GIFTCODES_WEBHOOK_SECRET keep it out of the process list; a secret on the command line still works,
// with a warning, since every user of the machine can read it in `ps`. Warnings are returned: the verb prints them.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { checkOwnership } from '../config/paths.js';
import { LocalError, UsageError } from '../errors.js';

/** A secret file larger than this is not a secret: refused before it is read whole. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

export interface SecretSources {
  /** Given on the command line (--secret, or order watch's --webhook-secret). */
  flag?: string | undefined;
  /** How that flag is spelled, for the warning. */
  flagName: string;
  /** --secret-file. */
  file?: string | undefined;
  env: NodeJS.ProcessEnv;
}

export interface WebhookSecret {
  /** Undefined when no source gives one; the caller says which flag it needs. */
  secret: string | undefined;
  /** The secret is on the command line. As the --api-key warning (src/factory.ts): not for --json mode, whose stderr is one JSON error. */
  flagWarning?: string;
  /** The secret file is readable by other users: for every mode. */
  fileWarning?: string;
}

export function resolveWebhookSecret(s: SecretSources): WebhookSecret {
  if (s.flag !== undefined && s.file !== undefined) {
    throw new UsageError(`${s.flagName} and --secret-file both give the webhook secret`, {
      code: 'secret_conflict',
      hint: 'keep --secret-file',
    });
  }
  if (s.flag !== undefined) {
    return {
      secret: s.flag,
      flagWarning: `${s.flagName} shows the webhook secret to every user of this machine in ps output; set GIFTCODES_WEBHOOK_SECRET or use --secret-file instead`,
    };
  }
  if (s.file !== undefined) return readSecretFile(s.file);
  return { secret: s.env.GIFTCODES_WEBHOOK_SECRET || undefined };
}

/**
 * The file's content without its trailing line break. One another user owns or can write is refused
 * (exit 8, as ssh refuses such a key file): they could plant a secret and forge events; one others can
 * read is used, with the warning returned. Checked on the open descriptor, so the file read is the file checked.
 */
export function readSecretFile(path: string): WebhookSecret & { secret: string } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory())
      throw new LocalError(`cannot read the secret file ${path}: it is a directory`, {
        code: 'secret_file_unreadable',
      });
    // The one rule for files that hold secrets (src/config/paths.ts), judged on the descriptor read below.
    const fileWarning = stats.isFile() ? checkOwnership(path, stats, 'secret file') : undefined;
    const content = readBounded(fd, path).replace(/\r?\n$/, '');
    if (content.trim() === '')
      throw new UsageError(`the secret file ${path} is empty`, {
        code: 'secret_empty',
        hint: 'write the webhook signing secret into it',
      });
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(content))
      throw new UsageError(`the secret file ${path} holds more than one line`, {
        code: 'secret_invalid',
        hint: 'keep only the secret in it',
      });
    return fileWarning ? { secret: content, fileWarning } : { secret: content };
  } finally {
    closeSync(fd);
  }
}

function readBounded(fd: number, path: string): string {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = Buffer.alloc(16 * 1024);
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      throw unreadable(path, error);
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_SECRET_FILE_BYTES)
      throw new UsageError(`the secret file ${path} is larger than ${MAX_SECRET_FILE_BYTES} bytes: not a secret`, {
        code: 'secret_invalid',
      });
    chunks.push(chunk.subarray(0, n));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function unreadable(path: string, error: unknown): LocalError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  return new LocalError(`cannot read the secret file ${path} (${code})`, {
    code: 'secret_file_unreadable',
    hint: 'check the path and that this user may read it',
    cause: error,
  });
}
