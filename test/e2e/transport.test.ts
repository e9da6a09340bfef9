// The transport against real sockets: HTTPS from a private CA through a CONNECT proxy, NO_PROXY, the money path
// through the proxy, certificate errors, CA files, gzip/br/deflate bodies, Connection: close, IPv6 literals,
// a base URL with a path prefix, and proxy credentials kept out of every output.
//
// How "only through the proxy" is made honest: the API's base URL is https://api.giftcodes.test:<port>. That
// name resolves nowhere (.test is reserved, RFC 6761) except inside the test proxy, which maps it to the
// server's loopback address. A client that skips the proxy cannot even resolve it, and the test shows that.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { delimiter, join } from 'node:path';
import { brotliCompressSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_KEYS,
  ledger,
  runCli,
  servedApi,
  type RunResult,
  startServer,
  tempDir,
  unstamped,
  until,
  type TestServer,
} from '../helpers/e2e.js';
import { registerSecret } from '../helpers/leaks.js';
import { freePort } from '../helpers/ports.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { pendingNow } from '../helpers/pending.js';

const API_HOST = 'api.giftcodes.test';
const PROXY_USER = 'proxyuser-9d2e';
const PROXY_PASSWORD = 'pr0xy-Passw0rd-7f3c';
registerSecret(PROXY_PASSWORD);

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A private CA and a server certificate it signed (for api.giftcodes.test, localhost, 127.0.0.1, ::1), made now. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '3650',
    '-subj',
    '/CN=giftcodes test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    `/CN=${API_HOST}`,
  );
  writeFileSync(
    file('ext.cnf'),
    `subjectAltName=DNS:${API_HOST},DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '825',
    '-extfile',
    'ext.cnf',
  );
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

/**
 * GET over https trusting the private CA (the test's own view of the server, never through the CLI). A server run
 * with `--gzip always` gzips this answer too; a body that does not parse rejects (thrown inside 'end', it would be
 * an error outside the promise, and the test would wait for it until its timeout).
 */
function httpsJson(url: string, ca: string): Promise<{ orders: { idempotency_key: string }[] }> {
  return new Promise((resolve, reject) => {
    httpsRequest(url, { ca: readFileSync(ca) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const body = Buffer.concat(chunks);
          const text = (res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8');
          resolve(JSON.parse(text) as { orders: { idempotency_key: string }[] });
        } catch (error) {
          reject(error as Error);
        }
      });
    })
      .on('error', reject)
      .end();
  });
}

const attempts = (stderr: string, path = '/v1/ping'): number =>
  unstamped(stderr)
    .split('\n')
    .filter((line) => line.startsWith(`GET ${path} `)).length;

// Most tests here run several CLI processes one after another (and some start servers): a safety net, generous
// for a shared machine with a second suite beside it. Each run still has runCli's own.
const SEVERAL_RUNS = { timeout: 300_000 };

/** A plain-HTTP reference server for the tests that need one beside their own: they read only their own orders. */
const plainServed = servedApi([]);

describe.skipIf(!hasOpenssl)('HTTPS from a private CA, through a CONNECT proxy', SEVERAL_RUNS, () => {
  let certs: { ca: string; cert: string; key: string };
  let server: TestServer;
  let proxy: TestProxy;
  let apiUrl: string;
  let proxyUrl: string;

  beforeAll(async () => {
    certs = makeCertificates(tempDir('giftcodes-tls-'));
    // Pages of three: the catalog's twelve products are four requests back to back (the keep-alive test).
    server = await startServer([
      '--tls-cert',
      certs.cert,
      '--tls-key',
      certs.key,
      '--fulfil-after',
      '200',
      '--max-page',
      '3',
    ]);
    proxy = await startProxy({
      credentials: `${PROXY_USER}:${PROXY_PASSWORD}`,
      hosts: { [API_HOST]: '127.0.0.1', 'other.giftcodes.test': '127.0.0.1' },
    });
    apiUrl = `https://${API_HOST}:${server.port}`;
    proxyUrl = `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`;
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
  });

  /**
   * `ping --json` straight to the server by its address, with no CA given: the certificate Node does not trust. Two
   * tests read this very run (the error's code, and its hint naming SSL_CERT_FILE): it runs once, for the first.
   */
  let untrustedRun: Promise<RunResult> | undefined;
  const untrusted = (): Promise<RunResult> =>
    (untrustedRun ??= runCli(['ping', '--json'], {
      baseUrl: `https://127.0.0.1:${server.port}`,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    }));

  const viaProxy = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    HTTPS_PROXY: proxyUrl,
    NO_PROXY: '',
    GIFTCODES_API_KEY: DEMO_KEYS.test,
    ...extra,
  });

  /** `order place --wait --out` of amazon-us-25 under `key`, through the proxy, trusting the private CA, with -v. */
  const placeThroughProxy = (baseUrl: string, quantity: number, key: string, out: string): Promise<RunResult> =>
    runCli(
      [
        ...['order', 'place', '--product', 'amazon-us-25', '--quantity', String(quantity)],
        ...['--idempotency-key', key, '--wait', '--out', out, '--ca-file', certs.ca, '-v'],
      ],
      { baseUrl, env: viaProxy(), timeoutMs: 120_000 },
    );

  it('the server speaks https with the private CA, and the API name does not resolve outside the proxy', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
    const direct = await runCli(['ping', '-v', '--retries', '0', '--ca-file', certs.ca], {
      baseUrl: apiUrl,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(direct.code).toBe(5);
    expect(direct.stderr).toContain('host not found');
  });

  it('ping goes through the proxy, with its credentials, and -v names the proxy without them', async () => {
    const before = proxy.connects.length;
    const result = await runCli(['ping', '-v', '--ca-file', certs.ca], { baseUrl: apiUrl, env: viaProxy() });
    const lines = unstamped(result.stderr);
    expect(lines).toBe(`via proxy http://***@127.0.0.1:${proxy.port}\n${lines.split('\n').slice(1).join('\n')}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('rs_demo');
    expect(proxy.connects.slice(before)).toEqual([`${API_HOST}:${server.port}`]);
    expect(proxy.authorizations.at(-1)).toBe(
      `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(PROXY_PASSWORD);
    expect(`${result.stdout}${result.stderr}`).not.toContain(PROXY_USER);
  });

  it('the lower-case https_proxy and the profile field proxy work too', async () => {
    const lower = await runCli(['ping', '--ca-file', certs.ca], {
      baseUrl: apiUrl,
      env: { https_proxy: proxyUrl, GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(lower.code).toBe(0);
    const configDir = tempDir();
    const set = await runCli(['config', 'set', 'proxy', proxyUrl], { configDir });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`http://***@127.0.0.1:${proxy.port}`);
    expect(set.stdout).not.toContain(PROXY_PASSWORD);
    const show = await runCli(['config', 'show', '--json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({ proxy: `http://***@127.0.0.1:${proxy.port}` });
    expect(show.stdout).not.toContain(PROXY_PASSWORD);
    const bad = await runCli(['config', 'set', 'proxy', 'socks5://user:pw@127.0.0.1:1080'], { configDir });
    expect(bad.code).toBe(2);
    const before = proxy.connects.length;
    const profile = await runCli(['ping', '-v', '--ca-file', certs.ca], {
      configDir,
      baseUrl: apiUrl,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(profile.code).toBe(0);
    expect(proxy.connects.length).toBe(before + 1);
    expect(profile.stderr).not.toContain(PROXY_PASSWORD);
  });

  it('NO_PROXY sends a listed host direct; without it the same host goes through the proxy', async () => {
    const direct = `https://127.0.0.1:${server.port}`;
    const before = proxy.connects.length;
    const bypass = await runCli(['ping', '-v', '--ca-file', certs.ca], {
      baseUrl: direct,
      env: viaProxy({ NO_PROXY: 'localhost,127.0.0.1' }),
    });
    expect(bypass.code).toBe(0);
    expect(bypass.stderr).not.toContain('via proxy');
    expect(proxy.connects.length).toBe(before);
    const proxied = await runCli(['ping', '-v', '--ca-file', certs.ca], { baseUrl: direct, env: viaProxy() });
    expect(proxied.code).toBe(0);
    expect(proxy.connects.slice(before)).toEqual([`127.0.0.1:${server.port}`]);
  });

  it('the whole money path through the proxy: order place --wait --out, exactly one charge', async () => {
    const dir = tempDir();
    const out = join(dir, 'codes.csv');
    const key = `transport-proxy-${process.pid}`;
    const before = proxy.connects.length;
    const result = await placeThroughProxy(apiUrl, 3, key, out);
    expect(result.stderr).not.toContain(PROXY_PASSWORD);
    expect(result.code).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^order_id,code/);
    // Every request went through the proxy, to the API. How many tunnels they took is not asked here: the wait
    // polls every 2 s and the journal syncs between requests, and an idle tunnel lives 3 s in undici (the
    // server's Keep-Alive: timeout=5, less undici's 2 s margin), so on a busy machine the count is the
    // machine's speed. Keep-alive is asked of requests that follow each other at once (the next test).
    expect(proxy.connects.length - before).toBeGreaterThanOrEqual(1);
    expect(proxy.connects.slice(before).every((target) => target === `${API_HOST}:${server.port}`)).toBe(true);
    const ledger = await httpsJson(`${server.url}/_admin/ledger`, certs.ca);
    expect(ledger.orders.filter((order) => order.idempotency_key === key)).toHaveLength(1);
  });

  // The code pages of a server that gzips, through the tunnel: the pages are decoded into the export's own buffer
  // (src/api/transport.ts gunzipInto), after TLS and the proxy, from the same bytes; three pages of codes, each
  // gzipped, the last one short.
  it('order place --wait --out from a server that gzips, through the proxy: every code, one charge', async () => {
    const zipped = await startServer([
      '--tls-cert',
      certs.cert,
      '--tls-key',
      certs.key,
      '--gzip',
      'always',
      '--fulfil-after',
      '0',
    ]);
    try {
      const out = join(tempDir(), 'codes.csv');
      const key = `transport-proxy-gzip-${process.pid}`;
      const before = proxy.connects.length;
      const result = await placeThroughProxy(`https://${API_HOST}:${zipped.port}`, 2500, key, out);
      expect(result.code, result.stderr).toBe(0);
      const lines = readFileSync(out, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(2501);
      expect(new Set(lines.slice(1).map((line) => line.split(',')[1])).size).toBe(2500);
      const pages = unstamped(result.stderr)
        .split('\n')
        .filter((line) => /^GET \/v1\/orders\/[^/ ]+\/codes/.test(line));
      expect(pages.length).toBeGreaterThanOrEqual(3);
      expect(proxy.connects.slice(before).every((target) => target === `${API_HOST}:${zipped.port}`)).toBe(true);
      expect(proxy.connects.length - before).toBeGreaterThanOrEqual(1);
      const charged = await httpsJson(`${zipped.url}/_admin/ledger`, certs.ca);
      expect(charged.orders.filter((order) => order.idempotency_key === key)).toHaveLength(1);
    } finally {
      await zipped.stop();
    }
  });

  it("keep-alive within a run: the catalog's pages, asked back to back, share at most two tunnels", async () => {
    const before = proxy.connects.length;
    const result = await runCli(['catalog', 'list', '--json', '-v', '--ca-file', certs.ca], {
      baseUrl: apiUrl,
      env: viaProxy(),
    });
    expect(result.code, result.stderr).toBe(0);
    const requests = unstamped(result.stderr)
      .split('\n')
      .filter((line) => line.startsWith('GET /v1/catalog')).length;
    expect(requests).toBeGreaterThanOrEqual(4);
    // undici 7.30 checks an idle socket for one event-loop turn before reusing it, and a request asked meanwhile
    // opens a second connection: never a third, as one request at a time is out.
    expect(proxy.connects.length - before).toBeLessThanOrEqual(2);
  });

  // Every dialect of docs/dialects.md through the proxy too: lists over several pages, an order
  // waited for with its codes written, and an error body, each read as it is read direct (dialects.test.ts).
  it.each(['ours', 'jsonapi', 'problem', 'spring', 'pages'])(
    'serve --dialect %s through the proxy: every catalog page, an order with its codes, an error',
    async (dialect) => {
      // ours is the dialect of this describe's server, with the same certificate: it is asked there (pages of three,
      // orders completed after 200 ms), where a server of its own cost a process (~0.2 s of CPU).
      const dialectServer =
        dialect === 'ours'
          ? undefined
          : await startServer([
              '--dialect',
              dialect,
              '--max-page',
              '10',
              '--fulfil-after',
              '0',
              '--tls-cert',
              certs.cert,
              '--tls-key',
              certs.key,
            ]);
      try {
        const url = `https://${API_HOST}:${(dialectServer ?? server).port}`;
        const before = proxy.connects.length;
        const catalog = await runCli(['catalog', 'list', '--json', '--ca-file', certs.ca], {
          baseUrl: url,
          env: viaProxy(),
        });
        expect(catalog.code, catalog.stderr).toBe(0);
        const products = JSON.parse(catalog.stdout) as { id: string }[];
        expect(products.length).toBeGreaterThan(10);
        expect(new Set(products.map((p) => p.id)).size).toBe(products.length);
        const out = join(tempDir(), 'codes.csv');
        const placed = await runCli(
          [
            'order',
            'place',
            '--product',
            'amazon-us-10',
            '--quantity',
            '12',
            '--wait',
            '--interval',
            '0.1',
            '--out',
            out,
            '--ca-file',
            certs.ca,
            '--json',
          ],
          { baseUrl: url, env: viaProxy() },
        );
        expect(placed.code, placed.stderr).toBe(0);
        expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(13);
        const refused = await runCli(
          ['order', 'place', '--product', 'no-such-product', '--quantity', '1', '--ca-file', certs.ca],
          { baseUrl: url, env: viaProxy() },
        );
        expect(refused.code, refused.stderr).toBe(4);
        expect(refused.stderr).toMatch(/HTTP 4\d\d/);
        expect(proxy.connects.length - before).toBeGreaterThanOrEqual(3);
        expect(proxy.connects.slice(before).every((target) => target.startsWith(`${API_HOST}:`))).toBe(true);
      } finally {
        await dialectServer?.stop();
      }
    },
  );

  it('a certificate Node does not trust: exit 5 at once, one attempt, a hint naming --ca-file and NODE_EXTRA_CA_CERTS', async () => {
    const result = await runCli(['ping', '-v'], { baseUrl: apiUrl, env: viaProxy() });
    expect(result.code).toBe(5);
    expect(attempts(result.stderr)).toBe(1);
    expect(result.stderr).toContain('certificate not trusted');
    expect(result.stderr).toContain('--ca-file');
    expect(result.stderr).toContain('NODE_EXTRA_CA_CERTS');
    expect(result.stderr).not.toContain('retrying');
    expect(result.stderr).not.toContain(PROXY_PASSWORD);
    const json = await untrusted();
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'certificate_error', exitCode: 5 } });
  });

  it('a trusted CA does not excuse a certificate for another name: ERR_TLS_CERT_ALTNAME_INVALID, exit 5, one attempt', async () => {
    const result = await runCli(['ping', '-v', '--ca-file', certs.ca], {
      baseUrl: `https://other.giftcodes.test:${server.port}`,
      env: viaProxy(),
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(attempts(result.stderr)).toBe(1);
  });

  it('NODE_EXTRA_CA_CERTS and GIFTCODES_CA_FILE are trusted as --ca-file is', async () => {
    const direct = `https://127.0.0.1:${server.port}`;
    const extra = await runCli(['ping'], {
      baseUrl: direct,
      env: { NODE_EXTRA_CA_CERTS: certs.ca, GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(extra.code).toBe(0);
    const envFile = await runCli(['ping'], {
      baseUrl: direct,
      env: { GIFTCODES_CA_FILE: certs.ca, GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(envFile.code).toBe(0);
    // --ca-file adds to Node's roots and to NODE_EXTRA_CA_CERTS: an unrelated PEM given with it keeps the extra CA trusted.
    const both = await runCli(['ping', '--ca-file', certs.cert], {
      baseUrl: direct,
      env: { NODE_EXTRA_CA_CERTS: certs.ca, GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(both.code).toBe(0);
  });

  it('issue 23: SSL_CERT_FILE and SSL_CERT_DIR trust the private CA as --ca-file does (the same ping fails without them), adding to what Node trusts', async () => {
    const direct = `https://127.0.0.1:${server.port}`;
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
    const without = await untrusted();
    expect(without.code).toBe(5);
    expect(JSON.parse(without.stderr)).toMatchObject({ error: { code: 'certificate_error' } });
    const file = await runCli(['ping'], { baseUrl: direct, env: { ...env, SSL_CERT_FILE: certs.ca } });
    expect(file.code, file.stderr).toBe(0);
    // An OpenSSL hashed directory (the CA under its hash name only, beside a file that is no certificate), second
    // in a list whose first directory is empty; and a directory of plain *.crt files.
    const hashed = tempDir();
    const hash = execFileSync('openssl', ['x509', '-hash', '-noout', '-in', certs.ca], { encoding: 'utf8' }).trim();
    writeFileSync(join(hashed, `${hash}.0`), readFileSync(certs.ca));
    writeFileSync(join(hashed, 'README'), 'not a certificate\n');
    writeFileSync(join(hashed, 'notes.pem'), 'not a certificate either\n');
    const byHash = await runCli(['ping'], {
      baseUrl: direct,
      env: { ...env, SSL_CERT_DIR: `${tempDir()}${delimiter}${hashed}` },
    });
    expect(byHash.code, byHash.stderr).toBe(0);
    const named = tempDir();
    writeFileSync(join(named, 'corporate-root.crt'), readFileSync(certs.ca));
    const byName = await runCli(['ping'], { baseUrl: direct, env: { ...env, SSL_CERT_DIR: named } });
    expect(byName.code, byName.stderr).toBe(0);
    // They add, as --ca-file does (curl's SSL_CERT_FILE would replace the store): an unrelated certificate in
    // SSL_CERT_FILE leaves the CA of NODE_EXTRA_CA_CERTS trusted.
    const adds = await runCli(['ping'], {
      baseUrl: direct,
      env: { ...env, SSL_CERT_FILE: certs.cert, NODE_EXTRA_CA_CERTS: certs.ca },
    });
    expect(adds.code, adds.stderr).toBe(0);
    expect(JSON.parse(without.stderr).error.hint).toContain('SSL_CERT_FILE');
    const help = await runCli(['help', 'environment']);
    expect(help.stdout).toMatch(/^ {2}SSL_CERT_FILE {2,}\S/m);
    expect(help.stdout).toMatch(/^ {2}SSL_CERT_DIR {2,}\S/m);
  });

  it('issue 23: an SSL_CERT_FILE or SSL_CERT_DIR that cannot be read is exit 8, a file without a certificate exit 2, nothing sent; plain http reads neither', async () => {
    const dir = tempDir();
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
    const missing = await runCli(['ping', '-v'], {
      baseUrl: apiUrl,
      env: viaProxy({ SSL_CERT_FILE: join(dir, 'nope.pem') }),
    });
    expect(missing.code).toBe(8);
    expect(missing.stderr).toContain(`cannot read the CA file ${join(dir, 'nope.pem')} (SSL_CERT_FILE): no such file`);
    expect(attempts(missing.stderr)).toBe(0);
    const noDir = await runCli(['ping', '-v'], {
      baseUrl: apiUrl,
      env: viaProxy({ SSL_CERT_DIR: `${dir}${delimiter}${join(dir, 'nowhere')}` }),
    });
    expect(noDir.code).toBe(8);
    expect(noDir.stderr).toContain(
      `cannot read the CA directory ${join(dir, 'nowhere')} (SSL_CERT_DIR): no such directory`,
    );
    expect(attempts(noDir.stderr)).toBe(0);
    writeFileSync(join(dir, 'bad.pem'), 'not a certificate\n');
    const bad = await runCli(['ping', '-v'], {
      baseUrl: apiUrl,
      env: viaProxy({ SSL_CERT_FILE: join(dir, 'bad.pem') }),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('(SSL_CERT_FILE) holds no PEM certificate');
    expect(attempts(bad.stderr)).toBe(0);
    const writable = join(dir, 'writable.pem');
    writeFileSync(writable, readFileSync(certs.ca));
    chmodSync(writable, 0o666);
    const planted = await runCli(['ping', '-v'], { baseUrl: apiUrl, env: viaProxy({ SSL_CERT_FILE: writable }) });
    expect(planted.code).toBe(8);
    expect(planted.stderr).toContain('can be written by other users');
    // Plain http speaks no TLS: the variables, set for the whole machine, are not even read.
    const http = await runCli(['ping'], {
      baseUrl: plainServed.url,
      env: { ...env, SSL_CERT_FILE: join(dir, 'nope.pem'), SSL_CERT_DIR: join(dir, 'nowhere') },
    });
    expect(http.code, http.stderr).toBe(0);
  });

  it('a CA file that cannot be read is exit 8; one that holds no certificate is exit 2; neither sends anything', async () => {
    const dir = tempDir();
    const missing = await runCli(['ping', '--ca-file', join(dir, 'nope.pem'), '-v'], {
      baseUrl: apiUrl,
      env: viaProxy(),
    });
    expect(missing.code).toBe(8);
    expect(missing.stderr).toContain(`cannot read the CA file ${join(dir, 'nope.pem')} (--ca-file): no such file\n`);
    expect(missing.stderr).toContain('hint: check the path: give --ca-file the path of a PEM file of CA certificates');
    expect(attempts(missing.stderr)).toBe(0);
    writeFileSync(join(dir, 'bad.pem'), 'not a certificate\n');
    const bad = await runCli(['ping', '-v'], {
      baseUrl: apiUrl,
      env: viaProxy({ GIFTCODES_CA_FILE: join(dir, 'bad.pem') }),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('holds no PEM certificate');
    expect(bad.stderr).toContain('GIFTCODES_CA_FILE');
    expect(attempts(bad.stderr)).toBe(0);
  });

  it('issue 15: a CA file others can write, or another user owns, is exit 8 with the fix; one others can read is used', async () => {
    const dir = tempDir();
    const copy = (name: string, mode: number): string => {
      const path = join(dir, name);
      writeFileSync(path, readFileSync(certs.ca));
      chmodSync(path, mode);
      return path;
    };
    const writable = copy('writable.pem', 0o666);
    const refused = await runCli(['ping', '-v', '--ca-file', writable], { baseUrl: apiUrl, env: viaProxy() });
    expect(refused.code).toBe(8);
    expect(refused.stderr).toContain(`the CA file ${writable} can be written by other users (mode 0666)`);
    expect(refused.stderr).toContain(`hint: run: chmod 600 ${writable}`);
    expect(attempts(refused.stderr)).toBe(0);
    const viaEnv = await runCli(['ping', '-v'], { baseUrl: apiUrl, env: viaProxy({ GIFTCODES_CA_FILE: writable }) });
    expect(viaEnv.code).toBe(8);
    expect(attempts(viaEnv.stderr)).toBe(0);
    // Certificates are public: a 0644 CA file (as in /etc/ssl/certs) is used, with no warning on every run.
    const readable = copy('readable.pem', 0o644);
    const used = await runCli(['ping', '--ca-file', readable], { baseUrl: apiUrl, env: viaProxy() });
    expect(used.code, used.stderr).toBe(0);
    expect(used.stderr).toBe('');
    if (process.getuid?.() === 0) {
      const foreign = copy('foreign.pem', 0o644);
      chownSync(foreign, 65534, 65534);
      const theirs = await runCli(['ping', '--ca-file', foreign], { baseUrl: apiUrl, env: viaProxy() });
      expect(theirs.code).toBe(8);
      expect(theirs.stderr).toContain(`the CA file ${foreign} belongs to another user (uid 65534)`);
    }
  });

  it('a proxy that refuses the tunnel (wrong credentials): exit 5, not retried, the password in no output', async () => {
    const wrong = `http://${PROXY_USER}:wrong-${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`;
    registerSecret(`wrong-${PROXY_PASSWORD}`);
    const result = await runCli(['ping', '-v', '--ca-file', certs.ca], {
      baseUrl: apiUrl,
      env: { HTTPS_PROXY: wrong, GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('407');
    expect(attempts(result.stderr)).toBe(1);
    expect(result.stderr).not.toContain(PROXY_PASSWORD);
    expect(result.stderr).not.toContain(PROXY_USER);
  });

  it('issue 23: every failure that involves the proxy names it, masked: refused, unknown host, closed on CONNECT, 407; for an https and an http API', async () => {
    const closing = await startProxy({ answer: 'close' });
    try {
      const credentials = `${PROXY_USER}:${PROXY_PASSWORD}`;
      const refusedPort = await freePort();
      const cases = [
        {
          proxy: `http://${credentials}@127.0.0.1:${refusedPort}`,
          shown: `http://***@127.0.0.1:${refusedPort}`,
          says: 'the proxy refused the connection',
        },
        {
          proxy: `http://${credentials}@proxy.giftcodes.invalid:3128`,
          shown: 'http://***@proxy.giftcodes.invalid:3128',
          says: "the proxy's host was not found",
        },
        {
          proxy: `http://${credentials}@127.0.0.1:${closing.port}`,
          shown: `http://***@127.0.0.1:${closing.port}`,
          says: 'the proxy closed the connection before opening the tunnel',
        },
        {
          proxy: `http://${PROXY_USER}:wrong-${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`,
          shown: `http://***@127.0.0.1:${proxy.port}`,
          says: 'the proxy refused the tunnel (407)',
        },
      ];
      registerSecret(`wrong-${PROXY_PASSWORD}`);
      // An http:// API on loopback goes through the proxy too (NO_PROXY is empty), in a tunnel as undici opens one.
      for (const baseUrl of [apiUrl, `http://127.0.0.1:${server.port}`]) {
        for (const { proxy: url, shown, says } of cases) {
          const result = await runCli(['ping', '--json', '--retries', '0', '--ca-file', certs.ca], {
            baseUrl,
            env: { HTTPS_PROXY: url, HTTP_PROXY: url, NO_PROXY: '', GIFTCODES_API_KEY: DEMO_KEYS.test },
          });
          expect(result.code, `${baseUrl} ${says}: ${result.stderr}`).toBe(5);
          const { error } = JSON.parse(result.stderr) as { error: { message: string; hint: string } };
          expect(error.message).toContain(`through the proxy ${shown} `);
          expect(error.message).toContain(says);
          expect(`${error.message} ${error.hint}`).not.toContain(PROXY_USER);
        }
      }
      // The money path through the closing proxy: nothing was sent, so nothing is left pending.
      const placed = await runCli(
        ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--ca-file', certs.ca, '--retries', '1'],
        {
          baseUrl: apiUrl,
          env: { HTTPS_PROXY: `http://127.0.0.1:${closing.port}`, NO_PROXY: '', GIFTCODES_API_KEY: DEMO_KEYS.test },
        },
      );
      expect(placed.code, placed.stderr).toBe(5);
      expect(placed.stderr).toContain(`through the proxy http://127.0.0.1:${closing.port} `);
      expect(await pendingNow(placed.configDir)).toEqual([]);
    } finally {
      await closing.close();
    }
  }, 300_000);

  it('issue 23: a proxy silent after CONNECT holds an attempt no longer than --request-timeout, and is named', async () => {
    const silent = await startProxy({ answer: 'nothing' });
    try {
      const result = await runCli(
        ['ping', '--json', '--retries', '0', '--request-timeout', '1', '--ca-file', certs.ca],
        {
          baseUrl: apiUrl,
          env: {
            HTTPS_PROXY: `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${silent.port}`,
            NO_PROXY: '',
            GIFTCODES_API_KEY: DEMO_KEYS.test,
          },
        },
      );
      expect(result.code, result.stderr).toBe(5);
      expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'timeout' } });
      expect(JSON.parse(result.stderr).error.message).toContain(
        `through the proxy http://***@127.0.0.1:${silent.port} `,
      );
      // The proxy is in this process: its record of the CONNECT may come after the CLI's exit is seen.
      await until(() => (silent.connects.length > 0 ? true : undefined));
      expect(silent.connects).toEqual([`${API_HOST}:${server.port}`]);
    } finally {
      await silent.close();
    }
  });
});

describe('issue 21 gap 9: https:// to a port that speaks plain HTTP', SEVERAL_RUNS, () => {
  it('fails in the TLS handshake with nothing sent and nothing pending; the corrected command places exactly one order without a word about it', async () => {
    const plain = plainServed.server;
    const configDir = tempDir();
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
    const order = ['order', 'place', '--product', 'amazon-us-10', '--quantity', '2'];
    const before = (await ledger(plain)).orders.length;
    const wrong = await runCli([...order, '-v'], { configDir, baseUrl: `https://127.0.0.1:${plain.port}`, env });
    expect(wrong.code, wrong.stderr).toBe(5);
    expect((await ledger(plain)).orders.length).toBe(before);
    // The journal's own files first (order pending settles what it reads), then what order pending says.
    expect(readdirSync(join(configDir, 'journal')).filter((name) => name.endsWith('.json'))).toEqual([]);
    expect(await pendingNow(configDir)).toEqual([]);
    expect(wrong.stderr).toMatch(/^[\dT:.Z-]+ error: cannot open a TLS session with https:\/\/127\.0\.0\.1:\d+ /m);
    // The base URL came from GIFTCODES_BASE_URL: that is what to correct.
    expect(wrong.stderr).toContain('use http:// in GIFTCODES_BASE_URL');
    // Not retried: the same port will not start speaking TLS.
    expect(
      unstamped(wrong.stderr)
        .split('\n')
        .filter((line) => line.startsWith('POST /v1/orders ')),
    ).toHaveLength(1);
    const right = await runCli(order, { configDir, baseUrl: plain.url, env });
    expect(right.code, right.stderr).toBe(0);
    // The run's summary line names the order's status (`pending`); no other line speaks of an earlier attempt.
    expect(
      right.stderr
        .split('\n')
        .filter((line) => !/ done: ordered /.test(line))
        .join('\n'),
    ).not.toMatch(/resum|interrupted|pending|earlier|another/i);
    expect(right.stdout).toMatch(/^order +ord_/m);
    expect((await ledger(plain)).orders.length).toBe(before + 1);
  });
});

describe('bodies, framing and addresses', SEVERAL_RUNS, () => {
  let gzipServer: TestServer;
  beforeAll(async () => {
    gzipServer = await startServer(['--gzip', 'always', '--connection-close']);
  }, 300_000);
  afterAll(async () => {
    await gzipServer?.stop();
  });

  it('the reference server gzips when asked, and with --gzip always also unasked', async () => {
    const head = (url: string, headers: Record<string, string>): Promise<IncomingHttpHeaders> =>
      new Promise((resolve, reject) => {
        httpRequest(`${url}/v1/ping`, { headers: { 'x-api-key': DEMO_KEYS.test, ...headers } }, (res) => {
          res.resume();
          resolve(res.headers);
        })
          .on('error', reject)
          .end();
      });
    expect((await head(gzipServer.url, {}))['content-encoding']).toBe('gzip');
    expect((await head(gzipServer.url, {})).connection).toBe('close');
    const asked = await startServer(['--gzip']);
    try {
      expect((await head(asked.url, { 'accept-encoding': 'gzip, br' }))['content-encoding']).toBe('gzip');
      expect((await head(asked.url, {}))['content-encoding']).toBeUndefined();
    } finally {
      await asked.stop();
    }
  });

  it('every page of a gzipped catalog over Connection: close reads whole', async () => {
    const [zipped, reference] = await Promise.all([
      runCli(['catalog', 'list', '--json', '-v'], {
        baseUrl: gzipServer.url,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      }),
      runCli(['catalog', 'list', '--json'], { baseUrl: plainServed.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } }),
    ]);
    expect(zipped.code).toBe(0);
    expect(attempts(zipped.stderr, '/v1/catalog')).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(zipped.stdout)).toEqual(JSON.parse(reference.stdout));
  });

  describe('a hand-written server: what the client sends, and gzip, br and deflate bodies', () => {
    let coding = 'identity';
    const seen: IncomingHttpHeaders[] = [];
    let server: Server;
    let url: string;
    beforeAll(async () => {
      const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20));
      const huge = Buffer.alloc(33 * 1024 * 1024, 0x20);
      server = createServer((req, res) => {
        seen.push(req.headers);
        if (coding === 'bomb' || coding === 'huge') {
          const payload = coding === 'bomb' ? bomb : huge;
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': payload.length,
            ...(coding === 'bomb' ? { 'content-encoding': 'gzip' } : {}),
          });
          res.end(payload);
          return;
        }
        const body = Buffer.from(
          JSON.stringify({ status: 'ok', environment: 'test', reseller_id: 'rs_hand', path: req.url }),
        );
        const coded =
          coding === 'gzip'
            ? gzipSync(body)
            : coding === 'br'
              ? brotliCompressSync(body)
              : coding === 'deflate'
                ? deflateSync(body)
                : coding === 'gzip, br'
                  ? brotliCompressSync(gzipSync(body))
                  : body;
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': coded.length,
          ...(coding === 'identity' ? {} : { 'content-encoding': coding }),
        });
        res.end(coded);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it.each(['identity', 'gzip', 'br', 'deflate', 'gzip, br'])('Content-Encoding: %s', async (name) => {
      coding = name;
      const result = await runCli(['ping', '--json'], { baseUrl: url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ reseller_id: 'rs_hand' });
      expect(seen.at(-1)?.['accept-encoding']).toBe('gzip, br');
    });

    it('a coding the client cannot decode is an unreadable body (exit 5), not retried', async () => {
      coding = 'compress';
      const before = seen.length;
      const result = await runCli(['ping', '-v'], { baseUrl: url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(result.code).toBe(5);
      expect(result.stderr).toContain('"compress"');
      expect(seen.length - before).toBe(1);
    });

    it('the 32 MiB body limit holds for the decoded bytes: a small gzip of 40 MiB is refused, not inflated into memory', async () => {
      coding = 'bomb';
      const result = await runCli(['ping', '--json'], { baseUrl: url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(result.code).toBe(5);
      expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'response_too_large' } });
      coding = 'huge';
      const plain = await runCli(['ping', '--json'], { baseUrl: url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(plain.code).toBe(5);
      expect(JSON.parse(plain.stderr)).toMatchObject({ error: { code: 'response_too_large' } });
    });

    it('a base URL with a path prefix: /api/v1/ping', async () => {
      coding = 'identity';
      const result = await runCli(['ping', '--json'], {
        baseUrl: `${url}/api`,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ path: '/api/v1/ping' });
      const slash = await runCli(['ping', '--json'], {
        baseUrl: `${url}/api/`,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      });
      expect(JSON.parse(slash.stdout)).toMatchObject({ path: '/api/v1/ping' });
    });
  });

  const hasIpv6Loopback = Object.values(networkInterfaces()).some((addresses) =>
    addresses?.some((a) => a.family === 'IPv6' && a.address === '::1'),
  );

  it.skipIf(!hasIpv6Loopback)(
    'an IPv6 literal base URL: http://[::1]:<port> (skipped where this machine has no IPv6 loopback)',
    async () => {
      const v6 = await startServer(['--host', '::1']);
      try {
        expect(v6.url).toMatch(/^http:\/\/\[::1\]:/);
        const result = await runCli(['ping', '-v'], { baseUrl: v6.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('rs_demo');
      } finally {
        await v6.stop();
      }
    },
  );
});
