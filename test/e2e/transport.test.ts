// The transport against real sockets: HTTPS from a private CA through a CONNECT proxy, NO_PROXY, the money path
// through the proxy, certificate errors, CA files, gzip/br/deflate bodies, Connection: close, IPv6 literals,
// a base URL with a path prefix, and proxy credentials kept out of every output.
//
// How "only through the proxy" is made honest: the API's base URL is https://api.giftcodes.test:<port>. That
// name resolves nowhere (.test is reserved, RFC 6761) except inside the test proxy, which maps it to the
// server's loopback address. A client that skips the proxy cannot even resolve it, and the test shows that.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, runCli, servedApi, tempDir, withServer } from '../helpers/e2e.js';
import { registerSecret } from '../helpers/leaks.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

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
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650',
    '-subj', '/CN=giftcodes test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${API_HOST}`);
  writeFileSync(file('ext.cnf'), `subjectAltName=DNS:${API_HOST},DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '825', '-extfile', 'ext.cnf');
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

/** GET over https trusting the private CA (the test's own view of the server, never through the CLI). */
function httpsJson(url: string, ca: string): Promise<{ orders: { idempotency_key: string }[] }> {
  return new Promise((resolve, reject) => {
    httpsRequest(url, { ca: readFileSync(ca) }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(JSON.parse(text) as { orders: { idempotency_key: string }[] }));
    })
      .on('error', reject)
      .end();
  });
}

const attempts = (stderr: string, path = '/v1/ping'): number => stderr.split('\n').filter((line) => line.startsWith(`GET ${path} `)).length;

describe.skipIf(!hasOpenssl)('HTTPS from a private CA, through a CONNECT proxy', () => {
  let certs: { ca: string; cert: string; key: string };
  const served = servedApi(() => {
    certs = makeCertificates(tempDir('giftcodes-tls-'));
    return ['--tls-cert', certs.cert, '--tls-key', certs.key, '--fulfil-after', '200'];
  });
  let proxy: TestProxy;
  let apiUrl: string;
  let proxyUrl: string;

  beforeAll(async () => {
    proxy = await startProxy({ credentials: `${PROXY_USER}:${PROXY_PASSWORD}`, hosts: { [API_HOST]: '127.0.0.1', 'other.giftcodes.test': '127.0.0.1' } });
    apiUrl = `https://${API_HOST}:${served.server.port}`;
    proxyUrl = `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`;
  }, 30_000);
  afterAll(async () => {
    await proxy?.close();
  });

  const viaProxy = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HTTPS_PROXY: proxyUrl, NO_PROXY: '', GIFTCODES_API_KEY: DEMO_KEYS.test, ...extra });

  it('the server speaks https with the private CA, and the API name does not resolve outside the proxy', async () => {
    expect(served.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
    const direct = await runCli(['ping', '-v', '--retries', '0', '--ca-file', certs.ca], { baseUrl: apiUrl, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(direct.code).toBe(5);
    expect(direct.stderr).toContain('host not found');
  });

  it('ping goes through the proxy, with its credentials, and -v names the proxy without them', async () => {
    const before = proxy.connects.length;
    const result = await runCli(['ping', '-v', '--ca-file', certs.ca], { baseUrl: apiUrl, env: viaProxy() });
    expect(result.stderr).toBe(`via proxy http://***@127.0.0.1:${proxy.port}\n${result.stderr.split('\n').slice(1).join('\n')}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('rs_demo');
    expect(proxy.connects.slice(before)).toEqual([`${API_HOST}:${served.server.port}`]);
    expect(proxy.authorizations.at(-1)).toBe(`Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`);
    expect(`${result.stdout}${result.stderr}`).not.toContain(PROXY_PASSWORD);
    expect(`${result.stdout}${result.stderr}`).not.toContain(PROXY_USER);
  });

  it('the lower-case https_proxy and the profile field proxy work too', async () => {
    const lower = await runCli(['ping', '--ca-file', certs.ca], { baseUrl: apiUrl, env: { https_proxy: proxyUrl, GIFTCODES_API_KEY: DEMO_KEYS.test } });
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
    const profile = await runCli(['ping', '-v', '--ca-file', certs.ca], { configDir, baseUrl: apiUrl, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(profile.code).toBe(0);
    expect(proxy.connects.length).toBe(before + 1);
    expect(profile.stderr).not.toContain(PROXY_PASSWORD);
  });

  it('NO_PROXY sends a listed host direct; without it the same host goes through the proxy', async () => {
    const direct = `https://127.0.0.1:${served.server.port}`;
    const before = proxy.connects.length;
    const bypass = await runCli(['ping', '-v', '--ca-file', certs.ca], { baseUrl: direct, env: viaProxy({ NO_PROXY: 'localhost,127.0.0.1' }) });
    expect(bypass.code).toBe(0);
    expect(bypass.stderr).not.toContain('via proxy');
    expect(proxy.connects.length).toBe(before);
    const proxied = await runCli(['ping', '-v', '--ca-file', certs.ca], { baseUrl: direct, env: viaProxy() });
    expect(proxied.code).toBe(0);
    expect(proxy.connects.slice(before)).toEqual([`127.0.0.1:${served.server.port}`]);
  });

  it('the whole money path through the proxy: order place --wait --out, exactly one charge', async () => {
    const dir = tempDir();
    const out = join(dir, 'codes.csv');
    const key = `transport-proxy-${process.pid}`;
    const before = proxy.connects.length;
    const result = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--idempotency-key', key, '--wait', '--out', out, '--ca-file', certs.ca, '-v'], {
      baseUrl: apiUrl,
      env: viaProxy(),
      timeoutMs: 60_000,
    });
    expect(result.stderr).not.toContain(PROXY_PASSWORD);
    expect(result.code).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^order_id,code/);
    // Keep-alive within the run: fewer tunnels than requests. (undici 7.30 checks an idle socket for one
    // event-loop turn before reusing it and meanwhile opens a second connection, so not always exactly one.)
    const requests = result.stderr.split('\n').filter((line) => /^(GET|POST) \/v1\//.test(line)).length;
    expect(requests).toBeGreaterThanOrEqual(3);
    expect(proxy.connects.length - before).toBeLessThan(requests);
    expect(proxy.connects.length - before).toBeLessThanOrEqual(2);
    const ledger = await httpsJson(`${served.url}/_admin/ledger`, certs.ca);
    expect(ledger.orders.filter((order) => order.idempotency_key === key)).toHaveLength(1);
  }, 70_000);

  // Every dialect of CONTRACT's tolerance section through the proxy too: lists over several pages, an order
  // waited for with its codes written, and an error body, each read as it is read direct (dialects.test.ts).
  it.each(['ours', 'jsonapi', 'problem', 'spring', 'pages'])('serve --dialect %s through the proxy: every catalog page, an order with its codes, an error', async (dialect) => {
    await withServer(['--dialect', dialect, '--max-page', '10', '--fulfil-after', '0', '--tls-cert', certs.cert, '--tls-key', certs.key], async (dialectServer) => {
      const url = `https://${API_HOST}:${dialectServer.port}`;
      const before = proxy.connects.length;
      const catalog = await runCli(['catalog', 'list', '--json', '--ca-file', certs.ca], { baseUrl: url, env: viaProxy() });
      expect(catalog.code, catalog.stderr).toBe(0);
      const products = JSON.parse(catalog.stdout) as { id: string }[];
      expect(products.length).toBeGreaterThan(10);
      expect(new Set(products.map((p) => p.id)).size).toBe(products.length);
      const out = join(tempDir(), 'codes.csv');
      const placed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '12', '--wait', '--interval', '0.1', '--out', out, '--ca-file', certs.ca, '--json'], { baseUrl: url, env: viaProxy() });
      expect(placed.code, placed.stderr).toBe(0);
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(13);
      const refused = await runCli(['order', 'place', '--product', 'no-such-product', '--quantity', '1', '--ca-file', certs.ca], { baseUrl: url, env: viaProxy() });
      expect(refused.code, refused.stderr).toBe(4);
      expect(refused.stderr).toMatch(/HTTP 4\d\d/);
      expect(proxy.connects.length - before).toBeGreaterThanOrEqual(3);
      expect(proxy.connects.slice(before).every((target) => target.startsWith(`${API_HOST}:`))).toBe(true);
    });
  }, 60_000);

  it('a certificate Node does not trust: exit 5 at once, one attempt, a hint naming --ca-file and NODE_EXTRA_CA_CERTS', async () => {
    const result = await runCli(['ping', '-v'], { baseUrl: apiUrl, env: viaProxy() });
    expect(result.code).toBe(5);
    expect(attempts(result.stderr)).toBe(1);
    expect(result.stderr).toContain('certificate not trusted');
    expect(result.stderr).toContain('--ca-file');
    expect(result.stderr).toContain('NODE_EXTRA_CA_CERTS');
    expect(result.stderr).not.toContain('retrying');
    expect(result.stderr).not.toContain(PROXY_PASSWORD);
    const json = await runCli(['ping', '--json'], { baseUrl: `https://127.0.0.1:${served.server.port}`, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'certificate_error', exitCode: 5 } });
  });

  it('a trusted CA does not excuse a certificate for another name: ERR_TLS_CERT_ALTNAME_INVALID, exit 5, one attempt', async () => {
    const result = await runCli(['ping', '-v', '--ca-file', certs.ca], { baseUrl: `https://other.giftcodes.test:${served.server.port}`, env: viaProxy() });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(attempts(result.stderr)).toBe(1);
  });

  it('NODE_EXTRA_CA_CERTS and GIFTCODES_CA_FILE are trusted as --ca-file is', async () => {
    const direct = `https://127.0.0.1:${served.server.port}`;
    const extra = await runCli(['ping'], { baseUrl: direct, env: { NODE_EXTRA_CA_CERTS: certs.ca, GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(extra.code).toBe(0);
    const envFile = await runCli(['ping'], { baseUrl: direct, env: { GIFTCODES_CA_FILE: certs.ca, GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(envFile.code).toBe(0);
    // --ca-file adds to Node's roots and to NODE_EXTRA_CA_CERTS: an unrelated PEM given with it keeps the extra CA trusted.
    const both = await runCli(['ping', '--ca-file', certs.cert], { baseUrl: direct, env: { NODE_EXTRA_CA_CERTS: certs.ca, GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(both.code).toBe(0);
  });

  it('a CA file that cannot be read is exit 8; one that holds no certificate is exit 2; neither sends anything', async () => {
    const dir = tempDir();
    const missing = await runCli(['ping', '--ca-file', join(dir, 'nope.pem'), '-v'], { baseUrl: apiUrl, env: viaProxy() });
    expect(missing.code).toBe(8);
    expect(missing.stderr).toContain('cannot read the CA file');
    expect(attempts(missing.stderr)).toBe(0);
    writeFileSync(join(dir, 'bad.pem'), 'not a certificate\n');
    const bad = await runCli(['ping', '-v'], { baseUrl: apiUrl, env: viaProxy({ GIFTCODES_CA_FILE: join(dir, 'bad.pem') }) });
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
    const result = await runCli(['ping', '-v', '--ca-file', certs.ca], { baseUrl: apiUrl, env: { HTTPS_PROXY: wrong, GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('407');
    expect(attempts(result.stderr)).toBe(1);
    expect(result.stderr).not.toContain(PROXY_PASSWORD);
    expect(result.stderr).not.toContain(PROXY_USER);
  });
});

describe('bodies, framing and addresses', () => {
  const gzipServed = servedApi(['--gzip', 'always', '--connection-close']);

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
    expect((await head(gzipServed.url, {}))['content-encoding']).toBe('gzip');
    expect((await head(gzipServed.url, {})).connection).toBe('close');
    await withServer(['--gzip'], async (asked) => {
      expect((await head(asked.url, { 'accept-encoding': 'gzip, br' }))['content-encoding']).toBe('gzip');
      expect((await head(asked.url, {}))['content-encoding']).toBeUndefined();
    });
  });

  it('every page of a gzipped catalog over Connection: close reads whole', async () => {
    await withServer([], async (plain) => {
      const [zipped, reference] = await Promise.all([
        runCli(['catalog', 'list', '--json', '-v'], { baseUrl: gzipServed.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } }),
        runCli(['catalog', 'list', '--json'], { baseUrl: plain.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } }),
      ]);
      expect(zipped.code).toBe(0);
      expect(attempts(zipped.stderr, '/v1/catalog')).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(zipped.stdout)).toEqual(JSON.parse(reference.stdout));
    });
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
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': payload.length, ...(coding === 'bomb' ? { 'content-encoding': 'gzip' } : {}) });
          res.end(payload);
          return;
        }
        const body = Buffer.from(JSON.stringify({ status: 'ok', environment: 'test', reseller_id: 'rs_hand', path: req.url }));
        const coded = coding === 'gzip' ? gzipSync(body) : coding === 'br' ? brotliCompressSync(body) : coding === 'deflate' ? deflateSync(body) : coding === 'gzip, br' ? brotliCompressSync(gzipSync(body)) : body;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': coded.length, ...(coding === 'identity' ? {} : { 'content-encoding': coding }) });
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
      const result = await runCli(['ping', '--json'], { baseUrl: `${url}/api`, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ path: '/api/v1/ping' });
      const slash = await runCli(['ping', '--json'], { baseUrl: `${url}/api/`, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(JSON.parse(slash.stdout)).toMatchObject({ path: '/api/v1/ping' });
    });
  });

  const hasIpv6Loopback = Object.values(networkInterfaces()).some((addresses) => addresses?.some((a) => a.family === 'IPv6' && a.address === '::1'));

  it.skipIf(!hasIpv6Loopback)('an IPv6 literal base URL: http://[::1]:<port> (skipped where this machine has no IPv6 loopback)', async () => {
    await withServer(['--host', '::1'], async (v6) => {
      expect(v6.url).toMatch(/^http:\/\/\[::1\]:/);
      const result = await runCli(['ping', '-v'], { baseUrl: v6.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('rs_demo');
    });
  });
});
