import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { InterruptedError, UsageError } from '../../errors.js';
import type { OutLock } from '../../export/out-lock.js';
import type { Factory } from '../../factory.js';
import { examples, type App } from '../app.js';
import { integer, nonEmpty, once } from '../parse.js';
import { addWaitFlags, checkWaitFlags, DEFAULT_INTERVAL_S, outSpec, type WaitFlags } from '../wait-flags.js';

export interface PlaceOptions extends WaitFlags {
  product: string;
  quantity: number;
  plan?: string;
  dryRun?: boolean;
  concurrency?: number;
  idempotencyKey?: string;
  wait?: boolean;
}

export const MAX_QUANTITY = 1_000_000;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('place')
    .description('place an order exactly once, even across crashes (the key is journaled before anything is sent)')
    .addOption(new Option('--product <id>', 'product id from the catalog').argParser(once('--product', nonEmpty('product id'))))
    .addOption(new Option('--quantity <n>', 'number of units').argParser(once('--quantity', integer(1, MAX_QUANTITY))))
    .addOption(new Option('--idempotency-key <key>', 'supply the idempotency key yourself (default: a new UUID, journaled)').argParser(once('--idempotency-key', idempotencyKeyArg)))
    .option('--wait', 'wait until the order completes (exit 6 if it fails, 7 on --timeout)')
    .addOption(new Option('--plan <file.csv>', 'bulk: one order per row product,quantity[,out]; the same plan never orders twice').argParser(nonEmpty('--plan', 4096)).conflicts(['product', 'quantity', 'idempotencyKey']))
    .option('--dry-run', 'with --plan: print what would be ordered, send nothing')
    .addOption(new Option('--concurrency <n>', 'with --plan: rows at once').argParser(integer(1, 32)).default(4));
  addWaitFlags(command).action(async (flags: PlaceOptions, cmd: Command) => run(flags, app.factory(cmd)));
  examples(command, [
    'giftcodes order place --product amazon-us-25 --quantity 10',
    'giftcodes order place --product amazon-us-25 --quantity 100 --out codes.csv --yes',
    'giftcodes order place --product steam-us-20 --quantity 5 --wait --timeout 300 --json',
  ]);
}

export async function run(options: PlaceOptions, f: Factory): Promise<void> {
  if (options.plan !== undefined) return (await import('../../orders/plan.js')).runPlan({ ...options, plan: options.plan, concurrency: options.concurrency ?? 4 }, f);
  checkSingleOrderFlags(options);
  const out = outSpec(options);
  const waits = options.wait === true || out !== undefined;
  checkWaitFlags(options, { json: f.io.json, waits, waitFlag: '--wait' });
  const connection = await f.connection();
  const [journal, api, { keyIdOf }, { driveIntent, finish }, { resumableFor }, { sayReached }] = await Promise.all([
    f.journal(),
    f.api(),
    import('../../journal/intent.js'),
    import('../../orders/drive.js'),
    import('../../orders/recover.js'),
    import('../../orders/lifecycle.js'),
  ]);
  const spec = {
    profile: connection.profile,
    environment: connection.environment,
    baseUrl: connection.baseUrl,
    keyId: keyIdOf(connection.apiKey),
    productId: options.product,
    quantity: options.quantity,
  };
  // One writer per --out file, from before the charge to the end of the run: a second run at the same file
  // meanwhile is refused (out_busy, exit 2) with nothing charged, never after its charge. An existing file
  // is refused before anything is charged, unless it is the delivery of the very intent this run will resume
  // (a run killed right after its rename).
  let outLock: OutLock | undefined;
  if (out && out.path !== '-') {
    const { holdOutTarget } = await import('../../export/write.js');
    outLock = holdOutTarget(out.path, out.force, () => resumableFor(journal, spec, options.idempotencyKey, out.path));
  }
  try {
    if (connection.environment === 'live' && !f.globals.yes) {
      const yes = await f.io.confirm(
        f.io.canPrompt ? await (await import('../../orders/confirm.js')).liveOrderQuestion(api, options.product, options.quantity, connection.profile) : '',
        '--yes',
        `a live order (${options.quantity} × ${options.product})`,
      );
      if (!yes) throw new InterruptedError('cancelled: nothing was sent');
    }
    const { intent, resumed, settled } = await journal.begin({ ...spec, key: options.idempotencyKey, wait: waits, out });
    sayReached(f.io, settled);
    if (resumed) {
      f.io.say(
        `resuming the interrupted order for ${intent.quantity} × ${intent.productId} started ${intent.createdAt} (key ${intent.key}): same key, same request, no second charge`,
      );
    }
    const driven = await driveIntent({ io: f.io, api, journal, signal: f.signal }, intent, {
      wait: waits,
      out: intent.out,
      intervalS: options.interval ?? DEFAULT_INTERVAL_S,
      timeoutS: options.timeout,
      // The lock held is this command's --out; a resumed intent writes where it was started to (its own lock).
      outLock: outLock && intent.out && resolve(intent.out.path) === outLock.target ? outLock : undefined,
    });
    await finish(f.io, journal, driven);
  } finally {
    outLock?.release();
  }
}

/** Printable ASCII without spaces, as an HTTP header value and a journal key can safely carry. */
function idempotencyKeyArg(value: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new InvalidArgumentError('an idempotency key is 1 to 255 printable ASCII characters without spaces');
  }
  return value;
}


/** Without --plan, --product and --quantity are required; --dry-run and --concurrency belong to --plan. */
function checkSingleOrderFlags(options: PlaceOptions): void {
  if (options.product === undefined || options.quantity === undefined) {
    const missing = options.product === undefined ? "'--product <id>'" : "'--quantity <n>'";
    throw new UsageError(`required option ${missing} not specified`, { hint: 'giftcodes order place --product <id> --quantity <n>   (or --plan <file.csv>)' });
  }
  if (options.dryRun) throw new UsageError('--dry-run is for --plan', { hint: 'giftcodes order place --plan restock.csv --dry-run' });
}
