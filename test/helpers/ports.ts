// A free loopback port for a listener a test starts itself (a webhook receiver, a proxy), chosen before the listener
// starts (a server is told it first). Taken below Linux's ephemeral range (32768-60999 by default): a port the kernel
// handed out for listen(0) is also a source port for outgoing connections, and with the suite's loopback traffic
// one became a connection's local port between the probe and the listener's start ("port 37929 on 127.0.0.1 is
// already in use", webhook-schemes, npm test 2026-12-01 05:17).
import { createServer, type AddressInfo } from 'node:net';

/** Below the ephemeral range, above the well-known and registered ports a machine's services tend to use. */
const LOW = 20_000;
const HIGH = 32_000;

function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(undefined));
    probe.listen(port, '127.0.0.1', () => {
      const { port: bound } = probe.address() as AddressInfo;
      probe.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = await tryPort(LOW + Math.floor(Math.random() * (HIGH - LOW)));
    if (port !== undefined) return port;
  }
  // Every try taken (a crowded machine): the kernel's choice, as before.
  const port = await tryPort(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}
