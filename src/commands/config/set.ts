import type { Command } from 'commander';
import { completionHints } from '../../completion/hints.js';
import {
  defaultEnvironment,
  FIELD_WORDS,
  SETTABLE_FIELDS as FIELDS,
  type SettableField as Field,
} from '../../config/fields.js';
import { isCliError, UsageError } from '../../errors.js';
import { nearestIds } from '../../near.js';
import { exportResult } from '../../output/exporter.js';
import { addVerb, type App } from '../app.js';
import type { Deps, GlobalOptions } from '../deps.js';

export interface SetOptions extends Pick<GlobalOptions, 'profile'> {
  field: string;
  value: string;
}

export function register(parent: Command, app: App): void {
  const help = {
    description: `change a field of the profile (${FIELDS.join(', ')}); keys are set with login`,
    examples: [
      'giftcodes config set default-env live',
      'giftcodes config set base-url https://api.example.com --profile shop-eu',
      'giftcodes config set encrypt-to "$RECIPIENT"   # an age public key, age1…',
    ],
  };
  const command = addVerb(parent, app, 'set', help, ({ globals, deps }, field, value) =>
    run({ field, value, profile: globals.profile }, deps),
  )
    .argument('<field>', FIELDS.join(' | '))
    .argument('<value>', 'the new value');
  completionHints(command, { argWords: { index: 1, byPrevious: FIELD_WORDS } });
}

export async function run(options: SetOptions, deps: Pick<Deps, 'io' | 'config'>): Promise<void> {
  const field = checkField(options.field);
  const { assertSafeTransport, normaliseBaseUrl, resolveProfileName } = await import('../../config/resolve.js');
  let value = options.value.trim();
  // Every value is checked before the config is opened: a bad one exits 2 and nothing is written.
  if (value === '') throw new UsageError(`${field} must not be empty`, { hint: `giftcodes config set ${field} VALUE` });
  if (field === 'base-url') {
    value = withHint(
      () => normaliseBaseUrl(value),
      'for example: giftcodes config set base-url https://api.example.com',
    );
    // Every command of the profile would refuse it (a key never travels over plain http but to this machine): said
    // now, as a usage error, rather than by the night's job.
    try {
      assertSafeTransport(value);
    } catch (error) {
      if (!isCliError(error)) throw error;
      throw new UsageError(`${error.message}: every command with this base URL would refuse it`, {
        code: error.code,
        ...(error.hint ? { hint: error.hint } : {}),
      });
    }
  }
  if (field === 'proxy') value = checkProxyUrl(value);
  if (field === 'default-env') defaultEnvironment(value);
  if (field === 'encrypt-to') {
    // Recipients checked here (exit 2): a cron job must not find out at its first order that none can be encrypted to.
    const [{ encryptToList }, { checkRecipients }] = await Promise.all([
      import('../../config/store.js'),
      import('../../export/age.js'),
    ]);
    await checkRecipients(encryptToList(value), 'encrypt-to');
  }
  if (field === 'history-days' && !/^[1-9][0-9]{0,4}$/.test(value)) {
    throw new UsageError(`history-days is a whole number of days from 1 to 99999, not "${value}"`, {
      hint: 'the local order record keeps ended orders 90 days by default',
    });
  }
  const store = await deps.config();
  const profile = resolveProfileName(options, deps.io.env, store);
  const others = store.profileNames();
  await store.setField(profile, field, value);
  // A profile is made by its first setting: said, so a misspelt --profile is seen at once, not at the next login.
  if (!others.includes(profile))
    deps.io.notice(`made a new profile "${profile}"${others.length > 0 ? ` (the others: ${others.join(', ')})` : ''}`);
  // A proxy URL may carry a password: never echoed.
  const shown = field === 'proxy' ? (await import('../../api/transport.js')).displayProxy(value) : value;
  await exportResult(
    deps.io,
    { profile, field, value: await storedValue(field, shown) },
    {
      // `encrypt-to none` takes the recipients away: "encrypt-to is now none" read as a recipient named none.
      text: () =>
        field === 'encrypt-to' && value.trim().toLowerCase() === 'none'
          ? `${deps.io.c.green('✓')} encrypt-to removed from profile "${profile}": its codes files are written unencrypted`
          : `${deps.io.c.green('✓')} ${field} is now ${shown} in profile "${profile}"`,
      wrap: 2,
    },
  );
}

/**
 * The value --json prints, of the type the profile stores and `config show --json` prints it: history-days a
 * number, encrypt-to its recipients (none: []). `"value": "30"` for a number setting made a script compare a
 * string (a review).
 */
async function storedValue(field: Field, value: string): Promise<string | number | string[]> {
  if (field === 'history-days') return Number(value);
  if (field === 'encrypt-to') return (await import('../../config/store.js')).encryptToList(value);
  return value;
}

/** An http(s) proxy URL (the proxy itself; the API behind it may be https). */
function checkProxyUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('the proxy is not a valid URL', {
      code: 'invalid_proxy',
      hint: 'for example: giftcodes config set proxy http://proxy.example.com:3128',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the proxy must be an http or https URL, not ${url.protocol}`, { code: 'invalid_proxy' });
  }
  return value;
}

export function checkField(field: string): Field {
  if ((FIELDS as readonly string[]).includes(field)) return field as Field;
  const near = nearestIds(field, FIELDS, 1)[0];
  const hint = /key/i.test(field)
    ? 'keys are stored with: giftcodes login'
    : `${near !== undefined ? `did you mean ${near}? ` : ''}fields: ${FIELDS.join(', ')}`;
  throw new UsageError(`unknown config field "${field}"`, { hint });
}

function withHint<T>(check: () => T, hint: string): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof UsageError && !error.hint) throw new UsageError(error.message, { code: error.code, hint });
    throw error;
  }
}
