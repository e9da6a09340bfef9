// One factory of dependencies, built lazily: `--help`, `--version` and `completion` load none of them.
import type { ApiClient } from './api/client.js';
import { configDir } from './config/paths.js';
import type { Connection } from './config/resolve.js';
import type { ConfigStore } from './config/store.js';
import type { Journal } from './journal/journal.js';
import type { Io } from './output/io.js';
import type { KeyEnvironment } from './secrets.js';

export interface GlobalOptions {
  profile?: string | undefined;
  env?: KeyEnvironment | 'all' | undefined;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  /** Seconds. */
  requestTimeout: number;
  retries: number;
  yes?: boolean;
}

export const DEFAULT_REQUEST_TIMEOUT_S = 30;
export const DEFAULT_RETRIES = 5;

const warnedAboutArgv = new WeakSet<Io>();

/**
 * A key given with --api-key sits in the shell history and in every `ps` listing while the command runs:
 * said once per run, with the two ways that keep it out. Not in --json mode, whose stderr is one JSON error.
 */
function warnKeyOnCommandLine(io: Io): void {
  if (io.json || warnedAboutArgv.has(io)) return;
  warnedAboutArgv.add(io);
  io.warn('--api-key puts the key in your shell history and in ps output; set GIFTCODES_API_KEY instead, or save it once with: giftcodes login --api-key-stdin');
}

export class Factory {
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
    const [{ resolveConnection, loadStoredKey }, store] = await Promise.all([import('./config/resolve.js'), this.config()]);
    const connection = await loadStoredKey(resolveConnection(this.globals, this.io.env, store), this.io.env);
    this.io.addSecret(connection.apiKey);
    return connection;
  }

  /** The client for the resolved connection (profile, environment, key, base URL). */
  api(): Promise<ApiClient> {
    this.apiPromise ??= this.connection().then((connection) => this.clientFor(connection.baseUrl, connection.apiKey));
    return this.apiPromise;
  }

  /** A client for an explicit key and URL: login verifies a key before it is saved. */
  async clientFor(baseUrl: string, apiKey: string): Promise<ApiClient> {
    const [{ ApiClient }, { DEFAULT_RETRY_POLICY }] = await Promise.all([import('./api/client.js'), import('./api/retry.js')]);
    this.io.addSecret(apiKey);
    const client = new ApiClient({
      baseUrl,
      apiKey,
      requestTimeoutMs: Math.max(1, Math.round(this.globals.requestTimeout * 1000)),
      retry: { ...DEFAULT_RETRY_POLICY, retries: this.globals.retries },
      log: (line) => this.io.debug(line),
      signal: this.signal,
    });
    this.clients.push(client);
    return client;
  }

  journal(): Promise<Journal> {
    this.journalPromise ??= (async () => {
      const [{ Journal }, { ensurePrivateDir }] = await Promise.all([import('./journal/journal.js'), import('./config/paths.js')]);
      const dir = `${this.configDir}/journal`;
      for (const warning of [ensurePrivateDir(this.configDir), ensurePrivateDir(dir)]) if (warning) this.warnOnce(warning);
      return new Journal(dir);
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

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}
