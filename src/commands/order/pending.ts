import type { Command } from 'commander';
import type { Factory } from '../../factory.js';
import type { Unreadable } from '../../journal/journal.js';
import { renderTable } from '../../output/table.js';
import { examples, type App } from '../app.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('pending')
    .description('orders in the local journal whose outcome never reached you (interrupted, crashed, timed out)')
    .action(async (_flags: object, cmd: Command) => run(app.factory(cmd)));
  examples(command, ['giftcodes order pending', 'giftcodes order pending --json', 'giftcodes order resume --all']);
}

export async function run(f: Factory): Promise<void> {
  // Loaded here, not at the top: a verb's imports would otherwise load (node:crypto too) on every start.
  const [journal, { staleness }, { isAlive }] = await Promise.all([f.journal(), import('../../journal/intent.js'), import('../../journal/owner.js')]);
  await (await import('../../orders/lifecycle.js')).settleReached(f.io, journal);
  const { intents, unreadable } = journal.read();
  const rows = intents.map((intent) => {
    const running = isAlive(intent.owner);
    const stale = staleness(intent);
    return {
      key: intent.key,
      productId: intent.productId,
      quantity: intent.quantity,
      profile: intent.profile,
      environment: intent.environment,
      baseUrl: intent.baseUrl,
      phase: intent.phase,
      orderId: intent.orderId ?? null,
      status: intent.status ?? null,
      createdAt: intent.createdAt,
      state: running ? 'running' : stale === 'old' ? 'stale' : stale === 'future' ? 'future-dated' : 'interrupted',
      ...(running ? { pid: intent.owner.pid } : {}),
      ...(intent.out ? { out: intent.out.path } : {}),
    };
  });
  warnUnreadable(f, unreadable);
  if (f.io.json) {
    f.io.outJson(rows);
    return;
  }
  if (rows.length === 0) {
    // An unreadable file may be an order that never reached the user: never say they all did.
    f.io.out(
      unreadable.length === 0
        ? 'no pending orders: every order placed from here reached you'
        : `no pending orders that can be read, but ${unreadable.length} journal file${unreadable.length === 1 ? '' : 's'} could not be: look at ${journal.dir}`,
    );
    return;
  }
  f.io.out(
    renderTable(f.io, rows, [
      { header: 'key', value: (r) => r.key },
      { header: 'product', value: (r) => r.productId },
      { header: 'qty', value: (r) => String(r.quantity) },
      { header: 'env', value: (r) => r.environment },
      { header: 'order', value: (r) => r.orderId ?? '(unknown)' },
      { header: 'state', value: (r) => r.state },
      { header: 'started', value: (r) => r.createdAt },
    ]),
  );
  f.io.notice(f.io.c.dim('finish them with: giftcodes order resume --all   (stale or future-dated ones: giftcodes order resume <key> --force-stale, or giftcodes order abandon <key>)'));
}

/** Damaged journal files are named, never removed: one may be the only trace of an order. */
export function warnUnreadable(f: Factory, unreadable: readonly Unreadable[]): void {
  for (const bad of unreadable) f.io.warn(`unreadable journal file ${bad.file} (${bad.reason}); it was left in place`);
}
