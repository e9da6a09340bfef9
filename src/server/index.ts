// The reference server: a faithful, in-memory implementation of the API (openapi.yaml) for trying the CLI and testing it.
// Imports nothing from outside src/server.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isIPv6 } from 'node:net';
import { createHandler } from './app.js';
import type { Deps } from './context.js';
import { dialectFor } from './dialects.js';
import { Faults } from './faults.js';
import { Fulfilment } from './fulfilment.js';
import { Holds } from './holds.js';
import { answerClientError, responseWire, type Wire } from './http.js';
import { IdempotencyStore } from './idempotency.js';
import type { RunningServer, ServerOptions } from './options.js';
import { DEFAULT_WEBHOOK_SECRET, checkServerOptions } from './options.js';
import { defaultSeed, loadSeed } from './seed.js';
import { Store } from './store.js';
import { Webhooks } from './webhooks.js';

export type { DemoKey, RunningServer, ServerOptions } from './options.js';
export { defaultServerOptions } from './options.js';
export { SeedFileError } from './seed.js';

/** A slow or stalled client is cut off after this long. */
const REQUEST_TIMEOUT_MS = 10_000;

/** An address the server could not listen on, and the errno why (ListenError.errno), for its caller to word. */
export class ListenError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly errno: string | undefined,
    why: string,
  ) {
    super(`cannot listen on ${host}:${port}: ${why}`);
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => reject(new ListenError(host, port, e.code, e.code ?? e.message));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  checkServerOptions(opts);
  const seed = opts.seedFile === undefined ? defaultSeed() : await loadSeed(opts.seedFile);
  const store = new Store(seed);
  const webhooks = new Webhooks(
    opts.webhookUrl === undefined ? undefined : new URL(opts.webhookUrl),
    opts.webhookSecret ?? DEFAULT_WEBHOOK_SECRET,
    opts.log,
    opts.webhookScheme,
  );
  const fulfilment = new Fulfilment(opts.fulfilAfterMs, (order, view) => {
    if (view.status === 'failed') store.refund(order);
    webhooks.emit(view.status === 'completed' ? 'order.fulfilled' : 'order.failed', view);
  });
  const deps: Deps = {
    opts,
    store,
    idempotency: new IdempotencyStore(),
    fulfilment,
    webhooks,
    holds: new Holds(),
    dialect: dialectFor(opts),
    liveSecret: randomBytes(32).toString('hex'),
  };
  const handler = createHandler(deps, new Faults(opts));
  const wire: Wire = { gzip: opts.gzip ?? 'off', connectionClose: opts.connectionClose === true };
  const framed =
    wire.gzip === 'off' && !wire.connectionClose
      ? handler
      : (req: IncomingMessage, res: ServerResponse) => {
          responseWire.set(res, wire);
          handler(req, res);
        };
  const serverOptions = {
    requestTimeout: REQUEST_TIMEOUT_MS,
    headersTimeout: REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: 1000,
  };
  const server: Server = opts.tls
    ? createTlsServer({ ...serverOptions, cert: opts.tls.cert, key: opts.tls.key }, framed)
    : createServer(serverOptions, framed);
  server.keepAliveTimeout = 5000;
  server.on('clientError', answerClientError);
  await listen(server, opts.port, opts.host);

  const port = (server.address() as AddressInfo).port;
  const host = isIPv6(opts.host) ? `[${opts.host}]` : opts.host;
  let closing: Promise<void> | undefined;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    demoKeys: seed.resellers.map((r) => ({ resellerId: r.id, test: r.keys.test[0] ?? '', live: r.keys.live[0] ?? '' })),
    close() {
      closing ??= new Promise<void>((resolve) => {
        fulfilment.stop();
        webhooks.stop();
        deps.holds.release();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
