import type { Command } from 'commander';
import type { Intent } from '../../journal/intent.js';
import type { Journal, Unreadable } from '../../journal/journal.js';
import { pinnedHint, shellWord } from '../../output/pinned-hint.js';
import { exportResult } from '../../output/exporter.js';
import type { Io } from '../../output/io.js';
import { renderTable } from '../../output/table.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { counted, grouped } from '../../output/words.js';
import { inScope, orderScope, profileColumn, scopeWords, unknownScopeProfile, type OrderScope } from './scope.js';

export function register(parent: Command, app: App): void {
  const help = {
    description:
      'list the orders whose outcome never reached you (interrupted, crashed, timed out), from the local journal; --profile and --env narrow them',
    examples: [
      'giftcodes order pending',
      'giftcodes order pending --json',
      'giftcodes order pending --profile shop2',
      'giftcodes order resume --all',
    ],
  };
  // --profile and --env narrow the rows (scope.ts), as order list's.
  addVerb(parent, app, 'pending', help, ({ deps, globals }) => run(deps, orderScope(globals, 'order pending')));
}

export async function run(deps: Pick<Deps, 'io' | 'journal' | 'configDir'>, scope: OrderScope = {}): Promise<void> {
  // No journal where the config directory is not there: said, with the empty document a script reads (journal-missing.ts).
  const { journalMissing } = await import('./journal-missing.js');
  if (await journalMissing(deps))
    return exportResult(deps.io, [], { empty: { when: () => false, line: '' }, text: () => '' });
  const journal = await deps.journal();
  const { settleReached, writtenUnrecorded } = await import('../../orders/lifecycle.js');
  const written = await writtenUnrecorded(journal);
  await settleReached(deps.io, journal, { keep: written, by: 'order pending' });
  const { rows, unreadable, unsent } = await pendingRows(journal, scope, written);
  warnUnreadable(deps.io, unreadable);
  const { io } = deps;
  const typo = rows.length === 0 ? await unknownScopeProfile(scope, journal) : undefined;
  /** The columns the table left out on a narrow terminal (renderTable), said after it. */
  let leftOut: readonly string[] = [];
  await exportResult(io, rows, {
    empty: {
      when: (data) => data.length === 0,
      // An unreadable file may be an order that never reached the user: never say they all did.
      line:
        typo !== undefined
          ? `no pending orders: ${typo}`
          : unreadable.length === 0
            ? `no pending orders${scopeWords(scope)}: every ${scopeWords(scope) ? 'one' : 'order'} placed from here reached you`
            : `no pending orders${scopeWords(scope)} that can be read, but ${counted(unreadable.length, 'journal file')} could not be: look at ${journal.dir}`,
    },
    text: (data) =>
      renderTable(
        io,
        data,
        [
          { header: 'key', value: (r) => r.key, whole: true },
          { header: 'product', value: (r) => r.productId, whole: true },
          { header: 'qty', value: (r) => grouped(r.quantity), whole: true },
          // Where every row is of one environment it gives way first, said once under the table (order list's rule);
          // while rows mix live and test it stays (a live one was charged real money).
          { header: 'env', value: (r) => r.environment, sameRank: 2 },
          ...profileColumn(data),
          {
            header: 'state',
            value: (r) =>
              r.machine !== undefined
                ? `on another machine (${r.machine})`
                : r.state === 'written'
                  ? 'codes in file'
                  : // Interrupted before its request went: nothing was charged (resume places it, abandon drops it).
                    r.state === 'interrupted' && unsent.has(r.key)
                    ? 'never sent'
                    : r.state,
          },
          // The key resumes it (order resume takes it, or a prefix): on a narrow terminal the order id gives way, after
          // ENV of one environment (a person's day: the id one quotes to the provider went first).
          { header: 'order', value: (r) => r.orderId ?? '(unknown)', whole: true, dropRank: 3 },
          { header: 'started', value: (r) => r.createdAt.replace(/\.\d+Z$/, 'Z'), dropRank: 1 },
        ],
        { leftOut: (headers) => (leftOut = headers) },
      ),
    notes: (data) => [
      // At 80 columns ORDER and STARTED went without a word, as order list's did (a person's day): said.
      ...(leftOut.length > 0 ? [`left out at ${io.columns} columns: ${leftOut.join(', ')} (--json has them)`] : []),
      // Each command whole, with the run's config directory, on a line of its own: shortened to their verbs they
      // could not be pasted (a review), and on one line they took four at 80 columns.
      // The way out of a stale or future-dated one only when one is listed: said under every table, it sent a
      // reader of fresh interrupted orders looking for one that was not there.
      // Never `order resume --all` (docs/support-desk.md): it takes up orders outside the rows listed too. One row
      // is named by its key; several by the KEY column.
      ...wayOut(data, (key) => unsent.has(key)).map((line) =>
        io.ce.dim(pinnedHint(line, { configDir: io.env.GIFTCODES_CONFIG_DIR })),
      ),
      ...(data.some((r) => r.state === 'written')
        ? [io.ce.dim('codes in file: the same command again ends it, charging nothing')]
        : []),
    ],
    pager: false,
  });
}

/**
 * The rows `order pending` lists, read from the journal as it is now (run() settles first what had reached the
 * user): the unresolved intents in `scope`, each with its state; the files that could not be read; the keys never
 * sent. `written`: writtenUnrecorded's test of an intent whose codes are in its file, the run never having ended.
 */
export async function pendingRows(journal: Journal, scope: OrderScope, written: (intent: Intent) => boolean) {
  // Loaded here, not at the top: a verb's imports would otherwise load (node:crypto too) on every start.
  const [{ neverSent, staleness }, { isAlive, otherMachine }] = await Promise.all([
    import('../../journal/intent.js'),
    import('../../journal/owner.js'),
  ]);
  const read = journal.read();
  const { unreadable } = read;
  const intents = read.intents.filter((intent) => inScope(scope, intent));
  const unsent = new Set(intents.filter(neverSent).map((intent) => intent.key));
  const rows = intents.map((intent) => {
    const running = isAlive(intent.owner);
    const stale = staleness(intent);
    const machine = otherMachine(intent.owner);
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
      // Another machine's: its process cannot be checked from here, so neither running nor interrupted.
      state:
        machine !== undefined
          ? 'other-machine'
          : running
            ? 'running'
            : written(intent)
              ? // Its codes are in its file; the run was cut before it ended: the same command finishes it.
                'written'
              : stale === 'old'
                ? 'stale'
                : stale === 'future'
                  ? 'future-dated'
                  : 'interrupted',
      ...(running ? { pid: intent.owner.pid } : {}),
      ...(machine !== undefined ? { machine } : {}),
      ...(intent.out ? { out: intent.out.path } : {}),
    };
  });
  return { rows, unreadable, unsent };
}

/**
 * The lines under the table that say how to finish its rows: `order resume` of the one row's key (with --force-stale
 * or abandon, once checked, for a stale or future-dated one), or of KEY for several, with the way out of the
 * stale and future-dated ones when one is listed.
 */
export function wayOut(
  rows: readonly { key: string; state: string }[],
  neverSent: (key: string) => boolean = () => false,
): string[] {
  const stale = (r: { state: string }): boolean => r.state === 'stale' || r.state === 'future-dated';
  // Never sent, nothing charged: resuming places it for the first time, and dropping it may be what is wanted.
  const unsent = (r: { key: string; state: string }): boolean => r.state === 'interrupted' && neverSent(r.key);
  // Another giftcodes process has it now (its pid in the row): `order resume` of it is refused (intent_busy), so the
  // way out is to let that run end (a review was told to resume a running order).
  const mine = rows.filter((r) => r.state !== 'running');
  if (mine.length === 0)
    return [
      `${rows.length === 1 ? 'it is' : 'they are'} being finished by a running giftcodes process right now: let it end, then look again with giftcodes order pending`,
    ];
  if (rows.length === 1) {
    const key = shellWord(rows[0]!.key);
    if (unsent(rows[0]!))
      return [
        `it was never sent: place it with giftcodes order resume ${key}, or drop it with giftcodes order abandon ${key}`,
      ];
    return stale(rows[0]!)
      ? [
          `it is ${rows[0]!.state}: once checked on the server, giftcodes order resume ${key} --force-stale, or giftcodes order abandon ${key}`,
        ]
      : [`finish it with: giftcodes order resume ${key}`];
  }
  return [
    `finish each${mine.length < rows.length ? ' not running now' : ''} with: giftcodes order resume KEY`,
    ...(rows.some(unsent)
      ? ['never sent ones charged nothing: resuming one places it; to drop one: giftcodes order abandon KEY']
      : []),
    ...(rows.some(stale)
      ? ['stale or future-dated ones: giftcodes order resume KEY --force-stale, or giftcodes order abandon KEY']
      : []),
  ];
}

/** Damaged journal files are named, never removed: one may be the only trace of an order. */
export function warnUnreadable(io: Io, unreadable: readonly Unreadable[]): void {
  for (const bad of unreadable) io.warn(`unreadable journal file ${bad.file} (${bad.reason}); it was left in place`);
}
