import { InvalidArgumentError, Option, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ExitCode, InterruptedError, isCliError, nothingSent, UsageError } from '../../errors.js';
import type { OutLock } from '../../export/out-lock.js';
import { realFile } from '../../files/real-path.js';
import { MAX_QUANTITY } from '../../orders/limits.js';
import type { Driven } from '../../orders/drive.js';
import type { PlanResult, PlanRow, RowOptions, RowProblem } from '../../orders/plan.js';
import type { Order, Product } from '../../api/schemas.js';
import type { OrderRecord, Scope } from '../../journal/history.js';
import type { Intent, OrderSpec, OutSpec } from '../../journal/intent.js';
import type { Begun, Journal } from '../../journal/journal.js';
import type { Footprint, Request } from '../../orders/recover.js';
import type { ApiClient } from '../../api/client.js';
import type { Connection } from '../../config/resolve.js';
import type { ConfigStore } from '../../config/store.js';
import { spokenMoney } from '../../money.js';
import { FILE_ENDINGS, formatFor, namesAgeFile, tooManyCodes } from '../../export/format.js';
import { exportResult } from '../../output/exporter.js';
import type { Io } from '../../output/io.js';
import { renderTable } from '../../output/table.js';
import { redactKeys } from '../../secrets.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { integer, nonEmpty, once } from '../parse.js';
import {
  counted,
  firstOf,
  grouped,
  holdsCodesOf,
  reasonWord,
  resellerKeyWords,
  sentNothing,
  unitsOf,
} from '../../output/words.js';
import { batchFlag, pinnedHint, shellWord } from '../../output/pinned-hint.js';
import {
  addWaitFlags,
  checkWaitFlags,
  DEFAULT_INTERVAL_S,
  outSpec,
  profileEncryptTo,
  withRecipients,
  type WaitFlags,
} from '../wait-flags.js';

export interface PlaceOptions extends WaitFlags {
  product: string;
  quantity: number;
  plan?: string;
  /** --batch: with --plan, a name that makes the plan's rows new orders (a nightly cron: the date). */
  batch?: string;
  dryRun?: boolean;
  concurrency?: number;
  idempotencyKey?: string;
  wait?: boolean;
  /** --yes: a live order is placed without asking. */
  yes?: boolean | undefined;
  /** The output mode is --json (checked against --out - and --format). */
  json: boolean;
}

/** `order place --plan`: the plan file, how its rows run, and --yes. */
/** How the rows run (RowOptions), and what the plan itself is asked. */
export interface PlanRunOptions extends RowOptions {
  plan: string;
  /** The plan's bytes, when the verb read them already (a pipe is read once); else runPlan reads the file. */
  planBytes?: Buffer | undefined;
  /** With planBytes: the verb checked them already (readPlanFirst returned), so runPlan does not check them again. */
  planChecked?: boolean | undefined;
  batch?: string | undefined;
  dryRun?: boolean | undefined;
  yes?: boolean | undefined;
}

export type PlaceDeps = Pick<Deps, 'io' | 'signal' | 'connection' | 'api' | 'journal' | 'configDir'> &
  Partial<Pick<Deps, 'config' | 'currentTarget'>>;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('place')
    .description(
      'place an order exactly once, even across crashes (the key is journaled before anything is sent); at a terminal, without --product or --quantity, it asks for what is missing (a guided order)',
    )
    .addOption(
      new Option('--product <id>', 'product id from the catalog').argParser(once('--product', nonEmpty('product id'))),
    )
    .addOption(new Option('--quantity <n>', 'number of units').argParser(once('--quantity', integer(1, MAX_QUANTITY))))
    .addOption(
      new Option(
        '--idempotency-key <key>',
        'supply the idempotency key yourself (default: a new UUID, journaled)',
      ).argParser(once('--idempotency-key', idempotencyKeyArg)),
    )
    .option('--wait', 'wait until the order completes (exit 6 if it fails, 7 on --timeout)')
    .addOption(
      new Option(
        '--plan <file.csv>',
        'bulk: one order per row product,quantity[,out]; the same plan never orders twice',
      )
        .argParser(nonEmpty('--plan', 4096))
        .conflicts(['product', 'quantity', 'idempotencyKey']),
    )
    .addOption(
      new Option(
        '--batch <name>',
        'with --plan: order its rows again as a new batch (e.g. --batch "$(date +%F)" each night); {batch} in an out cell is this name',
      ).argParser(once('--batch', batchArg)),
    )
    .option('--dry-run', 'with --plan: print what would be ordered, send nothing')
    .addOption(new Option('--concurrency <n>', 'with --plan: rows at once').argParser(integer(1, 32)).default(4));
  addWaitFlags(command).action(async (flags: Omit<PlaceOptions, 'yes' | 'json'>, cmd: Command) => {
    const { globals, json, deps } = app.context(cmd);
    await run({ ...flags, yes: globals.yes, json }, deps);
  });
  examples(command, [
    'giftcodes order place --product amazon-us-25 --quantity 10',
    'giftcodes order place --product amazon-us-25 --quantity 100 --out codes.csv',
    'giftcodes order place --product steam-us-20 --quantity 5 --wait --json',
    'giftcodes order place --plan restock.csv --env live --yes',
  ]);
}

export async function run(options: PlaceOptions, deps: PlaceDeps): Promise<void> {
  // A plan's rows name their own files: each is checked against the recipients (orders/plan.ts outFileProblems).
  if (options.plan !== undefined) {
    // Read once: a plan given as a pipe (`--plan <(…)`) can be read once, and every check below parses these bytes.
    const { readPlanBytes } = await import('../../orders/plan.js');
    const planBytes = readPlanBytes(options.plan);
    options = await planRecipients(
      options,
      await readPlanFirst({ ...options, plan: options.plan }, planBytes, deps),
      deps,
    );
    return runPlan(
      { ...options, plan: options.plan!, planBytes, planChecked: true, concurrency: options.concurrency ?? 4 },
      deps,
    );
  }
  options = await withRecipients(options, deps);
  // The flags' own mistakes first: a guided order must not ask a quantity and then refuse a flag.
  checkPlanOnlyFlags(options);
  let out = outSpec(options);
  let waits = options.wait === true || out !== undefined;
  checkWaitFlags(options, { json: options.json, waits, waitFlag: '--wait', queried: deps.io.query !== undefined });
  // --yes as the person gave it: a guided order's confirmation answers the order's question, not the others.
  const yesGiven = options.yes === true;
  // Orders earlier runs left interrupted, said before a guided order's questions (its confirmation is its own).
  let leftSaidFirst = false;
  // The interrupted order a guided order's person said yes to finishing (its key): this run finishes that one or sends
  // nothing. Another run that finished it while the question waited left none, and the yes placed a new order nobody
  // confirmed, a second charge (an adversarial review).
  let guidedResume: string | undefined;
  /** The order a guided order's confirmation asked about, and the footprint other runs had of it then. */
  let guidedSeen: { footprint: Footprint; questions: number } | undefined;
  // At a terminal without --product or --quantity: a guided order (orders/guided.ts) asks what is missing and is
  // confirmed there; elsewhere the usage error below.
  if (
    (options.product === undefined || options.quantity === undefined) &&
    options.idempotencyKey === undefined &&
    !options.json &&
    deps.io.canPrompt
  ) {
    const { checkOutTarget } = await import('../../export/out-target.js');
    // A file already there is refused before the questions (the same command resuming its own file has both flags),
    // said as whose codes it holds where this machine delivered an order there, as the flags' own refusal says it.
    if (out && out.path !== '-') {
      try {
        checkOutTarget(out.path, out.force, { placing: true });
      } catch (error) {
        // The records are read for a file already there, and only then (an unreadable journal is not this error).
        if (isCliError(error) && error.code === 'out_exists')
          throw heldOutRefusal(error, await deps.journal(), out.path);
        throw error;
      }
    }
    const [{ guidedOrder }, { readCatalog }, connection, api] = await Promise.all([
      import('../../orders/guided.js'),
      import('../catalog/list.js'),
      orderConnection(deps),
      deps.api(),
    ]);
    const catalog = await readCatalog(deps.io, api);
    // A product given with a typo is refused before its quantity is asked.
    if (options.product !== undefined)
      await refuseTypo(deps, await deps.journal(), connection, api, options.product, catalog);
    // Whether a codes file is encrypted (--encrypt-to, or the profile's encrypt-to): its name must say so (.age).
    const encrypts =
      (options.encryptTo?.length ?? 0) > 0 || ((await profileEncryptTo(deps))?.recipients?.length ?? 0) > 0;
    // An order left interrupted (it may have been charged) is said before the questions, not after the order they
    // confirm was placed: a review answered yes to a live order and only then read that the one it retried was charged.
    const [{ leftByEarlierRuns, resumeCandidate, resumingNow, requestFootprint }, { keyIdOf, neverSent }, journal] =
      await Promise.all([import('../../orders/recover.js'), import('../../journal/intent.js'), deps.journal()]);
    const left = leftByEarlierRuns(journal, () => false, deps.io.env.GIFTCODES_CONFIG_DIR);
    if (left) deps.io.caution(left);
    leftSaidFirst = left !== undefined;
    // What other runs have under way, of any order (this one is not known yet), before the first question: read
    // again after the last. Read at the confirmation, an order placed while the product or quantity was typed went
    // unasked (a review).
    guidedSeen = { footprint: requestFootprint(journal), questions: deps.io.questionsAsked };
    const chosen = await guidedOrder(deps.io, api, connection, catalog, {
      ...options,
      checkFile: (path) =>
        guidedFileProblem(path, options, encrypts, checkOutTarget, (file) => heldCodesAt(journal, file)?.words),
      resumes: (productId, quantity) => {
        const asked = orderSpec(connection, keyIdOf, productId, quantity);
        const found = resumeCandidate(journal, asked, options.idempotencyKey);
        // Being finished by another run right now: said before the question, not after a Yes it would refuse (a
        // review was asked "Place a test order …?", answered Yes, and got intent_busy).
        const busy = found === undefined && options.idempotencyKey === undefined && resumingNow(journal, asked);
        if (busy) throw beingFinished(busy);
        return found && { key: found.key, started: found.createdAt, sent: !neverSent(found) };
      },
    });
    const { resumes, ...answered } = chosen;
    guidedResume = resumes;

    options = { ...options, ...answered, yes: true };
    // A codes file chosen there is --out from here on: waited for, written once, locked before the charge, and
    // encrypted to the profile's encrypt-to as any --out file is (read above for no file: none was named then).
    if (chosen.out !== undefined) options = await withRecipients(options, deps);
    out = outSpec(options);
    waits = options.wait === true || out !== undefined;
  }
  checkSingleOrderFlags(options);
  // More codes than one file of the format holds (a workbook's rows) is refused before anything is charged.
  const tooMany =
    out && out.path !== '-'
      ? tooManyCodes(
          formatFor(out.path, out.format),
          options.quantity,
          `--quantity ${options.quantity} with --out ${options.out ?? out.path}`,
        )
      : undefined;
  if (tooMany) throw tooMany;
  const connection = await orderConnection(deps);
  const [
    journal,
    api,
    { keyIdOf, neverSent },
    { driveIntent, finish },
    {
      resumableFor,
      placingNow,
      resumingNow,
      leftByEarlierRuns,
      resumeCandidate,
      interruptedBeside,
      ofThisRequest,
      requestFootprint,
      deliveredToGone,
    },
    { sayReached, codesWhere, codesAgain },
  ] = await Promise.all([
    deps.journal(),
    deps.api(),
    import('../../journal/intent.js'),
    import('../../orders/drive.js'),
    import('../../orders/recover.js'),
    import('../../orders/lifecycle.js'),
  ]);
  await refuseTypo(deps, journal, connection, api, options.product);
  const spec = orderSpec(connection, keyIdOf, options.product, options.quantity);
  // One writer per --out file, from before the charge to the end of the run: a second run at the same file
  // meanwhile is refused (out_busy, exit 2) with nothing charged, never after its charge. An existing file
  // is refused before anything is charged, unless it is the delivery of the very intent this run will resume
  // (a run killed right after its rename).
  let outLock: OutLock | undefined;
  if (out && out.path !== '-') {
    const { holdOutTarget } = await import('../../export/out-target.js');
    try {
      outLock = holdOutTarget(out.path, out.force, () => resumableFor(journal, spec, options.idempotencyKey, out.path));
    } catch (error) {
      throw heldOutRefusal(error, journal, out.path);
    }
  }
  try {
    // The same order being placed by another run right now (a second window): a second order by the journal's
    // rules, so a person at a terminal is asked first, and a log says so.
    const what = unitsOf(options.quantity, options.product);
    // A live order off a terminal without --yes is refused below, before anything is sent: nothing "places" then.
    const refusedBelow = connection.environment === 'live' && !yesGiven;
    // What other runs have of this order before any question here (a guided order's: as its confirmation was asked):
    // read again after the questions, before anything is sent (askedMeanwhile).
    // Off a terminal nothing is asked, and nothing is read for it.
    const seen =
      guidedSeen ??
      (deps.io.canPrompt
        ? {
            footprint: requestFootprint(journal, { ...spec, key: options.idempotencyKey }),
            questions: deps.io.questionsAsked,
          }
        : undefined);
    // An interrupted order of this command being finished by another run right now (the same command a moment before,
    // order resume --all): this run places nothing, as two runs racing for the note at begin do (resumeNext).
    const resuming = options.idempotencyKey === undefined ? resumingNow(journal, spec) : undefined;
    if (resuming !== undefined) throw beingFinished(resuming);
    const other = placingNow(journal, spec, options.idempotencyKey);
    // With a key of its own, beside a run finishing an interrupted order of this one: said as that, with its key (a
    // review was told only that the other run "is placing" it).
    const finishing =
      other !== undefined && options.idempotencyKey !== undefined ? resumingNow(journal, spec) : undefined;
    if (other !== undefined)
      await secondOrder(
        deps.io,
        yesGiven,
        finishing !== undefined && finishing.owner.pid === other
          ? `another giftcodes run (pid ${other}) is finishing the interrupted order of ${what} (key ${finishing.key}) right now`
          : `another giftcodes run (pid ${other}) is placing ${what} right now`,
        what,
      );
    // The same request whose interrupted run codes get or order watch finished meanwhile: its hint had said to run
    // the same command again, and that is now a second order. Asked at a terminal, said in every mode elsewhere.
    // The interrupted order this run resumes, read once (no lock): its key goes to begin, so that this run resumes it
    // or places nothing. Without the key, a second run started at the same moment found it taken by the first and
    // placed a second order without a word (a review: two identical re-runs after a crash, two orders).
    const candidate = resumeCandidate(journal, spec, options.idempotencyKey);
    if (guidedResume !== undefined && candidate?.key !== guidedResume) throw finishedMeanwhile(guidedResume);
    // An order of this request left interrupted after its request went out, under another key than the one given: a
    // given key never resumes it, so this run is a second order beside it if that one was placed (an adversarial review
    // added --idempotency-key to the retry "to be safe" and was charged twice). Asked at a terminal; elsewhere said and
    // placed, as a cron job that gives each night a key of its own goes on.
    const beside =
      options.idempotencyKey !== undefined && candidate === undefined
        ? interruptedBeside(journal, spec, options.idempotencyKey)
        : undefined;
    if (beside !== undefined)
      await secondOrder(
        deps.io,
        yesGiven,
        interruptedWords(beside, spec, out, deps.io.env.GIFTCODES_CONFIG_DIR),
        what,
        refusedBelow,
      );
    // With a key given, another key's run placing the same order is said above and changes nothing of this key's own.
    const fresh = (other === undefined || options.idempotencyKey !== undefined) && candidate === undefined;
    // What the record of this request that ended last says, read once (recover.ts ofThisRequest).
    const { finished, abandoned, abandonedElsewhere, abandonedPlaced, abandonedRow, abandonedAhead } = fresh
      ? ofThisRequest(journal, spec, options.idempotencyKey)
      : {};
    // Abandoned while its request was out, and dated ahead of this clock (it went back since): its age cannot be told,
    // so its key is not sent again, and nothing new is placed beside it unasked. Refused before any question (a review
    // was asked "Send its request again under that key?", and its Yes was then refused); with a key of its own given,
    // as the refusal's hint says once the dashboard shows no such order, asked or said as a second order.
    if (abandonedAhead !== undefined) {
      if (options.idempotencyKey === undefined)
        throw (await import('../../journal/journal.js')).staleAbandoned(abandonedAhead, 'future');
      await secondOrder(
        deps.io,
        yesGiven,
        `the order of ${what} abandoned at ${abandonedAhead.endedAt ?? abandonedAhead.updatedAt} while its request was out (key ${abandonedAhead.key}) may have been placed; it is dated ahead of this machine's clock, so its age cannot be told and its key is not sent again (look for it in the provider's dashboard)`,
        what,
        refusedBelow,
      );
    }
    if (abandonedRow !== undefined) {
      const { planRunWords } = await import('../../orders/ref.js');
      await secondOrder(
        deps.io,
        yesGiven,
        `a plan row of ${what}${abandonedRow.plan ? ` (plan ${abandonedRow.plan})` : ''} was abandoned at ${abandonedRow.endedAt ?? abandonedRow.updatedAt} while its request was out (key ${abandonedRow.key}), and may have been placed; its plan, run again within the day ${planRunWords(abandonedRow)} and the row unchanged, sends that request again (that order if it was placed, never both)`,
        what,
        refusedBelow,
      );
    }
    // Abandoned so under another scope of this environment (another spelling of the address, an API key rotated since):
    // its key is not sent from here, so this run is a second order beside it if it was placed, asked at a terminal as
    // every second order is (an adversarial review abandoned it under a new key of the same reseller, then placed it
    // again: warned, not asked, charged twice).
    if (abandonedElsewhere) {
      const r = abandonedElsewhere;
      const otherKey = r.keyId !== spec.keyId;
      // Another key of the same reseller in another profile: named as such, and the way to send its key is that profile.
      const whose = otherKey
        ? ` with ${r.profile !== spec.profile || (r.resellerId !== undefined && r.resellerId === spec.resellerId) ? resellerKeyWords(r, spec) : 'another API key'}`
        : '';
      const { placeFlags } = await import('../../orders/ref.js');
      await secondOrder(
        deps.io,
        yesGiven,
        // Pinned to this run's config directory, as every hint is: pasted from a cron log, it must look there (a review).
        pinnedHint(
          `the order of ${what} abandoned at ${r.endedAt ?? r.updatedAt} (key ${r.key}) at ${r.baseUrl}${whose}${r.profile !== spec.profile ? ` in profile "${r.profile}"` : ''} may have been placed before it was stopped, and this run, at ${spec.baseUrl}${otherKey ? ' with this key' : ''}, does not send that key; to send its request again under it instead (that order if it was placed, never both): giftcodes order place --product ${options.product} --quantity ${options.quantity}${placeFlags(r.profile !== spec.profile ? { ...spec, profile: r.profile } : spec)} --base-url ${r.baseUrl}${otherKey ? ', with that API key' : ''}`,
          { configDir: deps.io.env.GIFTCODES_CONFIG_DIR },
        ),
        what,
        refusedBelow,
      );
    }
    if (finished !== undefined) {
      // Its codes file as that run left it, or not: "its codes in night.csv" read as "they are there" to a person who
      // ran the line again for the codes after an upload had moved the file; then the way to them that charges nothing.
      const { codesFileNow } = await import('../../journal/history.js');
      const now = finished.out !== undefined ? codesFileNow(finished) : 'same';
      const codes =
        finished.out === undefined
          ? ''
          : now === 'same' || finished.orderId === undefined
            ? ` (its codes ${codesWhere(finished.out)})`
            : ` (its codes were written to ${finished.out}, ${now === 'gone' ? 'no longer there' : 'a file written again since'}; ${codesAgain(deps.io, finished.orderId, finished.out)})`;
      await secondOrder(
        deps.io,
        yesGiven,
        `the interrupted order ${finished.orderId ?? finished.key} of ${what} was finished by ${finished.finishedBy} at ${finished.endedAt ?? finished.updatedAt}${codes}`,
        what,
        refusedBelow,
      );
    }
    // Delivered to this very file within the day, the file since moved or deleted: a person running the line again to
    // get the codes back would pay for a second order (an adversarial review). Asked at a terminal only: a cron job's
    // upload moves its file every night, and its next night is a new order by design.
    const gone =
      deps.io.canPrompt &&
      fresh &&
      finished === undefined &&
      options.idempotencyKey === undefined &&
      out &&
      out.path !== '-' &&
      !existsSync(out.path)
        ? deliveredToGone(journal, spec, out.path)
        : undefined;
    if (gone !== undefined)
      await secondOrder(
        deps.io,
        yesGiven,
        `the order ${gone.orderId} of ${what} was delivered to ${gone.out} at ${gone.endedAt ?? gone.updatedAt}, and that file is no longer there; ${codesAgain(deps.io, gone.orderId, gone.out)}`,
        what,
        refusedBelow,
      );
    if (abandonedPlaced !== undefined)
      await secondOrder(
        deps.io,
        yesGiven,
        // Pinned to this run's config directory, as every command said is (a cron log's reader runs it elsewhere).
        pinnedHint(
          `the order ${abandonedPlaced.orderId} of ${what} was abandoned at ${abandonedPlaced.endedAt ?? abandonedPlaced.updatedAt} after the API had placed it (its codes: giftcodes codes get ${abandonedPlaced.orderId} --out CODES_FILE)`,
          { configDir: deps.io.env.GIFTCODES_CONFIG_DIR },
        ),
        what,
        refusedBelow,
      );
    // The same request abandoned after it went out without an answer (Ctrl-C during the send, then order abandon),
    // within the day the server keeps its key: sent again under that key, so that this is that order if the server
    // placed it, and a new one if not, never both (a review was charged twice, the first order out of reach).
    // At a terminal it is asked (Yes by default): a person who found that order on the provider's dashboard and took
    // its codes (codes get <id>) wants a new one, and would have had the same codes again (a review).
    let reused = options.idempotencyKey === undefined ? abandoned : undefined;
    // With a key given, that key is what this run sends: a second order beside the abandoned one if it was placed, asked
    // at a terminal as every second order is (its request goes again under its own key only without the flag).
    if (abandoned && reused === undefined)
      await secondOrder(
        deps.io,
        yesGiven,
        `the order of ${what} abandoned at ${abandoned.endedAt ?? abandoned.updatedAt} while its request was out (key ${abandoned.key}) may have been placed; the same command without --idempotency-key sends its request again under that key (that order if it was placed, never both)`,
        what,
        refusedBelow,
      );
    // Answered No: recorded once every question is answered, before this run's own order begins: not at the answer
    // (a later question cancelled left it declined, and the next run placed a second order beside it), nor after the
    // begin (a run killed between the two lost the No, and the next run wrote the codes the person had taken: reviews).
    let declined: OrderRecord | undefined;
    if (reused) {
      const was = `the order of ${what} abandoned at ${reused.endedAt ?? reused.updatedAt} (key ${reused.key}) may have been placed before it was stopped`;
      if (deps.io.canPrompt && !yesGiven) {
        const same = await deps.io.confirm(
          `${was[0]!.toUpperCase()}${was.slice(1)}. Send its request again under that key (that order if it was placed, a new one if not)? No places a new order with a key of its own`,
          '--yes',
          'reusing the abandoned order key',
          // Ctrl-C at it says what every order question says (docs/exit-codes.md): nothing was sent.
          { defaultAnswer: true, cancelled: nothingSent() },
        );
        if (!same) {
          declined = reused;
          reused = undefined;
        }
      } else if (!refusedBelow)
        deps.io.say(
          `${was}: this run sends its request again under that key, so it is that order if it was placed, and a new one if not, never both`,
        );
    }
    // An interrupted live order run again is resumed, not asked about: it was confirmed when it was placed, and it
    // may be charged already. Asking again read as a new order, and "no" said nothing was sent. Its key goes to
    // begin, so that this run resumes it or places nothing.
    const confirmed = connection.environment === 'live' && !options.yes ? candidate : undefined;
    // Orders earlier runs left interrupted are said before a live order is asked about, not after: a person
    // retrying by hand (another key, another profile) read the question first, and the warning that the order they
    // retried may have been charged only once they had answered yes (an adversarial review).
    let leftSaid = leftSaidFirst;
    if (connection.environment === 'live' && !options.yes && confirmed === undefined) {
      const left = leftByEarlierRuns(
        journal,
        (other) => other.key === options.idempotencyKey || other.key === beside?.key,
        deps.io.env.GIFTCODES_CONFIG_DIR,
      );
      if (left) deps.io.caution(left);
      leftSaid = left !== undefined;
      const cancelled = nothingSent();
      const yes = await deps.io.confirm(
        deps.io.canPrompt
          ? await (
              await import('../../orders/confirm.js')
            ).liveOrderQuestion(api, options.product, options.quantity, connection, out?.path)
          : '',
        '--yes',
        `a live order (${unitsOf(options.quantity, options.product)})`,
        { cancelled },
      );
      if (!yes) throw cancelled;
    }
    // Any question asked here (a live order's, a second order's, an abandoned one's, a guided order's) was a window in
    // which another run could place the same order: what it placed meanwhile is asked about as a second order, after
    // each yes. Checked after the live question alone, a yes to an earlier question was a third charge (a review).
    // Not for an order this run resumes after its send: that is no new order.
    if (seen && deps.io.questionsAsked > seen.questions && (candidate === undefined || neverSent(candidate)))
      await askedMeanwhile(deps.io, journal, { ...spec, key: options.idempotencyKey }, seen.footprint, what);
    // Not asked about again (recover.ts ofThisRequest); the record keeps `sent`, so order show still names it.
    if (declined) await journal.decline(declined, spec);
    const beginning = {
      ...spec,
      key: options.idempotencyKey ?? candidate?.key ?? reused?.key,
      keyReused: reused !== undefined,
      resumeOnly: candidate !== undefined,
      wait: waits,
      out,
    };
    // The interrupted order read above, taken by a run started at the same moment: another interrupted order of the same
    // request, free still, is the one this run resumes (a review's second run exited 2 with one left free); with none,
    // it places nothing (intent_busy).
    // Each interrupted order this run may take over, as its own run had left it: what that run's command was.
    const priors = new Map<string, Intent>(candidate ? [[candidate.key, candidate]] : []);
    const resumeNext = async (error: unknown, tried: ReadonlySet<string>): Promise<Begun> => {
      // The one a guided order's person chose, taken by a run started at the same moment: that one or nothing.
      if (guidedResume !== undefined && isCliError(error) && error.code === 'intent_busy')
        throw finishedMeanwhile(guidedResume);
      if (options.idempotencyKey !== undefined || !isCliError(error) || error.code !== 'intent_busy') throw error;
      const next = resumeCandidate(journal, spec, undefined);
      if (next === undefined || tried.has(next.key)) throw error;
      priors.set(next.key, next);
      return journal
        .begin({ ...beginning, key: next.key })
        .catch((again: unknown) => resumeNext(again, new Set([...tried, next.key])));
    };
    const { intent, resumed, settled } = await journal.begin(beginning).catch(async (error: unknown) => {
      if (candidate !== undefined) return resumeNext(error, new Set([candidate.key]));
      // The same order placed in a second window at once: that window sends the abandoned key, so this one is a
      // second order with a key of its own, asked or said as two windows placing one order always are (a review met
      // exit 2 here).
      if (!reused || !isCliError(error) || error.code !== 'intent_busy') throw error;
      await secondOrder(
        deps.io,
        yesGiven,
        `another giftcodes run is sending the abandoned order's request (key ${reused.key}) right now`,
        what,
      );
      return journal.begin({ ...beginning, key: undefined, keyReused: false });
    });
    sayReached(deps.io, settled);
    // Finished by a variant of the command that began it (its codes to another file, or waited for where it was not,
    // or not): that command, run again as its hint said, is a new order, so the record names this run as the finisher
    // (OrderRecord.finishedBy), which that command tells of and asks about at a terminal. A review wrote the codes to
    // another disk after a full one, and the crontab line, run again, was charged twice without a word.
    const prior = resumed ? priors.get(intent.key) : undefined;
    // Compared with the command that began it (Intent.origin), not with a variant's run killed since.
    const origin = prior && (prior.origin ?? prior);
    const variant = origin && variantOf(origin, intent);
    if (resumed) {
      // Its codes go where it was started to, whatever this command says (--json alone, another --out): said, since a
      // re-typed command with --json wrote the first run's file without a word (an adversarial review).
      const startedTo = intent.out?.path;
      const elsewhere =
        startedTo !== undefined && startedTo !== '-' && (out === undefined || resolve(out.path) !== resolve(startedTo));
      // One never sent is placed now for the first time: "no second charge" read as "already charged" (a review), as
      // order resume says it (resume.ts).
      deps.io.say(
        `${
          neverSent(intent)
            ? `placing the interrupted order for ${unitsOf(intent.quantity, intent.productId)} started ${intent.createdAt} (key ${intent.key}): its run was interrupted before it sent the order, so this is its first request`
            : `resuming the interrupted order for ${unitsOf(intent.quantity, intent.productId)} started ${intent.createdAt} (key ${intent.key}): same key, same request, no second charge`
        }${elsewhere ? `; its codes go to ${startedTo}, the file it was started with` : ''}${
          variant
            ? intent.key.startsWith('plan-')
              ? // A plan's row: its plan reads the row's record and orders nothing again (a second review, stop 78,
                // read "that command run again places a new order" of a plan that does not).
                `; this run finishes a row of the plan ${intent.plan ?? ''}${intent.batch ? ` (--batch ${intent.batch})` : ''} in its place, which that plan run again reads as done`
              : `; this run finishes it in place of its own command (${startedWith(origin!)}), so that command run again places a new order`
            : ''
        }`,
      );
    }
    const left = leftSaid
      ? undefined
      : leftByEarlierRuns(
          journal,
          // The one said as this run's second order above is not said again.
          (other) => other.key === intent.key || other.key === beside?.key,
          deps.io.env.GIFTCODES_CONFIG_DIR,
        );
    if (left) deps.io.caution(left);
    const firstRequest = neverSent(intent);
    const driven = await driveIntent({ io: deps.io, api, journal, signal: deps.signal }, intent, {
      wait: waits,
      out: intent.out,
      intervalS: options.interval ?? DEFAULT_INTERVAL_S,
      timeoutS: options.timeout,
      // The lock held is this command's --out; a resumed intent writes where it was started to (its own lock).
      outLock: outLock && intent.out && resolve(intent.out.path) === outLock.target ? outLock : undefined,
    }).catch((error: unknown) => {
      // A first request that never left (a host not found, nothing listening): said, as a plan's rows say it. "cannot
      // reach …" at 2 a.m. left a person wondering whether the night was charged (a person's day).
      // With --idempotency-key, of this run only: another run elsewhere may have sent that key (a review).
      if (isCliError(error) && error.notSent && firstRequest && error.exitCode === ExitCode.network)
        error.message = `${error.message}; ${sentNothing(options.idempotencyKey !== undefined)}`;
      throw error;
    });
    // A failed order ends with its error and hint, never a `done:` line: a morning's grep for `done: ordered` counted
    // a failed night as a restock (a review; README says a run that failed ends with its error instead).
    // Finished by this same command in another run: recorded too, so that the interrupted run's own command, run
    // again as its hint said a moment after this one finished the order (a cron job beside a person, a second window),
    // is told it places a second order, asked at a terminal (a review, E17: it was charged twice without a word).
    await finish(deps.io, journal, resumed ? { ...driven, finishedBy: variant ?? SAME_COMMAND } : driven);
    // One never sent was placed by this run: its last line says so (a review read "placed no order of its own").
    await summarise(deps.io, driven, resumed && !firstRequest);
  } finally {
    outLock?.release();
  }
}

/**
 * A typo in --product is refused before anything is sent, where the catalog is at hand (`catalog`: one just read);
 * an interrupted order of the product is finished whatever the catalog says now.
 */
async function refuseTypo(
  deps: PlaceDeps,
  journal: Journal,
  connection: Connection,
  api: ApiClient,
  product: string,
  catalog?: readonly Product[],
): Promise<void> {
  if (journal.read().intents.some((intent) => intent.productId === product)) return;
  const { checkProductKnown } = await import('../../orders/products.js');
  await checkProductKnown(
    {
      configDir: deps.configDir,
      target: { profile: connection.profile, baseUrl: connection.baseUrl },
      api: () => Promise.resolve(api),
      ...(catalog ? { catalog } : {}),
    },
    product,
  );
}

/**
 * Runs a plan (orders/plan.ts runs its rows): every row checked, the live plan confirmed, the rows run, then
 * the summary delivered (lifecycle's deliver prints it and records each row) and the rows settled; the exit
 * status is the worst row's.
 */
export async function runPlan(o: PlanRunOptions, deps: PlaceDeps): Promise<void> {
  const {
    parsePlan,
    readPlanBytes,
    planFamily,
    connectionScope,
    sameScope,
    otherRunsNotes,
    rowsPlacedSince,
    outFileProblems,
    refusePlan,
    runRows,
    planFailure,
    fromDescriptor,
    sameRowTwice,
    replacedUnsent,
    planDirOf,
  } = await import('../../orders/plan.js');
  const { io } = deps;
  const bytes = o.planBytes ?? readPlanBytes(o.plan);
  // Every row checked first: a bad plan is exit 2 before its rows are keyed (by the verb already, for its bytes).
  if (o.planBytes === undefined || o.planChecked !== true) await readPlanFirst(o, bytes, deps);
  if (o.dryRun) {
    // The keys are scoped to the key that would order them; without one, the dry run still lists the rows.
    const connection = await orderConnection(deps).catch(() => undefined);
    const scope = connection && connectionScope(connection);
    const family = scope && planFamily(scope, o.plan, o.batch);
    const planned = parsePlan(bytes, o.plan, family, o.batch);
    // Each row's codes file is refused here as the run would refuse it, so a plan checked in the afternoon does not
    // fail at night. Without a key the rows already delivered are unknown: a file already there is not refused.
    if (scope) {
      const journal = await deps.journal();
      // As the run: refused for rows another key of the reseller left unfinished, its deliveries read as delivered.
      const {
        records,
        delivered,
        rows,
        handled,
        unsent: rekeyedHere,
      } = await keyedRows(o, bytes, deps, { journal, scope, parsed: planned, profile: connection.profile });
      // Rows whose key another config directory or machine placed: the run refuses them before any request
      // (journal.ts), so the dry run does not count them (a review: "1 order, 50.00 USD" for a row never sent).
      const elsewhere = new Set(rows.filter((r) => journal.keyPlacedElsewhere(r.key, scope)).map((r) => r.key));
      // The never-sent notes of rows the plan no longer has, which the run drops (plan.ts replacedUnsent).
      const replacedHere = replacedUnsent(
        rows,
        journal.read().intents.filter((intent) => sameScope(intent, scope)),
        family!,
        planDirOf(o.plan),
      );
      const outProblems = await outFileProblems(rows, delivered, journal, o.force === true, scope.environment, o.plan);
      // What the run would say before its rows (a copy's rows, an edited plan's, other runs' unfinished ones), asked
      // nothing: the recommended --dry-run said none of it (a review). Once the plan passes its checks, as the run.
      const said = (): Promise<void> =>
        beforeRows(
          io,
          { ...o, yes: true },
          {
            journal,
            intents: journal.read().intents,
            records,
            scope,
            family: family!,
            profile: connection.profile,
            rows,
            todo: rows.filter((r) => !delivered.has(r.key)),
            delivered,
            // A row that finishes an earlier run's order into its new file goes by that order's key (outMovedRows).
            own: new Set([...planned.flatMap((r) => [r.key, r.legacyKey]), ...rows.map((r) => r.key)]),
            replaced: [...replacedHere, ...rekeyedHere],
            handled,
          },
        ).then(() => {
          // What the run would drop: said as the run's line is, in the dry run's tense.
          if (replacedHere.length > 0) io.say(replacedWords(o, replacedHere, true));
          if (rekeyedHere.length > 0) io.say(replacedWords(o, rekeyedHere, true, scope));
        });
      // Rows an earlier run left interrupted after their requests went out: the run finishes each under its key (the
      // order it placed, or its answer), no new order, so the dry run neither prices them as new money nor says
      // "order" of them (a review: a killed night's row whose order id was known was counted as a new order).
      const { resumableHere } = await import('../../orders/recover.js');
      const { neverSent } = await import('../../journal/intent.js');
      const finishing = new Map(
        journal
          .read()
          .intents.filter(
            (i) => sameScope(i, scope) && !neverSent(i) && resumableHere(i) && journal.reached(i) === undefined,
          )
          .map((i) => [i.key, i]),
      );
      return dryRun(o.plan, rows, deps, delivered, outProblems, elsewhere, said, finishing, scope.keyId);
    }
    return dryRun(o.plan, planned, deps, new Map(), await outFileProblems(planned, new Map(), undefined, true));
  }
  const connection = await orderConnection(deps);
  const scope = connectionScope(connection);
  const family = planFamily(scope, o.plan, o.batch);
  const [journal, api, { deliver, settle, sayReached }] = await Promise.all([
    deps.journal(),
    deps.api(),
    import('../../orders/lifecycle.js'),
  ]);
  const parsed = parsePlan(bytes, o.plan, family, o.batch);
  // This plan's interrupted rows in this scope whose outcome already reached the user (a run killed after its
  // summary was printed) end first, each said once: they are delivered rows from here on.
  const own = new Set(parsed.flatMap((r) => [r.key, r.legacyKey]));
  sayReached(
    io,
    await journal.settleWhere((intent) =>
      own.has(intent.key) && sameScope(intent, scope) ? journal.reached(intent) : undefined,
    ),
  );
  // Rows this plan and batch sent with another API key of the same reseller and never finished: refused whatever the
  // flags; those it delivered with such a key are read as delivered (into `delivered`), not ordered again.
  const {
    records,
    delivered,
    rows,
    handled,
    unsent: rekeyed,
  } = await keyedRows(o, bytes, deps, { journal, scope, parsed, profile: connection.profile });
  // A row that finishes an earlier run's order into its new file goes by that order's key (outMovedRows): its own,
  // not another run's left to name, nor to count as charged when the plan is stopped.
  for (const row of rows) own.add(row.key);
  const outProblems = await outFileProblems(rows, delivered, journal, o.force === true, scope.environment, o.plan);
  /** Each row's out file, locked before its charge and held to the end of the run, as `order place --out` holds its own. */
  const outLocks = new Map<string, OutLock>();
  try {
    const todo = rows.filter((r) => !delivered.has(r.key));
    // A typo is refused before any row is sent, where the catalog is at hand; a row interrupted earlier is
    // finished whatever the catalog says now.
    const { intents } = journal.read();
    // What other runs have under way of any row, before the first question (off a terminal none is asked): read
    // again after the last. Read at the live question, an order placed while an earlier one waited (the changed plan,
    // the same rows again) went unasked (a review).
    const otherRowsBefore = io.canPrompt ? otherRunsNotes(intents, scope, family) : undefined;
    const questionsBefore = io.questionsAsked;
    const interrupted = new Set(intents.map((intent) => intent.key));
    // The never-sent notes of rows the plan no longer has (an edited row, a removed one): dropped once the run goes
    // ahead, below, and not named as orders left to place (plan.ts replacedUnsent).
    const replaced = replacedUnsent(
      rows,
      intents.filter((intent) => sameScope(intent, scope)),
      family,
      planDirOf(o.plan),
    );
    const { checkRowsKnown, totalOf, unitPriceOf } = await import('../../orders/products.js');
    const checked = await checkRowsKnown(
      {
        configDir: deps.configDir,
        target: { profile: connection.profile, baseUrl: connection.baseUrl },
        api: () => Promise.resolve(api),
      },
      todo.filter((r) => !interrupted.has(r.key)),
    );
    // Each existing out file and each unknown product, said together: nothing is sent.
    refusePlan(o.plan, outProblems, { rows: checked.unknown, ids: checked.ids });
    const [{ resumableHere }, { neverSent }] = await Promise.all([
      import('../../orders/recover.js'),
      import('../../journal/intent.js'),
    ]);
    // What is said before the rows run (and asked, at a terminal), as the dry run says it.
    await beforeRows(io, o, {
      journal,
      intents,
      records,
      scope,
      family,
      profile: connection.profile,
      rows,
      todo,
      delivered,
      own,
      replaced: [...replaced, ...rekeyed],
      handled,
    });
    // Rows an earlier run of this plan left interrupted (its process gone, on this machine, in this scope, not
    // stale) are resumed with their keys, never asked about again: they were confirmed when that run placed them,
    // and may be charged already. Only new rows are asked about, and a row not asked about is only resumed
    // (resumeOnly): gone by the time it starts (abandoned meanwhile), it sends nothing rather than a new order.
    const asking = connection.environment === 'live' && !o.yes;
    const confirmedBefore = new Map(
      intents
        .filter((intent) => sameScope(intent, scope) && resumableHere(intent))
        .map((intent) => [intent.key, intent]),
    );
    // A row's key is its plan's file name, batch and scope, not its folder: a plan of the same name elsewhere (another
    // shop's tonight.csv) has the same keys. Its codes file tells them apart, and a row whose file is not the one
    // the interrupted intent writes to is asked about (an adversarial review).
    const resumable = new Set(
      todo
        .filter((r) => {
          const intent = confirmedBefore.get(r.key);
          return intent !== undefined && intent.out?.path === r.out;
        })
        .map((r) => r.key),
    );
    // Rows whose out cell alone changed since an earlier run placed them and could not write their codes (outMovedRows):
    // each finishes that order into its new file, no new order. Its file is not the one the order was to write, so a
    // live plan asks (a plan of this name in another folder has these keys too), in words that say what it does.
    const moved = todo.filter((r) => r.moved !== undefined && !resumable.has(r.key) && confirmedBefore.has(r.key));
    for (const r of moved) resumable.add(r.key);
    const fresh = todo.filter((r) => !resumable.has(r.key));
    const resuming = todo.length - fresh.length;
    if (asking && moved.length > 0) {
      const cancelled = planCancelled(resuming);
      const one = moved.length === 1;
      const which = firstOf(
        moved.map(
          (r) =>
            `line ${r.row}: ${unitsOf(r.quantity, r.productId)}${r.moved!.orderId !== undefined ? `, order ${r.moved!.orderId}` : ''}, to ${r.out ?? 'standard output'}`,
        ),
        5,
      );
      const yes = await io.confirm(
        `Finish ${one ? 'the order' : `the ${moved.length} orders`} an earlier run of this plan placed and could not write the codes of, into ${one ? 'the' : 'their'} new out ${one ? 'file' : 'files'} (${which})? No second order is placed.`,
        '--yes',
        // Off a terminal the refusal names them (a second review: "needs confirmation" named no row, order or file).
        `finishing ${counted(moved.length, 'earlier order')} into another codes file (${which})`,
        {
          cancelled,
          hint: `--yes writes ${one ? 'its' : 'their'} codes to the new ${one ? 'file' : 'files'} and places no second order`,
        },
      );
      if (!yes) throw cancelled;
    }
    if (asking && fresh.length > 0) {
      const units = fresh.reduce((sum, r) => sum + r.quantity, 0);
      // What they cost, where every row's price is known: from the catalog just read, else the last catalog list's.
      const [{ readCatalogPrices }, { wallet }] = await Promise.all([
        import('../../output/catalog-cache.js'),
        import('../../orders/confirm.js'),
      ]);
      const cached = readCatalogPrices(deps.configDir, { profile: connection.profile, baseUrl: connection.baseUrl });
      const priced = fresh.map((r) => ({
        quantity: r.quantity,
        price: checked.products
          ? unitPriceOf(checked.products.find((p) => p.id === r.productId))
          : cached.get(r.productId),
      }));
      const total = priced.every((r) => r.price) ? totalOf(priced) : undefined;
      const also =
        resuming > 0
          ? ` ${counted(resuming, 'interrupted row')} of this plan ${resuming === 1 ? 'is' : 'are'} resumed too, never charged twice.`
          : '';
      const cancelled = planCancelled(resuming);
      // The last word before the charge: a row copied down by accident is named here, not only in the summary.
      const twice = sameRowTwice(fresh);
      const yes = await io.confirm(
        `Place ${counted(fresh.length, 'LIVE order')} (${counted(units, 'unit')}${total ? `, ${total}` : ''} in all) from ${o.plan}? ${fresh.length === 1 ? 'It is' : 'They are'} charged to ${wallet(connection)}.${also}${twice ? ` ${twice[0]!.toUpperCase()}${twice.slice(1)}.` : ''}`,
        '--yes',
        `a live plan (${counted(fresh.length, 'order')})`,
        { cancelled },
      );
      if (!yes) throw cancelled;
    }
    // A row copied down by accident, under --quiet or --json: no summary line says it there, and a cron line with
    // either ordered it twice with nothing on stderr (a review). Said once, before the orders, as a warning of money.
    const copiedDown = io.noticesSaid ? undefined : sameRowTwice(fresh);
    if (copiedDown) io.caution(copiedDown);
    // Another run's orders of these rows placed, sent or begun while any question here waited (the nightly job run to
    // its end meanwhile, a plan sharing some rows, a single order): each yes was given without them, and was a second
    // charge of those rows (adversarial reviews). Asked again, after each yes, for as long as more came.
    if (otherRowsBefore && io.questionsAsked > questionsBefore && fresh.length > 0)
      for (let seen = otherRowsBefore; ;) {
        const { since, now } = rowsPlacedSince(
          { intents: journal.read().intents, records: () => journal.history.list() },
          seen,
          scope,
          family,
          fresh,
        );
        if (since.length === 0) break;
        await rowsPlacedMeanwhile(io, o.plan, fresh.length, since, planCancelled(resuming));
        seen = now;
      }
    // The run goes ahead: the never-sent notes of rows the plan no longer has end now, each said (nothing was charged).
    await dropReplaced(io, journal, o, replaced);
    await dropReplaced(io, journal, o, rekeyed, scope);
    // Each row's export counts the values a spreadsheet would change instead of warning of them, each said once
    // for the whole plan when its rows have run (a 12-row plan printed six copies of a 4-line warning).
    const gathered = rows.some((r) => r.out !== undefined)
      ? (await import('../../export/write.js')).gatherExportWarnings(io)
      : undefined;
    const { results, outcomes, unreachable, keyRefused } = await runRows(
      rows,
      delivered,
      o,
      {
        io,
        api,
        journal,
        signal: deps.signal,
        connection,
        ...(asking ? { resumeOnly: resumable } : {}),
      },
      outLocks,
    ).catch(async (error: unknown) => {
      gathered?.end();
      // Stopped (Ctrl-C, SIGTERM) with rows in flight: said, with the way to finish them, as a single order says it.
      if (!(error instanceof InterruptedError) || error.hint) throw error;
      // Rows whose request may have gone out; none (stopped before the first was sent): the interruption alone, or,
      // where rows were left readied or waiting their turn (never sent: a server down, then Ctrl-C), that they are.
      const left = journal.read().intents.filter((intent) => own.has(intent.key));
      const sent = left.filter((intent) => !neverSent(intent));
      if (sent.length === 0 && left.length === 0) throw error;
      // The same command, not a command spelled here: the rows' keys come from its plan, --batch, profile,
      // environment and key, and a run without one of them would order every row anew.
      const again = (to: string): string =>
        `run the same command again ${to}${o.batch !== undefined ? ` (the same ${batchFlag(o.batch)})` : ''}`;
      if (sent.length === 0) {
        const them = left.length === 1 ? 'it' : 'them';
        throw new InterruptedError(
          `${error.message}: the plan stopped before any row of it was sent, so nothing was charged; ${counted(left.length, 'row')} of it ${left.length === 1 ? 'is' : 'are'} left never sent`,
          { hint: `${again(`to place ${them}`)}: giftcodes order pending lists ${them}` },
        );
      }
      throw new InterruptedError(
        `${error.message}: the plan stopped, and ${counted(sent.length, 'row')} of it may have been charged`,
        {
          hint: `${again('to finish them')}: rows delivered are not ordered again, interrupted ones are finished with their keys (giftcodes order pending lists them)`,
        },
      );
    });
    gathered?.end();
    // The summary is the delivery of every row: printed and flushed, then each row's record, then its intent settled.
    const [{ runSummary }, { amountOf }] = await Promise.all([
      import('../../output/progress.js'),
      import('../../orders/machine.js'),
    ]);
    // What the orders cost, as the API stated each: every placed row's, or none is said.
    const costOf = (placed: readonly PlanResult[]): string | undefined => {
      const amounts = placed.map((r) => ({ price: r.order && amountOf(r.order), quantity: 1 }));
      return amounts.length > 0 && amounts.every((a) => a.price) ? totalOf(amounts) : undefined;
    };
    const story = planStory(o.plan, results, costOf, sameRowTwice);
    // At a terminal, where no log's last line is written, the run's story is the table's last line.
    await deliver(io, journal, () => planSummary(io, results, io.stderrIsTTY ? [story] : []), outcomes);
    await settle(journal, outcomes);
    // A plan file run again the next day without --batch orders nothing, every row "delivered by an earlier run", and
    // exits 0: a reseller's next-day restock ordered nothing and said nothing of how it would (a person's day). Said
    // before the log's last line (the done: line), not under --quiet or --json.
    if (
      o.batch === undefined &&
      !fromDescriptor(o.plan) &&
      results.length > 0 &&
      results.every((r) => r.already && !r.abandoned)
    )
      io.notice(
        `every row of ${o.plan} was delivered by an earlier run, so nothing was ordered (a plan run again orders no row twice); to order it again, as a new restock, give the run a batch of its own, a new order of every row: --batch ${localDate(new Date())} (a nightly job: --batch "$(date +%F)")`,
      );
    runSummary(io, story);
    // Every plan from a pipe or stdin shares one name: without --batch, a row an earlier such plan ordered is not
    // ordered again, whatever plan it came from. Said in every mode (a review's nightly `--plan <(generate)` skipped
    // its rows and exited 0).
    const earlier = results.filter((r) => r.already).map((r) => r.row);
    if (earlier.length > 0 && o.batch === undefined && fromDescriptor(o.plan))
      io.say(
        earlier.length === 1
          ? `line ${earlier[0]} of this plan from a pipe matched a row an earlier plan from a pipe or stdin ordered (every such plan is keyed by one name, not a file's), so it was not ordered again: to order it again, give --batch (a nightly job: --batch "$(date +%F)")`
          : `lines ${earlier.join(', ')} of this plan from a pipe matched rows an earlier plan from a pipe or stdin ordered (every such plan is keyed by one name, not a file's), so they were not ordered again: to order them again, give --batch (a nightly job: --batch "$(date +%F)")`,
      );
    const failure = planFailure(results, unreachable, keyRefused, connection.environment, o.batch);
    if (failure) throw failure;
  } finally {
    for (const lock of outLocks.values()) lock.release();
  }
}

/** What a plan run knows when it says what it found before its rows run (beforeRows). */
interface PlanScene {
  journal: Journal;
  intents: readonly Intent[];
  records: readonly OrderRecord[];
  scope: Scope;
  family: string;
  profile: string;
  rows: readonly PlanRow[];
  /** The rows not delivered by an earlier run: what the run orders or finishes. */
  todo: readonly PlanRow[];
  delivered: ReadonlyMap<string, OrderRecord>;
  /** This plan's rows' keys, and the keys versions before 0.2 gave them. */
  own: ReadonlySet<string>;
  /** The never-sent notes of rows the plan no longer has, which the run drops (plan.ts replacedUnsent): not named as left. */
  replaced?: readonly Intent[];
  /** Records of rows another key of the same reseller delivered, read as delivered here (resellerKeyRule): said there. */
  handled?: ReadonlySet<string>;
}

/**
 * What a plan run says before its rows run, and asks at a terminal (`o.yes` asks nothing): an edited plan's rows it no
 * longer has, rows other runs, plans, batches or scopes delivered or left unfinished, rows another run is placing now.
 * A dry run says the same, with `yes` (a review: the copy's warning of a real run was missing from the dry run).
 */
async function beforeRows(
  io: Io,
  o: Pick<PlanRunOptions, 'plan' | 'batch' | 'yes'>,
  {
    journal,
    intents,
    records,
    scope,
    family,
    profile,
    rows,
    todo,
    delivered,
    own,
    replaced = [],
    handled = new Set<string>(),
  }: PlanScene,
): Promise<void> {
  const [
    {
      changedSince,
      interruptedGone,
      abandonedSentGone,
      sameRowsLeft,
      sameRowsRunning,
      olderVersionRows,
      deliveredUnderOtherScope,
      sameRowsElsewhere,
      planName,
      underOtherScope,
      sameScope,
    },
    { leftByEarlierRuns, chargeWords, resumableHere },
    { neverSent },
  ] = await Promise.all([
    import('../../orders/plan.js'),
    import('../../orders/recover.js'),
    import('../../journal/intent.js'),
  ]);
  // Rows delivered by a plan of this file name in another folder whose file is still there (two shops' restock.csv
  // under one --batch): a row's key is the plan's file name and --batch, not its folder, so this plan would order
  // nothing, exit 0, every night (review F6). Refused before anything is sent; a plan moved (its old folder's file gone)
  // is still that plan, and reads its rows as delivered.
  const sharing = await keysSharedWith(o.plan, o.batch, delivered);
  if (sharing) throw sharing;
  const interrupted = new Set(intents.map((intent) => intent.key));
  const changed = changedSince(rows, delivered, family);
  // Rows an earlier run of this plan started and never finished, which the plan no longer has (a quantity fixed
  // after Ctrl-C): they may have been charged, and the edited plan's question hid them (an adversarial review).
  const unfinished = interruptedGone(
    rows,
    intents.filter((intent) => sameScope(intent, scope)),
    family,
  );
  // Orders other runs left interrupted (another night's batch, another plan) are named in this run's log, before
  // any question: only this plan's own rows are finished here.
  // And the rows other plans sent and never finished that this run orders again (a copy, a rename, another --batch
  // run after a kill or an abandon), in any profile holding this key: said on their own below, and asked.
  // Not the rows this very plan and --batch sent under another key of the reseller (elsewhereUnfinished, said below
  // with the profile that finishes them): said once.
  const elsewhereUnfinished = underOtherScope(
    intents.filter((intent) => !neverSent(intent)),
    scope,
    profile,
    todo,
    o.plan,
    o.batch,
  );
  const elsewhereKeys = new Set(elsewhereUnfinished.map((intent) => intent.key));
  const twinLeft = sameRowsLeft({ intents, records }, scope, todo, family, resumableHere).filter(
    (r) => !elsewhereKeys.has(r.key),
  );
  const named = new Set([...unfinished, ...twinLeft, ...replaced].map((intent) => intent.key));
  const left = leftByEarlierRuns(
    journal,
    (intent) => own.has(intent.key) || named.has(intent.key),
    io.env.GIFTCODES_CONFIG_DIR,
  );
  if (left) io.caution(left);
  // Of those, the rows a live run is placing right now (the plan edited while it ran, as a busy out file's old hint
  // said: a review's edited out cell, then --yes, was that row charged twice): said as such, and the way on is to
  // wait for it, not --yes.
  const { anotherLiveRun } = await import('../../journal/owner.js');
  const placingPids = [...new Set(unfinished.filter((i) => anotherLiveRun(i.owner)).map((i) => i.owner.pid))];
  const placingGone = placingPids.length > 0 ? ` (pid ${placingPids.join(', pid ')})` : '';
  // Of the rows it no longer has, those the API placed (their order ids known): charged, not "may have been".
  const placedGone = unfinished.filter((i) => i.orderId !== undefined);
  if (unfinished.length > 0)
    io.caution(
      pinnedHint(
        placingGone
          ? `the plan ${o.plan} changed since another run${placingGone} started ${counted(unfinished.length, 'row')} it no longer has, which it is placing right now: ${firstOf(
              unfinished.map(sentWords),
              5,
            )}; ordering the changed rows beside them orders those products a second time`
          : // A row whose order id is known, the API placed: said as placed and charged (goneWords, chargeWords), with
            // the command that writes its codes, never as "may have been charged" (an adversarial review: the tool
            // held the order's id).
            `the plan ${o.plan} changed since an earlier run started ${counted(unfinished.length, 'row')} it no longer has, never finished (${chargeWords(unfinished)}): ${firstOf(
              unfinished.map(goneWords),
              5,
            )}; ${
              placedGone.length > 0
                ? `this run does not finish ${unfinished.length === 1 ? 'it' : 'them'}; ${firstOf(
                    placedGone.map(
                      (i) => `the codes of ${i.orderId}: giftcodes codes get ${i.orderId} --out CODES_FILE`,
                    ),
                    3,
                  )} (that finishes it); see giftcodes order pending`
                : `finish or drop ${unfinished.length === 1 ? 'it' : 'them'}: see giftcodes order pending`
            }`,
        { configDir: io.env.GIFTCODES_CONFIG_DIR },
      ),
    );
  // Rows it sent that were abandoned before the API answered, which the plan no longer has (an edit gave them new
  // keys): they may have been charged (an adversarial review renamed a row's file and was charged twice).
  const abandonedGone = abandonedSentGone(rows, records, scope, family);
  if (abandonedGone.length > 0)
    io.caution(
      `the plan ${o.plan} changed since an earlier run sent ${counted(abandonedGone.length, 'row')} it no longer has, abandoned before the API answered (${abandonedGone.length === 1 ? 'it' : 'they'} may have been placed and charged): ${firstOf(
        abandonedGone.map(
          (r) => `${unitsOf(r.quantity, r.productId)} (key ${r.key}, abandoned ${r.endedAt ?? r.updatedAt})`,
        ),
        5,
      )}; the plan as it was, run again, sends ${abandonedGone.length === 1 ? 'its request' : 'their requests'} under the same keys (that order if it was placed, never both)`,
    );
  const older = olderVersionRows(rows, todo, delivered, o.batch);
  if (older.length > 0 && todo.length > 0)
    io.caution(
      `an earlier version of giftcodes delivered ${counted(older.length, 'plan row')} of these products here in the last 24 hours that no row of ${o.plan} matches (its keys were made from the whole file, so an edit hides them): ${firstOf(
        older.map(deliveredWords),
        5,
      )}; if this plan is the one it ran, edited since, those rows would be ordered again`,
    );
  const elsewhere = deliveredUnderOtherScope(records, scope, profile, todo, o.plan, o.batch).filter(
    (r) => !handled.has(r.key),
  );
  // And the rows such a run sent and never finished (elsewhereUnfinished, above): they may have been charged.
  if (elsewhereUnfinished.length > 0 && todo.length > 0) {
    io.caution(
      pinnedHint(
        `the plan ${o.plan}${o.batch ? ` (batch ${o.batch})` : ''} sent ${counted(elsewhereUnfinished.length, 'row')} ${otherScopeWords(elsewhereUnfinished, scope, profile, true)} that never finished (${elsewhereUnfinished.length === 1 ? 'it' : 'they'} may have been charged); here the same rows are new orders: ${firstOf(
          elsewhereUnfinished.map(sentWords),
          5,
        )}; see giftcodes order pending`,
        { configDir: io.env.GIFTCODES_CONFIG_DIR },
      ),
    );
  }
  if (elsewhere.length > 0 && todo.length > 0) {
    io.caution(
      `the plan ${o.plan}${o.batch ? ` (batch ${o.batch})` : ''} delivered ${counted(elsewhere.length, 'row')} in the last 24 hours ${otherScopeWords(elsewhere, scope, profile)}; a row's key is made with the key and address, so here the same rows are new orders, charged again: ${firstOf(
        elsewhere.map(deliveredWords),
        5,
      )}`,
    );
  }
  // The same rows, all of them, delivered by another plan within the day (a copy, a rename, "Save as"): said, and
  // asked about at a terminal. Not refused elsewhere: a cron job may write each night's plan to a new name.
  // Not where a run of this very plan and --batch began its rows before (their notes are here): that run said it and
  // asked, and this one finishes them under their keys. Said again, a re-run after Ctrl-C as its hint said read
  // "every row is a new order, charged again", and a careful No left paid orders unfinished (a person's day).
  const begunBefore = intents.some((intent) => own.has(intent.key));
  const twin =
    todo.length === rows.length && !begunBefore
      ? sameRowsElsewhere(records, scope, rows, family, {
          name: planName(o.plan),
          batch: o.batch,
        })
      : undefined;
  if (twin)
    await sameRowsAgain(io, o.plan, rows.length, twin, o.yes === true, { name: planName(o.plan), batch: o.batch });
  const running = sameRowsRunning(intents, scope, todo, family);
  if (running.length > 0) await sameRowsRunningNow(io, o.plan, todo.length, running, o.yes === true);
  if (twinLeft.length > 0) {
    const cancelled = nothingSent();
    const one = twinLeft.length === 1;
    // A single order (no plan in its note) is named as one, and finished by its key (a review: the plan named only
    // other plans' rows, and charged the row a single order had left a second time).
    const singles = twinLeft.filter((r) => r.plan === undefined);
    const by =
      singles.length === 0
        ? 'another plan or --batch'
        : singles.length === twinLeft.length
          ? 'a single order place'
          : 'another plan or --batch, or a single order place';
    const finish =
      singles.length === 0
        ? ` by running ${one ? 'its' : 'their'} plan as it ran there, or giftcodes order resume --all (see giftcodes order pending)`
        : one
          ? `: giftcodes order resume ${singles[0]!.key}`
          : ` by running ${singles.length === twinLeft.length ? '' : 'their plan as it ran there or '}giftcodes order resume with each key, or see giftcodes order pending`;
    // Each named with the plan and --batch it ran as (a review read "another plan or batch" of its own plan's
    // previous night, and "finish those as it was" without the batch it was).
    io.caution(
      pinnedHint(
        `${one ? '1 row of this plan was' : `${twinLeft.length} rows of this plan were`} sent by another run (${by}) and never finished (${one ? 'it' : 'they'} may have been charged): ${firstOf(
          twinLeft.map((r) => `${sentWords(r)}${planRun(r) !== undefined ? `, plan ${planRun(r)}` : ''}`),
          5,
        )}; this run (${planRun({ plan: planName(o.plan), batch: o.batch ?? null })}) orders ${one ? 'it' : 'them'} anew beside ${one ? 'that one' : 'those'}; finish ${one ? 'that one' : 'those'}${finish}`,
        { configDir: io.env.GIFTCODES_CONFIG_DIR },
      ),
    );
    if (
      io.canPrompt &&
      o.yes !== true &&
      !(await io.confirm(
        `Order ${todo.length === 1 ? 'the row as a new order' : `the ${todo.length} rows as new orders`} beside the unfinished ${one ? 'one' : 'ones'}?`,
        '--yes',
        'ordering rows another plan left unfinished',
        { cancelled },
      ))
    )
      throw cancelled;
  }
  const asked = [changed, unfinished, abandonedGone, older, elsewhere, elsewhereUnfinished].some(
    (list) => list.length > 0,
  );
  if (asked && todo.length > 0) {
    // An edited plan is not silently ordered again: the rows it no longer has were delivered recently, or were
    // started and may have been charged.
    const gone = changed.map(deliveredWords);
    const cancelled = nothingSent();
    if (changed.length > 0)
      io.warn(
        `the plan ${o.plan} changed since it delivered ${counted(changed.length, 'row')} it no longer has, in the last 24 hours: ${firstOf(gone, 5)}`,
      );
    // New rows are what is asked about; rows an earlier run left interrupted are finished, not ordered again: counted
    // as rows to order, the refusal said "3 rows" of a plan with one new (an adversarial review).
    const fresh = todo.filter((r) => !interrupted.has(r.key));
    const asking = fresh.length > 0 ? fresh : todo;
    const resuming = fresh.length > 0 ? todo.length - fresh.length : 0;
    // "The changed plan" only where it changed: rows it delivered or sent at another address or with another key
    // are asked about as what they are, new orders (a person's day read "changed" of an unchanged plan, and said No).
    const planChanged = [changed, unfinished, abandonedGone].some((list) => list.length > 0);
    const yes =
      o.yes ||
      (await io.confirm(
        `Order ${counted(asking.length, 'row')} ${planChanged ? 'of the changed plan' : 'of this plan as new orders'} now (${firstOf(
          asking.map((r) => `line ${r.row}: ${unitsOf(r.quantity, r.productId)}`),
          5,
        )})${resuming > 0 ? `, and finish ${counted(resuming, 'interrupted row')}` : ''}${
          placedGone.length > 0
            ? // A row the API placed before the plan changed stays placed: these are new orders beside it.
              `, as new ${asking.length === 1 ? 'order' : 'orders'} beside ${firstOf(
                placedGone.map((i) => `the order ${i.orderId} (${unitsOf(i.quantity, i.productId)})`),
                3,
              )} an earlier run placed, charged and not written`
            : ''
        }?`,
        '--yes',
        `ordering ${counted(asking.length, 'row')} ${planChanged ? 'of a changed plan' : 'as new orders'}`,
        {
          cancelled,
          ...changedPlanHint(io, {
            placingGone,
            otherProfile: elsewhereUnfinished.find((r) => r.keyId !== scope.keyId && r.profile !== profile)?.profile,
            sentElsewhere: elsewhereUnfinished.length > 0,
            deliveredElsewhere: elsewhere.length > 0,
            gone: unfinished.length > 0 || abandonedGone.length > 0,
          }),
        },
      ));
    if (!yes) throw cancelled;
  }
}

/**
 * The hint of a plan's rows refused off a terminal as new orders (beforeRows): for what stands beside them, the way that
 * charges nothing first, then what --yes does. "Pass --yes to confirm" alone led a script to a second charge beside
 * rows placed or maybe placed (adversarial reviews).
 */
function changedPlanHint(
  io: Io,
  o: {
    /** Another live run placing the rows this plan no longer has (` (pid …)`), if any. */
    placingGone: string;
    /** Another profile whose key, of the same reseller, sent these rows and never finished them. */
    otherProfile: string | undefined;
    /** Rows this plan sent (or delivered) with another API key or at another address. */
    sentElsewhere: boolean;
    deliveredElsewhere: boolean;
    /** Rows the plan no longer has that were placed, or may have been. */
    gone: boolean;
  },
): { hint?: string } {
  const pinned = (hint: string): { hint: string } => ({
    hint: pinnedHint(hint, { configDir: io.env.GIFTCODES_CONFIG_DIR }),
  });
  if (o.placingGone)
    return {
      hint: `wait for the run${o.placingGone} placing the rows this plan no longer has to finish, then see giftcodes order pending; --yes orders the changed rows beside them`,
    };
  // Finished there, with that key.
  if (o.otherProfile !== undefined)
    return pinned(
      `finish those rows with the key they were placed with: the same command with --profile ${o.otherProfile}; --yes orders them here as new orders beside them`,
    );
  // A key rotated, a base URL spelled anew.
  if (o.sentElsewhere)
    return pinned(
      'those rows were sent with another API key or at another address and never finished: finish them with the key and base URL they were placed with (see giftcodes order pending); --yes orders them here as new orders beside them, charged again',
    );
  if (o.deliveredElsewhere)
    return pinned(
      'those rows were delivered with another API key or at another address: --yes orders them here again, charged again',
    );
  if (o.gone)
    return pinned(
      'the rows the plan no longer has were placed or may have been: see them with giftcodes order pending (codes get or order resume finishes each); --yes orders the changed rows as new orders beside them, charged again',
    );
  return {};
}

/**
 * The plan's first reading, before its rows are keyed or the journal changed. A plan with bad rows is refused with
 * every problem the checks of its other rows find too (badRowsRefusal), so that it is fixed in one edit: each existing
 * or unwritable out file, and each product the catalog lacks. A run refusing a plan reads no key: the products are
 * checked against the ids the last `catalog list` saved, and an out file is the row's own delivery when a record of
 * this plan's row at this server says so under any of its keys; a dry run reads the key, as it does for a good plan,
 * and checks as the run would. A product this machine ordered (a row an earlier run left interrupted, one it
 * delivered) is never called unknown there: the run finishes such a row whatever the catalog says now, and editing
 * its line would change its key (an adversarial review).
 */
async function readPlanFirst(
  o: Pick<PlanRunOptions, 'plan' | 'batch' | 'dryRun' | 'force'>,
  bytes: Buffer,
  deps: PlaceDeps,
): Promise<PlanRow[]> {
  const plan = await import('../../orders/plan.js');
  const parsed = plan.parsePlanRows(bytes, o.plan, undefined, o.batch);
  if (parsed.problems.length === 0) return plan.checkedPlanRows(parsed, o.plan);
  const ordered = new Set(await orderedHere(deps));
  const named = parsed.named
    .filter((r) => !ordered.has(r.productId))
    .map((r) => ({ row: r.line, productId: r.productId }));
  const force = o.force === true;
  const journal = await deps.journal().catch(() => undefined);
  // The key is read (for the catalog, as the dry run reads it) only where no catalog list is saved here and there are
  // product ids to check: a cron directory new that night refused a plan for its bad quantity, and only the next
  // night for the typo beside it (a review, stop 78). A key that cannot be read leaves them unchecked, as said below.
  const uncheckable = named.length > 0 && (await cachedIds(deps)).length === 0;
  const connection = o.dryRun || uncheckable ? await deps.connection().catch(() => undefined) : undefined;
  if (connection && journal) {
    const scope = plan.connectionScope(connection);
    const keyed = plan.parsePlanRows(bytes, o.plan, plan.planFamily(scope, o.plan, o.batch), o.batch).rows;
    const delivered = plan.deliveredRows(journal, scope);
    const rows = plan.keyRows(keyed, delivered, journal, scope, o.batch, await movedRule(o.plan));
    const [outProblems, { checkRowsKnown }] = await Promise.all([
      plan.outFileProblems(rows, delivered, journal, force, scope.environment, o.plan),
      import('../../orders/products.js'),
    ]);
    const checked = await checkRowsKnown(
      {
        configDir: deps.configDir,
        target: { profile: connection.profile, baseUrl: connection.baseUrl },
        api: () => deps.api(),
      },
      named,
    );
    throw plan.badRowsRefusal(o.plan, parsed.problems, outProblems, { rows: checked.unknown, ids: checked.ids });
  }
  const target = deps.currentTarget ? await deps.currentTarget().catch(() => undefined) : undefined;
  const cached = await cachedIds(deps);
  // The keys this profile used at this server in this environment: the rows keyed under each, a file is a problem
  // only where it is one under every key (the one this run would use is among them when it ordered here before).
  const keyIds = new Set(
    [...(journal?.read().intents ?? []), ...(journal?.history.list() ?? [])]
      .filter(
        (r) =>
          target !== undefined &&
          r.baseUrl === target.baseUrl &&
          r.environment === target.environment &&
          r.profile === target.profile,
      )
      .flatMap((r) => (r.keyId === undefined ? [] : [r.keyId])),
  );
  let outProblems: RowProblem[] | undefined;
  for (const keyId of keyIds) {
    const scope = { baseUrl: target!.baseUrl, environment: target!.environment, keyId };
    const keyed = plan.parsePlanRows(bytes, o.plan, plan.planFamily(scope, o.plan, o.batch), o.batch).rows;
    const delivered = plan.deliveredRows(journal!, scope);
    const found = await plan.outFileProblems(
      plan.keyRows(keyed, delivered, journal!, scope, o.batch, await movedRule(o.plan)),
      delivered,
      journal!,
      force,
      scope.environment,
      o.plan,
    );
    outProblems = outProblems === undefined ? found : outProblems.filter((p) => found.some((f) => f.row === p.row));
  }
  outProblems ??= await plan.outFileProblems(parsed.rows, new Map(), journal, force, target?.environment, o.plan);
  const refusal = plan.badRowsRefusal(o.plan, parsed.problems, outProblems, {
    rows: cached.length > 0 ? named.filter((r) => !cached.includes(r.productId)) : [],
    ids: [...new Set([...cached, ...ordered])],
    aside: 'as catalog list last saw it',
  });
  // With no catalog list saved here, a product's typo was met only in the next run (a person's day, a cron directory
  // new that night): the refusal says the ids were not checked, and what checks them with the rest.
  if (cached.length === 0 && named.length > 0)
    refusal.hint = `${refusal.hint ? `${refusal.hint}; ` : ''}the product ids were not checked (no catalog list saved here): giftcodes order place --plan ${shellWord(o.plan)} --dry-run checks them with the rest`;
  throw refusal;
}

/** The product ids the last `catalog list` saved for this run's profile and base URL (no key read); none where they are not at hand. */
async function cachedIds(deps: PlaceDeps): Promise<readonly string[]> {
  try {
    const [target, { readCatalogCache }] = await Promise.all([
      deps.currentTarget ? deps.currentTarget() : Promise.reject(new Error('no target')),
      import('../../output/catalog-cache.js'),
    ]);
    return readCatalogCache(deps.configDir, { profile: target.profile, baseUrl: target.baseUrl });
  } catch {
    return [];
  }
}

/** The products of this machine's unresolved intents and recorded orders. */
async function orderedHere(deps: PlaceDeps): Promise<string[]> {
  try {
    const journal = await deps.journal();
    return [
      ...journal.read().intents.map((intent) => intent.productId),
      ...journal.history.list().map((record) => record.productId),
    ];
  } catch {
    return [];
  }
}

/**
 * A plan's dry run sends no order: every row's product is checked against the catalog (an unknown one fails
 * the dry run, naming its row), with the unit price and the amount of each row and the total. Without a
 * catalog (no key, no network) the rows are printed unchecked, and a warning says so.
 */
async function dryRun(
  plan: string,
  rows: readonly PlanRow[],
  deps: PlaceDeps,
  delivered: ReadonlyMap<string, OrderRecord>,
  outProblems: readonly RowProblem[],
  elsewhere: ReadonlySet<string> = new Set(),
  /** What the run would say before its rows (beforeRows), said once the plan passes its checks. */
  said?: () => Promise<void>,
  /** The interrupted notes the run finishes under their keys (sent, left here, fresh), by key: no new orders. */
  finishing: ReadonlyMap<string, Intent> = new Map(),
  /** This run's API key's id: a row another key's order stands for is shown under that order's key. */
  keyId?: string,
): Promise<void> {
  const { io } = deps;
  const [{ unitPriceOf, totalOf }, { refusePlan, sameRowTwice, movedWords }] = await Promise.all([
    import('../../orders/products.js'),
    import('../../orders/plan.js'),
  ]);
  let products: Map<string, Product> | undefined;
  // A plan whose every row an earlier run delivered orders nothing, as the run would: the catalog has nothing to check
  // or price. A person asking whether last night's plan finished waited out ~3 s of retries for a server that was down,
  // then read that its products were not checked (a review).
  const orders = rows.some((r) => !delivered.has(r.key));
  try {
    if (orders) {
      const { readCatalog } = await import('../catalog/list.js');
      await deps.connection();
      products = new Map((await readCatalog(io, await deps.api())).map((p) => [p.id, p]));
    }
  } catch (error) {
    io.warn(
      `the products were not checked against the catalog: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  refusePlan(
    plan,
    outProblems,
    products && { rows: rows.filter((r) => !products.has(r.productId)), ids: [...products.keys()] },
  );
  await said?.();
  // A row an earlier run delivered is not ordered again (the run reads it back): shown as such, out of the totals.
  // The row's own fields, as a plan's --json documents them: not the key versions before 0.2 gave it, nor batched.
  const priced = rows.map(({ legacyKey: _legacy, batched: _batched, moved, ...r }): PlanResult => {
    const earlier = delivered.get(r.key);
    return {
      ...r,
      // A row that would finish an earlier run's order into its new file (outMovedRows): no new order.
      ...(moved !== undefined ? { resumed: true, movedFrom: moved.from ?? '-' } : {}),
      ...(earlier
        ? {
            // Under the key its order was placed with, where that is another API key's (runRows says why).
            ...(keyId !== undefined && earlier.keyId !== undefined && earlier.keyId !== keyId
              ? { key: earlier.key }
              : {}),
            already: true,
            order: { id: earlier.orderId ?? '-', status: earlier.status ?? earlier.outcome } as Order,
          }
        : elsewhere.has(r.key)
          ? {
              error: {
                code: 'order_placed_elsewhere',
                message: 'its key was answered with an order placed elsewhere: it is never sent from here again',
                exitCode: ExitCode.api,
              },
            }
          : moved === undefined && finishing.has(r.key)
            ? {
                dryRun: true,
                resumed: true,
                ...(finishing.get(r.key)!.orderId !== undefined
                  ? {
                      order: {
                        id: finishing.get(r.key)!.orderId,
                        status: finishing.get(r.key)!.status ?? 'placed',
                      } as Order,
                    }
                  : {}),
              }
            : { dryRun: true }),
      ...(products ? { price: unitPriceOf(products.get(r.productId)) } : {}),
    };
  });
  const todo = priced.filter((r) => r.dryRun && !r.resumed);
  const movedRows = rows.filter((r) => r.moved !== undefined && !delivered.has(r.key));
  const resumedRows = priced.filter((r) => r.dryRun && r.resumed && r.movedFrom === undefined);
  // The total is a note of the table (the exporter leaves notes out of --json), only where the catalog was read.
  const total = products ? totalOf(todo.map((r) => ({ price: r.price, quantity: r.quantity }))) : undefined;
  const codes = todo.reduce((sum, r) => sum + r.quantity, 0);
  const done = priced.length - todo.length - movedRows.length - resumedRows.length;
  const twice = sameRowTwice(todo);
  await planSummary(io, priced, [
    ...(twice ? [twice] : []),
    ...movedRows.map((r) => `line ${r.row}, when run: ${movedWords(r, r.moved!)}`),
    ...resumedRows.map((r) => `line ${r.row}, when run: ${finishingWords(r, finishing.get(r.key)!)}`),
    ...(products || !orders
      ? [
          `dry run: ${counted(todo.length, 'order')}, ${counted(codes, 'code')}${total ? `, ${total} in all` : ''}${[
            ...(resumedRows.length > 0
              ? [
                  `${counted(resumedRows.length, 'row')} an earlier run left interrupted, finished under ${resumedRows.length === 1 ? 'its key' : 'their keys'}, not ordered anew`,
                ]
              : []),
            ...(done > 0 ? [`${counted(done, 'row')} an earlier run delivered, not ordered again`] : []),
          ]
            .map((part, i, all) => (i === 0 ? ` (${part}` : `; ${part}`) + (i === all.length - 1 ? ')' : ''))
            .join('')}; nothing was sent`,
        ]
      : []),
  ]);
}

/** The day as `date +%F` says it here (local time): a batch named for today. */
function localDate(at: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
}

/**
 * What the run does with a row an earlier run left interrupted after its request went out (a dry run's words): it
 * finishes that order under its key, placed and charged when its id is known, never a new one.
 */
function finishingWords(row: Pick<PlanResult, 'quantity' | 'productId' | 'key'>, intent: Intent): string {
  return intent.orderId !== undefined
    ? `finishes the order ${intent.orderId} of ${unitsOf(row.quantity, row.productId)} an earlier run placed (and charged) at ${intent.createdAt}, under its key ${row.key}: no new order, nothing charged again`
    : `resumes the order of ${unitsOf(row.quantity, row.productId)} an earlier run sent at ${intent.createdAt} without an answer (it may have been charged), under its key ${row.key}: the same request again, never a second charge`;
}

/** A plan's run in one line: its rows, what they ordered, where the codes went, what failed. */
function planStory(
  plan: string,
  results: readonly PlanResult[],
  costOf: (placed: readonly PlanResult[]) => string | undefined,
  /** Rows it ordered that are the same row without an out file (plan.ts sameRowTwice): said, since each was charged. */
  twice: (placed: readonly PlanResult[]) => string | undefined,
): string {
  const notSent = results.filter((r) => r.error?.code === 'not_attempted').length;
  const failed = results.filter((r) => r.error).length - notSent;
  const earlier = results.filter((r) => r.already && !r.abandoned).length;
  // Read as an order abandoned here after the API placed it: not delivered, not ordered again (a review read
  // "delivered by an earlier run" for such a row).
  const abandoned = results.filter((r) => r.abandoned).length;
  const placed = results.filter((r) => !r.error && !r.already);
  const units = placed.reduce((sum, r) => sum + r.quantity, 0);
  const files = placed.filter((r) => r.out).length;
  const cost = costOf(placed);
  const same = twice(placed);
  // Rows that finished an earlier run's interrupted order: "2 of 3 rows ordered (… 130.00 USD)" read as this run's
  // charges (an adversarial review). Each was charged once, by whichever run's request reached the API.
  const resumed = placed.filter((r) => r.resumed).length;
  // Of those, the rows whose out cell alone changed since (outMovedRows): their earlier orders' codes went to the new
  // files, and no second order was placed (an adversarial review's ledger held two).
  const moved = placed.filter((r) => r.resumed && r.movedFrom !== undefined).length;
  const finished =
    resumed === 0
      ? ''
      : `; ${resumed === placed.length ? (resumed === 1 ? 'it was' : 'all were') : `${grouped(resumed)} of them ${resumed === 1 ? 'was' : 'were'}`} ${resumed === 1 ? "an earlier run's interrupted order" : "earlier runs' interrupted orders"}, finished under ${resumed === 1 ? 'its key' : 'their keys'}${
          moved === 0
            ? ''
            : `${moved === resumed ? (moved === 1 ? ', its codes' : ', their codes') : `, the codes of ${grouped(moved)}`} written to the new out ${moved === 1 ? 'file' : 'files'} the plan names now (no second order)`
        }`;
  return `${[
    `plan ${plan}: ${grouped(placed.length)} of ${counted(results.length, 'row')} ordered (${counted(units, 'code')}${cost ? `, ${cost}` : ''}${files > 0 ? `, ${counted(files, 'codes file')} written` : ''}${finished})`,
    ...(earlier > 0 ? [`${grouped(earlier)} delivered by an earlier run`] : []),
    ...(abandoned > 0 ? [`${grouped(abandoned)} abandoned earlier, not ordered again`] : []),
    ...(failed > 0 ? [`${grouped(failed)} failed`] : []),
    // Why, as the rows not attempted say it: the key refused (exit 3), else the server out of reach.
    ...(notSent > 0
      ? [
          `${grouped(notSent)} not attempted (${results.some((r) => r.error?.code === 'not_attempted' && r.error.exitCode === ExitCode.auth) ? 'the API key was refused' : 'the server could not be reached'})`,
        ]
      : []),
  ].join(', ')}${same ? `; ${same}` : ''}`;
}

/** A path as a person reads it in a table: from the current directory when it is under it, else whole. */
function shownPath(path: string): string {
  const from = relative(process.cwd(), path);
  return from !== '' && !from.startsWith('..') && !isAbsolute(from) ? from : path;
}

/** One line per row: what was ordered (or read, or not sent), its order, and where its codes went. */
async function planSummary(io: Io, results: readonly PlanResult[], notes: readonly string[] = []): Promise<void> {
  // The columns a narrow terminal left out are said under the table, as order list says them: a dry run at 80 columns
  // dropped KEY without a word, though it is what a dry run is read for beside the files (a person's day).
  let leftOut: readonly string[] = [];
  await exportResult(io, results, {
    notes: () => [
      ...(leftOut.length > 0 ? [`left out at ${io.columns} columns: ${leftOut.join(', ')} (--json has them)`] : []),
      ...notes,
    ],
    text: (data) =>
      renderTable(
        io,
        data,
        [
          { header: 'row', value: (r) => String(r.row) },
          { header: 'product', value: (r) => r.productId, whole: true },
          { header: 'qty', value: (r) => grouped(r.quantity) },
          // A dry run orders nothing: a column of dashes says nothing and takes the room the file names need.
          ...(data.some((r) => r.order)
            ? [{ header: 'order', value: (r: PlanResult) => (r.order ? String(r.order.id) : '-'), whole: true }]
            : []),
          ...(data.some((r) => r.price)
            ? [
                {
                  header: 'unit price',
                  value: (r: PlanResult) => (r.price ? spokenMoney(r.price.amount, r.price.currency) : ''),
                  dropRank: 2,
                },
                {
                  header: 'amount',
                  value: (r: PlanResult) => (r.price ? spokenMoney(r.price.amount * r.quantity, r.price.currency) : ''),
                  // Never cut: `20.00…` at 80 columns beside a long path (a person's day).
                  whole: true,
                },
              ]
            : []),
          // The same status in every row (all completed) gives way to the file names, said once below. A dry run's
          // says nothing its last line does not ("dry run: … nothing was sent"): no column.
          {
            header: 'status',
            // A dry run's "dry run" in every row says nothing its last line does not: it gives way first on a narrow
            // terminal, before KEY (said under the table). Elsewhere the same status in every row gives way at 3.
            ...(data.every((r) => r.dryRun) ? { dropRank: 0 } : { sameRank: 3 }),
            // A failed row's cause in a word at a narrow width, as order list's OUTCOME: `error: i…` at 80 columns
            // told nobody anything (a person's day). Never cut below those words (`completed`, `no funds`).
            whole: true,
            narrow: {
              rank: 2,
              forms: (r: PlanResult) => {
                const word = r.error ? reasonWord(r.error.code) : undefined;
                return word === undefined ? [] : [`error: ${word}`, word];
              },
            },
            value: (r: PlanResult) =>
              r.dryRun
                ? r.movedFrom !== undefined
                  ? 'dry run: earlier order'
                  : r.resumed
                    ? 'dry run: resumes'
                    : 'dry run'
                : r.error
                  ? `error: ${r.error.code}`
                  : // What says a row was not ordered again comes first: a narrow terminal cuts the end of a cell.
                    // A row that finished an earlier run's order into its new file says so first (outMovedRows).
                    `${r.already ? 'earlier run: ' : r.movedFrom !== undefined ? 'earlier order: ' : ''}${String(r.order?.status ?? '')}`,
          },
          // On a narrow terminal the key goes first, then the unit price: --json and order list keep both.
          { header: 'key', value: (r) => r.key, whole: true, dropRank: 1 },
          // Cut as a path on a narrow terminal: the file name (and its count) is the part that tells rows apart.
          // A file under the current directory is shown from there (codes/steam-20.csv): at 80 columns the whole
          // path left only `….csv (20)` (a persona's walkthrough). --json keeps the whole path.
          {
            header: 'out',
            value: (r) => (r.out ? `${shownPath(r.out)}${r.count !== undefined ? ` (${grouped(r.count)})` : ''}` : ''),
            cut: 'path',
          },
        ],
        { leftOut: (headers) => (leftOut = headers) },
      ),
  });
}

/**
 * The log's last line. A run that finished an order an earlier run placed (the same command again after a timeout or
 * a kill) says so: a nightly job whose run did that placed no order of its own, and the morning's reader must know.
 */
async function summarise(io: Io, { intent, order, written }: Driven, resumed: boolean): Promise<void> {
  const [{ runSummary }, { fileKind }] = await Promise.all([
    import('../../output/progress.js'),
    import('../../orders/present.js'),
  ]);
  const codes = written ? `, codes to ${written.path === '-' ? 'stdout' : written.path} (${fileKind(written)})` : '';
  const what = resumed
    ? `finished the order of ${unitsOf(intent.quantity, intent.productId)} an earlier run started at ${intent.createdAt} (its key: this run placed no order of its own)`
    : `ordered ${unitsOf(intent.quantity, intent.productId)}`;
  runSummary(io, `${what}: order ${String(order.id)} ${String(order.status)}${codes}`);
}

/**
 * A plan's recipients: --encrypt-to, else the profile's, checked against every row's out file (each named
 * `.age` when encrypted, none named `.age` without recipients), before anything is charged.
 */
async function planRecipients(options: PlaceOptions, rows: readonly PlanRow[], deps: PlaceDeps): Promise<PlaceOptions> {
  const outs = rows.flatMap((row) => (row.out ? [row.out] : []));
  let encryptTo: string[] | undefined;
  for (const out of outs.length > 0 ? outs : [undefined])
    encryptTo = (await withRecipients({ encryptTo: options.encryptTo, out }, deps)).encryptTo;
  const { encryptTo: _given, ...rest } = options;
  return encryptTo ? { ...rest, encryptTo } : rest;
}

/** Printable ASCII without spaces, as an HTTP header value and a journal key can safely carry. */
function idempotencyKeyArg(value: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new InvalidArgumentError('an idempotency key is 1 to 255 printable ASCII characters without spaces');
  }
  // Whatever is written masks API keys (the journal, every output): a key-shaped one would be read back
  // masked, a different key, and a resumed order sent under it would be charged again.
  if (redactKeys(value) !== value)
    throw new InvalidArgumentError(
      'an idempotency key must not look like an API key (sc_test_… or sc_live_…): choose another',
    );
  // A server may read the header as a structured string ("inv-7001" is inv-7001), where this machine's record of the
  // key would not know them for one: a review's quoted key passed the "key used" check and was replayed as an order
  // placed elsewhere, which a server that forgot the key would charge again.
  if (/["\\]/.test(value))
    throw new InvalidArgumentError(
      `an idempotency key must not hold quotes or backslashes (a server may read "k" as k): give it bare, e.g. ${value.replace(/["\\]/g, '') || 'inv-7001'}`,
    );
  // A plan row's keys begin so (src/orders/plan.ts rowKey), and the journal and the re-run checks read such a key as a
  // row of a plan: a review's `--idempotency-key plan-q4-restock`, killed, abandoned and run again without the key,
  // met none of a given key's checks and was charged twice, the first order's codes out of reach.
  if (value.startsWith('plan-'))
    throw new InvalidArgumentError(
      `keys that begin with plan- are the plan's own (each row of --plan gets one): give another, e.g. ${value.slice(5) || 'inv-7001'}`,
    );
  return value;
}

/** A batch name is part of every row key of the plan: printable ASCII, as a key is, at most 100 characters. */
function batchArg(value: string): string {
  if (!/^[\x20-\x7e]{1,100}$/.test(value) || value.trim() === '')
    throw new InvalidArgumentError('a batch name is 1 to 100 printable ASCII characters (e.g. a date: 2026-11-29)');
  return value;
}

/**
 * What makes this run a second order of the same request (another window placing it, an earlier run of it finished in
 * its place): asked at a terminal (No sends nothing, exit 130), else said in every mode (--json and --quiet too: a
 * second charge is never silent), unless the run is refused before anything is sent (`refusedBelow`).
 */
/**
 * After a live question's yes: the same order placed by another run while it waited (the nightly job started meanwhile)
 * is asked about as a second order, again after each yes. Asked before the question only, the yes was a second
 * charge without a word, and a yes to the second question a third (an adversarial review).
 */
async function askedMeanwhile(
  io: Io,
  journal: Journal,
  request: Request,
  before: Footprint,
  what: string,
): Promise<void> {
  const { askWhilePlaced } = await import('../../orders/recover.js');
  await askWhilePlaced(journal, request, before, (said) =>
    secondOrder(io, false, `another giftcodes run placed ${what} while you were asked (${said})`, what),
  );
}

/**
 * An order recover.ts interruptedBeside found, as a second order's reason: what it is, its key, and the `order resume`
 * that finishes it (pinned to this run's config directory); its codes file, said as this run's --out too when it is.
 */
function interruptedWords(left: Intent, spec: OrderSpec, out: OutSpec | undefined, configDir?: string): string {
  // Another profile's: which holds this same API key or another of the same reseller (recover.ts interruptedBeside).
  const where = left.profile !== spec.profile ? ` in profile "${left.profile}" (${resellerKeyWords(left, spec)})` : '';
  const state =
    left.orderId !== undefined
      ? `was placed (order ${left.orderId}) and interrupted before it reached you`
      : 'was interrupted while its request was out, and may have been placed';
  const placedWith =
    left.keyId !== spec.keyId || left.baseUrl !== spec.baseUrl
      ? ` (with the API key and base URL it was placed with, ${left.baseUrl})`
      : '';
  const codes =
    left.out && left.out.path !== '-'
      ? `; its codes go to ${left.out.path}${out && out.path !== '-' && resolve(out.path) === resolve(left.out.path) ? ", this run's --out too" : ''}`
      : '';
  return pinnedHint(
    `the order of ${unitsOf(left.quantity, left.productId)}${where} started ${left.createdAt} (key ${left.key}) ${state}; its own key finishes it, never twice: giftcodes order resume ${left.key}${placedWith}${codes}`,
    { configDir },
  );
}

async function secondOrder(io: Io, yesGiven: boolean, why: string, what: string, refusedBelow = false): Promise<void> {
  if (io.canPrompt && !yesGiven) {
    const cancelled = nothingSent();
    const question = `${why[0]!.toUpperCase()}${why.slice(1)}. Place a second order of ${what}?`;
    if (!(await io.confirm(question, '--yes', 'a second order', { cancelled }))) throw cancelled;
  } else if (!refusedBelow) io.say(`${why}: this run places a second order of ${what}, with its own key`);
}

/**
 * Another plan delivered `twin`, rows this plan has too, within the day (sameRowsElsewhere): said, and asked at a
 * terminal (No orders nothing), since every row of this plan is a new order, charged again.
 */
async function sameRowsAgain(
  io: Io,
  plan: string,
  rows: number,
  twin: readonly OrderRecord[],
  yes: boolean,
  run: { name: string; batch: string | undefined },
): Promise<void> {
  const all = twin.length === rows;
  const last = twin
    .map((r) => r.endedAt ?? r.updatedAt)
    .sort()
    .at(-1);
  // Which plan it was (its file and --batch), where the records say: a review could not tell which run was meant.
  const which = [...new Set(twin.flatMap((r) => planRun(r) ?? []))];
  // This very plan file under another --batch, lately (plan.ts BATCH_TYPO_MS): a --batch mistyped, then corrected.
  const samePlan = twin.every((r) => r.plan === run.name);
  const unbatched = twin.every((r) => r.batch === null);
  const these = all
    ? twin.length === 1
      ? 'this same row'
      : `these same ${twin.length} rows`
    : `${twin.length} of these ${counted(rows, 'row')}`;
  const anew = all
    ? twin.length === 1
      ? 'its row is a new order'
      : 'every row is a new order'
    : 'those rows are new orders';
  // An order of them abandoned here after the API placed it was charged, never delivered (a second review read
  // "delivered" of such a row).
  const abandonedToo = twin.filter((r) => r.outcome === 'abandoned').length;
  const did = abandonedToo === 0 ? 'delivered' : abandonedToo === twin.length ? 'placed' : 'placed or delivered';
  io.caution(
    samePlan
      ? `this plan ${unbatched ? 'without --batch' : 'under another --batch'} (${which.join('; ')}) ${did} ${these} here at ${last} (${firstOf(
          twin.map(deliveredWords),
          5,
        )}); ${run.batch === undefined ? 'without --batch' : `--batch ${shellWord(run.batch)}`} is a batch of its own, so ${anew}, charged again: a --batch corrected after a typo orders the plan twice`
      : `another plan${which.length > 0 ? ` (${which.join('; ')})` : ''} ${did} ${these} here in the last 24 hours (the last at ${last}: ${firstOf(
          twin.map(deliveredWords),
          5,
        )}); ${plan} is a plan of its own (a copied or renamed file, another directory or --batch), so ${anew}, charged again`,
  );
  if (!io.canPrompt || yes) return;
  const cancelled = nothingSent();
  const question = `Order ${all ? `all ${counted(twin.length, 'row')} again` : `the ${counted(rows, 'row')}, ${twin.length} of them again`}, as new orders?`;
  if (!(await io.confirm(question, '--yes', 'ordering the same rows again', { cancelled }))) throw cancelled;
}

/**
 * Another plan's run is placing `running`, rows this plan has too, right now (sameRowsRunning): said, and asked at a
 * terminal (No orders nothing), since this plan's rows are new orders beside them, charged again.
 */
async function sameRowsRunningNow(
  io: Io,
  plan: string,
  rows: number,
  running: readonly Intent[],
  yes: boolean,
): Promise<void> {
  const all = running.length === rows;
  const which = [...new Set(running.flatMap((i) => planRun(i) ?? []))];
  const pids = [...new Set(running.map((i) => i.owner.pid))];
  io.caution(
    `another giftcodes run (pid ${pids.join(', ')}${which.length > 0 ? `: ${which.join('; ')}` : ''}) is placing ${all ? (running.length === 1 ? 'this same row' : `these same ${running.length} rows`) : `${running.length} of these ${counted(rows, 'row')}`} right now (${firstOf(
      running.map((i) => unitsOf(i.quantity, i.productId)),
      5,
    )}); ${plan} is a plan of its own, so ${all && running.length > 1 ? 'every row is a new order' : 'those rows are new orders'} beside ${running.length === 1 ? 'it' : 'them'}, charged again`,
  );
  if (!io.canPrompt || yes) return;
  const cancelled = nothingSent();
  const question = `Order ${counted(rows, 'row')} of ${plan} as new orders beside that run's?`;
  if (!(await io.confirm(question, '--yes', 'ordering the same rows beside another run', { cancelled })))
    throw cancelled;
}

/** Rows another run placed, sent or began while a live plan's question waited: said, and asked again (a terminal's). */
async function rowsPlacedMeanwhile(
  io: Io,
  plan: string,
  rows: number,
  since: readonly (Intent | OrderRecord)[],
  cancelled: InterruptedError,
): Promise<void> {
  const which = [...new Set(since.flatMap((r) => planRun(r) ?? []))];
  io.caution(
    `another giftcodes run${which.length > 0 ? ` (plan ${which.join('; ')})` : ''} placed or began ${since.length === rows ? (rows === 1 ? 'the same order as this row' : `the same orders as these ${rows} rows`) : `the same orders as ${since.length} of these ${counted(rows, 'row')}`} while you were asked (${firstOf(
      since.map((r) => `${unitsOf(r.quantity, r.productId)}${r.orderId ? `, ${r.orderId}` : ''}`),
      5,
    )}): ${since.length === 1 ? "this plan's row is a second order" : "this plan's rows are second orders"} beside ${since.length === 1 ? 'it' : 'them'}, charged again`,
  );
  const question = `Order the ${counted(rows, 'row')} of ${plan} all the same?`;
  if (!(await io.confirm(question, '--yes', 'ordering the same rows again', { cancelled }))) throw cancelled;
}

/**
 * The plan of this file name in another folder, its file still there, that delivered rows of this plan under their
 * shared keys (OrderRecord.planDir): the error that refuses this run, or undefined.
 */
async function keysSharedWith(
  plan: string,
  batch: string | undefined,
  delivered: ReadonlyMap<string, OrderRecord>,
): Promise<UsageError | undefined> {
  const { planDirOf, planName, samePlanDirAs } = await import('../../orders/plan.js');
  const here = samePlanDirAs(planDirOf(plan));
  const name = planName(plan);
  const theirs = [...delivered.values()].filter(
    (r) =>
      r.planDir !== undefined &&
      r.plan === name &&
      r.batch === (batch ?? null) &&
      !here(r.planDir) &&
      existsSync(join(r.planDir, name)),
  );
  if (theirs.length === 0) return undefined;
  const other = join(theirs[0]!.planDir!, name);
  const last = theirs
    .map((r) => r.endedAt ?? r.updatedAt)
    .sort()
    .at(-1)!;
  return new UsageError(
    `the plan ${plan} shares its rows' keys with ${other}${batch ? ` (--batch ${batch})` : ''}, which delivered ${counted(theirs.length, 'row')} of it here (the last at ${last}): a row's key is made from the plan's file name and --batch, not its folder, so these rows read as that plan's and none would be ordered for this one; nothing was sent`,
    {
      code: 'plan_keys_shared',
      hint: `give this plan a --batch of its own (e.g. --batch ${shellWord(`${batch ?? 'today'}-${basename(dirname(resolve(plan)))}`)}) or another file name; if it is that plan moved here, run it from ${other}, or move that file away`,
    },
  );
}

/** A plan's question answered No (or Ctrl-C): nothing was sent, or no new order, its interrupted rows left as they were. */
function planCancelled(resuming: number): InterruptedError {
  return resuming > 0
    ? new InterruptedError(
        `cancelled: no new order was sent; the ${counted(resuming, 'interrupted row')} of this plan ${resuming === 1 ? 'was' : 'were'} left as ${resuming === 1 ? 'it was' : 'they were'} (charged or not)`,
        { hint: 'run the same plan again to finish them, or see giftcodes order pending' },
      )
    : nothingSent();
}

/** Without --plan, --product and --quantity are required. */
function checkSingleOrderFlags(options: PlaceOptions): void {
  if (options.product === undefined || options.quantity === undefined) {
    const missing =
      options.product === undefined && options.quantity === undefined
        ? "options '--product <id>' and '--quantity <n>'"
        : `option ${options.product === undefined ? "'--product <id>'" : "'--quantity <n>'"}`;
    // The one given is kept in the command (a person's day: --product typed, and the hint's command dropped it).
    const product = options.product === undefined ? 'PRODUCT_ID' : shellWord(options.product);
    const quantity = options.quantity === undefined ? 'N' : String(options.quantity);
    const add =
      options.product === undefined && options.quantity === undefined
        ? 'give both'
        : `add ${options.product === undefined ? '--product' : '--quantity'}`;
    throw new UsageError(`required ${missing} not specified`, {
      hint: `${add} (or a plan of many orders, with --plan PLAN_FILE): giftcodes order place --product ${product} --quantity ${quantity}`,
    });
  }
}

/** --dry-run and --batch belong to --plan. */
function checkPlanOnlyFlags(options: PlaceOptions): void {
  if (options.dryRun)
    throw new UsageError('--dry-run is for --plan', { hint: 'giftcodes order place --plan restock.csv --dry-run' });
  if (options.batch !== undefined)
    throw new UsageError('--batch is for --plan', {
      hint: 'giftcodes order place --plan restock.csv --batch "$(date +%F)"',
    });
}

/** A row an earlier run delivered, as the warnings name it: its units, its order and when it ended. */
function deliveredWords(r: OrderRecord): string {
  return `${unitsOf(r.quantity, r.productId)} (order ${r.orderId ?? '-'}, ${r.outcome === 'abandoned' ? 'abandoned here after it was placed, ' : ''}${r.endedAt ?? r.updatedAt})`;
}

/** sentWords of a row a changed plan no longer has, with its order when the API placed it (its id known). */
function goneWords(i: Pick<Intent, 'quantity' | 'productId' | 'key' | 'createdAt' | 'orderId'>): string {
  return i.orderId === undefined
    ? sentWords(i)
    : `${unitsOf(i.quantity, i.productId)} (order ${i.orderId}, placed and charged, its codes never reached you; key ${i.key}, started ${i.createdAt})`;
}

/**
 * The rule of another API key of the same reseller (journal/intent.ts otherKeyOfReseller) for a plan, as for a single
 * order (journal.ts found: "so it is not resumed with this one"): a row this plan and --batch sent with such a key and
 * never finished (it may have been charged) refuses the run, whatever the flags (exit 2, nothing sent), with the way
 * to finish it with its own key or drop it; a row delivered with such a key (kept in the records) is read as
 * delivered, said in one line, and not ordered again. A key rotated in a profile after a killed night, the cron line
 * run again with --yes, charged the row twice, and every delivered row too (an adversarial review). A row this run's
 * key already has an order or note of is its own. A new --batch orders the plan anew. Returns the records so read.
 */
async function resellerKeyRule(
  io: Io,
  o: Pick<PlanRunOptions, 'plan' | 'batch'>,
  bytes: Buffer,
  s: {
    journal: Journal;
    records: readonly OrderRecord[];
    scope: Scope;
    profile: string;
    rows: readonly PlanRow[];
    delivered: Map<string, OrderRecord>;
    /** The config, read for the refusal's hint: which profile holds the key a row was placed with. */
    config: () => Promise<ConfigStore | undefined> | undefined;
  },
): Promise<{ handled: Set<string>; unsent: Intent[] }> {
  const [
    { resellerKeyRows, parsePlan, planDirOf, samePlanDirAs, sameScope, abandonedPlaced },
    { neverSent },
    { chargeWords },
    { anotherLiveRun, otherMachine },
  ] = await Promise.all([
    import('../../orders/plan.js'),
    import('../../journal/intent.js'),
    import('../../orders/recover.js'),
    import('../../journal/owner.js'),
  ]);
  const { journal, scope, rows, delivered } = s;
  const keyedUnder = (family: string): PlanRow[] => parsePlan(bytes, o.plan, family, o.batch);
  const plan = { path: o.plan, batch: o.batch, dir: planDirOf(o.plan) };
  const inPlanDir = samePlanDirAs(plan.dir);
  const { intents } = journal.read();
  const ownNotes = new Set(intents.filter((i) => sameScope(i, scope)).map((i) => i.key));
  const open = (row: PlanRow): boolean => !delivered.has(row.key) && !ownNotes.has(row.key);
  const batch = o.batch !== undefined ? ` (batch ${o.batch})` : '';
  // Only this very plan run with another key: in this profile (a key rotated there), its directory the same where noted
  // (resellerKeyRows); in another profile only where its note names this plan's directory. A second profile of the
  // reseller with a plan of this file name in its own folder (two shops' restock.csv, one --batch) is another plan:
  // its rows are warned of and asked about as before (beforeRows), never refused nor read as delivered here.
  const samePlan = (i: { profile: string; planDir?: string | undefined }): boolean =>
    i.profile === s.profile || (i.planDir !== undefined && inPlanDir(i.planDir));
  const left = resellerKeyRows(
    // One whose codes reached the user but whose run was cut before it recorded so is refused too: its order resume
    // settles it (nothing sent), and the plan then reads the row as delivered, never as a new order.
    intents.filter((i) => !neverSent(i) && samePlan(i)),
    scope,
    rows,
    keyedUnder,
    plan,
  );
  const leftRows = rows.filter((r) => left.has(r.key) && open(r));
  // Rows a live run with that key is placing right now (its process alive on this machine): not "never finished", and
  // no resume or abandon (a live hold refuses both: a review); refused as well, whatever the flags, until it ends.
  const liveRows = leftRows.filter((r) => anotherLiveRun(left.get(r.key)!.owner));
  if (liveRows.length > 0) {
    const notes = liveRows.map((r) => left.get(r.key)!);
    const one = notes.length === 1;
    const pids = [...new Set(notes.map((i) => i.owner.pid))];
    const by = `${pids.length === 1 ? 'pid' : 'pids'} ${pids.join(', ')}`;
    throw new UsageError(
      `the plan ${o.plan}${batch} has ${counted(notes.length, 'row')} being placed right now with ${resellerKeyWords(notes[0]!, scope)} in profile "${notes[0]!.profile}", by ${by}: ${firstOf(
        liveRows.map((r) => `line ${r.row}: ${sentWords(left.get(r.key)!)}`),
        5,
      )}; ${one ? 'that row' : 'those rows'} ordered with this key would be ${one ? 'a second order' : 'second orders'}, so nothing was ordered`,
      {
        code: 'intent_conflict',
        hint: pinnedHint(`nothing needs fixing: wait for ${by} to end, then run the same command again`, {
          configDir: io.env.GIFTCODES_CONFIG_DIR,
        }),
      },
    );
  }
  if (leftRows.length > 0) {
    const notes = leftRows.map((r) => left.get(r.key)!);
    const one = notes.length === 1;
    const first = notes[0]!;
    const otherProfile = notes.find((i) => i.profile !== s.profile)?.profile;
    const where = `in profile "${otherProfile ?? first.profile}"`;
    // `order resume <key>` reads the key of the profile the order was placed in: where that profile holds the key no
    // longer (a key rotated there), the hint's command carries the old one, spelled as a placeholder giftcodes cannot
    // fill (it keeps no key it was given before), and names a profile that holds it where one does. Printed as
    // `order resume <key>` alone, the hint pasted as printed was refused under the profile's new key (exit 3: a review).
    const store = await s.config();
    const holds = (profile: string, i: Intent): boolean =>
      store?.profile(profile).resellers?.[i.environment]?.keyId === i.keyId;
    const keyHeld = notes.every((i) => holds(i.profile, i));
    const holder = keyHeld ? undefined : store?.profileNames().find((p) => notes.every((i) => holds(p, i)));
    const withKey = keyHeld
      ? `profile "${first.profile}"'s key, which order resume reads, or the same command with --profile ${first.profile}`
      : `the old API key, which profile "${first.profile}" no longer holds${holder !== undefined ? ` (profile "${holder}" holds it)` : ''}, in place of OLD_KEY`;
    const resume = `${keyHeld ? '' : 'GIFTCODES_API_KEY=OLD_KEY '}giftcodes order resume`;
    throw new UsageError(
      `the plan ${o.plan}${batch} sent ${counted(notes.length, 'row')} with ${resellerKeyWords(first, scope)} ${where}, never finished (${chargeWords(notes)}): ${firstOf(
        leftRows.map((r) => `line ${r.row}: ${goneWords(left.get(r.key)!)}`),
        5,
      )}; an order is never resumed with another API key than its own, and ${one ? 'that row' : 'those rows'} ordered with this one would be ${one ? 'a second order' : 'second orders'}, so nothing was ordered`,
      {
        code: 'intent_conflict',
        hint: pinnedHint(
          `finish ${one ? 'it' : 'them'} with the API key ${one ? 'it was' : 'they were'} placed with (${withKey}): ${firstOf(
            notes.map((i) => `${resume} ${i.key}`),
            3,
          )}, or drop ${one ? 'it' : 'them'}: ${firstOf(
            notes.map((i) => `giftcodes order abandon ${i.key}`),
            3,
          )} (if ${one ? 'it was' : 'they were'} placed, this plan run after that orders ${one ? 'the row' : 'the rows'} again beside ${one ? 'it' : 'them'}); then run the same command again (a new --batch orders every row anew)`,
          { configDir: io.env.GIFTCODES_CONFIG_DIR },
        ),
      },
    );
  }
  // Read as delivered only where it is surely this plan run with a key rotated in this profile: the record names this
  // plan's directory. A second profile's plan of this file name (each shop in its own folder) read so was an order lost:
  // shop B's run ordered nothing (an adversarial review); a record from before directories were kept is warned of.
  const done = resellerKeyRows(
    s.records.filter(
      (r) =>
        (r.outcome === 'delivered' || abandonedPlaced(r)) &&
        r.profile === s.profile &&
        r.planDir !== undefined &&
        inPlanDir(r.planDir),
    ),
    scope,
    rows,
    keyedUnder,
    plan,
  );
  const doneRows = rows.filter((r) => done.has(r.key) && open(r));
  for (const r of doneRows) delivered.set(r.key, done.get(r.key)!);
  // Said by what each was: delivered (its codes reached you), or placed and then abandoned here before its codes were
  // written (charged, not delivered: a review read "delivered … read as delivered" the line after "abandoned").
  const doneSaid = (abandoned: boolean): void => {
    const said = doneRows.filter((r) => abandonedPlaced(done.get(r.key)!) === abandoned);
    if (said.length === 0) return;
    const records = said.map((r) => done.get(r.key)!);
    const one = records.length === 1;
    const otherProfile = records.find((r) => r.profile !== s.profile)?.profile;
    const withKey = `${resellerKeyWords(records[0]!, scope)}${otherProfile !== undefined ? ` in profile "${otherProfile}"` : ''}`;
    io.say(
      `the plan ${o.plan}${batch} ${
        abandoned
          ? `placed ${counted(records.length, 'row')} with ${withKey}, ${one ? 'its order' : 'their orders'} then abandoned here before ${one ? 'its' : 'their'} codes were written (placed and charged, not delivered), so ${one ? 'it is' : 'they are'} not ordered again`
          : `delivered ${counted(records.length, 'row')} with ${withKey}, so ${one ? 'it is' : 'they are'} read as delivered here and not ordered again`
      }: ${firstOf(
        said.map((r) => `line ${r.row}: ${deliveredWords(done.get(r.key)!)}`),
        5,
      )} (a new --batch orders every row anew)`,
    );
  };
  doneSaid(false);
  doneSaid(true);
  // This profile's notes of rows the run orders, readied with the other key and never sent (a plan stopped by Ctrl-C
  // before the key was rotated): nothing was charged, and this run orders the row with its own key, so they are dropped
  // as the run goes ahead (dropReplaced), never left for order resume --all to place beside it.
  const unsentLeft = resellerKeyRows(
    intents.filter(
      (i) =>
        neverSent(i) &&
        i.profile === s.profile &&
        !anotherLiveRun(i.owner) &&
        otherMachine(i.owner) === undefined &&
        journal.reached(i) === undefined,
    ),
    scope,
    rows,
    keyedUnder,
    plan,
  );
  const unsent = rows.filter((r) => unsentLeft.has(r.key) && open(r)).map((r) => unsentLeft.get(r.key)!);
  return { handled: new Set(doneRows.map((r) => done.get(r.key)!.key)), unsent };
}

/**
 * Ends the never-sent notes of rows the plan no longer has (plan.ts replacedUnsent) as abandoned, their records saying
 * why, and says so in one line. Under the journal's lock each is read again: one a live run took meanwhile, or sent,
 * is left as it is (and not said).
 */
async function dropReplaced(
  io: Io,
  journal: Journal,
  o: Pick<PlanRunOptions, 'plan' | 'batch'>,
  replaced: readonly Intent[],
  /** This run's scope, when the notes are of another API key of the same reseller (resellerKeyRule). */
  rekeyed?: Scope,
): Promise<void> {
  if (replaced.length === 0) return;
  const [{ neverSent }, { planName }] = await Promise.all([
    import('../../journal/intent.js'),
    import('../../orders/plan.js'),
  ]);
  const keys = new Set(replaced.map((intent) => intent.key));
  const now = Date.now();
  const dropped = await journal.settleWhere(
    (intent) => (keys.has(intent.key) && neverSent(intent) ? 'abandoned' : undefined),
    now,
    {
      error: new UsageError(
        `never sent (nothing was charged): the plan ${planRun({ plan: planName(o.plan), batch: o.batch ?? null })} run at ${new Date(now).toISOString()} ${rekeyed ? 'with another API key of the same reseller ordered this row with that key' : 'no longer has this row'}, and dropped it`,
        { code: 'replaced_by_plan' },
      ),
    },
  );
  if (dropped.length > 0) io.say(replacedWords(o, dropped, false, rekeyed));
}

/**
 * The line that says which never-sent notes an edited plan drops (dropReplaced), or would drop (a dry run); `rekeyed`:
 * notes of rows this run orders with its own key, readied with another key of the same reseller.
 */
function replacedWords(
  o: Pick<PlanRunOptions, 'plan' | 'batch'>,
  dropped: readonly Intent[],
  dry: boolean,
  rekeyed?: Scope,
): string {
  const one = dropped.length === 1;
  const plan = `the plan ${o.plan}${o.batch !== undefined ? ` (batch ${o.batch})` : ''}`;
  if (rekeyed)
    return `${plan} has ${counted(dropped.length, 'row')} an earlier run of it readied with ${resellerKeyWords(dropped[0]!, rekeyed)} and never sent (nothing was charged); ${dry ? 'the run orders' : 'this run orders'} ${one ? 'it' : 'them'} with this key, so ${dry ? 'it drops' : 'it dropped'} ${one ? 'that note' : 'those notes'}: ${firstOf(
      dropped.map(sentWords),
      5,
    )} (giftcodes order list shows ${one ? 'it' : 'them'} abandoned)`;
  return `${plan} no longer has ${counted(dropped.length, 'row')} an earlier run of it readied and never sent (nothing was charged), so ${dry ? 'the run drops' : 'this run dropped'} ${one ? 'it' : 'them'}, placing nothing for ${one ? 'it' : 'them'}: ${firstOf(
    dropped.map(sentWords),
    5,
  )} (giftcodes order list shows ${one ? 'it' : 'them'} abandoned, replaced by the plan as it is now)`;
}

/** A row an earlier run sent and never finished, as the warnings name it: its units, its key and when it began. */
function sentWords(i: Pick<Intent, 'quantity' | 'productId' | 'key' | 'createdAt'>): string {
  return `${unitsOf(i.quantity, i.productId)} (key ${i.key}, started ${i.createdAt})`;
}

/** `nightly.csv --batch 2026-12-03` (`, no --batch`): how a plan row's run ran, where its note or record says. */
function planRun(r: { plan?: string | undefined; batch?: string | null | undefined }): string | undefined {
  if (r.plan === undefined) return undefined;
  return `${r.plan}${r.batch === undefined ? '' : r.batch === null ? `, ${batchFlag(null)}` : ` ${batchFlag(r.batch)}`}`;
}

/** Where rows of this plan were made under another scope: another key at this address, or another spelling of it. */
function otherScopeWords(
  rows: readonly { baseUrl: string; keyId?: string | undefined; resellerId?: string | undefined; profile: string }[],
  scope: { baseUrl: string; keyId: string },
  profile: string,
  unfinished = false,
): string {
  // Another profile's rows with another key: another key of the same reseller (plan.ts underOtherScope), finished by
  // the plan run as it ran there, in that profile, with the key it was placed with.
  const reseller = rows.find((r) => r.keyId !== scope.keyId && r.profile !== profile);
  if (reseller !== undefined)
    return `with ${resellerKeyWords(reseller, scope)} in profile "${reseller.profile}"${unfinished ? ` (the same plan run there, with --profile ${reseller.profile}, finishes ${rows.length === 1 ? 'it' : 'them'} with the key ${rows.length === 1 ? 'it was' : 'they were'} placed with)` : ''}`;
  return rows.some((r) => r.baseUrl === scope.baseUrl)
    ? 'with another API key at this server'
    : // Another address with the same key: another spelling of this API's (localhost for 127.0.0.1), or another
      // server; which, only the person knows. It said "another spelling" of another server (a person's day).
      `at another address with this API key (${[...new Set(rows.map((r) => r.baseUrl))].join(', ')}: this same API under another spelling, or another server)`;
}

/**
 * Whose codes a file holds, where this machine's history delivered an order there: the record, and the words for it
 * (a file changed since, codes marked sold in it, said as such). The flags' refusal and the guided question's say it.
 */
function heldCodesAt(journal: Journal, path: string): { holder: OrderRecord; words: string } | undefined {
  const held = journal.history.codesWrittenTo(path);
  return held && { holder: held.record, words: holdsCodesOf(path, held.record, held.changed, held.copy) };
}

/**
 * An existing --out file refused (out_exists) said as whose codes it holds, so that --force is not taken as the way
 * on: it read only "exists", and its hint's "another --out file" was a second paid order for a person re-running the
 * night's command (a review). Any other error is returned as it was.
 */
function heldOutRefusal(error: unknown, journal: Journal, path: string): unknown {
  const held = isCliError(error) && error.code === 'out_exists' ? heldCodesAt(journal, path) : undefined;
  if (!held) return error;
  const { holder, words } = held;
  return new UsageError(`${words}; nothing was ordered`, {
    code: 'out_exists',
    // A person who ran the line again to get the codes again would read "another --out file" as the way
    // to them, and pay for a second order: the way to those codes comes first.
    hint: holder.orderId
      ? `to get those codes again: giftcodes codes get ${holder.orderId} --out CODES_FILE; another --out file places a new order (--force would write over those codes)`
      : 'another --out file places a new order; move that one away first to keep its codes (--force would write over them)',
  });
}

/**
 * What is wrong with a codes file named at the guided order's question, said so that the question can ask again;
 * true when the run can write it: a format its name says, not a file already there, `.age` exactly when the codes
 * are encrypted.
 */
function guidedFileProblem(
  path: string,
  options: Pick<PlaceOptions, 'format' | 'force'>,
  encrypts: boolean,
  checkOutTarget: (out: string, force: boolean, options: { placing: boolean }) => void,
  holds: (path: string) => string | undefined,
): string | true {
  // It asks for a file: standard output is --out - on the command line (a review's `-` printed the codes).
  if (path === '-') return 'name a file (for standard output, give --out - on the command line)';
  try {
    formatFor(path, options.format);
    checkOutTarget(path, options.force === true, { placing: true });
  } catch (error) {
    if (!isCliError(error)) return String(error);
    // The flags' hints (--force, --out, --format) are the command line's: at the question, another name is the way.
    // Whose codes a file holds, where this machine wrote an order's there: a person may have wanted exactly those.
    if (error.code === 'out_exists') return `${holds(path) ?? error.message}: name another file`;
    if (error.code === 'out_format_unknown') return `${error.message}: end the name with ${FILE_ENDINGS}`;
    return `${error.message}${error.hint && !/--(force|out|format)\b/.test(error.hint) ? ` (${error.hint})` : ''}`;
  }
  if (encrypts && !namesAgeFile(path))
    return `codes files are encrypted here (--encrypt-to, or the profile's encrypt-to): end the name with .age (${path}.age)`;
  if (!encrypts && namesAgeFile(path))
    return `${path} names an age-encrypted file, and no recipient is set (--encrypt-to, or giftcodes config set encrypt-to)`;
  return true;
}

/**
 * A plan's rows keyed as its run keys them (the history's deliveries, the moved-out rule), and the reseller's
 * other-key rule applied (refused rows, rows delivered with another key read as delivered): one piece for the run and
 * its --dry-run, so the dry run says what the run does.
 */
async function keyedRows(
  o: PlanRunOptions,
  bytes: Buffer,
  deps: PlaceDeps,
  c: { journal: Journal; scope: Scope; parsed: PlanRow[]; profile: string },
) {
  const { deliveredRows, keyRows } = await import('../../orders/plan.js');
  const records = c.journal.history.list();
  const delivered = deliveredRows(c.journal, c.scope, records);
  const rows = keyRows(c.parsed, delivered, c.journal, c.scope, o.batch, await movedRule(o.plan));
  const { handled, unsent } = await resellerKeyRule(deps.io, o, bytes, {
    journal: c.journal,
    records,
    scope: c.scope,
    profile: c.profile,
    rows,
    delivered,
    config: () => deps.config?.(),
  });
  return { records, delivered, rows, handled, unsent };
}

/**
 * What a plan's keyRows needs for a row whose out cell alone changed (plan.ts outMovedRows): the plan file's directory
 * (another directory's plan of this name is another plan), and how to tell a codes file an intent's run wrote.
 */
async function movedRule(
  planPath: string,
): Promise<{ planDir: string; writtenAt: (intent: Intent, path: string) => boolean }> {
  const [{ deliveredFile }, { planDirOf }] = await Promise.all([
    import('../../journal/codes-file.js'),
    import('../../orders/plan.js'),
  ]);
  return { planDir: planDirOf(planPath), writtenAt: (intent, path) => deliveredFile(intent, path) !== undefined };
}

/**
 * The connection an order (or a plan's rows) is placed with, with the reseller login learned for its key at its API
 * (resolve.ts withReseller): what its intents keep, and another key of the same reseller is matched by. Read here, not
 * for every command: a ping loads no hashing (test/e2e/startup.test.ts).
 */
async function orderConnection(deps: Pick<PlaceDeps, 'connection' | 'config'>): Promise<Connection> {
  const connection = await deps.connection();
  if (deps.config === undefined) return connection;
  const [{ withReseller }, store] = await Promise.all([import('../../config/resolve.js'), deps.config()]);
  return withReseller(connection, store);
}

/** The order this run's connection would place (journal/intent.ts OrderSpec): what an interrupted one is matched by. */
function orderSpec(
  connection: Connection,
  keyIdOf: (apiKey: string) => string,
  productId: string,
  quantity: number,
): OrderSpec {
  return {
    profile: connection.profile,
    environment: connection.environment,
    baseUrl: connection.baseUrl,
    keyId: keyIdOf(connection.apiKey),
    ...(connection.resellerId !== undefined ? { resellerId: connection.resellerId } : {}),
    productId,
    quantity,
  };
}

/**
 * How this run, which took over `prior` (as its own run left it) and made it `now`, differs from the command that began
 * it in what it does with the order: where its codes go, and whether it waits for them. The words name this run as
 * its finisher (`order place --out second.csv`); undefined when it is that command's effect (codes to the same file).
 */
function variantOf(prior: Pick<Intent, 'out' | 'wait'>, now: Pick<Intent, 'out' | 'wait'>): string | undefined {
  const was = prior.out?.path;
  const is = now.out?.path;
  // The same file through a linked folder is the same file (a review was told its own file was another).
  if (
    is !== undefined &&
    (was === undefined || (is === '-' || was === '-' ? is !== was : realFile(is) !== realFile(was)))
  )
    return `order place --out ${is}`;
  if (is === undefined && was === undefined && (prior.wait === true) !== (now.wait === true))
    return now.wait === true ? 'order place --wait' : 'order place without --wait';
  return undefined;
}

/** The finisher recorded when this same command, run again, finished an interrupted order (OrderRecord.finishedBy). */
const SAME_COMMAND = 'another run of this same command';

/** The command an interrupted order was begun with, in its flags: where its codes were to go, and whether it waited. */
function startedWith(prior: Pick<Intent, 'out' | 'wait'>): string {
  if (prior.out) return `--out ${prior.out.path}`;
  return prior.wait === true ? '--wait' : 'without --out or --wait';
}

/** The interrupted order this command would resume, held by another live run finishing it: nothing is sent. */
function beingFinished(intent: Intent): UsageError {
  return new UsageError(
    `another giftcodes run (pid ${intent.owner.pid}) is finishing the interrupted order of ${unitsOf(intent.quantity, intent.productId)} (key ${intent.key}) right now: this run places nothing, so that order is not charged twice`,
    {
      code: 'intent_busy',
      hint: `wait for it to finish, then see what became of it: giftcodes order show ${intent.key}`,
    },
  );
}

/**
 * A guided order's "Finish the interrupted order?" answered yes, of an order another run finished, abandoned or took
 * while the question waited: nothing is sent (exit 2), as the same command run again does (docs/exactly-once.md).
 */
function finishedMeanwhile(key: string): UsageError {
  return new UsageError(
    `the interrupted order you chose to finish (key ${key}) was finished, abandoned or taken by another giftcodes run while you were asked: nothing was sent`,
    { code: 'intent_busy', hint: `see what became of it: giftcodes order show ${key}` },
  );
}
