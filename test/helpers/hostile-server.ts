// A hostile API for the fuzz suites: a raw TCP server that answers each request however the test's plan
// says, including what node:http would never send (broken framing, invalid headers, endless or trickling
// bodies, a connection cut mid-body). Loopback only.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface HostileRequest {
  method: string;
  /** The request target as sent (path and query). */
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type Behaviour =
  /** A well-framed answer (Content-Length, Connection: close) with any status, headers and bytes. */
  | { kind: 'reply'; status: number; headers?: Record<string, string>; body: string | Buffer }
  /** Any bytes at all on the wire, then the connection closed. */
  | { kind: 'raw'; bytes: string | Buffer }
  /** Headers, then a body that never ends, as fast as the client reads it. */
  | { kind: 'endless'; contentType?: string }
  /** Headers, then one byte every `everyMs`, forever. */
  | { kind: 'trickle'; everyMs: number }
  /** Promises `declared` bytes, sends `sent`, then cuts the connection. */
  | { kind: 'cut'; declared: number; sent: string }
  /** Reads the request and never answers. */
  | { kind: 'silent' }
  /** Closes the connection as soon as the request has arrived. */
  | { kind: 'reset' };

export type Plan = (request: HostileRequest) => Behaviour;

/**
 * A well-framed JSON answer: the value as its body, with any status and further headers (a reply says JSON unless
 * they say otherwise).
 */
export function jsonReply(value: unknown, status = 200, headers: Record<string, string> = {}): Behaviour {
  return { kind: 'reply', status, headers, body: JSON.stringify(value) };
}

export interface HostileServer {
  url: string;
  port: number;
  /** Every request received since start (or the last `requests.length = 0`). */
  requests: HostileRequest[];
  /** What to do with the next requests; change it between cases. */
  plan: Plan;
  close(): Promise<void>;
}

const HEAD_END = '\r\n\r\n';
const MAX_HEAD = 64 * 1024;

export async function startHostileServer(plan: Plan): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const state: HostileServer = {
    url: '',
    port: 0,
    requests: [],
    plan,
    close: () => close(server, sockets, timers),
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let handled = false;
    socket.on('data', (chunk: Buffer) => {
      if (handled) return;
      buffered = Buffer.concat([buffered, chunk]);
      const request = parseRequest(buffered);
      if (request === 'incomplete') {
        if (buffered.length > MAX_HEAD) socket.destroy();
        return;
      }
      handled = true;
      state.requests.push(request);
      let behaviour: Behaviour;
      try {
        behaviour = state.plan(request);
      } catch {
        behaviour = { kind: 'reset' };
      }
      behave(socket, behaviour, timers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  return state;
}

function parseRequest(bytes: Buffer): HostileRequest | 'incomplete' {
  const end = bytes.indexOf(HEAD_END);
  if (end < 0) return 'incomplete';
  const head = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const [method = '', path = ''] = (head[0] ?? '').split(' ');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? '0');
  const body = bytes.subarray(end + HEAD_END.length);
  if (body.length < length) return 'incomplete';
  return { method, path, headers, body: body.subarray(0, length).toString('utf8') };
}

function behave(socket: Socket, b: Behaviour, timers: Set<NodeJS.Timeout>): void {
  switch (b.kind) {
    case 'reply': {
      const body = typeof b.body === 'string' ? Buffer.from(b.body, 'utf8') : b.body;
      const headers = {
        'Content-Type': 'application/json',
        ...b.headers,
        'Content-Length': String(body.length),
        Connection: 'close',
      };
      const head = `HTTP/1.1 ${b.status} Whatever\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\n\r\n`;
      socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
      return;
    }
    case 'raw':
      socket.end(b.bytes);
      return;
    case 'endless': {
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: ${b.contentType ?? 'application/json'}\r\nConnection: close\r\n\r\n[`,
      );
      const chunk = Buffer.from(`${'{"code":"AAAA-BBBB-CCCC"},'.repeat(2048)}`);
      const pump = (): void => {
        while (!socket.destroyed && socket.write(chunk));
      };
      socket.on('drain', pump);
      pump();
      return;
    }
    case 'trickle': {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n');
      const timer = setInterval(() => {
        if (socket.destroyed) {
          clearInterval(timer);
          timers.delete(timer);
          return;
        }
        socket.write(' ');
      }, b.everyMs);
      timers.add(timer);
      return;
    }
    case 'cut':
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${b.declared}\r\n\r\n${b.sent}`,
      );
      setTimeout(() => socket.destroy(), 20);
      return;
    case 'silent':
      return;
    case 'reset':
      socket.destroy();
      return;
  }
}

function close(server: Server, sockets: Set<Socket>, timers: Set<NodeJS.Timeout>): Promise<void> {
  for (const timer of timers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}
