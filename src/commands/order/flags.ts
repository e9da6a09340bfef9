// Flags shared by the verbs that wait for an order and write its codes (place, watch, resume).
import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import type { OutSpec } from '../../journal/intent.js';
import { DEFAULT_INTERVAL_S } from '../../orders/wait.js';
import { seconds } from '../parse.js';

export { DEFAULT_INTERVAL_S };

export interface WaitFlags {
  interval: number;
  timeout?: number;
  out?: string;
  format?: 'csv' | 'json' | 'jsonl';
  force?: boolean;
  csvRaw?: boolean;
}

export function addWaitFlags(command: Command): Command {
  return command
    .addOption(new Option('--interval <seconds>', 'time between status checks').argParser(seconds(0.05, 3600)).default(DEFAULT_INTERVAL_S))
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long (exit 7; the order is kept to resume)').argParser(seconds(0.05, 30 * 86400)))
    .option('--out <file>', 'write the codes to this file once completed (- for stdout)')
    .addOption(new Option('--format <format>', 'codes file format (default: from the extension, else json)').choices(['csv', 'json', 'jsonl']))
    .option('--force', 'overwrite an existing --out file')
    .option('--csv-raw', 'do not escape cells a spreadsheet would run as a formula');
}

/** `--out` as the journal keeps it: an absolute path, so a resume from another directory writes the same file. */
export function outSpec(flags: WaitFlags): OutSpec | undefined {
  if (flags.out === undefined) return undefined;
  return {
    path: flags.out === '-' ? '-' : resolve(flags.out),
    ...(flags.format ? { format: flags.format } : {}),
    force: flags.force === true,
    csvRaw: flags.csvRaw === true,
  };
}
