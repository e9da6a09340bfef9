// The durable order journal: one file per unresolved intent, written atomically and fsynced before the
// first byte of the order request is sent, removed only once the outcome has reached the user.
// A short lock over the whole directory makes "find an orphan or create an intent" safe for overlapping processes.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { UsageError } from '../errors.js';
import { fsyncDirectory, writeFileAtomicSync } from '../files/atomic.js';
import {
  INTENT_MAX_AGE_MS,
  INTENT_VERSION,
  ageMs,
  orderBody,
  sameOrder,
  sameRequest,
  sha256,
  type Intent,
  type OrderSpec,
  type OutSpec,
} from './intent.js';
import { redactKeys } from '../secrets.js';
import { currentOwner, isAlive, isSameProcess } from './owner.js';
import { intentSchema } from './schema.js';

export interface Unreadable {
  file: string;
  reason: string;
}

export interface BeginOptions extends OrderSpec {
  /** A key the user supplied with --idempotency-key. */
  key?: string | undefined;
  wait?: boolean | undefined;
  out?: OutSpec | undefined;
}

export interface Begun {
  intent: Intent;
  /** True when an interrupted intent was taken over: the same key and body will be sent again. */
  resumed: boolean;
}

export class Journal {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Every intent on disk; unreadable files are reported, never removed. */
  read(): { intents: Intent[]; unreadable: Unreadable[] } {
    const intents: Intent[] = [];
    const unreadable: Unreadable[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      try {
        const parsed = intentSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
        if (parsed.success) intents.push(parsed.data);
        else unreadable.push({ file, reason: 'not an intent of this version' });
      } catch (error) {
        unreadable.push({ file, reason: (error as NodeJS.ErrnoException).code ?? 'not valid JSON' });
      }
    }
    intents.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return { intents, unreadable };
  }

  find(key: string): Intent | undefined {
    return this.read().intents.find((intent) => intent.key === key);
  }

  /** Takes over the matching interrupted intent, or writes a new one; either way it is on disk when this returns. */
  begin(options: BeginOptions, now: number = Date.now()): Promise<Begun> {
    return this.withLock(() => {
      const { intents } = this.read();
      if (options.key !== undefined) {
        const existing = intents.find((intent) => intent.key === options.key);
        if (existing) return { intent: this.takeOver(existing, options, now), resumed: true };
        return { intent: this.create(options, options.key, now), resumed: false };
      }
      const orphans = intents.filter((intent) => sameOrder(intent, options) && !isAlive(intent.owner));
      const fresh = orphans.find((intent) => ageMs(intent, now) < INTENT_MAX_AGE_MS);
      if (fresh) return { intent: this.claimed(fresh, options, now), resumed: true };
      // The contract matches on product, quantity, profile and environment. An orphan that matches those
      // but was made with another key or server cannot be resumed from here, and must not be silently skipped.
      const other = intents.find((intent) => sameRequest(intent, options) && !sameOrder(intent, options) && !isAlive(intent.owner));
      if (other) {
        throw new UsageError(
          `an interrupted order for ${other.quantity} × ${other.productId} in profile "${other.profile}" (${other.environment}) was made with another API key or base URL (${other.baseUrl}), so it is not resumed with this one`,
          {
            code: 'intent_conflict',
            hint: `resume it with its own key: giftcodes order resume ${other.key}   or drop it: giftcodes order abandon ${other.key}`,
          },
        );
      }
      const stale = orphans[0];
      if (stale) {
        throw new UsageError(
          `an interrupted order for ${stale.quantity} × ${stale.productId} from ${stale.createdAt} was never confirmed, and it is older than 24 hours, so it is not resumed silently`,
          {
            code: 'stale_intent',
            hint: `finish it with: giftcodes order resume ${stale.key}   or drop it with: giftcodes order abandon ${stale.key}`,
          },
        );
      }
      return { intent: this.create(options, randomUUID(), now), resumed: false };
    });
  }

  /**
   * Resolves interrupted intents whose codes file was delivered: the rename happened (the temporary file
   * is gone and the target exists) but the process died before it could resolve the intent. Their outcome
   * reached the user; resuming them would deliver the same codes twice.
   */
  settleDelivered(): Promise<Intent[]> {
    return this.withLock(() => {
      const settled = this.read().intents.filter(
        (intent) => intent.delivering && intent.out && !isAlive(intent.owner) && !existsSync(intent.delivering.temp) && existsSync(intent.out.path),
      );
      for (const intent of settled) this.resolve(intent);
      return settled;
    });
  }

  /** Claims one intent for `order resume`; refuses one a live process holds. */
  claim(key: string, now: number = Date.now()): Promise<Intent> {
    return this.withLock(() => {
      const intent = this.find(key);
      if (!intent) throw new UsageError(`no unresolved order with the key ${key}`, { code: 'intent_not_found', hint: 'list them with: giftcodes order pending' });
      this.assertNotHeld(intent);
      return this.claimed(intent, {}, now);
    });
  }

  save(intent: Intent, now: number = Date.now()): Intent {
    const next = { ...intent, updatedAt: new Date(now).toISOString() };
    // A server's error text kept here may echo a key: no file holds one (issue 15).
    writeFileAtomicSync(this.fileOf(intent.key), redactKeys(`${JSON.stringify(next, null, 2)}\n`));
    return next;
  }

  /** The outcome reached the user: the intent is done. */
  resolve(intent: Intent): void {
    try {
      unlinkSync(this.fileOf(intent.key));
      fsyncDirectory(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  abandon(key: string): Promise<Intent> {
    return this.withLock(() => {
      const intent = this.find(key);
      if (!intent) throw new UsageError(`no unresolved order with the key ${key}`, { code: 'intent_not_found', hint: 'list them with: giftcodes order pending' });
      this.assertNotHeld(intent);
      this.resolve(intent);
      return intent;
    });
  }

  private takeOver(existing: Intent, options: BeginOptions, now: number): Intent {
    this.assertNotHeld(existing);
    if (!sameOrder(existing, options)) {
      throw new UsageError(`the idempotency key ${existing.key} already belongs to another order (${existing.quantity} × ${existing.productId})`, {
        code: 'idempotency_key_reused',
        hint: 'use a new key, or repeat the original product, quantity, profile and environment',
      });
    }
    return this.claimed(existing, options, now);
  }

  private assertNotHeld(intent: Intent): void {
    if (isAlive(intent.owner) && !isSameProcess(intent.owner, currentOwner())) {
      throw new UsageError(`another giftcodes process (pid ${intent.owner.pid}) is working on the order with key ${intent.key}`, {
        code: 'intent_busy',
        hint: 'wait for it to finish, then check: giftcodes order pending',
      });
    }
  }

  private claimed(intent: Intent, options: Pick<BeginOptions, 'wait' | 'out'>, now: number): Intent {
    return this.save(
      {
        ...intent,
        owner: currentOwner(),
        ...(options.wait !== undefined ? { wait: options.wait } : {}),
        ...(options.out !== undefined ? { out: options.out } : {}),
      },
      now,
    );
  }

  private create(options: BeginOptions, key: string, now: number): Intent {
    const body = orderBody(options.productId, options.quantity);
    const time = new Date(now).toISOString();
    return this.save(
      {
        version: INTENT_VERSION,
        key,
        profile: options.profile,
        environment: options.environment,
        baseUrl: options.baseUrl,
        keyId: options.keyId,
        productId: options.productId,
        quantity: options.quantity,
        body,
        fingerprint: sha256(body),
        phase: 'sending',
        createdAt: time,
        updatedAt: time,
        owner: currentOwner(),
        ...(options.wait ? { wait: true } : {}),
        ...(options.out ? { out: options.out } : {}),
      },
      now,
    );
  }

  private fileOf(key: string): string {
    // Keys are the user's to choose: hash them into safe file names.
    return join(this.dir, `${sha256(key).slice(0, 40)}.json`);
  }

  private async withLock<T>(fn: () => T): Promise<T> {
    const release = await lockfile.lock(this.dir, {
      lockfilePath: join(this.dir, '.lock'),
      realpath: false,
      // A lock left by a killed process is taken over once it has not been refreshed for this long.
      stale: 3_000,
      update: 1_000,
      retries: { retries: 200, factor: 1.2, minTimeout: 10, maxTimeout: 100 },
      onCompromised: () => undefined,
    }).catch((error: unknown) => {
      throw new UsageError(`the order journal in ${this.dir} stayed locked (${(error as NodeJS.ErrnoException).code ?? 'lock error'})`, {
        code: 'journal_locked',
        hint: 'another giftcodes process is busy with it; try again in a moment',
      });
    });
    try {
      return fn();
    } finally {
      await release().catch(() => undefined);
    }
  }
}
