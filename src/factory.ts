// One factory of dependencies, built lazily: `--help`, `--version` and `completion` load none of them.
import { existsSync } from 'node:fs';
import type { ApiClient } from './api/client.js';
import { DEFAULT_RETRY_POLICY } from './api/retry.js';
import { loadUndici, proxySettings } from './api/transport.js';
import { configDir, ensurePrivateDir } from './config/paths.js';
import {
  baseUrlWarning,
  loadStoredKey,
  resolveBaseUrl,
  resolveConnection,
  resolveProfileName,
  type Connection,
} from './config/resolve.js';
import { clientOf } from './config/refused-key.js';
import type { ConfigStore } from './config/store.js';
import type { CurrentTarget, Deps, Target } from './commands/deps.js';
import type { Journal } from './journal/journal.js';
import type { Io } from './output/io.js';
import { environmentOfKey, type KeyEnvironment } from './secrets.js';

export interface GlobalOptions {
  profile?: string | undefined;
  env?: KeyEnvironment | 'all' | undefined;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  json?: boolean;
  /** --query <expr>: implies --json (see output/exporter.ts). */
  query?: string | undefined;
  /** --no-pager sets this false. */
  pager?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  /** Seconds. */
  requestTimeout: number;
  retries: number;
  yes?: boolean;
  /** PEM roots trusted in addition to Node's own (else GIFTCODES_CA_FILE). */
  caFile?: string | undefined;
}

export const DEFAULT_REQUEST_TIMEOUT_S = 30;
export const DEFAULT_RETRIES = 5;

const warnedAboutArgv = new WeakSet<Io>();

/** The password of a proxy URL, in the forms it could be printed in (as typed, and decoded). */
function proxyPassword(proxy: string): string | undefined {
  try {
    const password = new URL(proxy).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

/**
 * A key given with --api-key sits in the shell history and in every `ps` listing while the command runs:
 * said once per run, with the two ways that keep it out. Not in --json mode, whose stderr is one JSON error.
 */
function warnKeyOnCommandLine(io: Io): void {
  if (io.json || warnedAboutArgv.has(io)) return;
  warnedAboutArgv.add(io);
  io.warn(
    '--api-key puts the key in your shell history and in ps output; set GIFTCODES_API_KEY instead, or save it once with: giftcodes login (it asks for the key; a script pipes it to giftcodes login --api-key-stdin)',
  );
}

/** The lazy implementation of a verb's dependencies (commands/deps.ts); verbs see only the Deps they ask for. */
export class Factory implements Deps {
  readonly io: Io;
  readonly globals: GlobalOptions;
  readonly signal: AbortSignal;
  private configPromise: Promise<ConfigStore> | undefined;
  private apiPromise: Promise<ApiClient> | undefined;
  private journalPromise: Promise<Journal> | undefined;
  private readonly clients: ApiClient[] = [];

  constructor(io: Io, globals: GlobalOptions, signal: AbortSignal) {
    this.io = io;
    this.globals = globals;
    this.signal = signal;
    if (globals.apiKey) {
      io.addSecret(globals.apiKey);
      warnKeyOnCommandLine(io);
    }
    if (io.env.GIFTCODES_API_KEY) io.addSecret(io.env.GIFTCODES_API_KEY);
  }

  get configDir(): string {
    return configDir(this.io.env);
  }

  /** The order journal sits in the config directory. */
  get journalDir(): string {
    return `${this.configDir}/journal`;
  }

  config(): Promise<ConfigStore> {
    this.configPromise ??= (async () => {
      const { ConfigStore } = await import('./config/store.js');
      const store = await ConfigStore.open(this.configDir);
      for (const warning of store.warnings) this.warnOnce(warning);
      return store;
    })();
    return this.configPromise;
  }

  async connection(): Promise<Connection> {
    const store = await this.config();
    const connection = await loadStoredKey(resolveConnection(this.globals, this.io.env, store), this.io.env);
    this.io.addSecret(connection.apiKey);
    const warning = baseUrlWarning(connection.baseUrl);
    if (warning) this.warnOnce(warning);
    return connection;
  }

  async connectionTo(where: Target): Promise<Connection> {
    const store = await this.config();
    const flags = {
      profile: where.profile,
      env: where.environment,
      apiKey: this.globals.apiKey,
      baseUrl: where.baseUrl,
    };
    const connection = await loadStoredKey(resolveConnection(flags, this.io.env, store), this.io.env);
    this.io.addSecret(connection.apiKey);
    return connection;
  }

  async currentTarget(): Promise<CurrentTarget> {
    const store = await this.config();
    const profile = resolveProfileName(this.globals, this.io.env, store);
    const given = this.globals.apiKey || this.io.env.GIFTCODES_API_KEY;
    const wanted = this.globals.env === 'all' ? undefined : this.globals.env;
    const environment =
      (given ? environmentOfKey(given) : undefined) ?? wanted ?? store.profile(profile).defaultEnv ?? 'test';
    const baseUrlGiven = this.globals.baseUrl
      ? ('--base-url' as const)
      : this.io.env.GIFTCODES_BASE_URL
        ? ('GIFTCODES_BASE_URL' as const)
        : undefined;
    return {
      profile,
      environment,
      baseUrl: resolveBaseUrl(this.globals, this.io.env, store, profile),
      baseUrlGiven,
      environmentGiven: Boolean(given) || wanted !== undefined,
    };
  }

  /** The client for the resolved connection (profile, environment, key, base URL). */
  api(): Promise<ApiClient> {
    if (!this.apiPromise) preloadTransport();
    this.apiPromise ??= this.connection().then((connection) => clientOf(this, connection));
    return this.apiPromise;
  }

  /** A client for an explicit key and URL: login verifies a key before it is saved; status pings each key once. */
  async clientFor(
    baseUrl: string,
    apiKey: string,
    retries = this.globals.retries,
    refusedHint?: string,
    baseUrlFrom?: string,
  ): Promise<ApiClient> {
    preloadTransport();
    const proxy = this.profileProxy();
    const [{ ApiClient }, extraCa] = await Promise.all([
      import('./api/client.js'),
      this.extraCa(baseUrl, proxy),
      proxy,
    ]);
    this.io.addSecret(apiKey);
    const client = new ApiClient({
      baseUrl,
      apiKey,
      extraCa,
      proxy: await proxy,
      env: this.io.env,
      requestTimeoutMs: Math.max(1, Math.round(this.globals.requestTimeout * 1000)),
      retry: { ...DEFAULT_RETRY_POLICY, retries },
      // Only with --verbose: each request's line (its path, its time) is otherwise made for nothing, ~30 ms of a
      // 1,000-row plan (BENCHMARKS.md, issue 33).
      log: this.io.verbose ? (line) => this.io.debug(line) : undefined,
      onRetry: ({ cause, attempt, maxAttempts, delayMs }) =>
        this.io.retrying(
          `${cause}; trying again ${delayMs < 100 ? 'at once' : `in ${(delayMs / 1000).toFixed(1)} s`} (attempt ${attempt} of ${maxAttempts})`,
          `attempt ${attempt} of ${maxAttempts}`,
        ),
      signal: this.signal,
      refusedKeyHint: refusedHint,
      baseUrlFrom,
    });
    this.clients.push(client);
    return client;
  }

  /**
   * The PEM text of --ca-file (or GIFTCODES_CA_FILE), SSL_CERT_FILE and SSL_CERT_DIR: exit 8 when one cannot be
   * read, 2 when a file holds no certificate. The flag is read whatever the URL; the two system-wide variables
   * only when TLS will be spoken (an https API or proxy): plain http to the local server reads nothing.
   */
  private async extraCa(baseUrl: string, profileProxy: Promise<string | undefined>): Promise<string | undefined> {
    const { env } = this.io;
    const file = this.globals.caFile || env.GIFTCODES_CA_FILE;
    const system =
      Boolean(env.SSL_CERT_FILE || env.SSL_CERT_DIR) && speaksTls(baseUrl, proxySettings(env, await profileProxy));
    if (!file && !system) return undefined;
    const { trustedCa } = await import('./config/ca.js');
    return trustedCa({
      file,
      fileWhere: this.globals.caFile ? '--ca-file' : 'GIFTCODES_CA_FILE',
      certFile: system ? env.SSL_CERT_FILE : undefined,
      certDir: system ? env.SSL_CERT_DIR : undefined,
    });
  }

  /** The profile's proxy; its credentials, when it carries any, join the secrets kept out of every output. */
  private async profileProxy(): Promise<string | undefined> {
    const store = await this.config();
    const proxy = store.profile(resolveProfileName(this.globals, this.io.env, store)).proxy;
    for (const value of [
      proxy,
      this.io.env.HTTPS_PROXY,
      this.io.env.https_proxy,
      this.io.env.HTTP_PROXY,
      this.io.env.http_proxy,
    ]) {
      if (value) this.io.addSecret(proxyPassword(value));
    }
    return proxy;
  }

  journal(options: { read?: boolean } = {}): Promise<Journal> {
    this.journalPromise ??= (async () => {
      const { Journal } = await import('./journal/journal.js');
      const dir = this.journalDir;
      // A command that only reads (order show), where the config directory is not there: an empty journal in its
      // place, never made, for the rest of the run (the ref's lookups ask again); deps.ts says more.
      if (options.read === true && !existsSync(this.configDir)) return new Journal(dir, { absent: true });
      for (const warning of [ensurePrivateDir(this.configDir), ensurePrivateDir(dir, 'journal directory')])
        if (warning) this.warnOnce(warning);
      // How long the order record keeps ended orders: the profile's history-days, else 90.
      const store = await this.config().catch(() => undefined);
      const profile = store && resolveProfileName(this.globals, this.io.env, store);
      return new Journal(dir, {
        historyDays: profile ? store.profile(profile).historyDays : undefined,
        historyProfile: profile || undefined,
      });
    })();
    return this.journalPromise;
  }

  private readonly warned = new Set<string>();

  /** The config and the journal share a directory: its permission warning is said once. */
  warnOnce(warning: string): void {
    if (this.warned.has(warning)) return;
    this.warned.add(warning);
    this.io.warn(warning);
  }

  now(): number {
    return Date.now();
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}

/** Whether a client of this base URL may speak TLS: the URL is https, or the proxy an http URL may go through is. */
function speaksTls(baseUrl: string, proxies: { httpProxy: string | undefined }): boolean {
  return /^https:/i.test(baseUrl) || /^https:/i.test(proxies.httpProxy ?? '');
}

/**
 * A command that asked for a client will send a request: the client's module and undici start loading now,
 * beside the config and the key, instead of after them (BENCHMARKS.md, issue 13). A failure here is the request's to report.
 */
function preloadTransport(): void {
  void Promise.all([import('./api/client.js'), loadUndici()]).catch(() => undefined);
}
