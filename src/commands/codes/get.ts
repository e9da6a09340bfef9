import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { orderOutcome, orderQuantity } from '../../api/outcome.js';
import { ApiError, InterruptedError, OrderFailedError } from '../../errors.js';
import { exportResult } from '../../output/exporter.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { orderRefArg } from '../parse.js';
import {
  addIntervalFlags,
  addOutFlags,
  checkWaitFlags,
  DEFAULT_INTERVAL_S,
  withRecipients,
  type WaitFlags,
} from '../wait-flags.js';
import { counted } from '../../output/words.js';
import type { OrderRef } from '../../orders/ref.js';
import type { Intent } from '../../journal/intent.js';

export interface GetOptions extends WaitFlags {
  orderId: string;
  wait?: boolean;
  /** The output mode is --json (checked against --format). */
  json: boolean;
}

type GetDeps = Pick<
  Deps,
  'io' | 'signal' | 'api' | 'connection' | 'journal' | 'clientFor' | 'connectionTo' | 'currentTarget' | 'now'
> &
  Partial<Pick<Deps, 'config' | 'configDir'>>;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('get')
    .description('write the codes of an order to stdout or a file, every page followed')
    .argument(
      '<ref>',
      'the order: its id, idempotency key, or a unique prefix of either (from the local record)',
      orderRefArg,
    )
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
  checkWaitFlags(options, {
    json: options.json,
    waits: options.wait === true,
    waitFlag: '--wait',
    outDefaultsToStdout: true,
    queried: deps.io.query !== undefined,
  });
  options = await withRecipients(options, deps, { outDefaultsToStdout: true });
  // A config directory that is not there (a mistyped GIFTCODES_CONFIG_DIR): the codes are fetched, and nothing is
  // made or recorded there.
  const { recordless } = await import('../order/journal-missing.js');
  const here = await recordless(deps);
  here.say('these codes are not recorded');
  const unrecorded = here.missing;
  const read: { ref?: OrderRef; unrecorded: boolean } = { unrecorded };
  try {
    await fetchCodes(options, deps, read);
  } catch (error) {
    const { notFoundHere, fromOtherKey, recordedNotFound } = await import('../../orders/ref.js');
    // The ref as read: one word of a pasted sentence (oneRef), else the ref as typed.
    if (read.ref === undefined) throw await notFoundHere(deps, options.orderId, error);
    // An order recorded here that the API does not know: whose it is, and the cause that fits (ref.ts).
    if (read.ref.record && error instanceof ApiError && error.code === 'order_not_found')
      throw await recordedNotFound(
        deps,
        read.ref.record,
        read.ref.api.baseUrl,
        `this machine's record of it: giftcodes order show ${read.ref.orderId}`,
      );
    // A ref unknown here, not found with the key of one environment: asked with the profile's other key, once, and
    // its codes fetched there when found.
    const found = await fromOtherKey(deps, read.ref, error);
    await fetchCodes(options, deps, { ref: found.ref, unrecorded });
  }
}

/**
 * The codes, for options checked and with their recipients (run). `read.ref`: the order the ref was read as, once it
 * is (for the hint of a 404); given, the order to fetch, read elsewhere already.
 */
async function fetchCodes(
  options: GetOptions,
  deps: GetDeps,
  read: { ref?: OrderRef; unrecorded: boolean },
): Promise<void> {
  const recorded = !read.unrecorded;
  const out = options.out ?? '-';
  const force = options.force === true;
  // --query needs the whole array, which the stream to stdout never holds: there the codes are gathered and
  // the query applied to them (docs/choices.md). --format csv/jsonl with it is refused by checkWaitFlags.
  const queried = out === '-' && deps.io.query !== undefined;
  const [
    { checkCodesTarget, deliverCodes, deliverFetched, recordingIn, recordedIn, noteHolding, dropNoteFile },
    { orderRef, noteStatus },
  ] = await Promise.all([import('../../orders/deliver.js'), import('../../orders/ref.js')]);
  const ref = read.ref ?? (await orderRef(deps, options.orderId));
  read.ref = ref;
  const api = ref.api;
  options = { ...options, orderId: ref.orderId };
  // Refuse an existing file before waiting or fetching anything, unless it holds exactly these codes (a re-run).
  const existing = await checkCodesTarget(out, force);
  let lengthJudged = false;
  // A file that certainly does not hold this order's codes is refused before a wait or a page (recover.ts).
  if (existing !== undefined && ref.record !== undefined) {
    lengthJudged = true;
    const { shortFileRefusal } = await import('../../orders/deliver.js');
    const short = await shortFileRefusal(out, options.format, ref.record.quantity, ref.orderId);
    // Once the order is read (one request, not its pages): a failed one, or one the API cannot give now, is said as
    // such, not as the file (a review met "the file is empty" of an order that had failed, exit 2 for 6).
    if (short) {
      const [order, { orderOutcome }] = await Promise.all([
        api.getOrder(ref.orderId).catch(() => undefined),
        import('../../api/outcome.js'),
      ]);
      if (order !== undefined && orderOutcome(order.status) !== 'failed') throw short;
    }
  }
  // The order's quantity, where known, is how many codes must arrive: what the journal recorded when this machine
  // placed it, else the server's word with --wait (an API that ends the list early, or says the order is for fewer
  // codes than were ordered, must not pass for the order; order watch holds the same rule).
  let expected: number | undefined = ref.record?.quantity;
  // A failed order's status is noted as any other read (order list reads its outcome as failed, history.ts outcomeOf):
  // the status the wait read, else `failed` where the codes were refused for it (export/write.ts, order_failed). A
  // failed order is an outcome too: the interrupted `order place` of it, if any, ends as failed once it is said. By
  // the order the ref resolved to, on the server it was placed at: the ref as typed may be a prefix or a key.
  const noteFailed = async (error: unknown): Promise<never> => {
    // Codes refused for a failed order (export/write.ts failedOrderOf) say only that: the order, read once, gives its
    // reason and the way on, as order watch says them (a person's day: "order … failed; it has no codes" and "see it
    // with order show", where watch gave the provider's reason and how to order it anew).
    if (error instanceof OrderFailedError && !('order' in error)) {
      const [order, { OrderEndedError }] = await Promise.all([
        api.getOrder(ref.orderId).catch(() => undefined),
        import('../../orders/wait.js'),
      ]);
      if (order !== undefined && orderOutcome(order.status) === 'failed') error = new OrderEndedError(order);
    }
    if (error instanceof OrderFailedError && recorded) {
      const { OrderEndedError } = await import('../../orders/wait.js');
      const status = error instanceof OrderEndedError ? error.order.status : 'failed';
      const journal = await deps.journal();
      // Read before deliverFetched ends the interrupted intent of it: a plan row's failure is its plan's to order anew.
      const { ofPlanRow } = await import('../../orders/ref.js');
      const planRow = ofPlanRow(journal, ref);
      await noteStatus(journal, ref, status, deps.now());
      await deliverFetched(deps.io, journal, () => undefined, {
        orderId: ref.orderId,
        baseUrl: api.baseUrl,
        codes: false,
        ending: 'failed',
        by: 'codes get',
      });
      if (error instanceof OrderEndedError && planRow) throw error.ofPlanRow();
      if (error instanceof OrderEndedError && ref.record) {
        const { anewOfRecord } = await import('../../orders/ref.js');
        throw error.orderedAnew(await anewOfRecord(deps, ref.record));
      }
    }
    throw error;
  };
  if (options.wait) {
    const { waitForOrder, againThenCodes } = await import('../../orders/wait.js');
    const order = await waitForOrder({
      api,
      orderId: options.orderId,
      io: deps.io,
      signal: deps.signal,
      intervalS: options.interval ?? DEFAULT_INTERVAL_S,
      timeoutS: options.timeout,
      // `order watch` would leave the codes unwritten (a review followed the hint and found no file).
      again: againThenCodes(out),
    }).catch(noteFailed);
    if (recorded) await noteStatus(await deps.journal(), ref, order.status, deps.now());
    expected ??= orderQuantity(order);
  } else if (expected === undefined) {
    // An order no record here knows (placed on another machine, or its config directory lost), read without --wait:
    // its quantity is asked of the API once, so that a list the API ends early is exit 5 and no file, as with a
    // record, rather than a file of part of the codes that says it is the order's (docs/dialects.md, "Never a
    // silent partial result"). An order that states no quantity is exported as before, with only the API's own
    // total to check. A read that fails leaves the quantity unknown, said, and the codes are fetched as before: an
    // API whose keys may read codes but not orders (403), or that answers the order's path otherwise than its codes',
    // exported them before this read, and failed with it (a review).
    expected = orderQuantity(
      await api.getOrder(options.orderId).catch((error: unknown) => {
        if (error instanceof InterruptedError) throw error;
        // Not found: the codes' own request says so (and asks with the profile's other key), or finds them.
        if (error instanceof ApiError && error.status === 404) return {};
        deps.io.warn(
          `the order ${options.orderId} could not be read for its quantity (${error instanceof Error ? error.message : String(error)}); its codes are checked against the API's own total only`,
        );
        return {};
      }),
    );
  }
  // Codes are served only for a completed order: once read, the record says so (unless it already says success).
  const noteCompleted = async (): Promise<void> => {
    if (!recorded) return;
    if (!options.wait && ref.record?.status !== undefined && orderOutcome(ref.record.status) === 'completed') return;
    if (!options.wait) await noteStatus(await deps.journal(), ref, 'completed', deps.now());
  };
  if (queried) {
    const codes: unknown[] = [];
    const { CodeTally } = await import('../../export/tally.js');
    const tally = new CodeTally(options.orderId, expected);
    try {
      for await (const page of api.codePages(options.orderId, expected)) {
        tally.page(page);
        codes.push(...page);
      }
    } catch (error) {
      const { failedOrderOf } = await import('../../export/write.js');
      await noteFailed(failedOrderOf(error, options.orderId));
    }
    await noteCompleted();
    deps.io.outJson(codes);
    // What the query printed need not be the codes (`length(@)`, a field the records lack: null): an interrupted
    // `order place` of this order is left to finish, never ended as if its codes had reached you (it was, and
    // `order pending` then said every order reached you, its --out file never written: a review).
    if (recorded) {
      const [{ unitsOf }, { pinnedHint }] = await Promise.all([
        import('../../output/words.js'),
        import('../../output/pinned-hint.js'),
      ]);
      for (const intent of (await deps.journal()).read().intents)
        if (intent.orderId === options.orderId && intent.baseUrl === api.baseUrl)
          deps.io.caution(
            pinnedHint(
              `the interrupted order place of ${unitsOf(intent.quantity, intent.productId)} (key ${intent.key}) is left to finish: what --query printed is not its codes; giftcodes order resume ${intent.key} finishes it`,
              { configDir: deps.io.env.GIFTCODES_CONFIG_DIR },
            ),
          );
    }
    return;
  }
  // A file's export leaves a dead run's temporary file that the journal recorded (codes-file.ts): stdout has none.
  const journal = out === '-' || !recorded ? undefined : await deps.journal();
  const outSpec = {
    path: out,
    format: options.format,
    force,
    csvRaw: options.csvRaw === true,
    ...(options.encryptTo ? { encryptTo: options.encryptTo } : {}),
  };
  // An interrupted order place of this order: the file is recorded in it around the rename (deliver.ts recordingIn).
  const finishing =
    journal &&
    recordingIn(
      journal,
      { orderId: options.orderId, baseUrl: api.baseUrl, out: { ...outSpec, path: resolve(out) } },
      () => deps.now(),
    );
  // --force over a file this machine recorded holding another order's codes: said once written, with the way to
  // that order's codes again (a second review, stop 78: the only file of an order's codes went, without a word).
  // An interrupted note of another order recording the file counts as much (a third review: that order then read as
  // "had already reached you", its codes in no file).
  const overwritten = force && out !== '-' && existsSync(resolve(out)) ? await heldHere(resolve(out)) : undefined;
  async function heldHere(path: string): Promise<{ orderId: string | undefined; note?: Intent } | undefined> {
    const held = journal ?? (await deps.journal().catch(() => undefined));
    if (held === undefined) return undefined;
    const note = noteHolding(held, path, options.orderId);
    return note ? { orderId: note.orderId, note } : { orderId: held.history.codesWrittenTo(path)?.record.orderId };
  }
  // The file an interrupted note of this order records as its codes, there unchanged: taken as delivered, as a file
  // holding exactly these codes is (deliver.ts recordedIn; an encrypted one cannot be compared).
  const recordedFile =
    existing !== undefined && journal
      ? recordedIn(journal, options.orderId, resolve(out), options.encryptTo)
      : undefined;
  const result = recordedFile
    ? {
        path: resolve(out),
        count: recordedFile.count ?? expected ?? 0,
        format: recordedFile.format ?? (await import('../../export/format.js')).formatFor(out, options.format),
        already: true,
      }
    : await deliverCodes({
        api,
        orderId: options.orderId,
        expected,
        lengthJudged,
        out: outSpec,
        io: deps.io,
        signal: deps.signal,
        recordedTemp: journal && ((temp: string) => journal.recordsTemp(temp)),
        heldBy: journal && ((path: string) => journal.history.codesWrittenTo(path)),
        existing,
        ...(finishing ? { intent: finishing.intent } : {}),
      }).catch((error: unknown) => {
        finishing?.takeBack();
        return noteFailed(error);
      });
  // The codes went to the file: stdout holds where (--json), else a notice says it.
  const sealed = options.encryptTo?.length ?? 0;
  const print = async (): Promise<void> => {
    if (out === '-') return;
    const { fileKind, wroteCodes } = await import('../../orders/present.js');
    await exportResult(
      deps.io,
      { orderId: options.orderId, path: result.path, count: result.count, format: result.format },
      {
        // The file already held these very codes (a second run): it was left as it was, and the words say so.
        notes: (data) => [
          result.already
            ? `${deps.io.ce.green('✓')} ${data.path} already holds the ${counted(data.count, 'code')} of ${data.orderId} (${fileKind(data)}); left as it was`
            : wroteCodes(deps.io, { ...data, recipients: sealed }),
        ],
      },
    );
  };
  await noteCompleted();
  const other = overwritten?.orderId;
  if (other !== undefined && other !== options.orderId && !result.already) {
    const { pinnedHint } = await import('../../output/pinned-hint.js');
    if (overwritten?.note) dropNoteFile(await deps.journal(), overwritten.note, result.path);
    deps.io.caution(
      pinnedHint(
        `${result.path} held the codes of order ${other}, written over now with those of ${options.orderId}; ${other}'s codes again, charging nothing: giftcodes codes get ${other} --out OTHER_FILE`,
        { configDir: deps.io.env.GIFTCODES_CONFIG_DIR },
      ),
    );
  }
  if (!recorded) await print();
  else
    await deliverFetched(deps.io, await deps.journal(), print, {
      orderId: options.orderId,
      baseUrl: api.baseUrl,
      codes: true,
      out: result.path,
      by: 'codes get',
      record: ref.record,
    });
  const [{ runSummary }, { fileKind }] = await Promise.all([
    import('../../output/progress.js'),
    import('../../orders/present.js'),
  ]);
  const kind = fileKind({ ...result, recipients: sealed });
  runSummary(
    deps.io,
    result.already
      ? `${result.path} already held the ${counted(result.count, 'code')} of ${options.orderId} (${kind}); nothing written`
      : `exported ${counted(result.count, 'code')} of ${options.orderId} to ${result.path === '-' ? 'stdout' : result.path} (${kind})`,
  );
  // Thousands of codes printed on a terminal scroll past where no one can hand them out (5,000 of them, a person's
  // day): the way to a file is said after them, as gh points on from a long listing. Not in a pipe or a file
  // (stdout is the data there), nor under --quiet or --json.
  if (result.path === '-' && deps.io.stdoutIsTTY && result.count > CODES_ON_A_SCREEN) {
    const { pinnedHint } = await import('../../output/pinned-hint.js');
    deps.io.notice(
      pinnedHint(
        `printed ${counted(result.count, 'code')} of ${options.orderId} on the terminal; to keep them in a file, run: giftcodes codes get ${options.orderId} --out ${options.orderId}.csv (.xlsx for a spreadsheet)`,
        { configDir: deps.io.env.GIFTCODES_CONFIG_DIR },
      ),
    );
  }
}

/** More codes than a terminal's screen shows at once: printed there, they are pointed to a file (--out). */
export const CODES_ON_A_SCREEN = 20;
