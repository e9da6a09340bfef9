import type { Command } from 'commander';
import { Option } from 'commander';
import type { ServerOptions } from '../server/index.js';
import { DIALECTS, type DialectName } from '../server/dialect-names.js';
import { UsageError } from '../errors.js';
import { listenHint, listenMessage } from '../listen-failure.js';
import { stdoutFailed } from '../output/io.js';
import { SCHEMES } from '../webhooks/schemes.js';
import { examples, type App } from './app.js';
import { httpUrl, integer, portNumber, share } from './parse.js';

interface ServeFlags {
  host: string;
  port: number;
  seed?: string;
  latency: number;
  failRate: number;
  rateLimit: number;
  fulfilAfter: number;
  dropAfterCommit: number;
  hold: number;
  failOrders: number;
  webhookUrl?: string;
  webhookSecret?: string;
  dialect: DialectName;
  maxPage: number;
  shortPages?: boolean;
  webhookScheme?: ServerOptions['webhookScheme'];
  admin?: boolean;
  log?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  gzip?: 'accepted' | 'always';
  connectionClose?: boolean;
}

export function register(parent: Command, app: App): void {
  const command = parent
    .command('serve')
    .description(
      'run the local reference server (a faithful implementation of the API, with fault flags for tests); it keeps its orders in memory, so a restart forgets them',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--port <port>', 'port (0 picks a free one and prints it)').argParser(portNumber).default(4010),
    )
    .option('--seed <file>', 'JSON file of resellers, keys, wallets and products')
    .addOption(new Option('--latency <ms>', 'fault: delay every answer').argParser(integer(0, 600_000)).default(0))
    .addOption(new Option('--fail-rate <share>', 'fault: share of requests answered 503').argParser(share).default(0))
    .addOption(
      new Option('--rate-limit <n>', 'fault: requests per second before 429 with Retry-After (0 = off)')
        .argParser(integer(0, 1_000_000))
        .default(0),
    )
    .addOption(
      new Option('--fulfil-after <ms>', 'time for an order to go pending → processing → completed')
        .argParser(integer(0, 86_400_000))
        .default(1000),
    )
    .addOption(
      new Option(
        '--drop-after-commit <share>',
        'fault: share of orders committed, then the connection dropped unanswered',
      )
        .argParser(share)
        .default(0),
    )
    .addOption(
      new Option('--hold <ms>', 'fault: keep each order request in progress this long')
        .argParser(integer(0, 600_000))
        .default(0),
    )
    .addOption(
      new Option('--fail-orders <share>', 'share of orders that end failed instead of completed')
        .argParser(share)
        .default(0),
    )
    .option('--webhook-url <url>', 'send signed order.fulfilled events here', (value: string) =>
      httpUrl(value).toString(),
    )
    .option('--webhook-secret <secret>', 'secret that signs webhook events (default whsec_demo)')
    .addOption(
      new Option(
        '--dialect <name>',
        'how lists, resources and errors look: ours (openapi.yaml) or the dialect of a real API',
      )
        .choices(DIALECTS)
        .default('ours'),
    )
    .addOption(
      new Option('--max-page <n>', 'largest page served; larger sizes are clamped')
        .argParser(integer(1, 1000))
        .default(1000)
        .hideHelp(),
    )
    .addOption(
      new Option(
        '--short-pages',
        'fault: the last page of every list lacks an item while the total is still stated',
      ).hideHelp(),
    )
    .addOption(
      new Option('--webhook-scheme <scheme>', 'how webhook events are signed').choices(SCHEMES).default('giftcodes'),
    )
    .option('--admin', 'enable the test endpoints /_admin/ledger, /_admin/reset, /_admin/held and /_admin/release')
    .option('--log', 'print one line per request')
    .option('--tls-cert <pem>', 'serve https with this certificate (PEM; with --tls-key)')
    .option('--tls-key <pem>', 'the private key of --tls-cert (PEM)')
    .addOption(
      new Option('--gzip [when]', 'gzip JSON bodies: when the client accepts gzip, or always (even unasked)')
        .choices(['accepted', 'always'])
        .preset('accepted'),
    )
    .option('--connection-close', 'answer with Connection: close and end each connection after one request')
    .action(async (flags: ServeFlags, cmd: Command) => {
      const { io } = app.context(cmd).deps;
      const tls = await readTls(flags);
      const [{ serveMain, ServeOutputError }, { defaultServerOptions, ListenError, SeedFileError }] = await Promise.all(
        [import('../server/main.js'), import('../server/index.js')],
      );
      const options: ServerOptions = {
        ...defaultServerOptions(),
        host: flags.host,
        port: flags.port,
        latencyMs: flags.latency,
        failRate: flags.failRate,
        rateLimit: flags.rateLimit,
        fulfilAfterMs: flags.fulfilAfter,
        dropAfterCommit: flags.dropAfterCommit,
        holdMs: flags.hold,
        failOrders: flags.failOrders,
        dialect: flags.dialect,
        maxPage: flags.maxPage,
        shortPages: flags.shortPages === true,
        admin: flags.admin === true,
        ...(flags.seed ? { seedFile: flags.seed } : {}),
        ...(flags.webhookUrl ? { webhookUrl: flags.webhookUrl } : {}),
        ...(flags.webhookSecret ? { webhookSecret: flags.webhookSecret } : {}),
        ...(flags.webhookScheme ? { webhookScheme: flags.webhookScheme } : {}),
        ...(flags.log ? { log: (line: string) => io.errRaw(`${line}\n`) } : {}),
        ...(tls ? { tls } : {}),
        ...(flags.gzip ? { gzip: flags.gzip } : {}),
        ...(flags.connectionClose ? { connectionClose: true } : {}),
      };
      try {
        await serveMain(options, io.stdout, io.stderr);
      } catch (error) {
        if (error instanceof ServeOutputError) throw stdoutFailed(error.failure, "the server's address");
        // The server knows nothing of the CLI's errors: a seed it cannot read or an address it cannot take is bad input,
        // said in the words the rest of the CLI uses (a newcomer starting the quickstart's server a second time read
        // the errno alone: `cannot listen on 127.0.0.1:4010: EADDRINUSE`).
        if (error instanceof ListenError && error.errno !== undefined)
          throw serveFailed(
            listenMessage(error.errno, error.host, error.port),
            listenHint(error.errno, { port: '--port' }),
          );
        if (error instanceof SeedFileError) {
          const { whyUnreadable } = await import('../files/errno.js');
          throw serveFailed(
            `cannot read seed file ${error.file}: ${whyUnreadable({ code: error.errno }, 'file')}`,
            'check --seed',
          );
        }
        const message = error instanceof Error ? error.message : String(error);
        throw serveFailed(message, serveHint(message));
      }
    });
  examples(command, [
    'giftcodes serve',
    'giftcodes serve --port 0 --fail-rate 0.3 --rate-limit 20',
    'giftcodes serve --dialect jsonapi',
    'giftcodes serve --webhook-url http://127.0.0.1:8787/hook',
    'giftcodes serve --tls-cert server.pem --tls-key server.key --gzip',
  ]);
}

/** Both PEM files or neither; an unreadable one is bad input, said before the server starts. */
async function readTls(flags: ServeFlags): Promise<{ cert: string; key: string } | undefined> {
  if (flags.tlsCert === undefined && flags.tlsKey === undefined) return undefined;
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) {
    throw new UsageError('--tls-cert and --tls-key go together', {
      code: 'usage',
      hint: 'give both PEM files, or neither for plain http',
    });
  }
  const { readFile } = await import('node:fs/promises');
  const read = async (flag: string, path: string): Promise<string> => {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${flag} ${path}: ${(error as { code?: string }).code ?? 'unreadable'}`, {
        code: 'usage',
      });
    }
  };
  return { cert: await read('--tls-cert', flags.tlsCert), key: await read('--tls-key', flags.tlsKey) };
}

function serveFailed(message: string, hint: string): UsageError {
  return new UsageError(`cannot start the server: ${message}`, { code: 'serve_failed', hint });
}

/** The hint of any other failure names the flag behind it: a seed file, an address, or the TLS pair. */
function serveHint(message: string): string {
  if (/seed/i.test(message)) return 'check --seed';
  if (/EADDRINUSE|EADDRNOTAVAIL|EACCES|listen|address/i.test(message))
    return 'check --host and --port (is another server already on that port? --port 0 picks a free one)';
  if (/cert|key|tls|pem|ssl/i.test(message)) return 'check --tls-cert and --tls-key';
  return 'check --seed, --host, --port, --tls-cert and --tls-key';
}
