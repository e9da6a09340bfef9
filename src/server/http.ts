// Small HTTP helpers: replies as data, JSON error bodies, a bounded body reader.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { gzipSync } from 'node:zlib';

/** How the server frames its answers on one response (index.ts sets it from --gzip and --connection-close). */
export interface Wire {
  gzip: 'off' | 'accepted' | 'always';
  connectionClose: boolean;
}

export const responseWire = new WeakMap<ServerResponse, Wire>();

/** Whether an Accept-Encoding header accepts gzip (a q of 0 refuses it). */
function acceptsGzip(header: string | undefined): boolean {
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [coding = '', ...params] = part.trim().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  }
  return false;
}

export const BODY_LIMIT = 64 * 1024;

/** What a handler answers; kept as bytes-to-be so an idempotent replay can send it again unchanged. */
export interface Reply {
  status: number;
  /** JSON text, or its UTF-8 bytes (a page of codes, made as bytes). */
  body: string | Buffer;
  headers?: Record<string, string>;
}

export function jsonReply(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return headers === undefined
    ? { status, body: JSON.stringify(value) }
    : { status, body: JSON.stringify(value), headers };
}

export function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

export function errorReply(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return headers === undefined
    ? { status, body: errorBody(code, message) }
    : { status, body: errorBody(code, message), headers };
}

/** Thrown by handlers for a plain error answer. */
export class HttpError extends Error {
  constructor(readonly reply: Reply) {
    super(String(reply.body));
  }
}

export function fail(status: number, code: string, message: string, headers?: Record<string, string>): never {
  throw new HttpError(errorReply(status, code, message, headers));
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const wire = responseWire.get(res);
  const gzip =
    wire !== undefined &&
    (wire.gzip === 'always' || (wire.gzip === 'accepted' && acceptsGzip(res.req.headers['accept-encoding'])));
  const body = gzip ? gzipSync(reply.body) : reply.body;
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    ...(wire && wire.gzip !== 'off' ? { Vary: 'Accept-Encoding' } : {}),
    ...(wire?.connectionClose ? { Connection: 'close' } : {}),
    ...reply.headers,
  };
  res.writeHead(reply.status, headers);
  res.end(body);
}

export type BodyResult = { ok: true; text: string } | { ok: false; reply: Reply };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the request body, refusing more than BODY_LIMIT bytes and invalid UTF-8. */
export function readBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<BodyResult> {
  const tooLarge = (): BodyResult => ({
    ok: false,
    reply: errorReply(413, 'payload_too_large', `the request body exceeds ${limit} bytes`, { Connection: 'close' }),
  });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve(tooLarge());
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        finish({ ok: true, text: utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) });
      } catch {
        finish({ ok: false, reply: errorReply(400, 'invalid_json', 'the request body is not valid UTF-8') });
      }
    });
    // 'close' also follows every normal 'end'; build the error only when it matters.
    const cut = () => {
      if (!done) finish({ ok: false, reply: errorReply(400, 'invalid_request', 'the request body was cut short') });
    };
    req.on('error', cut);
    req.on('close', cut);
  });
}

/** Answers requests node could not parse (bad framing, huge headers, timeouts) with a JSON error. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 431
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADERS_TIMEOUT'
        ? 408
        : 400;
  const code = status === 431 ? 'headers_too_large' : status === 408 ? 'request_timeout' : 'bad_request';
  const body = errorBody(
    code,
    status === 431
      ? 'the request headers are too large'
      : status === 408
        ? 'the request took too long to arrive'
        : 'the request could not be parsed',
  );
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
