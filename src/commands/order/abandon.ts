import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import { pinnedHint } from '../../output/pinned-hint.js';
import { exportResult } from '../../output/exporter.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { nonEmpty } from '../parse.js';
import { unitsOf } from '../../output/words.js';
import type { Intent } from '../../journal/intent.js';

export function register(parent: Command, app: App): void {
  const help = {
    description: 'stop resuming one interrupted order (it may still exist on the server)',
    examples: [
      'giftcodes order pending',
      'giftcodes order abandon 3f1c9a9e-5d1b-4c4e-9a53-2f0f6c8d7b21',
      'giftcodes order abandon 3f1c',
    ],
  };
  addVerb(parent, app, 'abandon', help, ({ deps }, key) => run({ key }, deps)).argument(
    '<key>',
    'the idempotency key order pending shows, or the order id once the API gave one; or a unique prefix of either',
    nonEmpty('key', 255),
  );
}

export async function run(options: { key: string }, deps: Pick<Deps, 'io' | 'journal'>): Promise<void> {
  const [journal, { intentKey, abandonedWayOut }] = await Promise.all([deps.journal(), import('../../orders/ref.js')]);
  const { sent, delivered, ...intent } = await journal.abandon(await intentKey(journal, options.key));
  if (delivered) return reachedAlready(deps, intent);
  const where = intent.orderId
    ? `it was placed as order ${intent.orderId}, whose codes stay on the server: giftcodes codes get ${intent.orderId} --out CODES_FILE`
    : sent
      ? `its key was ${intent.key}; ${abandonedWayOut({ ...intent, sent: true })!}`
      : 'it was never sent, so nothing was placed';
  // A warning of money (said under --quiet too) only where the order was or may have been placed (a review).
  const warning = intent.orderId || sent ? deps.io.caution.bind(deps.io) : deps.io.warn.bind(deps.io);
  warning(
    pinnedHint(`abandoned ${unitsOf(intent.quantity, intent.productId)} (${intent.environment}); ${where}`, {
      configDir: deps.io.env.GIFTCODES_CONFIG_DIR,
    }),
  );
  try {
    await exportResult(
      deps.io,
      {
        abandoned: intent.key,
        orderId: intent.orderId ?? null,
        productId: intent.productId,
        quantity: intent.quantity,
      },
      { text: (data) => `abandoned ${data.abandoned}` },
    );
    await deps.io.flushOut();
  } catch (error) {
    // The abandon is done and durable: running it again would only say the key is unknown.
    if (!(error instanceof CliError)) throw error;
    throw new CliError(error.exitCode, `${intent.key} WAS abandoned; only printing it failed: ${error.message}`, {
      code: error.code,
      hint: `nothing to run again; its record: giftcodes order list${intent.orderId ? `   the order: giftcodes order show ${intent.orderId}` : ''}`,
    });
  }
}

/**
 * A note whose codes file was at its --out as its run wrote it: ended as delivered there, not abandoned (journal.ts
 * abandon), and said so, with the file to hand out: abandoned, its `codes get` hint wrote the same codes into a second
 * file that nothing named (an adversarial review).
 */
async function reachedAlready(deps: Pick<Deps, 'io'>, intent: Intent): Promise<void> {
  const what = unitsOf(intent.quantity, intent.productId);
  // Its codes in a file, or printed (a run cut after it printed them, before it ended: recorded delivered by phase).
  const file = intent.out !== undefined && intent.out.path !== '-' ? intent.out.path : undefined;
  const where = file
    ? `are already in ${file}, written by its run before it was cut; recorded as delivered there, so hand out that file`
    : 'reached you on standard output before its run was cut; recorded as delivered';
  // A plan's row is read by its plan as delivered: its plan run again orders nothing for it (an adversarial review).
  const again = intent.key.startsWith('plan-')
    ? 'Its plan run again reads that row as delivered and orders nothing for it'
    : 'Its command run again places a new order';
  deps.io.caution(
    `not abandoned: the codes of order ${intent.orderId ?? intent.key} (${what}, ${intent.environment}) ${where}. ${again}`,
  );
  await exportResult(
    deps.io,
    {
      abandoned: null,
      delivered: intent.key,
      orderId: intent.orderId ?? null,
      productId: intent.productId,
      quantity: intent.quantity,
      out: file ?? null,
    },
    { text: (data) => `delivered ${data.delivered}` },
  );
  await deps.io.flushOut();
}
