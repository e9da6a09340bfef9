// Both ends of a webhook for tests: `giftcodes webhook listen` running and answering HTTP, and a receiver
// that records every request it is sent (as the reference server's webhook target, or a --forward-to target).
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnCli, until, type RunResult } from './e2e.js';

export interface Listener {
  proc: ChildProcess;
  result: Promise<RunResult>;
  /** http://127.0.0.1:<port>, without the path. */
  url: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then what the run ended with. */
  stop(): Promise<RunResult>;
}

/** Starts `giftcodes webhook listen --port <port> <extra>` with exactly `env` added, and waits until it answers HTTP. */
export async function webhookListener(port: number, extra: string[], env: NodeJS.ProcessEnv): Promise<Listener> {
  const { proc, result } = spawnCli(['webhook', 'listen', '--port', String(port), ...extra], { env });
  proc.stdin?.end();
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (proc.exitCode !== null) throw new Error(`webhook listen exited ${proc.exitCode}: ${stderr}`);
    return fetch(`${url}/hook`).then(
      (res) => (res.status === 405 ? true : undefined),
      () => undefined,
    );
  });
  return {
    proc,
    result,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: () => {
      proc.kill('SIGTERM');
      return result;
    },
  };
}

export interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  /** The body parsed, when it is JSON. Tests read fields freely; the assertions are what check them. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  event: any;
  answered: number;
}

export interface Receiver {
  /** Where to send: http://127.0.0.1:<port><path>. */
  url: string;
  /** Every request received, in order. */
  deliveries: Delivery[];
  /** The statuses still to answer, in turn; 200 once it is empty. Push to it to fail the next ones. */
  plan: number[];
  close(): Promise<void>;
}

/** An HTTP receiver on loopback that records each request and answers the statuses in `plan` in turn, then 200. */
export async function recordingReceiver(path: string, plan: number[] = []): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const answered = plan.shift() ?? 200;
      let event: unknown;
      try {
        event = JSON.parse(raw);
      } catch {
        event = undefined;
      }
      deliveries.push({ headers: req.headers, raw, event, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    deliveries,
    plan,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
