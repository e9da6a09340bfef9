// The wire under ApiClient, on undici: EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, or the profile's
// proxy), keep-alive within a run, extra CA roots, and bodies decoded from gzip, br or deflate.
// Deadlines and retries stay in client.ts, what a failure means in network-errors.ts and errors.ts.
// Loaded only by commands that talk to the network.
//
// Start-up cost (BENCHMARKS.md): undici parses HTTP with llhttp compiled to WebAssembly, synchronously, on
// the first connection. V8 compiles it at once with its baseline compiler (Liftoff) and then re-compiles it
// with its optimising one in the background; a process that is done after one request waits for that second
// compile at exit (about 170 ms on a loaded two-core machine). A CLI run never parses enough to profit from
// it, so the optimising tier is switched off before undici compiles its parser. Only the undici modules
// used here are imported (its index pulls in fetch, WebSocket, mocks and caches: 1 MB).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { readIfThere } from '../files/read-if-there.js';
import { dirname, join } from 'node:path';
import type { Script } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../cache-dir.js';
import { UsageError } from '../errors.js';
import { guarded, untilAborted, type Connector } from './connect.js';
import { LLHTTP_BASELINE_FLAGS } from './llhttp-flags.js';

export interface WireRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Aborts the attempt at any stage: connecting, waiting for the head, or reading the body. */
  signal: AbortSignal;
}

export interface WireResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body as it arrives (still coded when `codings` names any); destroy() stops reading it. */
  body: Readable;
  /**
   * The Content-Encoding codings the body came in, in the order the server applied them (gzip, br, deflate;
   * identity left out): the reader decodes the whole body once it is read (decodeWhole). Empty or absent: as sent.
   */
  codings?: readonly Coding[] | undefined;
}

export type Coding = 'gzip' | 'br' | 'deflate';

/** An answer read whole (Transport.requestWhole): its body as the chunks that arrived, still coded as `codings` say. */
export interface WholeResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  chunks: Buffer[];
  /** The chunks' bytes in all. */
  size: number;
  codings: readonly Coding[];
}

export interface TransportOptions {
  /** The profile's proxy URL: used when neither HTTPS_PROXY nor HTTP_PROXY (any case) is set. */
  proxy?: string | undefined;
  /** PEM text trusted in addition to Node's own roots (--ca-file / GIFTCODES_CA_FILE, SSL_CERT_FILE, SSL_CERT_DIR). */
  extraCa?: string | undefined;
  /** How long a connection may take to open (the proxy's answer to CONNECT included): one attempt's deadline. */
  connectTimeoutMs?: number | undefined;
  /** The environment to read the proxy variables from (the process's). */
  env: NodeJS.ProcessEnv;
  /** Where -v lines go; how undici was compiled is said once, when the first request loads it, with GIFTCODES_DEBUG set. */
  log?: ((line: string) => void) | undefined;
}

/** A body whose Content-Encoding this client cannot decode: unreadable, not a network failure. */
export class UnsupportedCodingError extends Error {
  readonly code = 'GC_UNSUPPORTED_CODING';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export const ACCEPT_ENCODING = 'gzip, br';

/** The proxy a request to this URL goes through, as HTTPS_PROXY/HTTP_PROXY/NO_PROXY and the profile say. */
export interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
}

/** Environment first (lower case wins, as curl and undici read it), then the profile's `proxy`. */
export function proxySettings(env: NodeJS.ProcessEnv, profileProxy: string | undefined): ProxySettings {
  const pick = (lower: string, upper: string): string | undefined => {
    const value = env[lower] ?? env[upper];
    return value === undefined || value === '' ? undefined : value;
  };
  const httpProxy = pick('http_proxy', 'HTTP_PROXY');
  const httpsProxy = pick('https_proxy', 'HTTPS_PROXY');
  const fromEnv = httpProxy !== undefined || httpsProxy !== undefined;
  return {
    httpProxy: fromEnv ? httpProxy : profileProxy,
    httpsProxy: fromEnv ? (httpsProxy ?? httpProxy) : profileProxy,
    noProxy: pick('no_proxy', 'NO_PROXY'),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A proxy URL as it may be shown: never its user name or password. */
export function displayProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    const hidden = url.username !== '' || url.password !== '';
    return `${url.protocol}//${hidden ? '***@' : ''}${url.host}`;
  } catch {
    return '(an unparsable proxy URL)';
  }
}

type Undici = typeof import('./undici.js');
let undici: Promise<{ parts: Undici; compiled: string }> | undefined;

/**
 * undici's modules, read once per process, when a command first asks for the network (Factory.api). The files
 * are read synchronously: a few hundred kilobytes from the page cache take less than a millisecond, and the
 * promise-based reads this used to overlap them with the config started libuv's worker threads, which cost
 * `ping` more CPU than they saved in wall time (BENCHMARKS.md, issue 33).
 *
 * The build puts them in dist/undici.cjs, and a V8 code cache of the functions a request runs beside it
 * (undici.cjs.cache, made by scripts/build.mjs from one `ping`): V8 then compiles none of them again,
 * which was most of a first request's time. V8 rejects a cache another Node version or other V8 flags made,
 * so the first run on such a Node compiles undici as it would without one and, as it exits, keeps what it
 * compiled in giftcodes' cache directory (src/cache-dir.ts), one file per Node version and build of undici;
 * later runs on that Node compile from it. Node's own compile cache is no substitute: it keeps only the code
 * a module runs as it loads (7 KB of undici's 300), not the functions a request calls later
 * (BENCHMARKS.md, issue 33). Run from source (the tests), the module is imported as it is.
 */
export function loadUndici(): Promise<{ parts: Undici; compiled: string }> {
  undici ??= (async () => {
    // node:vm and node:module before the flag: a module of Node's loaded after a flag V8 hashes into its caches is
    // compiled from source, Node's own code cache of it refused (node:vm: ~0.2 ms of CPU more; BENCHMARKS.md, issue 33).
    const [{ setFlagsFromString }, { Script }, { createRequire }] = await Promise.all([
      import('node:v8'),
      import('node:vm'),
      import('node:module'),
    ]);
    // First: the flags are part of what a code cache was made for. Set at run time, --liftoff-only alone keeps
    // Node 22's V8 from tiering llhttp up, but not Node 24's or 26's: their dynamic tiering reads only its own
    // two flags, and compiled llhttp's parser again with the optimising tier a few pages into an export, ~13 MiB
    // of compiler memory on a worker thread (the 1,000,000-code CSV export's peak RSS; BENCHMARKS.md, issue 33).
    for (const flag of LLHTTP_BASELINE_FLAGS) setFlagsFromString(flag);
    const file = fileURLToPath(new URL('./undici.cjs', import.meta.url));
    const own = ownCodeCache();
    const source = readIfThere(file);
    if (source === undefined) return { parts: await import('./undici.js'), compiled: 'from source' };
    // The build stamps the file with a hash of its text, and a kept cache starts with the stamp of the build it
    // was made from (V8 itself checks only the text's length).
    const stamp = /^\/\*([0-9a-f]{16})\*\//.exec(source)?.[1];
    const kept = own === undefined || stamp === undefined ? undefined : readIfThere(own, 'bytes');
    const ownData =
      kept?.subarray(0, STAMP_BYTES).toString('latin1') === stamp ? kept?.subarray(STAMP_BYTES) : undefined;
    // The shipped cache is read only when this Node has none of its own.
    const cachedData = ownData ?? readIfThere(`${file}.cache`, 'bytes');
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      ...(cachedData ? { cachedData } : {}),
    });
    const module = { exports: {} as Undici };
    (script.runInThisContext() as (...args: unknown[]) => void)(
      module.exports,
      createRequire(file),
      module,
      file,
      dirname(file),
    );
    // scripts/build.mjs makes the shipped cache: what this process compiled, written as it exits.
    const out = process.env.GIFTCODES_BUILD_CODE_CACHE;
    if (out) process.once('exit', () => writeFileSync(out, script.createCachedData()));
    else if (own !== undefined && stamp !== undefined && (cachedData === undefined || script.cachedDataRejected))
      process.once('exit', () => keepCodeCache(own, stamp, script));
    const from = ownData !== undefined ? `from the code cache this Node made (${own})` : 'from its code cache';
    const compiled =
      cachedData === undefined
        ? 'no code cache'
        : script.cachedDataRejected
          ? 'code cache not used (V8 rejected it: another Node version, other V8 flags, or a damaged file)'
          : from;
    return { parts: module.exports, compiled };
  })();
  return undici;
}

const STAMP_BYTES = 16;

/** Where this Node keeps its own code cache of undici: in the cache directory, one file per Node version and platform. */
function ownCodeCache(): string | undefined {
  const dir = process.env.GIFTCODES_BUILD_CODE_CACHE ? undefined : cacheDir();
  return dir === undefined
    ? undefined
    : join(dir, `undici-${process.version}-${process.platform}-${process.arch}.cache`);
}

/** Writes the build's stamp and what this process compiled of undici, whole or not at all (a temporary file renamed over it); a failure leaves things as they were. */
function keepCodeCache(path: string, stamp: string, script: Script): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([Buffer.from(stamp, 'latin1'), script.createCachedData()]), { mode: 0o600 });
    renameSync(temporary, path);
  } catch {
    rmSync(temporary, { force: true });
  }
}

export class Transport {
  private dispatcher: Promise<Dispatcher> | undefined;
  private readonly options: TransportOptions;
  private readonly settings: ProxySettings;

  constructor(options: TransportOptions) {
    this.options = options;
    this.settings = proxySettings(options.env, options.proxy);
    const fromProfile =
      options.proxy !== undefined &&
      this.settings.httpsProxy === options.proxy &&
      this.settings.httpProxy === options.proxy;
    for (const proxy of new Set([this.settings.httpProxy, this.settings.httpsProxy])) {
      if (proxy !== undefined && !isHttpUrl(proxy)) {
        // The value is not echoed: it may hold a password.
        throw new UsageError(
          `${fromProfile ? "the profile's proxy" : 'HTTPS_PROXY/HTTP_PROXY'} is not an http:// or https:// URL`,
          {
            code: 'invalid_proxy',
            hint: 'for example: http://proxy.example.com:3128 (SOCKS proxies are not supported)',
          },
        );
      }
    }
  }

  /** The proxy this URL's requests go through, credentials hidden; undefined when they go direct. */
  proxyFor(url: URL): string | undefined {
    const proxy = url.protocol === 'https:' ? this.settings.httpsProxy : this.settings.httpProxy;
    if (proxy === undefined || bypassed(url, this.settings.noProxy)) return undefined;
    return displayProxy(proxy);
  }

  /**
   * undici's request(): resolves once the status and headers have arrived, the body a stream for the caller. The
   * client reads every answer whole (requestWhole); test/unit/whole-body.test.ts holds requestWhole to this.
   */
  async request(url: URL, req: WireRequest): Promise<WireResponse> {
    const dispatcher = await this.load(url);
    const res = await untilAborted(
      dispatcher.request({ ...dispatchOptions(url, req), signal: req.signal }),
      req.signal,
    );
    // undici's body emits 'error' when destroyed unread (a body too large, a coding we refuse): the reader
    // already knows why it stopped, and an unheard 'error' event would end the process.
    res.body.on('error', () => undefined);
    return {
      statusCode: res.statusCode,
      headers: res.headers,
      body: res.body,
      codings: codingsOf(res.body, res.headers['content-encoding'], res.statusCode),
    };
  }

  /**
   * request(), answered with the whole body, read by undici's handler callbacks (dispatch) rather than through a
   * stream: an export's 1,000 pages each made a request handler, a Readable, its listeners and the ticks that move
   * each chunk through it, ~9 % of the CPU of a 1,000,000-code export (BENCHMARKS.md, issue 33). The same request
   * (dispatch is what request() calls), headers (undici's parseHeaders) and errors: an abort of `signal` rejects
   * with its reason at once (as untilAborted) and stops the request, a connection cut mid-body rejects with
   * undici's error, a body over `limit` bytes with tooLarge(), a coding this client cannot decode with
   * UnsupportedCodingError, both as soon as they are known, the request then aborted. `head` hears the status
   * once the head has arrived.
   */
  async requestWhole(
    url: URL,
    req: WireRequest,
    limit: number,
    tooLarge: () => Error,
    head?: (status: number) => void,
  ): Promise<WholeResponse> {
    const dispatcher = await this.load(url);
    const { parseHeaders } = (await loadUndici()).parts;
    const signal = req.signal;
    return new Promise<WholeResponse>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let statusCode = 0;
      let headers: IncomingHttpHeaders = {};
      let codings: Coding[] = [];
      let abort: ((reason: Error) => void) | undefined;
      let settled = false;
      let stop: Error | undefined;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      // Rejected with `error`, and undici told to stop once the callback it may be in has returned (or as soon as it
      // has a connection to stop). A refusal is decided inside undici's parser (a coding at the head, the limit in the
      // body): stopped inside it, with the answer's end in the same read, undici kept the request at its queue's head
      // and opened a second connection to throw it away (test/unit/whole-body.test.ts). An interrupt or a deadline
      // comes from outside undici: one microtask later is the same to it.
      const fail = (error: Error): void => {
        if (settle()) reject(error);
        stop ??= error;
        queueMicrotask(() => abort?.(error));
      };
      const onAbort = (): void => fail(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      const handler = {
        onConnect: (abortRequest: (reason: Error) => void): void => {
          if (stop) abortRequest(stop);
          else abort = abortRequest;
        },
        onHeaders: (status: number, rawHeaders: Buffer[]): boolean => {
          // 1xx: the answer is still to come (undici's request() passes them over too).
          if (status < 200) return true;
          statusCode = status;
          headers = parseHeaders(rawHeaders) as IncomingHttpHeaders;
          head?.(status);
          try {
            codings = codingsIn(headers['content-encoding'], status);
          } catch (error) {
            fail(error as Error);
          }
          return true;
        },
        onData: (chunk: Buffer): boolean => {
          if (stop) return true;
          size += chunk.length;
          if (size > limit) fail(tooLarge());
          else chunks.push(chunk);
          return true;
        },
        onComplete: (): void => {
          if (settle()) resolve({ statusCode, headers, chunks, size, codings });
        },
        onError: (error: Error): void => {
          if (settle()) reject(error);
        },
      };
      dispatcher.dispatch(dispatchOptions(url, req), handler as unknown as Dispatcher.DispatchHandler);
    });
  }

  async close(): Promise<void> {
    const dispatcher = this.dispatcher;
    this.dispatcher = undefined;
    if (dispatcher) await (await dispatcher).destroy().catch(() => undefined);
  }

  /** The dispatcher for this client's one origin (`url` is on it): TLS roots are built only when it or its proxy speaks TLS. */
  private load(url: URL): Promise<Dispatcher> {
    this.dispatcher ??= (async () => {
      const { parts, compiled } = await loadUndici();
      const { Agent, EnvHttpProxyAgent, Pool, Client } = parts;
      // How undici was compiled is for whoever measures start-up (BENCHMARKS.md), not for a -v reader: with GIFTCODES_DEBUG.
      if (this.options.env.GIFTCODES_DEBUG) this.options.log?.(`undici: ${compiled}`);
      const { httpProxy, httpsProxy, noProxy } = this.settings;
      const proxy = url.protocol === 'https:' ? httpsProxy : httpProxy;
      const speaksTls =
        url.protocol === 'https:' || (proxy !== undefined && !bypassed(url, noProxy) && /^https:/i.test(proxy));
      // One secure context for the run: given as a list of CAs instead, Node would parse all ~140 roots again
      // for every connection. The host name is still checked against the certificate (checkServerIdentity).
      const tls =
        this.options.extraCa === undefined || !speaksTls
          ? undefined
          : { secureContext: await trustedContext(this.options.extraCa) };
      const connectTimeoutMs = this.options.connectTimeoutMs ?? 30_000;
      // Every connection undici opens for a request (direct, or through the proxy's tunnel) goes through
      // guarded(): what fails there is known never to have carried a request.
      const clientFactory = (origin: string | URL, options: object): Dispatcher => {
        const connector = (options as { connect?: unknown }).connect;
        return new Client(origin, {
          ...options,
          ...(typeof connector === 'function' ? { connect: guarded(connector as Connector, connectTimeoutMs) } : {}),
        });
      };
      const agentOptions = {
        // undici's default is read from node:http, which the build keeps unloaded (scripts/build.mjs): the same 16 KiB.
        maxHeaderSize: 16 * 1024,
        factory: (origin: string | URL, options: object) => new Pool(origin, { ...options, factory: clientFactory }),
        ...(tls ? { connect: tls, requestTls: tls, proxyTls: tls } : {}),
      };
      // No proxy at all (neither the environment nor the profile names one): the Agent EnvHttpProxyAgent would
      // send every request through, without it. It parsed each request's origin as a URL and matched it against
      // NO_PROXY only to pick that same Agent (BENCHMARKS.md, issue 33). NO_PROXY alone sends nothing elsewhere.
      if (httpProxy === undefined && httpsProxy === undefined) return new Agent(agentOptions);
      // Passing every field, even as an empty string, stops undici reading process.env behind our back.
      return new EnvHttpProxyAgent({
        httpProxy: httpProxy ?? '',
        httpsProxy: httpsProxy ?? '',
        noProxy: noProxy ?? '',
        ...agentOptions,
      });
    })();
    return this.dispatcher;
  }
}

/**
 * Node's own roots, those of NODE_EXTRA_CA_CERTS, and the file's: an explicit `ca` replaces Node's list,
 * so all three are given.
 */
async function trustedContext(extraCa: string): Promise<import('node:tls').SecureContext> {
  const [{ rootCertificates, createSecureContext }, { readFile }] = await Promise.all([
    import('node:tls'),
    import('node:fs/promises'),
  ]);
  const roots = [...rootCertificates];
  const nodeExtra = process.env.NODE_EXTRA_CA_CERTS;
  const more = [...splitPem(nodeExtra ? await readFile(nodeExtra, 'utf8').catch(() => '') : ''), ...splitPem(extraCa)];
  // NODE_EXTRA_CA_CERTS and SSL_CERT_FILE often name the system's bundle, mostly Node's own roots again: each
  // certificate is parsed once (at about a millisecond each).
  const seen = new Set(roots.map(pemBody));
  for (const certificate of more) {
    const body = pemBody(certificate);
    if (seen.has(body)) continue;
    seen.add(body);
    roots.push(certificate);
  }
  return createSecureContext({ ca: roots });
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** A certificate's base64, whatever its line breaks: the same certificate in two files compares equal. */
function pemBody(certificate: string): string {
  return certificate.replace(/\s+/g, '');
}

/** The PEM certificates in a text; none when it holds none. */
export function splitPem(text: string): string[] {
  return text.match(PEM_CERTIFICATE) ?? [];
}

/**
 * Whether NO_PROXY sends this URL direct, decided exactly as undici's EnvHttpProxyAgent decides it (so what -v
 * says is what happens): `*` alone, or host names (a leading `.` or `*.` dropped: the name and its
 * subdomains), each with an optional port; IPv6 literals in brackets.
 */
export function bypassed(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  if (noProxy === '*') return true;
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const name = (parsed ? (parsed[1] ?? '') : entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number.parseInt(parsed[2] ?? '', 10) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** What undici is asked to send, the same for a request read as a stream and one read whole. */
function dispatchOptions(url: URL, req: WireRequest): Dispatcher.DispatchOptions {
  return {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: req.method as Dispatcher.HttpMethod,
    headers: { ...req.headers, 'accept-encoding': ACCEPT_ENCODING },
    body: req.body ?? null,
  };
}

/** The codings of a body as its Content-Encoding lists them (the order they were applied); one this client cannot decode is refused. */
function codingsOf(body: Readable, contentEncoding: string | string[] | undefined, status: number): Coding[] {
  try {
    return codingsIn(contentEncoding, status);
  } catch (error) {
    body.destroy();
    throw error;
  }
}

/** codingsOf, of the header alone. */
function codingsIn(contentEncoding: string | string[] | undefined, status: number): Coding[] {
  const codings: Coding[] = [];
  for (const named of (Array.isArray(contentEncoding) ? contentEncoding.join(',') : (contentEncoding ?? '')).split(
    ',',
  )) {
    const coding = named.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') codings.push('gzip');
    else if (coding === 'br' || coding === 'deflate') codings.push(coding);
    else throw new UnsupportedCodingError(`the body is coded "${coding}", which this client cannot decode`, status);
  }
  return codings;
}

/**
 * The room zlib is given for a gzipped body's decoded bytes: the size its trailer states (the last four bytes,
 * the decoded length modulo 2^32), plus the byte zlib needs to see it has finished. zlib's default is pieces of
 * 16 KiB, joined at the end: three buffers per 100 KB page, two of them garbage at once. On Node 24 and 26 that
 * garbage, outside V8's heap, had V8 start a full collection every ~35 pages of the gzipped export of 1,000,000
 * codes (28 against 1 on Node 22): one buffer per page took 0.2 s of its 2.3 s of CPU away (BENCHMARKS.md,
 * issue 33). zlib checks the trailer against what it decoded (a mismatch is a corrupt body, as it always was);
 * a body of several gzip members states only its last one's size, and zlib then adds room as it goes. The room
 * asked for is held to `limit` and to what deflate can make of the bytes sent (at most 1,032 times their size).
 */
export function gzipOutputSize(body: Buffer, limit: number): number {
  const MIN_CHUNK = 64;
  if (body.length < 18) return MIN_CHUNK;
  const stated = body.readUInt32LE(body.length - 4);
  return Math.max(MIN_CHUNK, Math.min(stated + 1, limit + 1, body.length * 1032 + MIN_CHUNK));
}

/**
 * The memory of a page decodeWhole made, given back as soon as its bytes are copied out (into the export's
 * reused buffer, client.ts bodyBytes): an ArrayBuffer's memory is otherwise freed only when V8 next collects it,
 * and on Node 24 and 26 a page's worth of that garbage outside V8's heap every few milliseconds still had V8 start
 * a full collection every ~55 pages (18 in the gzipped export of 1,000,000 codes, and 20 MiB more peak memory;
 * with this, 1). Detaching an ArrayBuffer (`transfer(0)`) frees its memory at once. Only a buffer that is
 * certainly zlib's own room for this page (gzipOutputSize: the decoded bytes at its start, and one byte more):
 * a small buffer can share its ArrayBuffer with others (Node's pool), and detaching that would empty them too.
 */
export function freeDecoded(decoded: Buffer): void {
  // ArrayBuffer.prototype.transfer: every supported Node has it (V8 11.4 and later), though TypeScript's lib here does not name it.
  const memory = decoded.buffer as ArrayBuffer & { transfer: (length: number) => ArrayBuffer };
  if (decoded.byteOffset !== 0 || memory.byteLength !== decoded.length + 1) return;
  memory.transfer(0);
}

/** node:zlib, once a coded body has needed it (only an API command that met one loads it). */
let zlibModule: typeof import('node:zlib') | undefined;

/**
 * The parts of a zlib stream's native handle that gunzipInto drives: what Node's own gunzipSync calls for each
 * body (node:zlib, processChunkSync), from a handle made once. `written` is where each write leaves the bytes of
 * room and of input it did not use; `failed` is set by the handle's error callback, which zlib calls during the
 * write that met a corrupt or cut body.
 */
interface ReusedGunzip {
  handle: {
    writeSync(
      flush: number,
      input: Buffer,
      inAt: number,
      inLength: number,
      out: Buffer,
      outAt: number,
      outLength: number,
    ): void;
    reset(): void;
    close(): void;
    onerror: (...args: unknown[]) => void;
  };
  written: Uint32Array;
  failed: boolean;
}

/** The export's gunzip, made at the first gzipped page; null when this Node's zlib has no handle to drive. */
let reusedGunzip: ReusedGunzip | null | undefined;

function gunzipEngine(zlib: typeof import('node:zlib')): ReusedGunzip | null {
  if (reusedGunzip !== undefined) return reusedGunzip;
  const stream = zlib.createGunzip() as unknown as { _handle?: Partial<ReusedGunzip['handle']>; _writeState?: unknown };
  const handle = stream._handle;
  const written = stream._writeState;
  if (
    !handle ||
    typeof handle.writeSync !== 'function' ||
    typeof handle.reset !== 'function' ||
    typeof handle.close !== 'function' ||
    !(written instanceof Uint32Array)
  )
    return (reusedGunzip = null);
  const engine: ReusedGunzip = { handle: handle as ReusedGunzip['handle'], written, failed: false };
  engine.handle.onerror = () => {
    engine.failed = true;
  };
  return (reusedGunzip = engine);
}

/**
 * A gzipped page decoded straight into `out` (the export's reused buffer) by one zlib handle kept for every page:
 * its decoded length, or undefined when this path cannot say, and the caller decodes the body with decodeWhole
 * instead, which gives the result or zlib's own error exactly as before. That is: a body zlib finds corrupt or cut
 * (the handle, which zlib cannot reset cleanly after an error, is closed and made again at the next page), decoded
 * bytes more than `out` holds (a trailer that understates them, several members), bytes left after the end, or a
 * Node whose zlib does not have the handle. gunzipSync makes a whole stream object and zlib's state for each page,
 * then a buffer the caller copies out of, and on Node 24 and 26 ~50 more scavenges: with this (and node:zlib imported
 * once), the gzipped export of 1,000,000 codes went from 1.18× to 1.07× of the same export without gzip on Node 22,
 * 1.26× to 1.11× on 26 (client CPU, alternated; BENCHMARKS.md, issue 33). The handle is Node's own, not a documented
 * API (docs/architecture.md): what it needs is checked once, and without it every page takes gunzipSync's path.
 */
export async function gunzipInto(body: Buffer, out: Buffer): Promise<number | undefined> {
  const zlib = (zlibModule ??= await import('node:zlib'));
  const engine = gunzipEngine(zlib);
  if (!engine) return undefined;
  engine.failed = false;
  // A reset that fails (it never has) leaves zlib's state unusable: the write then fails too, and says so.
  engine.handle.reset();
  engine.handle.writeSync(zlib.constants.Z_FINISH, body, 0, body.length, out, 0, out.length);
  if (engine.failed) {
    engine.handle.close();
    reusedGunzip = undefined;
    return undefined;
  }
  const outLeft = engine.written[0]!;
  const inLeft = engine.written[1]!;
  // No room left: the body may hold more than `out` took. Input left: bytes after the gzip's end. (A write state of
  // another length than Node's [room left, input left] reads as one of them, and the page takes gunzipSync's path.)
  if (outLeft === 0 || inLeft !== 0) return undefined;
  return out.length - outLeft;
}

/**
 * A whole body, read, decoded as its codings say (the last applied first), in one call per coding: a page of
 * codes is a few hundred kilobytes, and a stream pipeline of zlib per page cost the gzipped export of
 * 1,000,000 codes 0.69 s of CPU where decoding each page whole costs 0.20 s (issue 33). The decoded bytes are
 * held to `limit` (more is undefined returned: the caller's "too large"), so a small bomb never inflates into
 * memory; a cut or corrupt body throws zlib's error (its code Z_… or ERR_BROTLI…: an unreadable body).
 */
export async function decodeWhole(
  bytes: Buffer,
  codings: readonly Coding[],
  limit: number,
): Promise<Buffer | undefined> {
  // Imported once, not per page: on Node 26 a dynamic import() of a built-in resolves it again every call
  // (~35 µs, 35 ms of the gzipped export of 1,000,000 codes; `--cpu-prof`, BENCHMARKS.md issue 33).
  const zlib = (zlibModule ??= await import('node:zlib'));
  let body = bytes;
  for (const coding of [...codings].reverse()) {
    // One byte over the limit is enough to know the body is too large.
    const options = { maxOutputLength: limit + 1 };
    try {
      body =
        coding === 'gzip'
          ? zlib.gunzipSync(body, { ...options, chunkSize: gzipOutputSize(body, limit) })
          : coding === 'br'
            ? zlib.brotliDecompressSync(body, options)
            : zlib.inflateSync(body, options);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
      throw error;
    }
    if (body.length > limit) return undefined;
  }
  return body;
}
