// Fields `config set` may change, in the reseller's words (keys are stored with login).
import { UsageError } from '../errors.js';
import { KEY_ENVIRONMENTS, type KeyEnvironment } from '../secrets.js';

export const SETTABLE_FIELDS = ['base-url', 'default-env', 'encrypt-to', 'history-days', 'proxy'] as const;

/** How many days the order records of a profile with no history-days of its own are kept (journal/history.ts). */
export const DEFAULT_HISTORY_DAYS = 90;
export type SettableField = (typeof SETTABLE_FIELDS)[number];

/** The fields whose values are a fixed set of words (for TAB); the others take a URL, an age key or a number. */
export const FIELD_WORDS: Readonly<Partial<Record<SettableField, readonly string[]>>> = {
  'default-env': KEY_ENVIRONMENTS,
};

/** A default-env value as given: test or live, else exit 2 (checked by `config set`, and again by the store that writes it). */
export function defaultEnvironment(value: string): KeyEnvironment {
  const known = KEY_ENVIRONMENTS.find((env) => env === value);
  if (known) return known;
  throw new UsageError(`default-env must be test or live, not "${value}"`, {
    hint: 'run (or with live): giftcodes config set default-env test',
  });
}
