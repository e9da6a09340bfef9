// Who a run's codes are encrypted to (docs/codes-and-exports.md, "Encrypted codes files"): the --encrypt-to
// recipients, else the profile's encrypt-to, and how they meet the --out name. A name is a promise: an age file is
// named `.age` (`codes.csv.age`), and a file named `.age` is an age file. So `--out codes.csv` with recipients is
// refused rather than filled with ciphertext or quietly renamed, and `--out codes.csv.age` without recipients is
// refused rather than written in plaintext: both before anything is waited for or charged (exit 2).
import { UsageError } from '../errors.js';
import { checkRecipients } from './age.js';
import { namesAgeFile } from './format.js';

export interface RecipientChoice {
  /** --encrypt-to, as given (repeatable). */
  flags?: readonly string[] | undefined;
  /** The profile's encrypt-to setting, and the profile's name (for messages). */
  profile?: { name: string; recipients: readonly string[] | undefined } | undefined;
  /** Where the codes go: a path, '-' for stdout, or undefined when this run writes no codes. */
  out: string | undefined;
  /** Standard output is a terminal (ciphertext is never printed there). */
  stdoutIsTTY: boolean;
  /** --query applies to the codes themselves, which an encrypted stream never shows. */
  query?: boolean;
}

/** The recipients the codes are encrypted to, checked; undefined: plaintext. */
export async function recipientsFor(o: RecipientChoice): Promise<string[] | undefined> {
  const fromFlags = o.flags !== undefined && o.flags.length > 0;
  if (fromFlags && o.out === undefined)
    throw new UsageError('--encrypt-to only applies with --out', { hint: 'add --out codes.csv.age' });
  if (o.out === undefined) return undefined;
  const recipients = fromFlags ? [...o.flags!] : [...(o.profile?.recipients ?? [])];
  const source = fromFlags ? '--encrypt-to' : `the encrypt-to of profile "${o.profile?.name ?? ''}"`;
  if (recipients.length > 0) await checkRecipients(recipients, source);
  if (o.out === '-') {
    if (recipients.length === 0) return undefined;
    if (o.stdoutIsTTY)
      throw new UsageError('the codes are encrypted (an age file): they are not printed on a terminal', {
        code: 'encrypted_to_terminal',
        hint: 'add --out codes.csv.age, or redirect standard output to a file',
      });
    if (o.query)
      throw new UsageError('--query reads the codes, and encrypted codes are not shown', {
        code: 'encrypted_query',
        hint: 'decrypt the file first: giftcodes codes decrypt codes.json.age --identity key.txt',
      });
    return recipients;
  }
  if (namesAgeFile(o.out)) {
    if (recipients.length === 0)
      throw new UsageError(`${o.out} names an age-encrypted file, and no recipient was given to encrypt it to`, {
        code: 'recipient_missing',
        hint: 'add --encrypt-to age1... (the public key from age-keygen), or: giftcodes config set encrypt-to age1...',
      });
    return recipients;
  }
  if (recipients.length === 0) return undefined;
  throw new UsageError(
    `the codes are encrypted (${source}), so their file is named .age: ${o.out} would hold ciphertext under a plaintext name`,
    { code: 'out_not_age', hint: `add .age to the name: --out ${o.out}.age` },
  );
}
