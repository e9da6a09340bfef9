// `webhook listen` end to end: the reference server's signed events reach it, forged, stale and
// repeated deliveries do not get printed, and a listener that was down when the event was first sent
// still gets it from the server's retries.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placedOnServer, servedApi, spawnCli, until, unstamped } from '../helpers/e2e.js';
import { freePort } from '../helpers/ports.js';
import { recordingReceiver, webhookListener, type Listener, type Receiver } from '../helpers/webhooks.js';

const SECRET = 'whsec_e2e_4b9c2d7e1f';

/** `webhook listen` with this file's secret in the environment unless `env` says otherwise. */
const listen = (port: number, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Listener> =>
  webhookListener(port, extra, { GIFTCODES_WEBHOOK_SECRET: SECRET, ...env });

function sign(body: string, t = Math.floor(Date.now() / 1000), secret = SECRET): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

function event(
  id = `evt_${randomUUID().replace(/-/g, '')}`,
  orderId = `ord_${randomUUID().slice(0, 8)}`,
): { id: string; orderId: string; body: string } {
  const body = JSON.stringify({
    id,
    type: 'order.fulfilled',
    created: Math.floor(Date.now() / 1000),
    data: { order: { id: orderId, status: 'completed' } },
  });
  return { id, orderId, body };
}

async function deliver(
  url: string,
  body: string,
  signature: string | undefined,
  header = 'Giftcodes-Signature',
): Promise<number> {
  const res = await fetch(`${url}/hook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { [header]: signature } : {}) },
    body,
  });
  await res.body?.cancel();
  return res.status;
}

const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('webhook listen with the reference server', () => {
  let port: number;
  const served = servedApi(async () => {
    port = await freePort();
    return [
      '--fulfil-after',
      '200',
      '--webhook-url',
      `http://127.0.0.1:${port}/hook`,
      '--webhook-secret',
      SECRET,
      '--log',
    ];
  });
  let listener: Listener;
  let serverLog = '';
  beforeAll(() => {
    served.server.proc.stderr?.on('data', (c: Buffer) => (serverLog += c.toString()));
  });
  afterAll(() => {
    listener?.proc.kill('SIGKILL');
  });

  it('a listener that was down when the event was first sent gets it from the retries', async () => {
    const orderId = await placedOnServer(served.server);
    // The first delivery finds nobody listening.
    await until(() => (/webhook evt_\w+ attempt 1: (?!2\d\d)/.test(serverLog) ? true : undefined));
    listener = await listen(port);
    await until(() => (listener.stdout().includes(orderId) ? true : undefined));
    const line =
      listener
        .stdout()
        .split('\n')
        .find((l) => l.includes(orderId)) ?? '';
    expect(line).toMatch(/order\.fulfilled\s+evt_\w+\s+ord_\w+\s+completed/);
    // The listener prints the event before the server has logged its 200: wait for the log line.
    await until(() => (/attempt \d+: 200/.test(serverLog) ? true : undefined));
    expect(serverLog).toMatch(/attempt \d+: 200/);
  });

  it('prints a signed event from the server once', async () => {
    const orderId = await placedOnServer(served.server);
    await until(() => (listener.stdout().includes(orderId) ? true : undefined));
    const eventId = /evt_\w+/.exec(
      listener
        .stdout()
        .split('\n')
        .find((l) => l.includes(orderId)) ?? '',
    )?.[0];
    expect(eventId).toBeDefined();
    await until(() => (serverLog.includes(`webhook ${eventId} attempt 1: 200`) ? true : undefined));
    expect(count(listener.stdout(), orderId)).toBe(1);
  });

  it('answers 400 to a missing or bad signature, and prints nothing', async () => {
    const forged = event();
    expect(await deliver(listener.url, forged.body, undefined)).toBe(400);
    expect(await deliver(listener.url, forged.body, sign(forged.body, undefined, 'whsec_wrong'))).toBe(400);
    expect(await deliver(listener.url, forged.body, 't=123,v1=zz')).toBe(400);
    // A signature over another body.
    expect(await deliver(listener.url, forged.body, sign(`${forged.body} `))).toBe(400);
    await until(() => (count(listener.stderr(), 'refused a delivery (400)') >= 4 ? true : undefined));
    expect(listener.stdout()).not.toContain(forged.id);
  });

  it('rejects a stale timestamp even with a good signature', async () => {
    const stale = event();
    const old = Math.floor(Date.now() / 1000) - 301;
    expect(await deliver(listener.url, stale.body, sign(stale.body, old))).toBe(400);
    const future = Math.floor(Date.now() / 1000) + 400;
    expect(await deliver(listener.url, stale.body, sign(stale.body, future))).toBe(400);
    expect(listener.stdout()).not.toContain(stale.id);
    // Within the tolerance is fine.
    expect(await deliver(listener.url, stale.body, sign(stale.body, Math.floor(Date.now() / 1000) - 200))).toBe(200);
    await until(() => (listener.stdout().includes(stale.id) ? true : undefined));
  });

  it('prints a redelivered event id once, answering 2xx each time', async () => {
    const e = event();
    expect(await deliver(listener.url, e.body, sign(e.body))).toBe(200);
    expect(await deliver(listener.url, e.body, sign(e.body))).toBe(200);
    // Any v1 of several may match (secret rotation).
    const t = Math.floor(Date.now() / 1000);
    const rotated = `t=${t},v1=${'0'.repeat(64)},v1=${sign(e.body, t).split('v1=')[1]}`;
    expect(await deliver(listener.url, e.body, rotated)).toBe(200);
    const marker = event();
    expect(await deliver(listener.url, marker.body, sign(marker.body))).toBe(200);
    await until(() => (listener.stdout().includes(marker.id) ? true : undefined));
    expect(count(listener.stdout(), e.id)).toBe(1);
  });

  it('answers 400 to a signed body that is not JSON', async () => {
    expect(await deliver(listener.url, 'not json', sign('not json'))).toBe(400);
  });

  it('stops on SIGTERM with exit 0', async () => {
    listener.proc.kill('SIGTERM');
    const ended = await listener.result;
    expect(ended.code).toBe(0);
  });
});

describe('webhook listen --json --forward-to', () => {
  let target: Receiver;
  let listener: Listener;
  beforeAll(async () => {
    target = await recordingReceiver('/in');
    listener = await listen(
      await freePort(),
      ['--json', '--signature-header', 'X-Sig', '--forward-to', target.url, '--secret', SECRET],
      { GIFTCODES_WEBHOOK_SECRET: '' },
    );
  });
  afterAll(async () => {
    listener?.proc.kill('SIGKILL');
    await target?.close();
  });

  it('prints one JSON line per event and forwards the raw body with its signature', async () => {
    const e = event();
    const signature = sign(e.body);
    expect(await deliver(listener.url, e.body, signature, 'Giftcodes-Signature')).toBe(400);
    expect(await deliver(listener.url, e.body, signature, 'X-Sig')).toBe(200);
    await until(() => (target.deliveries.length > 0 ? true : undefined));
    expect(target.deliveries[0]?.raw).toBe(e.body);
    expect(target.deliveries[0]?.headers['x-sig']).toBe(signature);
    const lines = listener.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual(JSON.parse(e.body));
  });

  it('reports a failed forward on stderr', async () => {
    target.plan.push(500);
    const e = event();
    expect(await deliver(listener.url, e.body, sign(e.body), 'X-Sig')).toBe(200);
    await until(() => (listener.stderr().includes(`forwarding ${e.id}`) ? true : undefined));
    expect(listener.stderr()).toMatch(new RegExp(`forwarding ${e.id} to \\S+ failed: HTTP 500`));
  });
});

describe('webhook listen whose reader goes away', () => {
  // `webhook listen --json | head -1`: once the reader has closed the pipe, the next event cannot be printed.
  // The listener stops with exit 8 and one line saying so; it neither dies with a stack trace (--json wrote
  // past the Io's error handling) nor listens on, printing nowhere (text).
  for (const mode of [['--json'], []]) {
    it(`${mode.join(' ') || 'text'}: stops with exit 8 and one line, no stack trace`, async () => {
      const listener = await listen(await freePort(), mode);
      try {
        const first = event();
        expect(await deliver(listener.url, first.body, sign(first.body))).toBe(200);
        await until(() => (listener.stdout().includes(first.id) ? true : undefined));
        listener.proc.stdout?.destroy();
        // Events until it exits (the close reaches it asynchronously); the one it could not print is answered
        // 500, so its sender retries it, never 2xx as if received.
        const statuses: number[] = [];
        await until(async () => {
          if (listener.proc.exitCode !== null) return true;
          const next = event();
          statuses.push(await deliver(listener.url, next.body, sign(next.body)).catch(() => 0));
          return undefined;
        });
        expect(statuses).toContain(500);
        const ended = await listener.result;
        expect(ended.code).toBe(8);
        // Besides the start's notice and the helper's readiness probe (a GET, refused 405): the run's one error.
        const lines = unstamped(ended.stderr)
          .trimEnd()
          .split('\n')
          .filter((line) => !line.includes('listening for webhook events') && !line.includes('(405)'));
        if (mode.length > 0) {
          expect(lines).toHaveLength(1);
          expect(JSON.parse(lines[0] ?? '')).toMatchObject({
            error: {
              code: 'output_failed',
              exitCode: 8,
              message: 'could not write the output to standard output (the reader closed the pipe)',
            },
          });
        } else {
          expect(lines[0]).toBe('error: could not write the output to standard output (the reader closed the pipe)');
          expect(lines.slice(1)).toEqual([expect.stringMatching(/^hint: /)]);
        }
        expect(ended.stderr).not.toMatch(/^\s+at /m);
        expect(ended.stderr).not.toContain('EPIPE');
      } finally {
        listener.proc.kill('SIGKILL');
      }
    });
  }
});

describe('webhook listen whose stderr reader goes away', () => {
  // Refusals are warned on stderr: with its reader gone, that warning met an unhandled EPIPE and the listener
  // died (exit 1), losing the events after it. It listens on: its events go to stdout, which still takes them.
  it('keeps listening and printing events after a warning it could not write', async () => {
    const listener = await listen(await freePort());
    try {
      listener.proc.stderr?.destroy();
      const forged = event();
      expect(await deliver(listener.url, forged.body, sign(forged.body, undefined, 'whsec_not_the_secret'))).toBe(400);
      const good = event();
      expect(await deliver(listener.url, good.body, sign(good.body))).toBe(200);
      await until(() => (listener.stdout().includes(good.id) ? true : undefined));
      expect(listener.proc.exitCode).toBeNull();
      expect((await listener.stop()).code).toBe(0);
    } finally {
      listener.proc.kill('SIGKILL');
    }
  });
});

describe('webhook listen refuses to start without a secret', () => {
  it('exits 2 naming --secret and GIFTCODES_WEBHOOK_SECRET', async () => {
    const { proc, result } = spawnCli(['webhook', 'listen', '--port', '0'], {
      env: { GIFTCODES_WEBHOOK_SECRET: undefined },
    });
    proc.stdin?.end();
    const ended = await result;
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain('GIFTCODES_WEBHOOK_SECRET');
  });
});
