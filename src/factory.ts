// One factory of dependencies, built lazily: `--help`, `--version` and `completion` load none of them.
import type { ApiClient } from './api/client.js';
import { DEFAULT_RETRY_POLICY } from './api/retry.js';
import { loadUndici, splitPem } from './api/transport.js';
import { assertPrivateFile, configDir, ensurePrivateDir } from './config/paths.js';
import { loadStoredKey, resolveConnection, resolveProfileName, type Connection } from './config/resolve.js';
import { LocalError, UsageError } from './errors.js';
import type { ConfigStore } from './config/store.js';
import type { Deps } from './commands/deps.js';
import type { Journal } from './journal/journal.js';
import type { Io } from './output/io.js';
import type { KeyEnvironment } from './secrets.js';

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
  io.warn('--api-key puts the key in your shell history and in ps output; set GIFTCODES_API_KEY instead, or save it once with: giftcodes login --api-key-stdin');
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
      const store = new ConfigStore(this.configDir);
      for (const warning of store.warnings) this.warnOnce(warning);
      return store;
    })();
    return this.configPromise;
  }

  async connection(): Promise<Connection> {
    const store = await this.config();
    const connection = await loadStoredKey(resolveConnection(this.globals, this.io.env, store), this.io.env);
    this.io.addSecret(connection.apiKey);
    return connection;
  }

  /** The client for the resolved connection (profile, environment, key, base URL). */
  api(): Promise<ApiClient> {
    if (!this.apiPromise) preloadTransport();
    this.apiPromise ??= this.connection().then((connection) => this.clientFor(connection.baseUrl, connection.apiKey));
    return this.apiPromise;
  }

  /** A client for an explicit key and URL: login verifies a key before it is saved; doctor pings with fewer retries. */
  async clientFor(baseUrl: string, apiKey: string, retries = this.globals.retries): Promise<ApiClient> {
    preloadTransport();
    const [{ ApiClient }, extraCa, proxy] = await Promise.all([
      import('./api/client.js'),
      this.extraCa(),
      this.profileProxy(),
    ]);
    this.io.addSecret(apiKey);
    const client = new ApiClient({
      baseUrl,
      apiKey,
      extraCa,
      proxy,
      env: this.io.env,
      requestTimeoutMs: Math.max(1, Math.round(this.globals.requestTimeout * 1000)),
      retry: { ...DEFAULT_RETRY_POLICY, retries },
      log: (line) => this.io.debug(line),
      signal: this.signal,
    });
    this.clients.push(client);
    return client;
  }

  /** The PEM text of --ca-file or GIFTCODES_CA_FILE: exit 8 when it cannot be read, 2 when it holds no certificate. */
  private async extraCa(): Promise<string | undefined> {
    const path = this.globals.caFile || this.io.env.GIFTCODES_CA_FILE;
    if (!path) return undefined;
    const where = this.globals.caFile ? '--ca-file' : 'GIFTCODES_CA_FILE';
    const { readFile } = await import('node:fs/promises');
    // Whoever can write the CA file can vouch for any server: refused as a config file would be (exit 8). That
    // others can read it is no warning here: certificates are public (/etc/ssl/certs is 0644 by design).
    void assertPrivateFile(path, 'CA file');
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable';
      throw new LocalError(`cannot read the CA file ${path} (${where}): ${code}`, { code: 'ca_file_unreadable', hint: 'give the path of a PEM file of CA certificates' });
    }
    if (splitPem(text).length === 0) {
      throw new UsageError(`the CA file ${path} (${where}) holds no PEM certificate`, {
        code: 'ca_file_invalid',
        hint: 'it must contain -----BEGIN CERTIFICATE----- blocks (convert DER with: openssl x509 -inform der -in ca.cer -out ca.pem)',
      });
    }
    return text;
  }

  /** The profile's proxy; its credentials, when it carries any, join the secrets kept out of every output. */
  private async profileProxy(): Promise<string | undefined> {
    const store = await this.config();
    const proxy = store.profile(resolveProfileName(this.globals, this.io.env, store)).proxy;
    for (const value of [proxy, this.io.env.HTTPS_PROXY, this.io.env.https_proxy, this.io.env.HTTP_PROXY, this.io.env.http_proxy]) {
      if (value) this.io.addSecret(proxyPassword(value));
    }
    return proxy;
  }

  journal(): Promise<Journal> {
    this.journalPromise ??= (async () => {
      const { Journal } = await import('./journal/journal.js');
      const dir = this.journalDir;
      for (const warning of [ensurePrivateDir(this.configDir), ensurePrivateDir(dir)]) if (warning) this.warnOnce(warning);
      // How long the order record keeps ended orders: the profile's history-days, else 90.
      const store = await this.config().catch(() => undefined);
      const profile = store && (this.globals.profile || this.io.env.GIFTCODES_PROFILE || store.defaultProfile);
      return new Journal(dir, { historyDays: profile ? store.profile(profile).historyDays : undefined });
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

/**
 * A command that asked for a client will send a request: the client's and undici's files are read while the
 * config is read and the key resolved, instead of after (BENCHMARKS.md, issue 13). A failure here is the request's to report.
 */
function preloadTransport(): void {
  void Promise.all([import('./api/client.js'), loadUndici()]).catch(() => undefined);
}
