// Flags shared by the verbs that wait for an order and write its codes (order place, order watch, codes get),
// and the checks that make a flag that would do nothing an error instead of a silent no-op.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import {
  EXPORT_FORMATS_IN_WORDS,
  exportFormatNamed,
  formatFor,
  toStdoutRefused,
  type ExportFormat,
} from '../export/format.js';
import type { OutSpec } from '../journal/intent.js';
import type { Io } from '../output/io.js';
import type { Deps } from './deps.js';
import { DEFAULT_INTERVAL_S } from '../orders/wait.js';
import { outFile, seconds } from './parse.js';

export { DEFAULT_INTERVAL_S };

export interface WaitFlags {
  interval?: number;
  timeout?: number;
  out?: string;
  format?: ExportFormat;
  force?: boolean;
  csvRaw?: boolean;
  /** --encrypt-to, repeatable; once resolved (withRecipients), the profile's encrypt-to when none was given. */
  encryptTo?: string[];
}

export const MAX_WAIT_S = 30 * 86400;

export function formatArg(value: string): ExportFormat {
  const format = exportFormatNamed(value);
  if (format === undefined) throw new InvalidArgumentError(`expected ${EXPORT_FORMATS_IN_WORDS}, got "${value}"`);
  return format;
}

export function addIntervalFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--interval <seconds>',
        `time between status checks (default ${DEFAULT_INTERVAL_S}; the second check comes after half a second at most)`,
      ).argParser(seconds(0.05, 3600)),
    )
    .addOption(
      new Option('--timeout <seconds>', 'give up waiting after this long (exit 7)').argParser(
        seconds(0.05, MAX_WAIT_S),
      ),
    );
}

export function addOutFlags(command: Command, outHelp: string): Command {
  return command
    .addOption(new Option('-o, --out <file>', outHelp).argParser(outFile))
    .addOption(
      new Option('--format <format>', `${EXPORT_FORMATS_IN_WORDS} (default: from the extension, else json)`).argParser(
        formatArg,
      ),
    )
    .option('--force', 'overwrite an existing --out file')
    .option('--csv-raw', 'do not escape cells a spreadsheet would run as a formula')
    .option(
      '--encrypt-to <recipient>',
      'encrypt the codes to this age recipient (age1...; repeatable): --out codes.csv.age',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value.trim()],
    );
}

/** The current profile's name and its encrypt-to setting, where the config is at hand. */
export async function profileEncryptTo(
  deps: Partial<Pick<Deps, 'config' | 'currentTarget'>>,
): Promise<{ name: string; recipients: readonly string[] | undefined } | undefined> {
  if (!deps.config || !deps.currentTarget) return undefined;
  const [store, target] = await Promise.all([deps.config(), deps.currentTarget()]);
  return { name: target.profile, recipients: store.profile(target.profile).encryptTo };
}

/**
 * The flags with `encryptTo` resolved: --encrypt-to, else the profile's encrypt-to setting (a cron job's codes
 * are then never plaintext), checked against the --out name (export/recipients.ts); absent when plaintext.
 */
export async function withRecipients<T extends WaitFlags>(
  flags: T,
  deps: { io: Io } & Partial<Pick<Deps, 'config' | 'currentTarget'>>,
  o: { outDefaultsToStdout?: boolean } = {},
): Promise<T> {
  const { recipientsFor } = await import('../export/recipients.js');
  let profile: { name: string; recipients: readonly string[] | undefined } | undefined;
  const out = flags.out ?? (o.outDefaultsToStdout ? '-' : undefined);
  // The profile is read only where codes are written and no --encrypt-to was given.
  if (!flags.encryptTo?.length && out !== undefined) profile = await profileEncryptTo(deps);
  const recipients = await recipientsFor({
    flags: flags.encryptTo,
    profile,
    out,
    stdoutIsTTY: deps.io.stdoutIsTTY,
    query: deps.io.query !== undefined,
  });
  // Ciphertext on stdout from a setting the command line does not show: said in every mode (`--json` too), as
  // `codes get --json > codes.json` reads like JSON and is not.
  if (recipients && out === '-' && profile)
    deps.io.say(
      `standard output is an age-encrypted file (the encrypt-to of profile "${profile.name}"): read it with giftcodes codes decrypt ENCRYPTED_FILE --identity key.txt`,
    );
  const { encryptTo: _given, ...rest } = flags;
  return (recipients ? { ...rest, encryptTo: recipients } : rest) as T;
}

export function addWaitFlags(command: Command): Command {
  return addOutFlags(
    addIntervalFlags(command),
    'wait for the order to complete, then write its codes to this file (- for stdout)',
  );
}

/** `--out` as the journal keeps it: an absolute path, so a resume from another directory writes the same file. */
export function outSpec(flags: WaitFlags): OutSpec | undefined {
  if (flags.out === undefined) return undefined;
  return {
    path: flags.out === '-' ? '-' : resolve(flags.out),
    ...(flags.format ? { format: flags.format } : {}),
    force: flags.force === true,
    csvRaw: flags.csvRaw === true,
    ...(flags.encryptTo?.length ? { encryptTo: flags.encryptTo } : {}),
  };
}

/**
 * A flag that would be ignored is a usage error: `--timeout` without waiting, `--format` without a file,
 * and CSV or JSONL on stdout beside the one JSON document of --json.
 */
export function checkWaitFlags(
  flags: WaitFlags,
  o: { json: boolean; waits: boolean; waitFlag: string; outDefaultsToStdout?: boolean; queried?: boolean },
): void {
  if (!o.waits) {
    for (const name of ['interval', 'timeout'] as const) {
      if (flags[name] !== undefined)
        throw new UsageError(`--${name} only applies while waiting`, { hint: `add ${o.waitFlag}` });
    }
  }
  if (flags.out === undefined && !o.outDefaultsToStdout) {
    const given = (['format', 'force', 'csvRaw'] as const).find((name) => flags[name] !== undefined);
    if (given)
      throw new UsageError(`--${given === 'csvRaw' ? 'csv-raw' : given} only applies with --out`, {
        hint: 'add --out FILE',
      });
  }
  const out = flags.out ?? (o.outDefaultsToStdout ? '-' : undefined);
  // An --out whose extension names no format is refused here, before anything is waited for or charged.
  if (out !== undefined) formatFor(out, flags.format);
  const refused = out === '-' && flags.format ? toStdoutRefused(flags.format) : undefined;
  if (refused) throw refused;
  // order place and watch print the order, which `--out -` leaves off stdout for the codes: a --query of it was
  // ignored without a word (a review). codes get applies its --query to the codes themselves.
  if (o.queried && flags.out === '-' && !o.outDefaultsToStdout)
    throw new UsageError(
      '--query applies to the order, which --out - leaves off standard output (it holds the codes)',
      {
        hint: 'drop --out - to query the order, or query the codes with: giftcodes codes get ORDER_ID --query EXPRESSION',
      },
    );
  if (o.json && out === '-' && flags.format !== undefined && flags.format !== 'json') {
    // Named as typed: `--query x --format csv` read "--json prints…" (a review).
    const asked = o.queried ? '--query' : '--json';
    throw new UsageError(`${asked} prints one JSON document; --format ${flags.format} cannot go to stdout with it`, {
      hint: `drop ${asked}, or add --out codes.${flags.format}`,
    });
  }
}
