// Flag values checked where they are parsed: a bad value is a usage error (exit 2) before anything is sent.
import { InvalidArgumentError } from 'commander';
import { grouped } from '../output/words.js';
import { KEY_ENVIRONMENTS } from '../secrets.js';

/** Seconds, fractions allowed (`0.5`), bounded. */
export function seconds(min: number, max: number): (value: string) => number {
  return (value) => {
    const trimmed = value.trim();
    const n = Number(trimmed);
    if (trimmed === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected seconds between ${min} and ${max}, got "${value}"`);
    }
    return n;
  };
}

/**
 * A whole number from `min` to `max`. The range in its error is `written` as a person reads numbers elsewhere,
 * thousands grouped (`from 1 to 1,000,000`, as the guided order's quantity question says it); what was given is
 * quoted as given.
 */
export function integer(min: number, max: number, written: (n: number) => string = grouped): (value: string) => number {
  // Where the range is written grouped, a number typed grouped is read too (`--quantity 1,000`, as a plan's cell and
  // the guided order's question take it); only in threes after the first group (`1,5` and `1.000` are refused).
  const groupedToo = written === grouped;
  return (value) => {
    const trimmed = value.trim();
    // A negative number is a whole number too: it is told the range, as 0 is.
    const plain = /^[+-]?\d+$/.test(trimmed);
    if (!plain && !(groupedToo && /^\d{1,3}(,\d{3})+$/.test(trimmed)))
      throw new InvalidArgumentError(`expected a whole number from ${written(min)} to ${written(max)}, got "${value}"`);
    const n = Number(trimmed.replaceAll(',', ''));
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${written(min)} to ${written(max)}, got "${value}"`);
    }
    return n;
  };
}

/** A TCP port, 0 for a free one: its range written as ports are, never grouped (`65535`). */
export const portNumber = integer(0, 65535, String);

export function share(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError(`expected a share from 0 to 1, got "${value}"`);
  return n;
}

export function nonEmpty(what: string, maxLength = 200): (value: string) => string {
  return (value) => {
    const trimmed = value.trim();
    if (trimmed === '') throw new InvalidArgumentError(`${what} must not be empty`);
    if (trimmed.length > maxLength) throw new InvalidArgumentError(`${what} is longer than ${maxLength} characters`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(trimmed))
      throw new InvalidArgumentError(`${what} must not contain control characters`);
    return trimmed;
  };
}

/**
 * A codes file to write (--out): an empty one (`--out "$UNSET"`) named the current directory, and was refused as a
 * directory only once the order had been sent.
 */
export function outFile(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError("the file name must not be empty ('-' for stdout)");
  // A line break in the name split the ✓ line and the log's done: line in two; the name is shown escaped.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value))
    throw new InvalidArgumentError(`the file name ${JSON.stringify(value)} holds a control character`);
  return value;
}

/**
 * An order reference as pasted: a line break or tab (two lines of an email, two cells of a sheet) is a space between
 * words, which orders/ref.ts oneRef reads the order's word from; any other control character is refused.
 */
export function orderRefArg(value: string): string {
  return nonEmpty('order reference')(value.replace(/[\t\r\n]+/g, ' '));
}

/** What logout's --env takes: either key, or all (both). Every other verb refuses all (config/resolve.ts). */
export const LOGOUT_ENVIRONMENTS = [...KEY_ENVIRONMENTS, 'all'] as const;

/**
 * `test` or `live`; `all` is accepted here for `logout --env all` and refused by every other verb. `offered`: the
 * words a refusal names (logout's, all among them).
 */
export function environmentArg(
  value: string,
  offered: readonly string[] = KEY_ENVIRONMENTS,
): (typeof LOGOUT_ENVIRONMENTS)[number] {
  const v = value.trim().toLowerCase();
  const known = LOGOUT_ENVIRONMENTS.find((env) => env === v);
  if (known) return known;
  throw new InvalidArgumentError(`expected ${offered.slice(0, -1).join(', ')} or ${offered.at(-1)}, got "${value}"`);
}

/** A flag that moves money is given once: `--quantity 1 --quantity 2` is a mistake, not "the last one wins". */
export function once<T>(flag: string, parse: (value: string) => T): (value: string, previous: T | undefined) => T {
  return (value, previous) => {
    if (previous !== undefined) throw new InvalidArgumentError(`${flag} was given more than once`);
    return parse(value);
  };
}

/** Profile names are keys in the config file: plain words, never an object's built-in property. */
export function profileName(value: string): string {
  const name = value.trim();
  if (
    !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) ||
    name === '__proto__' ||
    name === 'constructor' ||
    name === 'prototype'
  ) {
    throw new InvalidArgumentError(`"${value}" is not a profile name (letters, digits, . _ -; at most 64)`);
  }
  return name;
}

/** An http or https URL (a webhook target, a forwarding address). */
export function httpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidArgumentError(`expected an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError(`expected an http(s) URL, got "${value}"`);
  return url;
}
