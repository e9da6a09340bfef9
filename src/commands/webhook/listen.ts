import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { exportItem, warnOutsideJson } from '../../output/exporter.js';
import type { Io } from '../../output/io.js';
import type { Delivery, Scheme, WebhookEvent } from '../../webhooks/receiver.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { SCHEMES } from '../../webhooks/schemes.js';
import { httpUrl, nonEmpty, portNumber } from '../parse.js';

export interface ListenOptions {
  host: string;
  port: number;
  /** --secret (warned), else --secret-file, else GIFTCODES_WEBHOOK_SECRET. */
  secret?: string | undefined;
  secretFile?: string | undefined;
  /** Detected from each delivery's headers when absent. */
  scheme?: Scheme | undefined;
  signatureHeader: string;
  forwardTo?: URL | undefined;
}

interface ListenFlags {
  host: string;
  port: number;
  secret?: string;
  secretFile?: string;
  scheme?: Scheme;
  signatureHeader: string;
  forwardTo?: URL;
}

const FORWARD_TIMEOUT_MS = 10_000;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('listen')
    .description(
      'receive webhook events: verify each signature, drop duplicates, print each event, optionally forward it',
    )
    .addOption(
      new Option('--port <port>', 'port to listen on (0 picks a free one)').argParser(portNumber).makeOptionMandatory(),
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--secret-file <path>',
      'read the webhook signing secret from this file (or set GIFTCODES_WEBHOOK_SECRET)',
      nonEmpty('secret file', 4096),
    )
    .option(
      '--secret <secret>',
      'the webhook signing secret on the command line: every user sees it in ps (prefer --secret-file)',
      nonEmpty('secret', 1000),
    )
    .addOption(
      new Option('--scheme <scheme>', 'signature scheme (default: detected from the headers)').choices(SCHEMES),
    )
    .option(
      '--signature-header <name>',
      'the header that carries the signature, as the service names it (its form and companion headers decide the scheme)',
      nonEmpty('header name'),
      'Giftcodes-Signature',
    )
    .option('--forward-to <url>', 'POST each verified event on to this URL, with its body and signature', httpUrl)
    .action(async (flags: ListenFlags, cmd: Command) =>
      run(
        {
          host: flags.host,
          port: flags.port,
          secret: flags.secret,
          secretFile: flags.secretFile,
          scheme: flags.scheme,
          signatureHeader: flags.signatureHeader,
          forwardTo: flags.forwardTo,
        },
        app.context(cmd).deps,
      ),
    );
  examples(command, [
    'GIFTCODES_WEBHOOK_SECRET=whsec_demo giftcodes webhook listen --port 8787',
    'giftcodes serve --webhook-url http://127.0.0.1:8787/hook  # another terminal',
    'giftcodes webhook listen --port 8787 --json | jq -r .data.order.id',
    'giftcodes webhook listen --port 8787 --scheme github --secret-file gh.secret',
    'giftcodes webhook listen --port 8787 --forward-to http://127.0.0.1:3000/',
  ]);
}

/**
 * Listens until SIGINT/SIGTERM, then closes and returns (exit 0); or until stdout cannot take an event (its
 * reader closed the pipe, a full disk): that event is answered 500 and the run ends with exit 8.
 */
export async function run(options: ListenOptions, deps: Pick<Deps, 'io' | 'signal'>): Promise<void> {
  const { resolveWebhookSecret } = await import('../../webhooks/secret.js');
  const { secret, flagWarning, fileWarning } = resolveWebhookSecret({
    flag: options.secret,
    flagName: '--secret',
    file: options.secretFile,
    env: deps.io.env,
  });
  if (fileWarning) deps.io.warn(fileWarning);
  if (flagWarning) warnOutsideJson(deps.io, flagWarning);
  if (!secret) {
    throw new UsageError('no webhook secret', {
      code: 'secret_missing',
      hint: 'set GIFTCODES_WEBHOOK_SECRET, or pass --secret-file <path>',
    });
  }
  deps.io.addSecret(secret);
  const { startWebhookReceiver, orderFromEvent } = await import('../../webhooks/receiver.js');
  const io = deps.io;
  const forwards = new Set<Promise<void>>();
  // Stopped by SIGINT/SIGTERM, or by stdout refusing an event (exit 8): its reader is gone.
  let stop!: () => void;
  const stopped = new Promise<void>((resolvePromise) => (stop = resolvePromise));
  let outputFailed: unknown;
  const receiver = await startWebhookReceiver({
    host: options.host,
    port: options.port,
    secret,
    scheme: options.scheme,
    signatureHeader: options.signatureHeader,
    onEvent: async (event, raw, delivery) => {
      // One JSON line per event; --query applies to each event.
      try {
        await exportItem(io, event, () => describe(event, orderFromEvent(event), delivery));
      } catch (error) {
        // Not printed, so not received: answered 500 (the sender retries it), and the listener stops: its reader is gone.
        outputFailed ??= error;
        stop();
        throw error;
      }
      if (options.forwardTo) {
        const sent = forward(options.forwardTo, raw, delivery, io).finally(() => forwards.delete(sent));
        forwards.add(sent);
      }
    },
    // An event refused because stdout failed is said once, as the run's error.
    // A bad signature is most often a secret that is not the sender's: said beside it.
    onReject: (status, reason, claimedId) =>
      outputFailed === undefined
        ? io.warn(
            `refused a delivery${claimedId ? ` (${claimedId}, as it names itself)` : ''} (${status}): ${reason}${reason === 'bad signature' ? ' (is the secret the one the sender signs with?)' : ''}`,
          )
        : undefined,
  });
  io.notice(`listening for webhook events on ${receiver.url} (any path); Ctrl-C to stop`);
  if (options.forwardTo) io.notice(`forwarding verified events to ${options.forwardTo.href}`);
  if (deps.signal.aborted) stop();
  else deps.signal.addEventListener('abort', () => stop(), { once: true });
  await stopped;
  await receiver.close();
  await Promise.allSettled([...forwards]);
  if (outputFailed !== undefined) throw outputFailed;
  io.notice('stopped listening');
}

/** One line: when, type, event id, order id, order status (GitHub names the type in a header, Standard Webhooks the id). */
function describe(event: WebhookEvent, order: Record<string, unknown> | undefined, delivery: Delivery): string {
  const created = typeof event.created === 'number' ? new Date(event.created * 1000) : new Date();
  const field = (value: unknown): string =>
    typeof value === 'string' || typeof value === 'number' ? String(value) : '-';
  return [
    created.toISOString(),
    field(event.type ?? delivery.signed['x-github-event']),
    field(event.id ?? delivery.id),
    field(order?.id),
    field(order?.status),
  ].join('  ');
}

async function forward(url: URL, raw: string, delivery: Delivery, io: Io): Promise<void> {
  const id = delivery.id ?? 'event';
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...delivery.signed },
      body: raw,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.status < 200 || res.status >= 300) io.warn(`forwarding ${id} to ${url.href} failed: HTTP ${res.status}`);
    else io.debug(`forwarded ${id} to ${url.href}: HTTP ${res.status}`);
  } catch (error) {
    io.warn(`forwarding ${id} to ${url.href} failed: ${forwardFailure(url, error)}`);
  }
}

/**
 * Why a forward failed, in words: fetch's own message is "fetch failed" whatever the cause, and its cause says it (a
 * person's-day review read "failed: fetch failed" for a port fetch refuses to use).
 */
export function forwardFailure(url: URL, error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code === 'ECONNREFUSED') return `connection refused (nothing listens on ${url.host}?)`;
  if (code === 'ENOTFOUND') return `host ${url.hostname} not found`;
  if (code !== undefined) return code;
  // The Fetch standard's "bad ports" (1, 25, 6000, …): fetch never connects to them.
  if (cause?.message === 'bad port')
    return `port ${url.port} is one fetch never connects to (a "bad port" of the Fetch standard): forward to another port`;
  if ((error as { name?: unknown } | undefined)?.name === 'TimeoutError')
    return `no answer in ${FORWARD_TIMEOUT_MS / 1000} s`;
  if (typeof cause?.message === 'string' && cause.message !== '') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
