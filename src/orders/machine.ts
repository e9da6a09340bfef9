// The order state machine: one function per transition, each along an edge of the lifecycle table
// (lifecycle.ts), each written durably (its line in the journal's log, fsynced) before the next step is taken, each passing the
// step's failpoint (CONTRIBUTING.md). It never ends an intent that was charged: deliver and settle (lifecycle.ts)
// do, after the sink reported success (docs/architecture.md); only a refusal, which certainly charged nothing, ends at once.
import { canonicalCode, refusesTheOrder } from '../api/errors.js';
import { orderOutcome } from '../api/outcome.js';
import type { ApiClient } from '../api/client.js';
import type { Order } from '../api/schemas.js';
import { asLocalError, CliError, ExitCode, InterruptedError, UsageError } from '../errors.js';
import type { OutLock } from '../export/out-lock.js';
import { failpoint } from '../failpoints.js';
import { deliveredFile, fileIdentity, recordedFileState } from '../journal/codes-file.js';
import type { FileIdentity, Intent, OutSpec } from '../journal/intent.js';
import { scopeOf } from '../journal/history.js';
import type { Journal } from '../journal/journal.js';
import { moneyOf, type Money } from '../money.js';
import type { Io } from '../output/io.js';
import { placeCommand } from '../output/pinned-hint.js';
import { NOTHING_CHARGED, sentNothing, unitsOf, UNREADABLE_OWN, unreadableOwnHint } from '../output/words.js';
import { checkMove, LIFECYCLE, stepOf, type Step } from './lifecycle.js';
import { OrderEndedError, PLAN_ROW_ANEW, waitForOrder } from './wait.js';

/** What a verb hands the machine: narrow, so a test can run it with a test Io and a real server. */
export interface MachineDeps {
  io: Io;
  api: ApiClient;
  journal: Journal;
  signal: AbortSignal;
  now?: () => number;
  /** What a log's status lines say the order is for (a plan's row and its quantity × product). */
  label?: string | undefined;
}

export interface Written {
  path: string;
  count: number;
  format: string;
  /** True when the file on disk was recognised as this intent's earlier delivery and left as it was. */
  earlier?: boolean;
}

/** Answers to the POST after which the server holds no order for this key, whatever happened before. */
const REFUSED_STATUSES = [400, 404, 422];
/** Refusals that prove nothing about an earlier attempt (a key revoked after it went through): certain only on a first attempt. */
const REFUSED_FIRST_STATUSES = [401, 403];

/**
 * Whether this failure of the POST certainly charged nothing. `firstAttempt`: no earlier run of this intent
 * sent anything (it was `prepared`), so a request that never left, or a usage or config error, proves it.
 */
export function certainlyRefused(error: unknown, firstAttempt: boolean): boolean {
  if (!(error instanceof CliError)) return false;
  if (orderUnderKey(error, firstAttempt)) return false;
  if (error.status !== undefined && REFUSED_STATUSES.includes(error.status)) {
    // The API's refusal of the order (one it names: refusesTheOrder) holds whatever happened before: a retry of a
    // request it had taken would have been answered with that order. Anything else (a proxy's HTML 404 during a
    // deploy, an empty 400, a gateway's `{"code":404}`, a code the CLI cannot read) says nothing of an earlier
    // attempt that may have reached it.
    const earlierMaybeReached = !firstAttempt || error.earlierMaybeSent;
    return !earlierMaybeReached || refusesTheOrder(error.code);
  }
  if (!firstAttempt) return false;
  if (error.notSent) return true;
  // A 401 or 403 answering a retry says nothing of the attempt before it, which may have reached the server
  // (its answer lost to a timeout or a cut connection): that attempt may have been charged.
  if (error.status !== undefined) return REFUSED_FIRST_STATUSES.includes(error.status) && !error.earlierMaybeSent;
  return error.exitCode === ExitCode.usage || error.exitCode === ExitCode.auth;
}

/**
 * A 422 idempotency_key_reused answering a request that an earlier attempt may have sent (a run of this intent
 * before, or an attempt of this run the client retried): the server holds an order under this key, and it may be
 * this one, sent with a body the server now reads as another. Never a refusal: nothing proves nothing was charged.
 */
export function orderUnderKey(error: unknown, firstAttempt: boolean): boolean {
  return (
    error instanceof CliError &&
    error.status === 422 &&
    canonicalCode(error.code) === 'idempotency_key_reused' &&
    (!firstAttempt || error.earlierMaybeSent)
  );
}

/**
 * The API answered this intent's first request, sent by nobody before, with the order an earlier request under
 * its key placed: another config directory or machine ran the same plan (its rows' keys are the plan's file name,
 * batch, server and API key, not the folder), or the same --idempotency-key was given twice. That order and its
 * codes are someone else's delivery; written here too, its codes would be handed out twice (an adversarial
 * review: a second config directory reported "1 of 1 row ordered" with the first one's codes). Nothing was
 * charged by this run: ended as refused, the order named.
 */
function placedElsewhere(order: Order, intent: Intent, unreadable = 0): CliError {
  // Files here the journal cannot read may hold this very intent, from a run that sent it (a damaged log line): the
  // way to a new order was then a second charge (a review). Kept pending instead, a plan of another directory's rows
  // had that directory's codes written here too (another review): ended as refused either way, the order named, and
  // the codes left to a person who knows whose they are.
  const own = unreadable > 0 ? unreadableOwnHint(order.id, unreadable) : undefined;
  return new CliError(
    ExitCode.api,
    `the API answered the key ${intent.key} with order ${order.id}, which an earlier request under that key placed, not this run (another config directory or machine ran the same plan, or the key was given again${own ? UNREADABLE_OWN : ''}): its codes are not written here, so they are never handed out twice, and nothing was charged now`,
    {
      code: 'order_placed_elsewhere',
      orderId: order.id,
      // The command names the run's environment and codes file: pasted from a live run's hint without them, it
      // placed a test order, or printed the codes instead of writing them (a review).
      hint:
        own ??
        `see that order where it was placed; to order ${unitsOf(intent.quantity, intent.productId)} of your own: ${placeCommand({ ...intent, out: intent.out?.path })}${intent.key.startsWith('plan-') ? ' (never the plan with a --batch of its own, which orders every row again)' : ''}`,
    },
  );
}

/**
 * A first request stopped before any byte of it left, its intent written back as never sent: said so, with both ways
 * on, as order pending says such an order (order place and order resume alike; a plan says its own words). A key the
 * user gave may have been sent by another run: of it, only this run is known to have sent nothing.
 */
function stoppedUnsent(error: InterruptedError, intent: Intent): InterruptedError {
  return new InterruptedError(`${error.message}; ${sentNothing(intent.keyGiven === true)}`, {
    notSent: true,
    hint: `run the same command again to place it, or drop it: giftcodes order abandon ${intent.key}`,
  });
}

/** The intent stays pending: the order under its key may be its own; the user checks the server before anything else. */
function keptUnderKey(error: CliError, intent: Intent): CliError {
  return new CliError(
    error.exitCode,
    `${error.message}; an earlier attempt of this order (key ${intent.key}) may have been sent, so the order the server holds under that key may be this one: it is kept pending, not ended`,
    {
      code: error.code,
      status: error.status,
      hint: `check the server's orders placed with the key ${intent.key} (giftcodes order list; giftcodes order show ORDER_ID), then finish it with: giftcodes order resume ${intent.key}`,
    },
  );
}

export class OrderMachine {
  intent: Intent;
  /** Armed by this process and not sent since: `sending` on disk, but certainly nothing went yet. */
  private armedUnsent = false;

  /** `armed`: the intent was written `sending` by this process's Journal.begin (Begun.armed), and nothing sent since. */
  constructor(
    private readonly deps: MachineDeps,
    intent: Intent,
    armed = false,
  ) {
    this.intent = intent;
    this.armedUnsent = armed;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /**
   * One edge of the lifecycle table: the intent's new state is durable when this settles, then the step's
   * failpoint fires; every step awaits it before the next (the write does not block a plan's other rows).
   */
  private async move(to: Step, changes: Partial<Intent> = {}): Promise<void> {
    const from = stepOf(this.intent);
    checkMove(from, to);
    this.intent = await this.deps.journal.saveAsync(
      { ...this.intent, ...changes, phase: to as Intent['phase'] },
      this.now(),
    );
    const step = LIFECYCLE[to].failpoint;
    if (step && to !== from) await failpoint(step);
  }

  /** A new fact in the same phase (the order's status, a codes file's identity): written before it is relied on. */
  private async note(changes: Partial<Intent>): Promise<void> {
    await this.move(stepOf(this.intent), changes);
  }

  /**
   * prepared → sending, durable before the POST may go. send() arms first; a plan arms its next row while
   * this row's POST is out, so the row's disk wait overlaps the network instead of adding to it.
   */
  async arm(): Promise<void> {
    if (this.intent.phase !== 'prepared') return;
    await this.move('sending');
    this.armedUnsent = true;
  }

  /**
   * sending → prepared, for an intent this process armed and never sent (a plan's readied row when the plan is
   * interrupted; send() does the same for a first request stopped before a byte of it left): on disk again as what
   * it is. Left `sending`, it read as "may have been charged", and a person who had fixed the plan's quantity
   * finished such rows with `order resume`, placing for the first time orders they no longer wanted (an adversarial
   * review). A no-op for any other intent.
   */
  async disarm(): Promise<void> {
    if (!this.armedUnsent || this.intent.phase !== 'sending') return;
    this.armedUnsent = false;
    await this.move('prepared');
  }

  /**
   * prepared → sending → accepted: the POST with the journaled key and body, byte for byte. `answered` is
   * told when the POST has its answer (before `accepted` is written): a plan's row then needs the network
   * no more, and its worker may send the next row meanwhile.
   */
  async send(answered?: () => void): Promise<Order> {
    // A key sent again after an abandon (keySince) went out before, in the run that was abandoned: no send of it is
    // its first. Taken for one, a proxy's HTML 404 read as the API's refusal and settled the key, and its charged
    // order was lost (a review).
    const firstAttempt = (this.intent.phase === 'prepared' || this.armedUnsent) && this.intent.keySince === undefined;
    await this.arm();
    this.armedUnsent = false;
    let order: Order;
    let elsewhere: CliError | undefined;
    try {
      const created = await this.deps.api.createOrder(this.intent.body, this.intent.key);
      order = created.order;
      if (created.replayed && firstAttempt && !created.earlierMaybeSent && !this.usedHereBefore())
        elsewhere = placedElsewhere(order, this.intent, this.unreadableFiles());
    } catch (error) {
      answered?.();
      // Stopped (Ctrl-C, SIGTERM) before any byte of its first request left: written back as what it is, never sent,
      // not ended (no one refused it). Left `sending`, a plan stopped while its rows waited out another row's
      // Retry-After said every one of them "may have been charged" (a review's probe: 2 rows said, 1 on the server).
      if (firstAttempt && error instanceof InterruptedError && error.notSent) {
        await this.move('prepared');
        throw stoppedUnsent(error, this.intent);
      }
      if (certainlyRefused(error, firstAttempt)) {
        const refused = error as CliError;
        // Said where the API answered: a cron job's mail holds the error line, and the reader of a 422 or a 401 wants
        // to know whether money moved (a person's day). A request that never left says it in its own words
        // (order/place.ts).
        if (refused.status !== undefined && !refused.message.includes('nothing was charged'))
          refused.message = `${refused.message}${NOTHING_CHARGED}`;
        await this.refuse(refused);
        throw refused;
      }
      if (orderUnderKey(error, firstAttempt)) throw keptUnderKey(error as CliError, this.intent);
      throw keptForResume(error, this.intent);
    }
    if (elsewhere) {
      answered?.();
      await this.refuse(elsewhere);
      throw elsewhere;
    }
    await failpoint('request.sent');
    answered?.();
    return this.accept(order);
  }

  /** Files of the journal here it cannot read (placedElsewhere's hint names them: one may be this very intent). */
  private unreadableFiles(): number {
    return new Set(this.deps.journal.read().unreadable.map((bad) => bad.file)).size;
  }

  /**
   * Whether a run from this config directory may have placed an order under this intent's key before (its record
   * in this scope says delivered, failed or abandoned): then what the API replays may be that order. An adversarial
   * review abandoned a plan row killed after its charge, ran the plan again, and had its own order refused as
   * placed elsewhere, with a hint that charged it a second time. A record `refused` says nothing from here was
   * placed (order_placed_elsewhere among them): it does not count.
   */
  private usedHereBefore(): boolean {
    const record = this.deps.journal.history.get(this.intent.key, scopeOf(this.intent));
    return record !== undefined && record.outcome !== 'refused';
  }

  /** sending → accepted: the server's order id and status (and what it costs, when stated) are on disk before anything else happens. */
  async accept(order: Order): Promise<Order> {
    const amount = amountOf(order);
    await this.move('accepted', { orderId: order.id, status: order.status, ...(amount ? { amount } : {}) });
    this.throwIfFailed(order);
    return order;
  }

  /** An accepted order read again (a resume): never a second POST. */
  async refresh(): Promise<Order> {
    const order = await this.deps.api.getOrder(this.intent.orderId!).catch((error: unknown) => {
      throw keptForResume(error, this.intent);
    });
    await this.noteRead(order);
    this.throwIfFailed(order);
    return order;
  }

  /** What a read of the order adds: a new status, and its amount where the intent has none yet (accepted by an older giftcodes, or stated only later). */
  private async noteRead(order: Order): Promise<void> {
    const amount = this.intent.amount ? undefined : amountOf(order);
    if (order.status !== this.intent.status || amount)
      await this.note({ status: order.status, ...(amount ? { amount } : {}) });
  }

  /** Waits for the order to complete; a failed order is an outcome (OrderEndedError, its status on disk), delivered as any other. */
  async complete(o: { intervalS: number; timeoutS?: number | undefined }): Promise<Order> {
    let order: Order;
    try {
      order = await waitForOrder({
        api: this.deps.api,
        orderId: this.intent.orderId!,
        io: this.deps.io,
        signal: this.deps.signal,
        intervalS: o.intervalS,
        timeoutS: o.timeoutS,
        label: this.deps.label,
      });
    } catch (error) {
      if (!(error instanceof OrderEndedError)) throw keptForResume(error, this.intent);
      order = error.order;
    }
    await this.noteRead(order);
    this.throwIfFailed(order);
    return order;
  }

  /**
   * The codes file: its identity, count and temporary file are recorded in the intent before the rename that
   * delivers it, and the mark that the rename happened right after. A file already delivered by an earlier run
   * (there unchanged, or renamed and moved away since) is never written again; nor is one an earlier run
   * recorded that is now neither at its target nor in its temporary file (codes-file.ts recordedFileState).
   */
  async writeCodes(out: OutSpec, lock?: OutLock): Promise<Written> {
    const earlier = this.deliveredTo(out.path);
    if (earlier)
      return {
        path: out.path,
        count: earlier.count ?? this.intent.quantity,
        format: earlier.format ?? out.format ?? 'json',
        earlier: true,
      };
    const orderId = this.intent.orderId!;
    if (out.path !== '-') {
      const recorded = recordedFileState(this.intent);
      if (recorded?.state === 'unaccounted') throw codesFileUnaccounted(this.intent, recorded.identity);
      // An earlier run's file that never reached its rename: taken back before this export sweeps its temporary file.
      if (recorded) await this.note({ files: [] });
    }
    const { deliverCodes } = await import('./deliver.js');
    let identity: FileIdentity | undefined;
    let inFile: CliError | undefined;
    try {
      return await deliverCodes({
        api: this.deps.api,
        orderId,
        out,
        // The quantity ordered is how many codes must arrive: fewer is exit 5 and no file.
        expected: this.intent.quantity,
        io: this.deps.io,
        signal: this.deps.signal,
        lock,
        recordedTemp: (temp) => this.deps.journal.recordsTemp(temp),
        intent: {
          quantity: this.intent.quantity,
          recordFile: (temp, count, format) => {
            identity = { ...fileIdentity(temp, orderId, out.path), count, format };
            checkMove(stepOf(this.intent), 'accepted');
            this.intent = this.deps.journal.save({ ...this.intent, files: [identity] }, this.now());
          },
          // The mark that the rename happened, which holds once the file is moved away (codes-file.ts renamedFile).
          recordRenamed: (path) =>
            this.note({ files: [{ ...identity!, renamed: true }] }).catch((error: unknown) => {
              throw (inFile = codesAlreadyInFile(error, this.intent, path));
            }),
        },
      });
    } catch (error) {
      // A recorded file that never took its place is taken back: left, it would read as codes moved away.
      if (identity && !deliveredFile(this.intent, out.path)) this.takeBack();
      // A stdout that failed is already exit 8 in words (export/write.ts), and so is a temporary file that could not be written.
      throw error === inFile ? error : keptForResume(error, this.intent);
    }
  }

  /** The identity of a file that never took its place, dropped; if even that cannot be written, the next run says it cannot tell. */
  private takeBack(): void {
    try {
      this.intent = this.deps.journal.save({ ...this.intent, files: [] }, this.now());
    } catch {
      // recordedFileState then finds the file unaccounted: the next run stops rather than write the codes twice.
    }
  }

  /** The codes file this intent's runs delivered to `path`, found after a crash: there unchanged, or renamed and moved away since. */
  deliveredTo(path: string): FileIdentity | undefined {
    const here = deliveredFile(this.intent, path);
    if (here || path === '-' || this.deps.journal.reached(this.intent) === undefined) return here;
    return this.intent.files?.find((f) => f.orderId === this.intent.orderId);
  }

  /** → refused: certainly nothing was charged; the intent is over at once, nothing is left pending. */
  async refuse(error: CliError): Promise<void> {
    checkMove(stepOf(this.intent), 'refused');
    await this.deps.journal.end([this.intent], 'refused', { error, now: this.now() });
  }

  /** A failed order is its outcome: its status is on disk (accepted), and deliver ends it `failed` once the user has it. */
  private throwIfFailed(order: Order): void {
    if (orderOutcome(order.status) !== 'failed') return;
    // The same order anew as this run placed it: its environment and its codes file (a review pasted the hint of a
    // failed live order and placed a test order, its codes on stdout). A plan's row is its plan's to order again.
    const { intent } = this;
    const again = intent.key.startsWith('plan-')
      ? PLAN_ROW_ANEW
      : `to order it anew: ${placeCommand({ ...intent, out: intent.out?.path })}`;
    throw new OrderEndedError(order, again);
  }
}

/** The intent stays in the journal; the message says the order may exist and how to finish it. */
export function keptForResume(error: unknown, intent: Intent): unknown {
  if (!(error instanceof CliError) || error.exitCode === ExitCode.orderFailed) return error;
  // A message that names the order already ("while waiting for order ord_…") is not told its id a second time.
  const maybe = 'the order may or may not have been placed';
  if (
    error.message.includes(intent.orderId ? `order ${intent.orderId} was placed` : maybe) ||
    (intent.orderId !== undefined && error.message.endsWith('; it was placed'))
  )
    return error;
  const placed = intent.orderId
    ? error.message.includes(intent.orderId)
      ? 'it was placed'
      : `order ${intent.orderId} was placed`
    : maybe;
  // A local failure's own hint says what to mend first (free space on the disk of the codes file): running the
  // same command again before that fails the same way, night after night.
  const mend =
    error.exitCode === ExitCode.local && error.hint
      ? error.hint.replace(/,? then run the same command again$/, '')
      : undefined;
  // A file in the way of the codes: run again, the same command met it again, night after night, and the hint named
  // the resume that had just failed (a second review, stop 78). What moves it is said first.
  const inTheWay =
    error.code === 'out_exists' && intent.out
      ? `move ${intent.out.path} away, then run the same command again (nothing is lost or charged twice); or write over it: giftcodes order resume ${intent.key} --force${intent.orderId ? `; or write the codes elsewhere: giftcodes codes get ${intent.orderId} --out OTHER_FILE` : ''}`
      : undefined;
  const kept = new CliError(error.exitCode, error.placedMessage ?? `${error.message}; ${placed}`, {
    code: error.code,
    status: error.status,
    orderId: intent.orderId ?? error.orderId,
    hint:
      inTheWay ??
      (mend
        ? `${mend}, then run the same command again (nothing is lost or charged twice), or: giftcodes order resume ${intent.key}`
        : `nothing is lost or charged twice: run the same command again, or: giftcodes order resume ${intent.key}`),
  });
  return kept;
}

/**
 * An earlier run recorded a finished codes file for this order, and neither its temporary file nor its target
 * holds it now: it may have been renamed into place and moved away (the mark written after the rename was
 * lost), so the codes may already be with the user. Writing them again could hand them out twice: stop.
 */
function codesFileUnaccounted(intent: Intent, identity: FileIdentity): UsageError {
  const orderId = intent.orderId ?? intent.key;
  return new UsageError(
    `the codes of order ${orderId} (${identity.count ?? intent.quantity}) were written for ${identity.path} by an earlier run, and neither that file nor its temporary file holds them now: they may already have reached you, so they are not written again`,
    {
      code: 'codes_file_unaccounted',
      hint: `if you have them, end it with: giftcodes order abandon ${intent.key}   to write them again anyway: giftcodes codes get ${orderId} --out CODES_FILE`,
    },
  );
}

/** The codes file took its place but the journal could not record it: the error says the codes are there. */
function codesAlreadyInFile(error: unknown, intent: Intent, path: string): CliError {
  const cause = asLocalError(error, 'journal_failed');
  return new CliError(
    cause.exitCode,
    `${cause.message}; the codes of order ${intent.orderId!} are already in ${path} (written once, do not write them again)`,
    {
      code: cause.code,
      hint: `keep ${path}; once the journal can be written: giftcodes order resume ${intent.key}  (it finds the file and writes nothing)`,
    },
  );
}

/** The order's price as the API states it: its `amount`, else its `total`, when that is a money object. */
export function amountOf(order: Order): Money | undefined {
  return moneyOf(order.amount) ?? moneyOf(order.total);
}
