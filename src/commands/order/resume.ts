import type { Command } from 'commander';
import { AuthError, CliError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import type { Intent } from '../../journal/intent.js';
import type { Journal } from '../../journal/journal.js';
import type { Driven } from '../../orders/drive.js';
import { examples, type App } from '../app.js';
import { warnUnreadable } from './pending.js';
import { addIntervalFlags, DEFAULT_INTERVAL_S } from '../wait-flags.js';

export interface ResumeOptions {
  key?: string;
  all?: boolean;
  interval?: number;
  timeout?: number;
  force?: boolean;
}

export function register(parent: Command, app: App): void {
  const command = addIntervalFlags(parent.command('resume'))
    .description('finish interrupted orders with their original keys and requests (never a second charge)')
    .argument('[key]', 'the idempotency key shown by order pending')
    .option('--all', 'resume every interrupted order')
    .option('--force', "overwrite an existing file when the order was placed with --out")
    .action(async (key: string | undefined, flags: Omit<ResumeOptions, 'key'>, cmd: Command) => run({ ...flags, ...(key ? { key } : {}) }, app.factory(cmd)));
  examples(command, ['giftcodes order pending', 'giftcodes order resume 3f1c9a9e-5d1b-4c4e-9a53-2f0f6c8d7b21', 'giftcodes order resume --all --json']);
}

export async function run(options: ResumeOptions, f: Factory): Promise<void> {
  if (!options.key && !options.all) throw new UsageError('name the key of the order to resume, or pass --all', { hint: 'list them with: giftcodes order pending' });
  if (options.key && options.all) throw new UsageError('give a key or --all, not both');
  const [journal, { isAlive }, { settleDelivered }] = await Promise.all([f.journal(), import('../../journal/owner.js'), import('../../orders/drive.js')]);
  await settleDelivered(f);
  let keys: string[];
  if (options.key) {
    keys = [options.key];
  } else {
    const { intents, unreadable } = journal.read();
    warnUnreadable(f, unreadable);
    keys = intents.filter((intent) => !isAlive(intent.owner)).map((intent) => intent.key);
  }
  if (keys.length === 0) {
    if (f.io.json) f.io.outJson([]);
    else f.io.out('nothing to resume: no interrupted orders');
    return;
  }
  const { deliver, showFailedOrder } = await import('../../orders/drive.js');
  if (options.key) {
    const { intent, driven } = await resumeOne(f, journal, options.key, options).catch((error: unknown) => showFailedOrder(f, error));
    deliver(f, journal, intent, driven);
    return;
  }
  // --all: one JSON document for all of them; one failure does not stop the rest.
  const results: { key: string; order?: unknown; error?: { code: string; message: string; exitCode: number } }[] = [];
  let firstFailure: CliError | undefined;
  const { OrderEndedError } = await import('../../orders/wait.js');
  for (const key of keys) {
    try {
      const { intent, driven } = await resumeOne(f, journal, key, options);
      if (f.io.json) {
        results.push({ key, order: driven.order });
        journal.resolve(intent);
      } else {
        deliver(f, journal, intent, driven);
      }
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode === 130) throw error;
      firstFailure ??= error;
      results.push({
        key,
        ...(error instanceof OrderEndedError ? { order: error.order } : {}),
        error: { code: error.code, message: error.message, exitCode: error.exitCode },
      });
      if (!f.io.json) f.io.errRaw(`${f.io.c.red('✗')} ${key}: ${error.message}\n`);
    }
  }
  if (f.io.json) f.io.outJson(results);
  if (firstFailure) throw new CliError(firstFailure.exitCode, `${results.filter((r) => r.error).length} of ${keys.length} orders could not be resumed`, { code: firstFailure.code, hint: 'see the lines above; giftcodes order pending lists what is left' });
}

async function resumeOne(f: Factory, journal: Journal, key: string, options: ResumeOptions): Promise<{ intent: Intent; driven: Driven }> {
  const [{ resolveConnection, loadStoredKey }, { keyIdOf, ageMs, INTENT_MAX_AGE_MS }, { driveIntent }, store] = await Promise.all([
    import('../../config/resolve.js'),
    import('../../journal/intent.js'),
    import('../../orders/drive.js'),
    f.config(),
  ]);
  const intent = await journal.claim(key);
  if (intent.phase === 'sending' && ageMs(intent) >= INTENT_MAX_AGE_MS && !f.globals.yes) {
    const yes = await f.io.confirm(
      `The order ${key} is older than 24 hours: the server may have forgotten its key, so if the first attempt went through, resuming could place a second order. Resume anyway?`,
      '--yes',
      `resuming an order older than 24 hours (${key})`,
    );
    if (!yes) throw new UsageError(`left ${key} pending`, { hint: `check the server for it, then: giftcodes order abandon ${key}` });
  }
  const connection = await loadStoredKey(resolveConnection({ profile: intent.profile, env: intent.environment, apiKey: f.globals.apiKey, baseUrl: intent.baseUrl }, f.io.env, store), f.io.env);
  f.io.addSecret(connection.apiKey);
  if (keyIdOf(connection.apiKey) !== intent.keyId) {
    throw new AuthError(`the order ${key} was started with a different API key than the ${intent.environment} key of profile "${intent.profile}" now`, {
      code: 'key_changed',
      hint: 'resume it with the key it was placed with (GIFTCODES_API_KEY), or check the server and abandon it',
    });
  }
  const api = await f.clientFor(intent.baseUrl, connection.apiKey);
  if (intent.phase === 'sending' || !intent.orderId) f.io.say(`resuming ${intent.quantity} × ${intent.productId} with key ${intent.key}: same request, no second charge`);
  const driven = await driveIntent(f, api, journal, intent, {
    wait: intent.wait === true || intent.out !== undefined,
    out: intent.out && options.force ? { ...intent.out, force: true } : intent.out,
    intervalS: options.interval ?? DEFAULT_INTERVAL_S,
    timeoutS: options.timeout,
  });
  return { intent, driven };
}
