// Opening connections, where undici needs help: what fails while a connection is being opened (TCP, the
// proxy's CONNECT, the TLS handshake) is marked, as the proof that no request was written; a connection
// closed while being opened ends instead of being reopened at once forever; and an attempt's deadline holds
// while undici, which honours an abort only once a request has a connection, is still opening one.
import type { Readable } from 'node:stream';
import type { buildConnector } from 'undici';

/**
 * Errors raised while a connection was being opened (TCP, the proxy's CONNECT, the TLS handshake), before any
 * request was written on it: the structural proof that nothing was sent, whatever the error's code says.
 */
const connectFailures = new WeakSet<object>();

/** Whether this error came from opening a connection, so that no byte of the request can have left. */
export function neverConnected(error: unknown): boolean {
  return typeof error === 'object' && error !== null && connectFailures.has(error);
}

/**
 * The proxy (or the server) closed the connection while it was being opened. undici's own error for this
 * (UND_ERR_SOCKET) makes it open the connection again at once, forever, with the request still queued.
 */
export class ClosedWhileConnectingError extends Error {
  readonly code = 'GC_CLOSED_WHILE_CONNECTING';
  constructor(cause: unknown) {
    super('the connection was closed while it was being opened', { cause });
  }
}

/** Opening the connection took longer than one attempt may (a proxy that never answers CONNECT). */
export class ConnectTimeoutError extends Error {
  readonly code = 'GC_CONNECT_TIMEOUT';
  constructor() {
    super('timed out opening the connection');
  }
}

export type Connector = buildConnector.connector;

/**
 * The connector a client opens its connections with, made to mark what fails there (neverConnected), to end
 * instead of retrying at once a connection closed while being opened, and to give the proxy's CONNECT a
 * deadline (undici passes the connector's `signal` on to it, and sets none itself).
 */
export function guarded(connector: Connector, timeoutMs: number): Connector {
  return (options, callback) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ConnectTimeoutError()), timeoutMs);
    timer.unref();
    connector({ ...options, signal: controller.signal } as buildConnector.Options, (error, socket) => {
      clearTimeout(timer);
      if (!error) {
        callback(null, socket!);
        return;
      }
      const failure =
        (error as { code?: unknown }).code === 'UND_ERR_SOCKET' ? new ClosedWhileConnectingError(error) : error;
      connectFailures.add(failure);
      callback(failure, null);
    });
  };
}

/**
 * The request's promise, or the signal's reason as soon as it aborts: undici honours an abort only once a
 * request has a connection, so a connection that takes long to open (a proxy silent after CONNECT) would
 * otherwise hold the attempt past its deadline. A request given up this way is never written later: undici
 * checks the abort before it writes.
 */
export function untilAborted<T extends { body: Readable }>(request: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    request.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        // Answered after the attempt was given up: nobody will read the body.
        if (signal.aborted) response.body.destroy();
        else resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
