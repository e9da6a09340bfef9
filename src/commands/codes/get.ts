import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { ExportFormat } from '../../export/format.js';
import type { Factory } from '../../factory.js';
import { examples, type App } from '../app.js';
import { nonEmpty, seconds } from '../parse.js';

export interface GetOptions {
  orderId: string;
  out?: string | undefined;
  format?: ExportFormat | undefined;
  force: boolean;
  csvRaw: boolean;
  wait: boolean;
  /** Seconds between polls with --wait. */
  interval: number;
  /** Seconds before --wait gives up (exit 7). */
  timeout?: number | undefined;
}

interface GetFlags {
  out?: string;
  format?: ExportFormat;
  force?: boolean;
  csvRaw?: boolean;
  wait?: boolean;
  interval: number;
  timeout?: number;
}

export function formatArg(value: string): ExportFormat {
  const v = value.trim().toLowerCase();
  if (v === 'csv' || v === 'json' || v === 'jsonl') return v;
  if (v === 'ndjson') return 'jsonl';
  throw new InvalidArgumentError(`expected csv, json or jsonl, got "${value}"`);
}

export function register(parent: Command, app: App): void {
  const command = parent
    .command('get')
    .description('write the codes of an order to stdout or a file, every page followed')
    .argument('<order-id>', 'the order whose codes to fetch', nonEmpty('order id'))
    .option('-o, --out <file>', "write to this file (0600, atomically; '-' = stdout)")
    .addOption(new Option('--format <format>', 'csv, json or jsonl (default: from the --out extension, else json)').argParser(formatArg))
    .option('--force', 'overwrite an existing --out file')
    .option('--csv-raw', 'do not escape CSV cells that a spreadsheet would run as formulas')
    .option('--wait', 'wait for the order to complete first')
    .addOption(new Option('--interval <seconds>', 'seconds between polls with --wait').argParser(seconds(0.05, 3600)).default(2))
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long (exit 7)').argParser(seconds(0.05, 7 * 24 * 3600)))
    .action(async (orderId: string, flags: GetFlags, cmd: Command) =>
      run(
        {
          orderId,
          out: flags.out,
          format: flags.format,
          force: flags.force === true,
          csvRaw: flags.csvRaw === true,
          wait: flags.wait === true,
          interval: flags.interval,
          timeout: flags.timeout,
        },
        app.factory(cmd),
      ),
    );
  examples(command, [
    'giftcodes codes get ord_123 --out codes.csv',
    'giftcodes codes get ord_123 --wait --timeout 300 --out codes.jsonl',
    'giftcodes codes get ord_123 --format csv > codes.csv',
    "giftcodes codes get ord_123 --json | jq -r '.[].code'",
  ]);
}

export async function run(options: GetOptions, f: Factory): Promise<void> {
  const out = options.out ?? '-';
  if (f.io.json && out === '-' && options.format !== undefined && options.format !== 'json') {
    throw new UsageError(`--json prints one JSON document; --format ${options.format} cannot go to stdout with it`, {
      hint: `drop --json, or add --out codes.${options.format}`,
    });
  }
  if (options.timeout !== undefined && !options.wait) throw new UsageError('--timeout needs --wait', { hint: 'add --wait' });
  const [{ exportCodes, checkOutTarget }, api] = await Promise.all([import('../../export/write.js'), f.api()]);
  // Refuse an existing file before waiting or fetching anything.
  checkOutTarget(out, options.force);
  if (options.wait) {
    const { waitForOrder } = await import('../../orders/wait.js');
    await waitForOrder({ api, orderId: options.orderId, io: f.io, signal: f.signal, intervalS: options.interval, timeoutS: options.timeout });
  }
  const spinner = out === '-' ? undefined : await f.io.spinner(`fetching the codes of ${options.orderId}`);
  let result: Awaited<ReturnType<typeof exportCodes>>;
  try {
    result = await exportCodes({
      api,
      orderId: options.orderId,
      out,
      format: options.format,
      force: options.force,
      csvRaw: options.csvRaw,
      io: f.io,
      signal: f.signal,
      onProgress: (count) => spinner?.update(`fetching the codes of ${options.orderId}: ${count}`),
    });
  } finally {
    spinner?.stop();
  }
  if (out === '-') return;
  if (f.io.json) {
    f.io.outJson({ orderId: options.orderId, path: result.path, count: result.count, format: result.format });
    return;
  }
  f.io.notice(`${f.io.c.green('✓')} wrote ${result.count} codes of ${options.orderId} to ${result.path} (${result.format}, 0600)`);
}
