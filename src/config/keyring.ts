// The operating system's credential store (macOS Keychain, Windows Credential Manager, the Secret Service on
// Linux) through @napi-rs/keyring. The native module is loaded here only, and only when a key is read,
// written or removed: --help, completion and serve never load it.
//
// On Linux @napi-rs/keyring speaks to the Secret Service over the D-Bus session bus and writes to the
// collection behind the `default` alias. Without a session bus it has nothing persistent to offer (it fails, or
// would fall back to the kernel's session keyring, which is gone at logout), and gnome-keyring's `session`
// collection lives in memory only: neither counts as usable, so the key goes to the 0600 config file instead.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { LocalError } from '../errors.js';

export const KEYRING_SERVICE = 'giftcodes';
const DEFAULT_TIMEOUT_MS = 5_000;

interface NativeEntry {
  setPassword(password: string): Promise<void>;
  getPassword(): Promise<string | undefined | null>;
  deleteCredential(): Promise<boolean>;
}
type EntryConstructor = new (service: string, account: string) => NativeEntry;

export type KeyringStatus = { usable: true } | { usable: false; reason: string };

/** The account a profile's key is filed under; the profile keeps this reference, not the key. */
export function keyringAccount(profile: string, environment: string): string {
  return `${profile}/${environment}`;
}

function timeoutMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.GIFTCODES_KEYRING_TIMEOUT_MS);
  return Number.isFinite(given) && given > 0 ? given : DEFAULT_TIMEOUT_MS;
}

let entryConstructor: EntryConstructor | undefined;
function nativeEntry(account: string): NativeEntry {
  if (!entryConstructor) {
    // createRequire keeps the native module out of the bundle: it is resolved from node_modules at run time.
    const required = createRequire(import.meta.url)('@napi-rs/keyring') as { AsyncEntry: EntryConstructor };
    entryConstructor = required.AsyncEntry;
  }
  return new entryConstructor(KEYRING_SERVICE, account);
}

/** Runs one credential-store call, bounded: a store that hangs (a D-Bus timeout) must not hang a cron job. */
async function bounded<T>(env: NodeJS.ProcessEnv, what: string, call: () => Promise<T>): Promise<T> {
  const ms = timeoutMs(env);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new KeyringError(`the credential store did not answer within ${ms / 1000} s (${what})`)),
      ms,
    );
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve().then(call), timeout]);
  } catch (error) {
    if (error instanceof KeyringError) throw error;
    throw new KeyringError(`the credential store failed (${what}): ${firstLine(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

export class KeyringError extends LocalError {
  constructor(message: string) {
    super(message, {
      code: 'keyring_unavailable',
      hint: 'set GIFTCODES_API_KEY for this run, or run: giftcodes login --insecure-storage',
    });
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? 'unknown error';
}

/** Whether a persistent credential store answers here; the reason when not. */
export async function keyringStatus(env: NodeJS.ProcessEnv): Promise<KeyringStatus> {
  const setting = (env.GIFTCODES_KEYRING ?? '').toLowerCase();
  if (setting === 'off' || setting === '0' || setting === 'false')
    return { usable: false, reason: 'GIFTCODES_KEYRING is off' };
  if (process.platform === 'linux') {
    if (!env.DBUS_SESSION_BUS_ADDRESS)
      return { usable: false, reason: 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is unset)' };
    const collection = await defaultCollection(env);
    if ('reason' in collection) return { usable: false, reason: collection.reason };
    if (collection.path === '/' || collection.path === '')
      return { usable: false, reason: 'the Secret Service has no default collection' };
    if (/\/session$/.test(collection.path))
      return {
        usable: false,
        reason: 'the default Secret Service collection is session-only: it would lose the key at logout',
      };
  }
  try {
    const probe = nativeEntry('.probe');
    await bounded(env, 'probe', async () => {
      await probe.setPassword('probe');
      await probe.deleteCredential();
    });
    return { usable: true };
  } catch (error) {
    return { usable: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The object path behind the Secret Service's `default` alias, asked with dbus-send (part of D-Bus itself). */
function defaultCollection(env: NodeJS.ProcessEnv): Promise<{ path: string } | { reason: string }> {
  const args = [
    '--session',
    '--print-reply=literal',
    '--dest=org.freedesktop.secrets',
    '/org/freedesktop/secrets',
    'org.freedesktop.Secret.Service.ReadAlias',
    'string:default',
  ];
  return new Promise((resolve) => {
    execFile('dbus-send', args, { env, timeout: timeoutMs(env), encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        const detail = (stderr || error.message).split('\n')[0]?.trim() ?? '';
        resolve({
          reason:
            (error as NodeJS.ErrnoException).code === 'ENOENT'
              ? 'dbus-send is not installed, so the Secret Service cannot be checked'
              : error.killed
                ? `it did not answer within ${timeoutMs(env) / 1000} s`
                : `no Secret Service answers (${detail})`,
        });
        return;
      }
      resolve({ path: stdout.trim() });
    });
  });
}

/**
 * On Linux the native module talks to D-Bus partly on the main thread, where no timer can interrupt it: a bus
 * that never answers would hang the process. So the bus is first asked from a child process, with a timeout.
 */
let busChecked: Promise<void> | undefined;
function assertBusAnswers(env: NodeJS.ProcessEnv, what: string): Promise<void> {
  if (process.platform !== 'linux') return Promise.resolve();
  busChecked ??= (async () => {
    if (!env.DBUS_SESSION_BUS_ADDRESS)
      throw new KeyringError(`no D-Bus session to reach the credential store (${what})`);
    const collection = await defaultCollection(env);
    if ('reason' in collection)
      // Said as a wait only where it was one: a bus socket that is not there fails at once (a review read "did not
      // answer within 5 s" 0.07 s after the start).
      throw new KeyringError(`the credential store could not be reached (${what}): ${collection.reason}`);
  })();
  return busChecked;
}

export async function keyringGet(env: NodeJS.ProcessEnv, account: string): Promise<string | undefined> {
  await assertBusAnswers(env, 'read');
  const value = await bounded(env, 'read', () => nativeEntry(account).getPassword());
  return value ?? undefined;
}

export async function keyringSet(env: NodeJS.ProcessEnv, account: string, key: string): Promise<void> {
  await assertBusAnswers(env, 'write');
  await bounded(env, 'write', () => nativeEntry(account).setPassword(key));
}

export async function keyringDelete(env: NodeJS.ProcessEnv, account: string): Promise<boolean> {
  await assertBusAnswers(env, 'delete');
  return bounded(env, 'delete', () =>
    nativeEntry(account)
      .deleteCredential()
      .catch((error: unknown) => {
        if (/no matching|not found|NoEntry/i.test(firstLine(error))) return false;
        throw error;
      }),
  );
}
