// What a verb's run receives besides its options: the Io and lazy getters (the Factory in src/factory.ts
// builds each on first use). A verb takes the narrowest Pick of this it needs; only the registration
// (app.ts and each verb's `register`) turns commander's flags into options and these dependencies.
import type { ApiClient } from '../api/client.js';
import type { Connection } from '../config/resolve.js';
import type { ConfigStore } from '../config/store.js';
import type { Journal } from '../journal/journal.js';
import type { Io } from '../output/io.js';

export type { GlobalOptions } from '../factory.js';

/** Where an order lives: a profile's key for one environment, at one base URL. */
export interface Target {
  readonly profile: string;
  readonly environment: 'test' | 'live';
  readonly baseUrl: string;
}

/** The target this run would use, and where a base URL given for it came from (--base-url, GIFTCODES_BASE_URL). */
export interface CurrentTarget extends Target {
  readonly baseUrlGiven?: '--base-url' | 'GIFTCODES_BASE_URL' | undefined;
  /** The environment was chosen for this run (--env, or a key given for it), not the profile's default. */
  readonly environmentGiven?: boolean;
}

export interface Deps {
  readonly io: Io;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  readonly configDir: string;
  readonly journalDir: string;
  config(): Promise<ConfigStore>;
  /** The resolved profile, environment, key and base URL (the key joins the secrets kept out of every output). */
  connection(): Promise<Connection>;
  /** The client for the resolved connection. */
  api(): Promise<ApiClient>;
  /** A client for an explicit key and URL (login verifies a key before saving it; resume uses the intent's). */
  clientFor(
    baseUrl: string,
    apiKey: string,
    retries?: number,
    refusedHint?: string,
    baseUrlFrom?: string,
  ): Promise<ApiClient>;
  /**
   * The connection to where an order was placed (a local record's profile, environment and base URL): this run's
   * --api-key or GIFTCODES_API_KEY when given, else that profile's key.
   */
  connectionTo(where: Target): Promise<Connection>;
  /**
   * The profile, environment and base URL this run would use, without reading a key (for comparing); `baseUrlGiven`:
   * where a base URL given for this run came from (--base-url, GIFTCODES_BASE_URL), else undefined.
   */
  currentTarget(): Promise<CurrentTarget>;
  /**
   * The order journal, made with its config directory where missing. `read`: for a command that only reads it
   * (order show): where the config directory is not there, an empty journal instead, never made, which every later
   * call of this run gets too (a mistyped GIFTCODES_CONFIG_DIR was made, journal/ and all).
   */
  journal(options?: { read?: boolean }): Promise<Journal>;
  /** Milliseconds since 1970. */
  now(): number;
}
