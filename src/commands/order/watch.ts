import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { ApiClient } from '../../api/client.js';
import { orderOutcome, orderQuantity } from '../../api/outcome.js';
import type { Order } from '../../api/schemas.js';
import type { DeliveredCodes } from '../../orders/deliver.js';
import type { OrderRef } from '../../orders/ref.js';
import { ApiError, UsageError } from '../../errors.js';
import { warnOutsideJson } from '../../output/exporter.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { SCHEMES, type Scheme } from '../../webhooks/schemes.js';
import { nonEmpty, orderRefArg, portNumber } from '../parse.js';
import {
  addWaitFlags,
  checkWaitFlags,
  DEFAULT_INTERVAL_S,
  outSpec,
  withRecipients,
  type WaitFlags,
} from '../wait-flags.js';

export interface WatchOptions extends WaitFlags {
  id: string;
  webhookPort?: number;
  webhookSecret?: string;
  secretFile?: string;
  webhookScheme?: Scheme;
  signatureHeader?: string;
  /** The output mode is --json (checked against --out - and --format). */
  json: boolean;
}

type WatchDeps = Pick<
  Deps,
  'io' | 'signal' | 'api' | 'connection' | 'journal' | 'clientFor' | 'connectionTo' | 'currentTarget' | 'now'
> &
  Partial<Pick<Deps, 'config' | 'configDir'>>;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('watch')
    .description('wait until an order ends: exit 0 completed, 6 failed, 7 on --timeout')
    .argument('<ref>', 'order id, idempotency key, or a unique prefix of either (from the local record)', orderRefArg)
    .addOption(
      new Option('--webhook-port <port>', 'also listen for the signed order.fulfilled event on this port').argParser(
        portNumber,
      ),
    )
    .option(
      '--secret-file <path>',
      'read the webhook signing secret from this file (or set GIFTCODES_WEBHOOK_SECRET)',
      nonEmpty('secret file', 4096),
    )
    .option(
      '--webhook-secret <secret>',
      'the webhook signing secret on the command line: every user sees it in ps (prefer --secret-file)',
      nonEmpty('secret', 1000),
    )
    .addOption(
      new Option(
        '--webhook-scheme <scheme>',
        'signature scheme of the events (default: detected from the headers)',
      ).choices(SCHEMES),
    )
    .option('--signature-header <name>', 'the header carrying the signature (default Giftcodes-Signature)');
  addWaitFlags(command).action(async (id: string, flags: Omit<WatchOptions, 'id' | 'json'>, cmd: Command) => {
    const { json, deps } = app.context(cmd);
    return run({ ...flags, id, json }, deps);
  });
  examples(command, [
    'giftcodes order watch ord_8f2k1',
    'giftcodes order watch ord_8f2k1 --timeout 600 --out codes.csv',
    'export GIFTCODES_WEBHOOK_SECRET="$SECRET"   # the webhook signing secret',
    'giftcodes order watch ord_8f2k1 --webhook-port 8787',
    'giftcodes order watch ord_8f2k1 --webhook-port 8787 --secret-file whsec.txt',
  ]);
}

export async function run(options: WatchOptions, deps: WatchDeps): Promise<void> {
  options = await withRecipients(options, deps);
  const out = outSpec(options);
  checkWaitFlags(options, { json: options.json, waits: true, waitFlag: '', queried: deps.io.query !== undefined });
  const webhookSecret = await webhookSecretFor(options, deps);
  // An existing file is refused at once, unless it turns out to hold exactly these codes (a re-run).
  const { checkCodesTarget, deliverCodes, deliverFetched, recordingIn } = await import('../../orders/deliver.js');
  const existing = out ? await checkCodesTarget(out.path, out.force) : undefined;
  // A config directory that is not there (a mistyped GIFTCODES_CONFIG_DIR): the order is watched and its codes
  // written, and nothing is made or recorded there, as codes get does.
  const { recordless } = await import('./journal-missing.js');
  const here = await recordless(deps);
  here.say('this order is not recorded');
  const recorded = !here.missing;
  const { orderRef, noteStatus, fromOtherKey, ofPlanRow, anewOfRecord, recordedNotFound } =
    await import('../../orders/ref.js');
  let ref = await orderRef(deps, options.id);
  options = { ...options, id: ref.orderId };
  const { printOutcome } = await import('../../orders/drive.js');
  const { OrderEndedError } = await import('../../orders/wait.js');
  const waitOn = (ref: OrderRef) =>
    waitWithWebhook(deps, ref.api, { ...options, webhookSecret }).then(
      (order) => ({ order, failure: undefined }),
      (error: unknown) => {
        if (error instanceof OrderEndedError) return { order: error.order, failure: error };
        throw error;
      },
    );
  const { order, failure } = await waitOn(ref).catch(async (error: unknown) => {
    // A ref unknown here, not found with the key of one environment: asked with the profile's other key, once, and
    // waited for there when found.
    // An order recorded here that the API does not know: whose it is, and the cause that fits (ref.ts).
    if (ref.record && error instanceof ApiError && error.code === 'order_not_found')
      throw await recordedNotFound(
        deps,
        ref.record,
        ref.api.baseUrl,
        `this machine's record of it: giftcodes order show ${ref.orderId}`,
      );
    ref = (await fromOtherKey(deps, ref, error)).ref;
    return waitOn(ref);
  });
  const api = ref.api;
  const journal = await deps.journal();
  if (recorded) await noteStatus(journal, ref, order.status, deps.now());
  let written: DeliveredCodes | undefined;
  if (out && !failure) {
    // An interrupted order place of this order: the file is recorded in it around the rename (deliver.ts recordingIn).
    const finishing =
      recorded && out.path !== '-'
        ? recordingIn(
            journal,
            { orderId: order.id, baseUrl: api.baseUrl, out: { ...out, path: resolve(out.path) } },
            () => deps.now(),
          )
        : undefined;
    written = await deliverCodes({
      api,
      orderId: order.id,
      out,
      // What this machine ordered, when the journal recorded it, else the server's word: a server that says the
      // order is for fewer codes than were ordered must not pass for its delivery (exit 5, nothing settled).
      expected: ref.record?.quantity ?? orderQuantity(order),
      io: deps.io,
      signal: deps.signal,
      ...(recorded
        ? {
            recordedTemp: (temp: string) => journal.recordsTemp(temp),
            heldBy: (path: string) => journal.history.codesWrittenTo(path),
          }
        : {}),
      existing,
      ...(finishing ? { intent: finishing.intent } : {}),
    }).catch((error: unknown) => {
      finishing?.takeBack();
      throw error;
    });
  }
  // An interrupted `order place --out` of this order, its codes not written here: order resume writes them to the
  // file it recorded (codes get would make a second one).
  const waiting = written
    ? undefined
    : journal.read().intents.find((intent) => intent.orderId === order.id && intent.out && intent.out.path !== '-');
  // Codes this machine already wrote for it: where they are, not a second plaintext file by codes get.
  const delivered =
    ref.record?.outcome === 'delivered' && ref.record.out && ref.record.out !== '-' ? ref.record.out : undefined;
  const codesNext = waiting
    ? `its codes go to ${waiting.out!.path}: giftcodes order resume ${waiting.key}`
    : delivered && `its codes were written to ${delivered} here`;
  // An interrupted `order place` of this order has now reached the user (a failed one too): its intent is done.
  // A file that already held these codes is said once, as such (it read "already holds", then "✓ wrote": a review).
  const shown = written && { ...written, earlier: written.already === true };
  // Read before deliverFetched ends the interrupted intent of it: a plan row's failure is its plan's to order anew.
  const planRow = failure !== undefined && ofPlanRow(journal, ref);
  const print = () => printOutcome(deps.io, { order, written: shown }, codesNext);
  if (!recorded) await print();
  else
    await deliverFetched(deps.io, journal, print, {
      orderId: order.id,
      baseUrl: api.baseUrl,
      codes: written !== undefined,
      // Where the codes went, as codes get says it: the records of the intents this ends name that file, so a new order
      // at it is told whose codes it holds (a review was told only "exists: pass --force", which wrote over them).
      ...(written ? { out: written.path } : {}),
      ...(failure ? { ending: 'failed' as const } : {}),
      by: 'order watch',
      record: ref.record,
    });
  if (failure)
    throw planRow ? failure.ofPlanRow() : failure.orderedAnew(ref.record && (await anewOfRecord(deps, ref.record)));
}

/** The secret for --webhook-port from --secret-file, GIFTCODES_WEBHOOK_SECRET or --webhook-secret (warned); checked before anything is sent. */
async function webhookSecretFor(options: WatchOptions, deps: WatchDeps): Promise<string | undefined> {
  if (options.webhookPort === undefined) {
    if (
      options.secretFile !== undefined ||
      options.webhookSecret !== undefined ||
      options.webhookScheme !== undefined
    ) {
      throw new UsageError('the webhook secret and scheme go with --webhook-port', {
        hint: 'add --webhook-port <port>, or drop them',
      });
    }
    return undefined;
  }
  const { resolveWebhookSecret } = await import('../../webhooks/secret.js');
  const { secret, flagWarning, fileWarning } = resolveWebhookSecret({
    flag: options.webhookSecret,
    flagName: '--webhook-secret',
    file: options.secretFile,
    env: deps.io.env,
  });
  if (fileWarning) deps.io.warn(fileWarning);
  if (flagWarning) warnOutsideJson(deps.io, flagWarning);
  if (!secret)
    throw new UsageError('--webhook-port needs the signing secret', {
      hint: 'set GIFTCODES_WEBHOOK_SECRET, or pass --secret-file <path>',
    });
  deps.io.addSecret(secret);
  return secret;
}

/** Polls; with --webhook-port, a verified event for this order ends the wait early, confirmed by one GET. */
async function waitWithWebhook(deps: WatchDeps, api: ApiClient, options: WatchOptions): Promise<Order> {
  const { waitForOrder, againThenCodes } = await import('../../orders/wait.js');
  const poll = (signal: AbortSignal): Promise<Order> =>
    waitForOrder({
      api,
      orderId: options.id,
      io: deps.io,
      signal,
      intervalS: options.interval ?? DEFAULT_INTERVAL_S,
      timeoutS: options.timeout,
      ...(options.out ? { again: againThenCodes(options.out) } : {}),
    });
  if (options.webhookPort === undefined || !options.webhookSecret) return poll(deps.signal);

  const { startWebhookReceiver, orderFromEvent } = await import('../../webhooks/receiver.js');
  const stopPolling = new AbortController();
  const signal = AbortSignal.any([deps.signal, stopPolling.signal]);
  let onEventForOrder: () => void = () => undefined;
  let refusedSaid = false;
  const eventArrived = new Promise<void>((resolve) => {
    onEventForOrder = resolve;
  });
  const receiver = await startWebhookReceiver({
    port: options.webhookPort,
    portFlag: '--webhook-port',
    secret: options.webhookSecret,
    scheme: options.webhookScheme,
    ...(options.signatureHeader ? { signatureHeader: options.signatureHeader } : {}),
    onEvent: (event) => {
      const order = orderFromEvent(event);
      if (order && String(order.id) === options.id) onEventForOrder();
    },
    // A delivery refused for what it carries (400: most often a secret that is not the sender's) would leave the
    // watch on its polls without a word: said once. A probe's GET (405) does not use up that one warning.
    onReject: (status, reason) => {
      if (refusedSaid || status !== 400) return;
      refusedSaid = true;
      const secret = /signature/.test(reason) ? " (is the signing secret the sender's?)" : '';
      deps.io.warn(`refused a webhook delivery (${status}): ${reason}; the watch goes on polling${secret}`);
    },
  });
  deps.io.notice(`listening for webhook events on ${receiver.url}`);
  try {
    const confirmed = eventArrived.then(async () => {
      const order = await api.getOrder(options.id);
      const outcome = orderOutcome(order.status);
      if (outcome === 'in_progress') return new Promise<Order>(() => undefined);
      deps.io.notice(`webhook event received; order ${order.id} is ${order.status}`);
      if (outcome === 'failed') {
        const { OrderEndedError } = await import('../../orders/wait.js');
        throw new OrderEndedError(order);
      }
      return order;
    });
    const polled = poll(signal).catch((error: unknown) => {
      if (stopPolling.signal.aborted && !deps.signal.aborted) return new Promise<Order>(() => undefined);
      throw error;
    });
    const order = await Promise.race([confirmed, polled]);
    stopPolling.abort();
    return order;
  } finally {
    await receiver.close();
  }
}
