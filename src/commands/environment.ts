// The environment variables giftcodes reads: one list, from which `help environment` and the man page's
// ENVIRONMENT section are made, and against which docs/environment.md's table is checked (test/e2e/man.test.ts).
import { definitionList, paragraph } from './help-text.js';

export interface EnvironmentVariable {
  /** One variable, or several that mean the same (a proxy's three). */
  readonly names: readonly string[];
  readonly meaning: string;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  { names: ['GIFTCODES_PROFILE'], meaning: 'config profile to use (--profile)' },
  {
    names: ['GIFTCODES_API_KEY'],
    meaning: "use this key instead of the profile's (--api-key); its prefix decides the environment",
  },
  {
    names: ['GIFTCODES_BASE_URL'],
    meaning: "API base URL (--base-url); default the profile's, else http://127.0.0.1:4010",
  },
  {
    names: ['GIFTCODES_CONFIG_DIR'],
    meaning: 'directory of the config, the order journal and the order record (tests and cron use it)',
  },
  {
    names: ['XDG_CONFIG_HOME'],
    meaning:
      'without GIFTCODES_CONFIG_DIR, the config directory is $XDG_CONFIG_HOME/giftcodes (default ~/.config/giftcodes)',
  },
  {
    names: ['APPDATA'],
    meaning: 'on Windows, without GIFTCODES_CONFIG_DIR, the config directory is %APPDATA%\\giftcodes',
  },
  { names: ['GIFTCODES_KEYRING'], meaning: 'off: never use the credential store (keys go to the 0600 config file)' },
  {
    names: ['DBUS_SESSION_BUS_ADDRESS'],
    meaning: 'on Linux, the session bus the credential store (Secret Service) is reached over; cron has none',
  },
  { names: ['GIFTCODES_CA_FILE'], meaning: "PEM certificates trusted in addition to Node's own (--ca-file)" },
  { names: ['NODE_EXTRA_CA_CERTS'], meaning: 'the same, read by Node itself when it starts' },
  {
    names: ['SSL_CERT_FILE'],
    meaning: "a PEM bundle of CA certificates, trusted in addition to Node's own (read for https only)",
  },
  { names: ['SSL_CERT_DIR'], meaning: "directories of PEM certificates (':'-separated), trusted the same way" },
  {
    names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'],
    meaning:
      'a forward proxy and the hosts that bypass it (lower case too, and it wins); credentials are never printed',
  },
  {
    names: ['GIFTCODES_WEBHOOK_SECRET'],
    meaning: 'the webhook secret for webhook listen and order watch --webhook-port',
  },
  {
    names: ['GIFTCODES_PAGER'],
    meaning: 'pager for long output on a terminal (wins over PAGER; "cat" or empty: none)',
  },
  { names: ['PAGER'], meaning: 'pager for long output on a terminal (default: less -FRX)' },
  { names: ['NO_COLOR', 'FORCE_COLOR'], meaning: 'colour control (--no-color)' },
  { names: ['CI'], meaning: 'set: never prompt (as when stdin or stderr is not a terminal)' },
  { names: ['TMPDIR'], meaning: 'where CSV to stdout is put in column order before it is written (default /tmp)' },
  {
    names: ['GIFTCODES_DEBUG'],
    meaning: 'set: an unexpected internal error prints its stack; -v says how undici was compiled',
  },
  {
    names: ['XDG_CACHE_HOME'],
    meaning:
      'the cache directory (compiled code only) is $XDG_CACHE_HOME/giftcodes (default ~/.cache/giftcodes; macOS ~/Library/Caches/giftcodes)',
  },
  { names: ['LOCALAPPDATA'], meaning: 'on Windows, the cache directory is %LOCALAPPDATA%\\giftcodes\\Cache' },
  {
    names: ['NODE_DISABLE_COMPILE_CACHE'],
    meaning: "set: no compiled code is kept or read (Node's own switch; giftcodes' cache directory is not made)",
  },
];

/** `giftcodes help environment`: the list as aligned text for `width` columns, a long name list on a line of its own. */
export function environmentHelp(width: number): string {
  const items = ENVIRONMENT_VARIABLES.map(({ names, meaning }) => ({ term: names.join(', '), meaning }));
  return `${paragraph('Environment variables read by giftcodes (a flag wins over its variable, a variable over the profile):', width)}\n\n${definitionList(items, 24, width)}\n`;
}
