// One order for text that sorts timestamps, keys and ids.

/**
 * Code-point order of two strings: the same on every machine. `localeCompare` follows the process's locale (so a
 * list could sort one way in a person's shell and another under cron) and loads ICU's collation, ~3 MiB of
 * resident memory, for a comparison of ISO timestamps and ASCII ids that needs none of it.
 */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
