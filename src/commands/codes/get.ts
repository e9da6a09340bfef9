import type { Command } from 'commander';
import { orderQuantity } from '../../api/outcome.js';
import { InterruptedError } from '../../errors.js';
import { exportResult } from '../../output/exporter.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { nonEmpty } from '../parse.js';
import { addIntervalFlags, addOutFlags, checkWaitFlags, DEFAULT_INTERVAL_S, type WaitFlags } from '../wait-flags.js';

export interface GetOptions extends WaitFlags {
  orderId: string;
  wait?: boolean;
  /** The output mode is --json (checked against --format). */
  json: boolean;
}

type GetDeps = Pick<Deps, 'io' | 'signal' | 'api' | 'journal'>;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('get')
    .description('write the codes of an order to stdout or a file, every page followed')
    .argument('<order-id>', 'the order whose codes to fetch', nonEmpty('order id'))
    .option('--wait', 'wait for the order to complete first');
  addOutFlags(addIntervalFlags(command), "write to this file (0600, atomically; '-' = stdout, the default)").action(
    async (orderId: string, flags: Omit<GetOptions, 'orderId' | 'json'>, cmd: Command) => {
      const { json, deps } = app.context(cmd);
      await run({ ...flags, orderId, json }, deps);
    },
  );
  examples(command, [
    'giftcodes codes get ord_123 --out codes.csv',
    'giftcodes codes get ord_123 --wait --timeout 300 --out codes.jsonl',
    'giftcodes codes get ord_123 --format csv > codes.csv',
    "giftcodes codes get ord_123 --json | jq -r '.[].code'",
  ]);
}

export async function run(options: GetOptions, deps: GetDeps): Promise<void> {
  const out = options.out ?? '-';
  checkWaitFlags(options, { json: options.json, waits: options.wait === true, waitFlag: '--wait', outDefaultsToStdout: true });
  const force = options.force === true;
  // --query needs the whole array, which the stream to stdout never holds: there the codes are gathered and
  // the query applied to them (README, Choices). --format csv/jsonl with it is refused by checkWaitFlags.
  const queried = out === '-' && deps.io.query !== undefined;
  const [{ exportCodes, readerGoneError }, { checkOutTarget }, api, { failpoint, failpointSync }] = await Promise.all([import('../../export/write.js'), import('../../export/out-target.js'), deps.api(), import('../../failpoints.js')]);
  // Refuse an existing file before waiting or fetching anything, unless it holds exactly these codes (a re-run).
  const { outExists, sameCodesAlready } = await import('../../orders/recover.js');
  const existing = outExists(() => checkOutTarget(out, force));
  // The order's quantity, where known, is how many codes must arrive.
  let expected: number | undefined;
  if (options.wait) {
    const { waitForOrder } = await import('../../orders/wait.js');
    expected = orderQuantity(await waitForOrder({ api, orderId: options.orderId, io: deps.io, signal: deps.signal, intervalS: options.interval ?? DEFAULT_INTERVAL_S, timeoutS: options.timeout }));
  }
  if (queried) {
    const codes: unknown[] = [];
    for await (const page of api.codePages(options.orderId, expected)) codes.push(...page);
    await delivered(deps, () => deps.io.outJson(codes), { orderId: options.orderId, baseUrl: api.baseUrl, codes: true });
    return;
  }
  // An existing file is refused unless it is already exactly these codes (a re-run); when the codes cannot
  // be read to tell, the refusal is what the user can act on (exit 2), not the failure behind it.
  const same = existing ? await sameCodesAlready({ api, orderId: options.orderId, out, format: options.format, csvRaw: options.csvRaw === true, io: deps.io, signal: deps.signal }).catch(unlessInterrupted) : undefined;
  if (existing && !same) throw existing;
  const result = same ?? await exportCodes({
    api,
    orderId: options.orderId,
    expected,
    out,
    format: options.format,
    force,
    csvRaw: options.csvRaw === true,
    io: deps.io,
    signal: deps.signal,
    beforeCommit: () => failpointSync('codes.tmp-written'),
  });
  if (out !== '-') await failpoint('codes.renamed');
  // The codes went to the file: stdout holds where (--json), else a notice says it.
  const print = async (): Promise<void> => {
    if (out === '-') return;
    await exportResult(deps.io, { orderId: options.orderId, path: result.path, count: result.count, format: result.format }, {
      notes: (data) => [`${deps.io.c.green('✓')} wrote ${data.count} codes of ${data.orderId} to ${data.path} (${data.format}, 0600)`],
    });
  };
  // The reader of stdout went away (`| head`): the codes did not all reach the user, so an interrupted
  // `order place` of this order stays pending, and the run is exit 8.
  if (result.readerGone) throw readerGoneError(options.orderId);
  await delivered(deps, print, { orderId: options.orderId, baseUrl: api.baseUrl, codes: true });
  const { runSummary } = await import('../../output/progress.js');
  runSummary(deps.io, `exported ${result.count} codes of ${options.orderId} to ${result.path === '-' ? 'stdout' : result.path} (${result.format})`);
}

/** The codes reached the user (lifecycle.ts): an interrupted `order place` of this order must not deliver them again. */
async function delivered(deps: GetDeps, print: () => void | Promise<void>, delivery: { orderId: string; baseUrl: string; codes: boolean }): Promise<void> {
  const [{ deliver, settle }, journal] = await Promise.all([import('../../orders/lifecycle.js'), deps.journal()]);
  await deliver(deps.io, journal, print, delivery);
  await settle(journal, delivery);
}

/** A failure to read the codes for comparison counts as "not the same file"; an interruption still interrupts. */
function unlessInterrupted(error: unknown): undefined {
  if (error instanceof InterruptedError) throw error;
  return undefined;
}
