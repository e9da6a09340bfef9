// The order state machine: prepared → sending → accepted → delivered → resolved, or refused, failed,
// abandoned. One function per transition; each writes its phase durably (atomic, fsynced) before the next
// step is taken, and passes a named failpoint (STYLE 10). The intent is resolved in exactly one place,
// resolve(), which runs only after the sink reported success (STYLE 11).
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { ApiClient } from '../api/client.js';
import { orderOutcome } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import { CliError, ExitCode, LocalError } from '../errors.js';
import type { OutLock } from '../export/out-lock.js';
import { failpoint, failpointSync } from '../failpoints.js';
import type { FileIdentity, Intent, OutSpec } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import type { Io } from '../output/io.js';
import { OrderEndedError, waitForOrder } from './wait.js';

/** What a verb hands the machine: narrow, so a test can run it with a test Io and a real server. */
export interface MachineDeps {
  io: Io;
  api: ApiClient;
  journal: Journal;
  signal: AbortSignal;
  now?: () => number;
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
  if (error.status !== undefined && REFUSED_STATUSES.includes(error.status)) return true;
  if (!firstAttempt) return false;
  if (error.notSent) return true;
  if (error.status !== undefined) return REFUSED_FIRST_STATUSES.includes(error.status);
  return error.exitCode === ExitCode.usage || error.exitCode === ExitCode.auth;
}

export class OrderMachine {
  intent: Intent;
  /** Armed by this process and not sent since: `sending` on disk, but certainly nothing went yet. */
  private armedUnsent = false;

  constructor(
    private readonly deps: MachineDeps,
    intent: Intent,
  ) {
    this.intent = intent;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The new state is durable when this settles; every step awaits it before the next (the write does not block other rows). */
  private async save(changes: Partial<Intent>): Promise<void> {
    this.intent = await this.deps.journal.saveAsync({ ...this.intent, ...changes }, this.now());
  }

  /** save() inside a synchronous callback (the export's beforeCommit, which runs right before its rename). */
  private saveSync(changes: Partial<Intent>): void {
    this.intent = this.deps.journal.save({ ...this.intent, ...changes }, this.now());
  }

  /**
   * prepared → sending, durable before the POST may go. send() arms first; a plan arms its next row while
   * this row's POST is out, so the row's disk wait overlaps the network instead of adding to it.
   */
  async arm(): Promise<void> {
    if (this.intent.phase !== 'prepared') return;
    await this.save({ phase: 'sending' });
    this.armedUnsent = true;
  }

  /**
   * prepared → sending → accepted: the POST with the journaled key and body, byte for byte. `answered` is
   * told when the POST has its answer (before `accepted` is written): a plan's row then needs the network
   * no more, and its worker may send the next row meanwhile.
   */
  async send(answered?: () => void): Promise<Order> {
    const firstAttempt = this.intent.phase === 'prepared' || this.armedUnsent;
    await this.arm();
    this.armedUnsent = false;
    let order: Order;
    try {
      order = (await this.deps.api.createOrder(this.intent.body, this.intent.key)).order;
    } catch (error) {
      answered?.();
      if (certainlyRefused(error, firstAttempt)) {
        await this.refuse(error as CliError);
        throw error;
      }
      throw keptForResume(error, this.intent);
    }
    await failpoint('request.sent');
    answered?.();
    return this.accept(order);
  }

  /** sending → accepted: the server's order id and status are on disk before anything else happens. */
  async accept(order: Order): Promise<Order> {
    await this.save({ phase: 'accepted', orderId: order.id, status: order.status });
    await failpoint('order.accepted');
    await this.endIfFailed(order);
    return order;
  }

  /** An accepted order read again (a resume): never a second POST. */
  async refresh(): Promise<Order> {
    const order = await this.deps.api.getOrder(this.intent.orderId!).catch((error: unknown) => {
      throw keptForResume(error, this.intent);
    });
    if (order.status !== this.intent.status) await this.save({ status: order.status });
    await this.endIfFailed(order);
    return order;
  }

  /** Waits for the order to complete; a failed order is an outcome (the intent ends `failed`). */
  async complete(o: { intervalS: number; timeoutS?: number | undefined }): Promise<Order> {
    try {
      const order = await waitForOrder({ api: this.deps.api, orderId: this.intent.orderId!, io: this.deps.io, signal: this.deps.signal, intervalS: o.intervalS, timeoutS: o.timeoutS });
      if (order.status !== this.intent.status) await this.save({ status: order.status });
      return order;
    } catch (error) {
      if (error instanceof OrderEndedError) await this.fail(error.order);
      throw error instanceof OrderEndedError ? error : keptForResume(error, this.intent);
    }
  }

  /** The codes file: its identity is recorded in the intent before the rename that delivers it. */
  async writeCodes(out: OutSpec, lock?: OutLock): Promise<Written> {
    const earlier = this.earlierFile(out.path);
    if (earlier) return { path: out.path, count: earlier.count ?? this.intent.quantity, format: earlier.format ?? out.format ?? 'json', earlier: true };
    const { exportCodes } = await import('../export/write.js');
    const orderId = this.intent.orderId!;
    try {
      const written = await exportCodes({
        api: this.deps.api,
        orderId,
        // The quantity ordered is how many codes must arrive: fewer is exit 5 and no file.
        expected: this.intent.quantity,
        out: out.path,
        format: out.format,
        force: out.force,
        csvRaw: out.csvRaw,
        io: this.deps.io,
        signal: this.deps.signal,
        ...(lock ? { lock } : {}),
        beforeCommit: (temp) => {
          failpointSync('codes.tmp-written');
          const identity = { ...fileIdentity(temp, orderId, out.path), format: out.format };
          this.saveSync({ files: [...(this.intent.files ?? []), identity] });
        },
      });
      // The count and format were not known before the rename; the identity gains them now (not needed for recognition).
      const files = this.intent.files ?? [];
      const last = files[files.length - 1];
      if (last) await this.save({ files: [...files.slice(0, -1), { ...last, count: written.count, format: written.format }] });
      if (out.path === '-' && (written.readerGone === true || written.count < this.intent.quantity)) {
        // The reader of stdout went away before every code was written: not delivered.
        throw new LocalError(`could not write the codes of order ${orderId} to standard output (${written.count} of ${this.intent.quantity} written)`, { code: 'output_failed' });
      }
      await failpoint('codes.renamed');
      return written;
    } catch (error) {
      throw keptForResume(out.path === '-' && !(error instanceof CliError) ? stdoutFailure(error) : error, this.intent);
    }
  }

  /** The file at `path` is one this intent's runs wrote, unchanged: its delivery, found after a crash. */
  earlierFile(path: string): FileIdentity | undefined {
    return deliveredFile(this.intent, path);
  }

  /** accepted → delivered: the sink (stdout flushed, or the file renamed into place) reported success. */
  async delivered(): Promise<void> {
    await this.save({ phase: 'delivered' });
    await failpoint('delivered');
  }

  /** delivered → resolved: the intent leaves the journal for the order record. The one place it happens. */
  async resolve(): Promise<void> {
    await this.deps.journal.end(this.intent, 'delivered', { now: this.now() });
    await failpoint('resolved');
  }

  /**
   * delivered → resolved for many machines of one journal (a plan's rows, once its summary is flushed), in
   * two durable steps for all of them instead of two per row: every row's record `delivered` is written
   * (fsynced, the directory once), which is the fact that it reached the user (settleDelivered ends an
   * intent it finds so recorded, as one in phase `delivered`); then every intent leaves the journal and
   * its directory is fsynced once. A crash before the records: the rows are `accepted`, and the same plan
   * again reads each order (never a second POST) and reports it; after them: they are settled.
   */
  static async resolveAll(journal: Journal, machines: readonly OrderMachine[]): Promise<void> {
    if (machines.length === 0) return;
    await journal.endAll(
      machines.map((machine) => machine.intent),
      'delivered',
      { now: machines[0]!.now(), recorded: () => failpoint('delivered') },
    );
    await failpoint('resolved');
  }

  /** → refused: certainly nothing was charged; the intent is over at once, nothing is left pending. */
  async refuse(error: CliError): Promise<void> {
    await this.deps.journal.end(this.intent, 'refused', { error, now: this.now() });
  }

  /** → failed: the order ended in a failure state; that is its outcome. */
  async fail(order: Order): Promise<void> {
    this.intent = { ...this.intent, status: order.status };
    await this.deps.journal.end(this.intent, 'failed', { now: this.now() });
  }

  private async endIfFailed(order: Order): Promise<void> {
    if (orderOutcome(order.status) !== 'failed') return;
    await this.fail(order);
    throw new OrderEndedError(order);
  }
}

/** The identity of a complete file: recorded before its rename, which keeps the inode. */
export function fileIdentity(file: string, orderId: string, path: string): FileIdentity {
  const stat = statSync(file);
  return { orderId, path, dev: stat.dev, ino: stat.ino, size: stat.size, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') };
}

/** The identity recorded by this intent that the file at `path` has now, content included, if any. */
export function deliveredFile(intent: Intent, path: string): FileIdentity | undefined {
  const candidates = (intent.files ?? []).filter((f) => f.path === path && f.orderId === intent.orderId);
  if (candidates.length === 0) return undefined;
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return undefined;
  const same = candidates.filter((f) => f.dev === stat.dev && f.ino === stat.ino && f.size === stat.size);
  if (same.length === 0) return undefined;
  const digest = createHash('sha256').update(readFileSync(path)).digest('hex');
  return same.find((f) => f.sha256 === digest);
}

/** The intent stays in the journal; the message says the order may exist and how to finish it. */
export function keptForResume(error: unknown, intent: Intent): unknown {
  if (!(error instanceof CliError) || error.exitCode === ExitCode.orderFailed) return error;
  const placed = intent.orderId ? `order ${intent.orderId} was placed` : 'the order may or may not have been placed';
  if (error.message.includes(placed)) return error;
  const kept = new CliError(error.exitCode, `${error.message}; ${placed}`, {
    code: error.code,
    status: error.status,
    hint: `nothing is lost or charged twice: run the same command again, or: giftcodes order resume ${intent.key}`,
  });
  return kept;
}

function stdoutFailure(error: unknown): LocalError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'ENOSPC' ? 'no space left on the device' : code === 'EPIPE' ? 'the reader closed the pipe' : (code ?? String(error));
  return new LocalError(`could not write the codes to standard output (${why})`, { code: 'output_failed', cause: error });
}
