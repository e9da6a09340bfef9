import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { stdoutFailed } from '../../output/io.js';
import { exportResult } from '../../output/exporter.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { nonEmpty, outFile } from '../parse.js';

export interface DecryptOptions {
  file: string;
  identity?: string;
  out?: string;
  force?: boolean;
}

export function register(parent: Command, app: App): void {
  const command = parent
    .command('decrypt')
    .description('decrypt an encrypted codes file (codes.csv.age) to stdout or a file, with an age identity file')
    .argument('<file>', "the age file ('-' = stdin)", nonEmpty('file'))
    .option('-i, --identity <file>', 'the age identity file (age-keygen -o key.txt)', nonEmpty('identity file', 4096))
    .option('-o, --out <file>', "write to this file (0600, atomically; '-' = stdout, the default)", outFile)
    .option('--force', 'overwrite an existing --out file')
    .action(async (file: string, flags: Omit<DecryptOptions, 'file'>, cmd: Command) => {
      const { deps } = app.context(cmd);
      await run({ ...flags, file }, deps);
    });
  examples(command, [
    'giftcodes codes decrypt codes.csv.age --identity key.txt --out codes.csv',
    'giftcodes codes decrypt codes.csv.age --identity key.txt | head',
  ]);
}

export async function run(options: DecryptOptions, deps: Pick<Deps, 'io'>): Promise<void> {
  const { io } = deps;
  if (options.identity === undefined)
    throw new UsageError('codes decrypt needs the identity file the codes were encrypted to', {
      code: 'identity_missing',
      hint: 'add --identity key.txt (the file age-keygen -o key.txt wrote)',
    });
  const identity = options.identity;
  const out = options.out ?? '-';
  if (options.force && out === '-') throw new UsageError('--force only applies with --out', { hint: 'add --out FILE' });
  const { decryptFile } = await import('../../export/decrypt.js');
  if (out !== '-') {
    // The codes come out as they went in: a file named for another format is refused, as codes get refuses one (a
    // review decrypted codes.csv.age to codes.xlsx, CSV text a spreadsheet would not open).
    const { AGE_EXTENSION, extensionOf, FORMAT_TABLE, namesAgeFile } = await import('../../export/format.js');
    // Plaintext under a name that says encrypted: a later reader trusts the name (a review wrote d.csv.age, and with
    // --force replaced the encrypted file with its own plaintext under the same name).
    if (namesAgeFile(out))
      throw new UsageError(`${out}: decrypting writes the codes in plain text, and a .age name says encrypted`, {
        code: 'out_format_mismatch',
        hint: `name the file without .age (${out.slice(0, -AGE_EXTENSION.length) || 'codes.csv'})`,
      });
    const held = extensionOf(options.file).named;
    const named = extensionOf(out).named;
    if (held !== undefined && named !== undefined && held !== named)
      throw new UsageError(
        `${out}: ${options.file} holds ${held}, and decrypting writes it as it is, not as ${named}`,
        {
          code: 'out_format_mismatch',
          hint: `name the file .${FORMAT_TABLE[held].extensions[0]}`,
        },
      );
    const { writeFileAtomically } = await import('../../export/write.js');
    const path = await writeFileAtomically(out, options.force === true, (sink) =>
      decryptFile(options.file, identity, sink, io.stdin),
    );
    await exportResult(
      io,
      { file: options.file, path },
      { notes: () => [`${io.ce.green('✓')} decrypted ${options.file} to ${path} (0600)`] },
    );
    return;
  }
  await refusedToStdout(options.file, io);
  const stdout = io.stdout;
  let failure: Error | undefined;
  const onError = (error: Error): void => {
    failure = error;
  };
  stdout.on('error', onError);
  try {
    await decryptFile(
      options.file,
      identity,
      {
        write: (chunk) =>
          new Promise<void>((resolve, reject) => {
            if (failure) return reject(stdoutFailed(failure, 'the decrypted codes'));
            stdout.write(chunk, (error) => (error ? reject(stdoutFailed(error, 'the decrypted codes')) : resolve()));
          }),
      },
      io.stdin,
    );
  } finally {
    stdout.off('error', onError);
  }
}

/**
 * What decrypting to stdout cannot do, refused before anything is read: it writes the file's bytes as they went in.
 * --json and --query promise one JSON document, and printed a CSV's lines (exit 0, the query unread: a walkthrough);
 * a workbook's zip bytes at a terminal garbled it (a walkthrough; `age -d` refuses binary there too). A redirect
 * (`> codes.xlsx`) still takes the workbook.
 */
async function refusedToStdout(file: string, io: Pick<Deps['io'], 'json' | 'query' | 'stdoutIsTTY'>): Promise<void> {
  const { extensionOf, FORMAT_TABLE, formatEntry } = await import('../../export/format.js');
  const held = extensionOf(file).named;
  const named = `codes.${FORMAT_TABLE[held ?? 'csv'].extensions[0]}`;
  if (io.query !== undefined)
    throw new UsageError('--query is not applied by codes decrypt: it writes the file as it went in', {
      hint:
        held === 'json' || held === 'jsonl'
          ? 'drop --query, and pipe the output into jq'
          : `drop --query${held === undefined ? '' : ` (${file} holds ${held})`}`,
    });
  // A file whose name says no format (stdin, `codes.age`) is written as it is: it may well be JSON.
  if (io.json && held !== undefined && held !== 'json')
    throw new UsageError(`--json prints one JSON document; ${file} holds ${held}, which decrypting writes as it is`, {
      hint: `drop --json, or add --out ${named}`,
    });
  if (held !== undefined && formatEntry(held).binary && io.stdoutIsTTY)
    throw new UsageError(`${file} holds a workbook (${held}, binary): it is not written to a terminal`, {
      code: `${held}_to_stdout`,
      hint: `add --out ${named}, or redirect standard output to a file`,
    });
}
