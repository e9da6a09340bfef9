import type { Command } from 'commander';
import { AuthError, CliError, ExitCode, InterruptedError, nothingSent, UsageError } from '../../errors.js';
import type { Footprint } from '../../orders/recover.js';
import type { ApiClient } from '../../api/client.js';
import type { Intent } from '../../journal/intent.js';
import type { Journal } from '../../journal/journal.js';
import type { Driven } from '../../orders/drive.js';
import { exportResult, gathersItems } from '../../output/exporter.js';
import { pinnedHint } from '../../output/pinned-hint.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { warnUnreadable } from './pending.js';
import { addIntervalFlags, DEFAULT_INTERVAL_S } from '../wait-flags.js';
import { counted, firstOf, holdsCodesOf, unitsOf } from '../../output/words.js';
import { inScope, orderScope, scopeWords, unknownScopeProfile, type OrderScope } from './scope.js';

export interface ResumeOptions {
  key?: string;
  all?: boolean;
  interval?: number;
  timeout?: number;
  force?: boolean;
  forceStale?: boolean;
  /** --yes: a stale order sent again (--force-stale) is not asked about at a terminal. */
  yes?: boolean;
  /** --api-key, which a resumed order uses when it was placed with it. */
  apiKey?: string | undefined;
  /** --all: the profile and environment given (--profile, --env), outside which nothing is taken up. */
  scope?: OrderScope;
}

type ResumeDeps = Pick<Deps, 'io' | 'signal' | 'config' | 'clientFor' | 'journal'> & Partial<Pick<Deps, 'configDir'>>;

export function register(parent: Command, app: App): void {
  const command = addIntervalFlags(parent.command('resume'))
    .description('finish interrupted orders with their original keys and requests (never a second charge)')
    .argument(
      '[key]',
      'the idempotency key order pending shows, or the order id once the API gave one; or a unique prefix of either',
    )
    .option('--all', 'resume every interrupted order (of --profile and --env, when given)')
    .option('--force', 'overwrite an existing file when the order was placed with --out')
    .option(
      '--force-stale',
      'resume an order older than 24 hours or dated in the future (check the server for it first)',
    )
    .action(async (key: string | undefined, flags: Omit<ResumeOptions, 'key'>, cmd: Command) => {
      const { globals, deps } = app.context(cmd);
      // With --all, --profile and --env narrow the orders taken up (scope.ts), as order pending's rows.
      const scope = flags.all ? orderScope(globals, 'order resume --all') : {};
      return run({ ...flags, ...(key ? { key } : {}), apiKey: globals.apiKey, yes: globals.yes, scope }, deps);
    });
  examples(command, [
    'giftcodes order pending',
    'giftcodes order resume 3f1c9a9e-5d1b-4c4e-9a53-2f0f6c8d7b21',
    'giftcodes order resume 3f1c',
    'giftcodes order resume --all --json',
  ]);
}

export async function run(options: ResumeOptions, deps: ResumeDeps): Promise<void> {
  if (!options.key && !options.all)
    throw new UsageError('name the key of the order to resume, or pass --all', {
      hint: 'list them with: giftcodes order pending',
    });
  if (options.key && options.all) throw new UsageError('give a key or --all, not both');
  if (options.forceStale && !options.key)
    throw new UsageError('--force-stale applies to one order at a time', {
      hint: 'name its key: giftcodes order resume KEY --force-stale',
    });
  // No journal where the config directory is not there: --all has nothing to resume, said as such, and a key is not
  // found there; neither makes the directory (journal-missing.ts).
  const { configDirMissing, journalMissing } = await import('./journal-missing.js');
  if (options.key && (await configDirMissing(deps)))
    throw new UsageError(
      `no interrupted order with key ${options.key} here: the config directory ${deps.configDir} does not exist`,
      { code: 'intent_not_found', hint: 'set GIFTCODES_CONFIG_DIR to the directory the order was placed from' },
    );
  if (options.all && (await journalMissing(deps)))
    return exportResult(deps.io, [], { empty: { when: () => false, line: '' }, text: () => '' });
  const [journal, { isAlive, otherMachine }, { finish }, { deliver, settle, settleReached }] = await Promise.all([
    deps.journal(),
    import('../../journal/owner.js'),
    import('../../orders/drive.js'),
    import('../../orders/lifecycle.js'),
  ]);
  if (options.key) {
    const { intentKey } = await import('../../orders/ref.js');
    const one = await resumeOne(deps, journal, await intentKey(journal, options.key), options);
    if ('settled' in one) await printSettled(deps, one.settled, options);
    else {
      await finish(deps.io, journal, one);
      await closingLine(deps, [one]);
    }
    return;
  }
  await settleReached(deps.io, journal, { by: 'order resume' });
  const read = journal.read();
  const { unreadable } = read;
  warnUnreadable(deps.io, unreadable);
  const scope = options.scope ?? {};
  const intents = read.intents.filter((intent) => inScope(scope, intent));
  const outside = read.intents.length - intents.length;
  if (outside > 0)
    deps.io.notice(
      pinnedHint(
        `${counted(outside, 'unfinished order')} of other profiles or environments ${outside === 1 ? 'was' : 'were'} left as ${outside === 1 ? 'it was' : 'they were'} (this run takes up the orders${scopeWords(scope)} only): giftcodes order pending lists every one`,
        { configDir: deps.io.env.GIFTCODES_CONFIG_DIR },
      ),
    );
  // Another machine's intents may be running there: each is resumed only by its key, once its host is known to be done.
  for (const intent of intents.filter((i) => otherMachine(i.owner) !== undefined)) {
    deps.io.caution(
      `skipped the interrupted order with key ${intent.key}: it belongs to another machine (${otherMachine(intent.owner)}) sharing this config directory; once you know that host is not running it: giftcodes order resume ${intent.key}`,
    );
  }
  const keys = intents
    .filter((intent) => !isAlive(intent.owner) && otherMachine(intent.owner) === undefined)
    .map((intent) => intent.key);
  if (keys.length === 0) {
    const typo = await unknownScopeProfile(scope, journal);
    await deliver(
      deps.io,
      journal,
      () =>
        exportResult(deps.io, [], {
          empty: {
            when: () => true,
            line: `nothing to resume: ${typo ?? `no interrupted orders${scopeWords(scope)}`}`,
          },
        }),
      [],
    );
    return;
  }
  // --all: one JSON document for all of them (else each printed as it ends); one failure does not stop the
  // rest. Every intent is settled only after its outcome was printed and stdout flushed.
  const gathered = gathersItems(deps.io);
  const results: {
    key: string;
    order?: unknown;
    error?: { code: string; message: string; exitCode: number; hint?: string };
  }[] = [];
  const done: Driven[] = [];
  let firstFailure: CliError | undefined;
  let firstKey: string | undefined;
  const failed = (key: string, error: CliError, order?: unknown): void => {
    firstKey ??= key;
    firstFailure ??= error;
    results.push({
      key,
      ...(order !== undefined ? { order } : {}),
      // Its hint too: in --json it is the only text that says the way out (--force-stale, abandon: a review).
      error: {
        code: error.code,
        message: error.message,
        exitCode: error.exitCode,
        ...(error.hint ? { hint: pinnedHint(error.hint, { configDir: deps.io.env.GIFTCODES_CONFIG_DIR }) } : {}),
      },
    });
    // Stamped in a log as every stderr line is, its hint's commands run with this run's config directory.
    if (!gathered) {
      deps.io.say(`${deps.io.ce.red('✗')} ${key}: ${error.message}`);
      if (error.hint)
        deps.io.say(
          `  ${deps.io.ce.dim('hint:')} ${pinnedHint(error.hint, { configDir: deps.io.env.GIFTCODES_CONFIG_DIR })}`,
        );
    }
  };
  // An order answered No is left as it was, and the rest go on; Ctrl-C (or a signal) stops the run. Either way the
  // orders this run had already finished are said: "cancelled: nothing was sent", exit 130, followed an order of
  // 250 USD this same run had placed (an adversarial review).
  const skipped: string[] = [];
  const finishedHere: Driven[] = [];
  let finished = 0;
  let stopped: { key: string; error: CliError } | undefined;
  for (const key of keys) {
    try {
      const driven = await resumeOne(deps, journal, key, options);
      // Its outcome reached the user meanwhile (another run's delivery): said, and not delivered again.
      if ('settled' in driven) continue;
      finished++;
      if (gathered) {
        if (driven.failure) failed(key, driven.failure, driven.order);
        else results.push({ key, order: driven.order });
        done.push(driven);
      } else {
        await finish(deps.io, journal, driven);
        finishedHere.push(driven);
      }
    } catch (error) {
      if (declinedAnswers.has(error as Error)) {
        skipped.push(key);
        continue;
      }
      if (error instanceof CliError && error.exitCode === ExitCode.interrupted) {
        stopped = { key, error };
        break;
      }
      if (!(error instanceof CliError) || error.exitCode === ExitCode.local) throw error;
      // Taken up, and perhaps sent (an answer lost after the send): never "nothing was sent" after it (a review).
      finished++;
      failed(key, error);
    }
  }
  if (gathered) {
    await deliver(deps.io, journal, () => exportResult(deps.io, results, {}), done);
    await settle(journal, done);
  }
  const unsent =
    skipped.length === 0 ? '' : `; ${counted(skipped.length, 'order')} answered No left unsent (${skipped.join(', ')})`;
  if (stopped) {
    const { key, error } = stopped;
    if (finished === 0 && skipped.length === 0) throw error;
    throw new InterruptedError(
      `${error.message === nothingSent().message ? `cancelled at the order with key ${key}, which was not sent` : error.message}; this run took up ${counted(finished, 'order')} before it (above)${unsent}`,
      { ...(error.hint ? { hint: error.hint } : {}) },
    );
  }
  if (skipped.length > 0) {
    if (finished === 0 && !firstFailure) throw nothingSent();
    deps.io.notice(
      pinnedHint(
        `left ${counted(skipped.length, 'order')} unsent, as answered: giftcodes order pending lists ${skipped.length === 1 ? 'it' : 'them'}`,
        {
          configDir: deps.io.env.GIFTCODES_CONFIG_DIR,
        },
      ),
    );
  }
  if (!firstFailure) await closingLine(deps, done.length > 0 ? done : finishedHere);
  if (firstFailure) {
    // An order the provider failed was resumed, to its end: said as such, not as one that could not be resumed; and
    // `order pending` is named only while one of them is still there to list (a cron log read "lists what is left"
    // of a night with nothing left: a person's day).
    const errors = results.flatMap((r) => (r.error ? [r.error] : []));
    const ended = errors.filter((e) => e.exitCode === ExitCode.orderFailed).length;
    const what =
      ended === errors.length
        ? `${ended} of ${keys.length} orders ended failed`
        : `${errors.length} of ${keys.length} orders could not be resumed${ended > 0 ? ` (${ended} ended failed)` : ''}`;
    const mine = new Set(keys);
    const left = journal.read().intents.filter((intent) => mine.has(intent.key)).length;
    const pending = left > 0 ? `; giftcodes order pending lists the ${left === 1 ? 'one' : left} left` : '';
    // The first failure itself, and its way out: the two lines a cron recipe's `tail -n 2` mails said only "see the
    // lines above", which the mail does not hold (a second review, stop 78).
    // Named by key: a cron mail holds these two lines only, where "above" pointed at nothing (a fourth review).
    const otherKeys = results.flatMap((r) => (r.error && r.key !== firstKey ? [r.key] : []));
    const others = otherKeys.length > 0 ? `; also not resumed: ${firstOf(otherKeys, 3)}` : '';
    throw new CliError(firstFailure.exitCode, `${what}: ${firstKey!}: ${firstFailure.message}`, {
      code: firstFailure.code,
      hint: `${firstFailure.hint ? pinnedHint(firstFailure.hint, { configDir: deps.io.env.GIFTCODES_CONFIG_DIR }) : gathered ? "each failed order's error and hint are in the JSON document" : 'see the lines above'}${others}${pending}`,
    });
  }
}

/**
 * The log's last line, as order place ends its own (a person's day: a resume's cron log had no closing line): what
 * this run finished; none where it finished nothing (an order answered No, another run's delivery said above).
 */
async function closingLine(deps: ResumeDeps, driven: readonly Driven[]): Promise<void> {
  if (driven.length === 0) return;
  const { runSummary } = await import('../../output/progress.js');
  const codes = (d: Driven): string =>
    d.written ? `, codes to ${d.written.path === '-' ? 'stdout' : d.written.path}` : '';
  const one = driven[0]!;
  runSummary(
    deps.io,
    driven.length === 1
      ? `finished the order of ${unitsOf(one.intent.quantity, one.intent.productId)} (key ${one.intent.key}): order ${String(one.order.id)} ${String(one.order.status)}${codes(one)}`
      : `finished ${counted(driven.length, 'interrupted order')}: ${firstOf(
          driven.map((d) => `${String(d.order.id)} ${String(d.order.status)}`),
          5,
        )}`,
  );
}

/** The errors of a question answered No (not Ctrl-C): `--all` leaves that order and goes on to the next. */
const declinedAnswers = new WeakSet<Error>();

function declined(error: InterruptedError): InterruptedError {
  declinedAnswers.add(error);
  return error;
}

/**
 * Takes the intent over and drives it to its outcome; or, when its outcome had already reached the user (the
 * journal's claim asks, as every verb that takes an intent over does), says so and leaves it settled: its codes
 * are never written a second time.
 */
async function resumeOne(
  deps: ResumeDeps,
  journal: Journal,
  key: string,
  options: ResumeOptions,
): Promise<Driven | { settled: Intent }> {
  // Loaded here, not at the top: a command module is in every command's start, and intent.ts brings node:crypto
  // into ping's (test/e2e/startup.test.ts).
  const [{ sayReached }, { driveIntent }, { neverSent, staleness }, { askWhilePlaced, requestFootprint }] =
    await Promise.all([
      import('../../orders/lifecycle.js'),
      import('../../orders/drive.js'),
      import('../../journal/intent.js'),
      import('../../orders/recover.js'),
    ]);
  refuseHeldCodes(journal, key, options);
  await refusePlaintextNow(deps, journal, key);
  const { intent, reached } = await journal.claim(key, { forceStale: options.forceStale === true });
  if (reached !== undefined) {
    sayReached(deps.io, [intent]);
    return { settled: intent };
  }
  const api = await clientOfIntent(deps, intent, options);
  /** After a question's yes: the same order another run placed meanwhile is asked about, again after each yes. */
  const askedAgain = (before: Footprint, what: string, cancelled: InterruptedError): Promise<void> =>
    askWhilePlaced(journal, intent, before, async (said) => {
      if (
        !(await deps.io.confirm(
          `Another giftcodes run placed ${what} while you were asked (${said}). Place this one too, a second order?`,
          '--yes',
          'a second order',
          { cancelled },
        ))
      )
        throw declined(cancelled);
    });
  // A request sent more than a day ago without an answer: the server may have forgotten its key, and sending it again
  // is then a second order if the first went through. Never "no second charge" there (a review was charged twice
  // under those words); a person at a terminal is asked first.
  // A future-dated one too: its real age is unknown (a review resumed one dated 48 hours ahead and was charged twice).
  // Said in every mode, --quiet too: a second charge is never silent.
  const stale = staleness(intent);
  if (!neverSent(intent) && !intent.orderId && stale !== undefined) {
    const what = unitsOf(intent.quantity, intent.productId);
    const when =
      stale === 'old'
        ? `more than 24 hours after it was first sent (${intent.createdAt})`
        : `though it is dated ${intent.createdAt}, ahead of this clock, so when it was sent is unknown`;
    deps.io.say(
      `sending the order for ${what} (key ${intent.key}) again, ${when}: a server that has forgotten the key places a second order if the first request went through`,
    );
    if (deps.io.canPrompt && options.yes !== true) {
      const cancelled = nothingSent();
      const seen = requestFootprint(journal, intent);
      if (
        !(await deps.io.confirm(`Send the order for ${what} again anyway?`, '--yes', 'a second order', { cancelled }))
      )
        throw declined(cancelled);
      // A yes given while another run placed the same order (a review: charged without a word).
      await askedAgain(seen, what, cancelled);
    }
  } else if (neverSent(intent)) {
    // Never sent (`sending` is durable before the POST may go): this places the order for the first time. Not
    // "no second charge", which read as "already charged" to a person who then finished rows of a plan they had
    // since fixed (an adversarial review). A live one is asked about at a terminal, as `order place` asks: the
    // person who confirmed it may have dropped it since in their mind, and a No sends nothing.
    const what = unitsOf(intent.quantity, intent.productId);
    deps.io.say(
      `placing ${what} with key ${intent.key}: its run was interrupted before it sent the order, so this is its first request`,
    );
    if (intent.environment === 'live' && deps.io.canPrompt && options.yes !== true) {
      const cancelled = nothingSent();
      const seen = requestFootprint(journal, intent);
      if (!(await deps.io.confirm(`Place the live order for ${what} now?`, '--yes', 'a live order', { cancelled })))
        throw declined(cancelled);
      // The same order placed by another run while the question waited (the nightly job, a second window): this
      // run held its note, so that run placed one of its own, and a yes here is a second (an adversarial review).
      await askedAgain(seen, what, cancelled);
    }
  } else if (intent.phase === 'sending' || !intent.orderId)
    deps.io.say(
      `resuming ${unitsOf(intent.quantity, intent.productId)} with key ${intent.key}: same request, no second charge`,
    );
  const driven = await driveIntent({ io: deps.io, api, journal, signal: deps.signal }, intent, {
    wait: intent.wait === true || intent.out !== undefined,
    out: intent.out && options.force ? { ...intent.out, force: true } : intent.out,
    intervalS: options.interval ?? DEFAULT_INTERVAL_S,
    timeoutS: options.timeout,
  });
  // Its record names this command: the `order place` it finishes, run again (its 130 hint offered both), is a
  // second order, and asks first (a review resumed, ran the command again, and was charged twice). A plan's row
  // is not: the same plan again reads the row's record and orders nothing.
  return intent.key.startsWith('plan-') ? driven : { ...driven, finishedBy: 'order resume' };
}

/**
 * The order's --out file holds the codes of another order delivered since (a re-run with a typo took the name):
 * refused before anything is claimed or waited for, with --force too, which would write over those codes.
 */
function refuseHeldCodes(journal: Journal, key: string, options: ResumeOptions): void {
  const intent = journal.read().intents.find((i) => i.key === key);
  const path = intent?.out?.path;
  // Placed with --force (a nightly file written over each night), or this order's own codes file recorded (a run
  // killed at its rename): the file is the order's to write, as the same command would.
  if (!intent || path === undefined || path === '-' || intent.out?.force === true || (intent.files?.length ?? 0) > 0)
    return;
  const holder = journal.history.codesHolder(path);
  if (!holder || holder.key === key) return;
  const elsewhere = intent.orderId
    ? `, or write this order's codes to another file: giftcodes codes get ${intent.orderId} --out CODES_FILE`
    : '';
  throw new UsageError(
    `${holdsCodesOf(path, holder, false)}${options.force ? ': --force would write over them' : ''}; this order was not resumed`,
    { code: 'out_exists', hint: `move that file away, then run this again${elsewhere}` },
  );
}

/**
 * An order placed with a plaintext --out before its profile's encrypt-to was set: its codes are not written there in
 * plaintext (the same command is refused, export/recipients.ts; order resume wrote them, where the profile promised
 * .age files only: a review, stop 78). Refused before anything is claimed; codes get writes them encrypted, and
 * finishes the order in its place. An order whose codes file is already recorded is the journal's to settle.
 */
async function refusePlaintextNow(deps: ResumeDeps, journal: Journal, key: string): Promise<void> {
  const intent = journal.read().intents.find((i) => i.key === key);
  const path = intent?.out?.path;
  if (!intent || path === undefined || path === '-' || intent.out?.encryptTo?.length || (intent.files?.length ?? 0) > 0)
    return;
  const [{ namesAgeFile }, store] = await Promise.all([import('../../export/format.js'), deps.config()]);
  if (namesAgeFile(path) || !store.profile(intent.profile).encryptTo?.length) return;
  const since = `the encrypt-to of profile "${intent.profile}" was set since this order was placed with --out ${path}`;
  // No order id yet: only this run's request can learn it, so the order is finished as it was placed, and said.
  if (intent.orderId === undefined) {
    deps.io.caution(`${since}: its codes are written there as it was placed, in plaintext`);
    return;
  }
  throw new UsageError(`${since}: its codes are not written there in plaintext`, {
    code: 'out_not_age',
    hint: `write them encrypted: giftcodes codes get ${intent.orderId} --wait --out ${path}.age (it finishes this order, charging nothing)`,
  });
}

/** With --json, an order whose outcome had already reached the user is printed as the server has it now (its codes are not). */
async function printSettled(deps: ResumeDeps, intent: Intent, options: ResumeOptions): Promise<void> {
  if (!deps.io.json || intent.orderId === undefined) return;
  const api = await clientOfIntent(deps, intent, options);
  deps.io.outJson(await api.getOrder(intent.orderId));
  await deps.io.flushOut();
}

/** The client an intent's order is reached with: its profile's key for its environment, which must be the key it was placed with. */
async function clientOfIntent(deps: ResumeDeps, intent: Intent, options: ResumeOptions): Promise<ApiClient> {
  const [{ resolveConnection, loadStoredKey }, { clientOf }, { keyIdOf }, store] = await Promise.all([
    import('../../config/resolve.js'),
    import('../../config/refused-key.js'),
    import('../../journal/intent.js'),
    deps.config(),
  ]);
  const key = intent.key;
  const connection = await loadStoredKey(
    resolveConnection(
      { profile: intent.profile, env: intent.environment, apiKey: options.apiKey, baseUrl: intent.baseUrl },
      deps.io.env,
      store,
    ),
    deps.io.env,
  );
  deps.io.addSecret(connection.apiKey);
  if (keyIdOf(connection.apiKey) !== intent.keyId) {
    throw new AuthError(
      `the order ${key} was started with a different API key than the ${intent.environment} key of profile "${intent.profile}" now`,
      {
        code: 'key_changed',
        hint: 'resume it with the key it was placed with (GIFTCODES_API_KEY), or check the server and abandon it',
      },
    );
  }
  return clientOf(deps, connection);
}
