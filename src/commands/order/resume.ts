import type { Command } from 'commander';
import { AuthError, CliError, ExitCode, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
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
  forceStale?: boolean;
}

export function register(parent: Command, app: App): void {
  const command = addIntervalFlags(parent.command('resume'))
    .description('finish interrupted orders with their original keys and requests (never a second charge)')
    .argument('[key]', 'the idempotency key shown by order pending')
    .option('--all', 'resume every interrupted order')
    .option('--force', "overwrite an existing file when the order was placed with --out")
    .option('--force-stale', 'resume an order older than 24 hours or dated in the future (check the server for it first)')
    .action(async (key: string | undefined, flags: Omit<ResumeOptions, 'key'>, cmd: Command) => run({ ...flags, ...(key ? { key } : {}) }, app.factory(cmd)));
  examples(command, ['giftcodes order pending', 'giftcodes order resume 3f1c9a9e-5d1b-4c4e-9a53-2f0f6c8d7b21', 'giftcodes order resume --all --json']);
}

export async function run(options: ResumeOptions, f: Factory): Promise<void> {
  if (!options.key && !options.all) throw new UsageError('name the key of the order to resume, or pass --all', { hint: 'list them with: giftcodes order pending' });
  if (options.key && options.all) throw new UsageError('give a key or --all, not both');
  if (options.forceStale && !options.key) throw new UsageError('--force-stale applies to one order at a time', { hint: 'name its key: giftcodes order resume <key> --force-stale' });
  const [journal, { isAlive }, { finish }, { deliver, settle, settleReached }] = await Promise.all([
    f.journal(),
    import('../../journal/owner.js'),
    import('../../orders/drive.js'),
    import('../../orders/lifecycle.js'),
  ]);
  if (options.key) {
    await finish(f.io, journal, await resumeOne(f, journal, options.key, options));
    return;
  }
  await settleReached(f.io, journal);
  const { intents, unreadable } = journal.read();
  warnUnreadable(f, unreadable);
  const keys = intents.filter((intent) => !isAlive(intent.owner)).map((intent) => intent.key);
  if (keys.length === 0) {
    await deliver(f.io, journal, () => (f.io.json ? f.io.outJson([]) : f.io.out('nothing to resume: no interrupted orders')), []);
    return;
  }
  // --all: one JSON document for all of them; one failure does not stop the rest. Every intent is settled
  // only after its outcome was printed and stdout flushed.
  const results: { key: string; order?: unknown; error?: { code: string; message: string; exitCode: number } }[] = [];
  const done: Driven[] = [];
  let firstFailure: CliError | undefined;
  const failed = (key: string, error: CliError, order?: unknown): void => {
    firstFailure ??= error;
    results.push({ key, ...(order !== undefined ? { order } : {}), error: { code: error.code, message: error.message, exitCode: error.exitCode } });
    if (!f.io.json) f.io.errRaw(`${f.io.c.red('✗')} ${key}: ${error.message}\n`);
  };
  for (const key of keys) {
    try {
      const driven = await resumeOne(f, journal, key, options);
      if (f.io.json) {
        if (driven.failure) failed(key, driven.failure, driven.order);
        else results.push({ key, order: driven.order });
        done.push(driven);
      } else {
        await finish(f.io, journal, driven);
      }
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode === 130 || error.exitCode === ExitCode.local) throw error;
      failed(key, error);
    }
  }
  if (f.io.json) {
    await deliver(f.io, journal, () => f.io.outJson(results), done);
    await settle(journal, done);
  }
  if (firstFailure) throw new CliError(firstFailure.exitCode, `${results.filter((r) => r.error).length} of ${keys.length} orders could not be resumed`, { code: firstFailure.code, hint: 'see the lines above; giftcodes order pending lists what is left' });
}

async function resumeOne(f: Factory, journal: Journal, key: string, options: ResumeOptions): Promise<Driven> {
  const [{ resolveConnection, loadStoredKey }, { keyIdOf }, { driveIntent }, store] = await Promise.all([
    import('../../config/resolve.js'),
    import('../../journal/intent.js'),
    import('../../orders/drive.js'),
    f.config(),
  ]);
  const intent = await journal.claim(key, { forceStale: options.forceStale === true });
  const connection = await loadStoredKey(resolveConnection({ profile: intent.profile, env: intent.environment, apiKey: f.globals.apiKey, baseUrl: intent.baseUrl }, f.io.env, store), f.io.env);
  f.io.addSecret(connection.apiKey);
  if (keyIdOf(connection.apiKey) !== intent.keyId) {
    throw new AuthError(`the order ${key} was started with a different API key than the ${intent.environment} key of profile "${intent.profile}" now`, {
      code: 'key_changed',
      hint: 'resume it with the key it was placed with (GIFTCODES_API_KEY), or check the server and abandon it',
    });
  }
  const api = await f.clientFor(intent.baseUrl, connection.apiKey);
  if (intent.phase === 'prepared' || intent.phase === 'sending' || !intent.orderId) f.io.say(`resuming ${intent.quantity} × ${intent.productId} with key ${intent.key}: same request, no second charge`);
  return driveIntent({ io: f.io, api, journal, signal: f.signal }, intent, {
    wait: intent.wait === true || intent.out !== undefined,
    out: intent.out && options.force ? { ...intent.out, force: true } : intent.out,
    intervalS: options.interval ?? DEFAULT_INTERVAL_S,
    timeoutS: options.timeout,
  });
}
