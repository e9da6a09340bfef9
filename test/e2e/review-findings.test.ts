// Findings of a hostile review of the exactly-once promise (docs/exactly-once.md): each test drives the built CLI
// against `giftcodes serve` (sometimes through a small relay started here) and checks the server's ledger and
// the journal. A test that still fails is skipped with the commit it fails on and why.
import { createServer, request, type Server } from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, chargesFor, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

/**
 * A relay in front of the API: everything is passed on, except POST /v1/orders. The first one reaches the
 * server (which charges it) and its answer is lost (the connection is cut, as a network does); every later one
 * is answered by the relay itself with `status`, as a gateway or a WAF in front of the API may answer a retry.
 */
function gateway(upstream: () => string, status: number): { url: () => string; posts: () => number; open: () => void } {
  let server: Server | undefined;
  let posts = 0;
  let open = false;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const isPost = req.method === 'POST' && (req.url ?? '').endsWith('/v1/orders');
        if (isPost && !open && ++posts >= 2) {
          // A WAF's 403 as JSON; a proxy's 404 as its own HTML page (nginx during a deploy).
          if (status === 404) {
            res.writeHead(404, { 'content-type': 'text/html' });
            res.end('<html><head><title>404 Not Found</title></head><body>nginx</body></html>');
            return;
          }
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'forbidden', message: 'denied by the gateway' } }));
          return;
        }
        const target = new URL(upstream());
        const up = request(
          new URL(req.url ?? '/', target),
          { method: req.method, headers: { ...req.headers, host: target.host } },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              if (isPost && !open) return void req.socket.destroy();
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(parts));
            });
          },
        );
        up.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return {
    url: () => `http://127.0.0.1:${(server!.address() as AddressInfo).port}`,
    posts: () => posts,
    open: () => {
      open = true;
    },
  };
}

describe('a 401 or 403 answering a retry of the POST, after an attempt that reached the server', () => {
  const api = servedApi();
  const relay = gateway(() => api.url, 403);

  it('keeps the order pending (it was charged), and the same command again charges nothing more', async () => {
    const configDir = await loggedIn(api.server);
    const args = ['order', 'place', '--product', 'amazon-us-50', '--quantity', '7', '--json'];
    const first = await runCli(args, { configDir, baseUrl: relay.url() });
    expect(relay.posts()).toBeGreaterThanOrEqual(2);
    expect(first.code).toBe(3);
    // The first attempt was charged: the server holds the order.
    expect(await chargesFor(api.server, 'amazon-us-50', 7)).toHaveLength(1);
    // So the order is not over: it was not certainly refused, and the journal keeps it for a resume.
    expect(await pendingNow(configDir)).toHaveLength(1);
    // Once the gateway lets it through, the same command finishes that order, never a second one.
    relay.open();
    const again = await runCli(args, { configDir, baseUrl: relay.url() });
    expect(again.code).toBe(0);
    expect(await chargesFor(api.server, 'amazon-us-50', 7)).toHaveLength(1);
  });
});

describe('a 404 from something in front of the API answering a retry of the POST', () => {
  const api = servedApi();
  const relay = gateway(() => api.url, 404);

  // Failed before the fix: a 404 (or 400, 422) answering a retry ended the order `refused` although the attempt before it was charged; the re-run charged again.
  it('keeps the order pending (it was charged), and the same command again charges nothing more', async () => {
    const configDir = await loggedIn(api.server);
    const args = ['order', 'place', '--product', 'amazon-us-100', '--quantity', '3', '--json'];
    const first = await runCli(args, { configDir, baseUrl: relay.url() });
    expect(relay.posts()).toBeGreaterThanOrEqual(2);
    expect(first.code).not.toBe(0);
    expect(await chargesFor(api.server, 'amazon-us-100', 3)).toHaveLength(1);
    expect(await pendingNow(configDir)).toHaveLength(1);
    relay.open();
    const again = await runCli(args, { configDir, baseUrl: relay.url() });
    expect(again.code).toBe(0);
    expect(await chargesFor(api.server, 'amazon-us-100', 3)).toHaveLength(1);
  });
});

/**
 * A relay that passes everything on, but ends every list of codes after its first two (no further page); with
 * `quantity`, an order read by id says it is for 2 codes too (a server whose answers contradict the journal).
 */
function truncatingRelay(upstream: () => string, o: { quantity?: boolean } = {}): { url: () => string } {
  let server: Server | undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const target = new URL(upstream());
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = { ...req.headers, host: target.host, 'accept-encoding': 'identity' };
        const up = request(new URL(req.url ?? '/', target), { method: req.method, headers }, (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            let body = Buffer.concat(parts);
            if (/\/codes(\?|$)/.test(req.url ?? '') && answer.statusCode === 200) {
              const list = JSON.parse(body.toString()) as {
                data: unknown[];
                has_more?: boolean;
                next_cursor?: unknown;
              };
              body = Buffer.from(
                JSON.stringify({ ...list, data: list.data.slice(0, 2), has_more: false, next_cursor: null }),
              );
            } else if (o.quantity && req.method === 'GET' && /\/v1\/orders\/[^/?]+$/.test(req.url ?? '')) {
              body = Buffer.from(JSON.stringify({ ...(JSON.parse(body.toString()) as object), quantity: 2 }));
            }
            const { 'content-length': _length, ...rest } = answer.headers;
            res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': String(body.length) });
            res.end(body);
          });
        });
        up.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return { url: () => `http://127.0.0.1:${(server!.address() as AddressInfo).port}` };
}

describe('codes get of an interrupted order, when the API serves fewer codes than the order is for', () => {
  const api = servedApi(['--fulfil-after', '0']);
  const relay = truncatingRelay(() => api.url);

  // Failed before the fix: codes get without --wait checked no count, wrote 2 of 5 codes, exit 0, and settled the interrupted place --out as delivered.
  it('does not end the interrupted order as delivered with 2 of its 5 codes', async () => {
    const dir = tempDir();
    const configDir = await loggedIn(api.server);
    const killed = await runCli(
      ['order', 'place', '--product', 'steam-us-50', '--quantity', '5', '--out', join(dir, 'a.json')],
      { configDir, baseUrl: relay.url(), env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } },
    );
    expect(killed.signal).toBe('SIGKILL');
    const [orderId] = await chargesFor(api.server, 'steam-us-50', 5);
    expect(orderId).toBeDefined();
    const got = await runCli(['codes', 'get', orderId!, '--out', join(dir, 'b.json')], {
      configDir,
      baseUrl: relay.url(),
    });
    // The journal knows the order is for 5 codes: 2 written is not the order delivered.
    const written = existsSync(join(dir, 'b.json'))
      ? (JSON.parse(readFileSync(join(dir, 'b.json'), 'utf8')) as unknown[]).length
      : 0;
    expect(got.code, got.stderr).toBe(5);
    expect(got.stderr).toContain('the order is for 5 codes but only 2 arrived');
    expect(written, 'no codes file holds a part of the order').toBe(0);
    expect(await pendingNow(configDir)).toHaveLength(1);
  });
});

describe('order pending between a kill after the rename and the same order place --out --force', () => {
  const api = servedApi(['--fulfil-after', '0']);

  // Failed before the fix: order pending settled the intent (its file in place), so the same --force command charged a second order and overwrote the first order's codes.
  it('is the same decision as without it: exit 0, nothing charged, the file left as it was', async () => {
    const dir = tempDir();
    const file = join(dir, 'codes.json');
    const configDir = await loggedIn(api.server);
    const args = ['order', 'place', '--product', 'apple-us-50', '--quantity', '2', '--out', file, '--force'];
    const killed = await runCli([...args, '--interval', '0.05'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' },
    });
    expect(killed.signal).toBe('SIGKILL');
    const before = readFileSync(file);
    // The safety net docs/exactly-once.md recommends, run by a person or a monitoring job meanwhile.
    const pending = await runCli(['order', 'pending'], { configDir });
    expect(pending.code).toBe(0);
    expect(pending.stdout).toContain('codes in file');
    expect(pending.stderr).toContain('the same command again ends it, charging nothing');
    const again = await runCli([...args, '--interval', '0.05'], { configDir });
    expect(again.code).toBe(0);
    expect(await chargesFor(api.server, 'apple-us-50', 2)).toHaveLength(1);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

/** Root with unshare(1): a process can be run in a pid namespace of its own, as in a container. */
const canUnshare = process.getuid?.() === 0 && existsSync('/usr/bin/unshare');

/** `giftcodes <args>` in a pid namespace of its own, held at the failpoint `at` until `go` exists; resolves once there. */
async function containedRun(
  configDir: string,
  args: string[],
  at: string,
  go: string,
): Promise<{ exited: Promise<number | null>; output: () => string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIFTCODES_CONFIG_DIR: configDir,
    GIFTCODES_API_KEY: undefined,
    GIFTCODES_BASE_URL: undefined,
    CI: 'true',
    NO_COLOR: '1',
    GIFTCODES_FAILPOINTS: `${at}=wait:${go}`,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const contained = spawn('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, BIN, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => contained.on('close', (code) => resolve(code)));
  contained.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the contained run did not reach ${at}: ${stderr}`)), 60_000);
    contained.stderr.on('data', () => {
      if (stderr.includes(`failpoint ${at}: wait`)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { exited, output: () => stderr };
}

describe('exit 8 on a closed stdout after the codes file took its place, order pending, then the same command', () => {
  const api = servedApi(['--fulfil-after', '0']);

  // Failed before order pending kept it: exit 8 says run the same command again, and docs/exactly-once.md says exit 8 never charges twice; with order pending in between, the same --force command charged a second order and overwrote the file.
  it("charges nothing more: the file is this order's delivery", async () => {
    const dir = tempDir();
    const file = join(dir, 'codes.json');
    const configDir = await loggedIn(api.server);
    const args = ['order', 'place', '--product', 'tesco-uk-20', '--quantity', '2', '--out', file, '--force'];
    const closed = await runCli([...args, '--interval', '0.05'], { configDir, stdoutFull: true });
    expect(closed.code).toBe(8);
    const before = readFileSync(file);
    expect((await runCli(['order', 'pending'], { configDir })).code).toBe(0);
    const again = await runCli([...args, '--interval', '0.05'], { configDir });
    expect(again.code).toBe(0);
    expect(await chargesFor(api.server, 'tesco-uk-20', 2)).toHaveLength(1);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('a running giftcodes in another pid namespace (a container) sharing the config dir, same machine id', () => {
  const api = servedApi(['--fulfil-after', '0']);

  // Failed before owners recorded their pid namespace: order pending said 'interrupted' and resume --all took the
  // order over while it ran.
  it.skipIf(!canUnshare)(
    'is not taken over while it runs: order pending says another machine, resume --all skips it',
    async () => {
      const dir = tempDir();
      const go = join(dir, 'go');
      const configDir = await loggedIn(api.server);
      const args = ['order', 'place', '--product', 'steam-us-20', '--quantity', '3', '--out', join(dir, 'c.json')];
      const { exited } = await containedRun(configDir, [...args, '--interval', '0.05'], 'order.accepted', go);
      try {
        const [intent] = await pendingNow(configDir);
        // Its pid cannot be checked from this namespace: it is shown as another machine's, taken over only by its key.
        expect(intent?.state).toBe('other-machine');
        const resumed = await runCli(['order', 'resume', '--all'], { configDir });
        expect(resumed.stderr).toContain('skipped the interrupted order');
        expect(resumed.stdout + resumed.stderr).not.toContain('wrote');
      } finally {
        writeFileSync(go, '');
      }
      await exited;
      expect(await chargesFor(api.server, 'steam-us-20', 3)).toHaveLength(1);
    },
  );

  // FAILS on this commit: the host still compacts the contained run's live log (a log's owner in another namespace
  // can be proven neither alive nor dead, and compaction takes it for dead), so the contained run then fails writing
  // its journal (exit 8; its order stays pending, charged once). Leaving such logs alone needs a way to finish a
  // crashed host's log by its key (docs/exactly-once.md, shared config folders).
  it.skip('is not taken over while it runs: order pending says running, resume --all leaves it, it delivers once', async () => {
    expect(canUnshare).toBe(true);
    const dir = tempDir();
    const go = join(dir, 'go');
    const file = join(dir, 'codes.json');
    const configDir = await loggedIn(api.server);
    const args = ['order', 'place', '--product', 'steam-us-20', '--quantity', '2', '--out', file, '--interval', '0.05'];
    const { exited, output } = await containedRun(configDir, args, 'order.accepted', go);
    try {
      const [intent] = await pendingNow(configDir);
      // Its pid cannot be checked from this namespace: it is shown as another machine's, taken over only by its key.
      expect(intent?.state).toBe('other-machine');
      const resumed = await runCli(['order', 'resume', '--all'], { configDir });
      expect(resumed.stdout + resumed.stderr).not.toContain('wrote');
    } finally {
      writeFileSync(go, '');
    }
    expect(await exited, output()).toBe(0);
    expect(await chargesFor(api.server, 'steam-us-20', 2)).toHaveLength(1);
    expect(await pendingNow(configDir)).toHaveLength(0);
  });

  // Failed before owners recorded their pid namespace: the same order place with another --out, run on the host while the contained run waited before its rename, took the order over and wrote its codes to b.json; the contained run then renamed a.json into place: the same codes in two files.
  it.skipIf(!canUnshare)("never writes one order's codes into two files", async () => {
    expect(canUnshare).toBe(true);
    const dir = tempDir();
    const go = join(dir, 'go');
    const configDir = await loggedIn(api.server);
    const place = (out: string): string[] => [
      'order',
      'place',
      '--product',
      'apple-us-25',
      '--quantity',
      '9',
      '--out',
      join(dir, out),
      '--interval',
      '0.05',
    ];
    const { exited } = await containedRun(configDir, place('a.json'), 'codes.identity-written', go);
    try {
      await runCli(place('b.json'), { configDir });
    } finally {
      writeFileSync(go, '');
    }
    await exited;
    expect(await chargesFor(api.server, 'apple-us-25', 9)).toHaveLength(1);
    expect(existsSync(join(dir, 'a.json')) && existsSync(join(dir, 'b.json'))).toBe(false);
  });
});

/**
 * An `order place --out` for `quantity` codes behind the relay, killed once the order was accepted: its codes
 * file not written, its intent pending, one charge on the server (whose order id is returned).
 */
async function killedOnceAccepted(
  api: ReturnType<typeof servedApi>,
  relay: { url: () => string },
  quantity: number,
): Promise<{ dir: string; configDir: string; orderId: string }> {
  const dir = tempDir();
  const configDir = await loggedIn(api.server);
  const killed = await runCli(
    ['order', 'place', '--product', 'zalando-de-25', '--quantity', String(quantity), '--out', join(dir, 'a.json')],
    { configDir, baseUrl: relay.url(), env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } },
  );
  expect(killed.signal).toBe('SIGKILL');
  const [orderId] = await chargesFor(api.server, 'zalando-de-25', quantity);
  expect(orderId).toBeDefined();
  return { dir, configDir, orderId: orderId! };
}

describe('order watch --out of an interrupted order, when the API says the order is for fewer codes than the journal', () => {
  const api = servedApi(['--fulfil-after', '0']);
  const relay = truncatingRelay(() => api.url, { quantity: true });

  it('does not end an interrupted order for 5 codes as delivered with 2', async () => {
    const { dir, configDir, orderId } = await killedOnceAccepted(api, relay, 5);
    const watched = await runCli(['order', 'watch', orderId, '--out', join(dir, 'b.json'), '--interval', '0.05'], {
      configDir,
      baseUrl: relay.url(),
    });
    const written = existsSync(join(dir, 'b.json'))
      ? (JSON.parse(readFileSync(join(dir, 'b.json'), 'utf8')) as unknown[]).length
      : 0;
    if (watched.code === 0) expect(written).toBe(5);
    expect(await pendingNow(configDir)).toHaveLength(written === 5 ? 0 : 1);
  });
});

describe('codes get --wait of an interrupted order, when the API says the order is for fewer codes than the journal', () => {
  const api = servedApi(['--fulfil-after', '0']);
  const relay = truncatingRelay(() => api.url, { quantity: true });

  // Failed before: codes get --wait took the server's quantity (2) over the journal's (5), wrote 2 codes, exit 0,
  // and settled the interrupted order place --out as delivered (order watch's twin, fixed in 41c6e00).
  it('does not end an interrupted order for 4 codes as delivered with 2', async () => {
    const { dir, configDir, orderId } = await killedOnceAccepted(api, relay, 4);
    const got = await runCli(['codes', 'get', orderId, '--wait', '--out', join(dir, 'b.json'), '--interval', '0.05'], {
      configDir,
      baseUrl: relay.url(),
    });
    expect(got.code, got.stderr).toBe(5);
    expect(existsSync(join(dir, 'b.json'))).toBe(false);
    expect(await pendingNow(configDir)).toHaveLength(1);
  });
});
