// A forward proxy for tests, on loopback: answers CONNECT host:port by opening a tunnel, records every target,
// and can require Proxy-Authorization, or misbehave: close the connection on CONNECT, or never answer it.
// `hosts` maps names only the proxy knows (api.giftcodes.test) to a loopback address, so a client that does
// not go through the proxy cannot even resolve them.
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface TestProxy {
  url: string;
  port: number;
  /** Every CONNECT target as asked (`host:port`), refused ones included. */
  connects: string[];
  /** The Proxy-Authorization headers received, as sent. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** `user:password` the proxy requires (Basic); 407 without it. */
  credentials?: string;
  /** Host names resolved by the proxy alone: name → address. */
  hosts?: Record<string, string>;
  /** What a CONNECT gets: a tunnel (the default), the connection closed, or no answer at all. */
  answer?: 'tunnel' | 'close' | 'nothing';
}

export async function startProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const connects: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => {
    // Only tunnels: a plain proxied GET is not what an https API needs.
    res.writeHead(405, { Connection: 'close' }).end();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    // Node takes its own error listener off a socket it hands to 'connect': a client that resets (a CLI that
    // exits) would otherwise be an uncaught error in the test process, whichever branch below it is in.
    client.on('error', () => undefined);
    const target = req.url ?? '';
    connects.push(target);
    authorizations.push(req.headers['proxy-authorization']);
    if (options.answer === 'close') {
      client.end();
      return;
    }
    if (options.answer === 'nothing') return;
    const expected =
      options.credentials === undefined ? undefined : `Basic ${Buffer.from(options.credentials).toString('base64')}`;
    if (expected !== undefined && req.headers['proxy-authorization'] !== expected) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const name = match[1]!.replace(/^\[|\]$/g, '');
    const upstream = connect({ host: options.hosts?.[name] ?? name, port: Number(match[2]) });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
