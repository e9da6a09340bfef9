// `giftcodes serve`: start the server, print where it listens and its demo keys, stop on SIGINT/SIGTERM.
import type { EventEmitter } from 'node:events';
import type { ServerOptions } from './options.js';
import { startServer } from './index.js';

/** `out` could not take the server's address and keys; the server is closed again. */
export class ServeOutputError extends Error {
  constructor(readonly failure: NodeJS.ErrnoException) {
    super(`could not write the server's address: ${failure.message}`, { cause: failure });
  }
}

/**
 * The first line on `out` is exactly `giftcodes reference server listening on <url>` (tests read the
 * port from it), then the login command that points the CLI at that URL, then one line per demo key (each reseller's
 * first test and live key): `  <reseller>  <environment>  <key>`, the resellers padded to one width.
 * `signals` is the process unless a test passes its own emitter.
 */
export async function serveMain(
  opts: ServerOptions,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
  signals: EventEmitter = process,
): Promise<void> {
  const server = await startServer(opts);
  const lines = [`giftcodes reference server listening on ${server.url}`, pointTheCli(server.url)];
  // The resellers' names padded to the longest, so that the keys line up (a person copies one from the screen).
  const width = Math.max(0, ...server.demoKeys.map((k) => k.resellerId.length));
  for (const k of server.demoKeys) {
    if (k.test !== '') lines.push(`  ${k.resellerId.padEnd(width)}  test  ${k.test}`);
    if (k.live !== '') lines.push(`  ${k.resellerId.padEnd(width)}  live  ${k.live}`);
  }
  // Where it listens is its output (with --port 0 the only way to learn the port): a stdout that cannot take it
  // (its reader gone, a full disk) stops the server. The listener stays: a late 'error' must not go unhandled.
  out.on('error', () => undefined);
  const failure = await new Promise<Error | null | undefined>((resolve) => out.write(`${lines.join('\n')}\n`, resolve));
  if (failure) {
    await server.close();
    throw new ServeOutputError(failure as NodeJS.ErrnoException);
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      signals.off('SIGINT', onInt);
      signals.off('SIGTERM', onTerm);
      err.write(`giftcodes reference server: ${signal} received, shutting down\n`);
      void server.close().then(resolve);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    signals.on('SIGINT', onInt);
    signals.on('SIGTERM', onTerm);
  });
}

/**
 * How to point the CLI at the server. Its default base URL (config/resolve.ts DEFAULT_BASE_URL) needs no flag: the
 * line named --base-url there too, and a newcomer wondered which of it and the README's plain login was right. Another
 * port (--port 0 picks a new one each time) is told where to go.
 */
export function pointTheCli(url: string): string {
  return url === 'http://127.0.0.1:4010'
    ? 'giftcodes uses this address by default: log in with: giftcodes login'
    : `export GIFTCODES_BASE_URL=${url}, or log in to it with: giftcodes login --base-url ${url}`;
}
