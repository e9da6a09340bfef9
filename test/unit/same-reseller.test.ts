// Two API keys of one reseller (two profiles of one config directory, or a key rotated) are one wallet: an order
// interrupted under one key is matched by every rule that matched "this very API key in another profile", once login
// learned both keys' reseller at the same API (a review: two keys of rs_demo in profiles default and ops, an order
// interrupted in default placed again in ops, charged twice; the same plan run there, every row charged twice).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  otherKeyOfReseller,
  sameReseller,
  sameResellerRequest,
  type Intent,
  type OrderSpec,
} from '../../src/journal/intent.js';
import { recordAt, dead, journal, spec } from '../helpers/journal.js';
import { interruptedBeside, ofThisRequest, placingNow } from '../../src/orders/recover.js';
import { planFamily, underOtherScope } from '../../src/orders/plan.js';
import { apiOf, sameApi } from '../../src/config/same-api.js';
import { ConfigStore, plainConfig } from '../../src/config/store.js';
import { tempDir } from '../helpers/e2e.js';
import { configSchema } from '../../src/config/schema.js';
import type { Journal } from '../../src/journal/journal.js';
import type { OrderRecord } from '../../src/journal/history.js';

/** `spec` under the reseller rs_demo's first key, in profile default; and its second key, in profile ops. */
const first: OrderSpec = { ...spec, resellerId: 'rs_demo' };
const second: OrderSpec = { ...spec, profile: 'ops', keyId: 'k-second', resellerId: 'rs_demo' };

/** An intent of `o` left by a dead run, its request out (it may have been charged). */
async function leftOut(j: Journal, o: OrderSpec, fields: Partial<Intent> = {}): Promise<Intent> {
  const { intent } = await j.begin(o);
  return j.save({ ...intent, phase: 'sending', owner: dead(), ...fields });
}

describe('sameApi: the same API by its address', () => {
  it("any name of this machine is one, the scheme's default port too; another port, host, scheme or path is not", () => {
    expect(sameApi('http://127.0.0.1:4010', 'http://localhost:4010')).toBe(true);
    expect(sameApi('http://[::1]:4010', 'http://127.0.0.1:4010')).toBe(true);
    expect(sameApi('https://api.example.com', 'https://api.example.com:443')).toBe(true);
    expect(sameApi('https://API.example.com/', 'https://api.example.com')).toBe(true);
    expect(sameApi('http://127.0.0.1:4010', 'http://127.0.0.1:4011')).toBe(false);
    expect(sameApi('https://api.example.com', 'https://api.example.org')).toBe(false);
    expect(sameApi('https://api.example.com', 'http://api.example.com')).toBe(false);
    expect(sameApi('https://example.com/a', 'https://example.com/b')).toBe(false);
    expect(apiOf('not a url')).toBe('not a url');
  });
});

describe('sameReseller', () => {
  it('the same key at any address; another key only with the same learned reseller id at the same API and environment', () => {
    expect(sameReseller(spec, { ...spec, baseUrl: 'http://localhost:9' })).toBe(true);
    expect(sameReseller(first, second)).toBe(true);
    expect(sameReseller(first, { ...second, baseUrl: 'http://localhost:4010' })).toBe(true);
    // Another server may have a reseller of that id too; another environment is another wallet.
    expect(sameReseller(first, { ...second, baseUrl: 'http://127.0.0.1:4011' })).toBe(false);
    expect(sameReseller(first, { ...second, environment: 'live' })).toBe(false);
    expect(sameReseller(first, { ...second, resellerId: 'rs_other' })).toBe(false);
    // Not known on either side (an intent from before, a key never logged in with): its own reseller only, as before.
    expect(sameReseller(spec, second)).toBe(false);
    expect(sameReseller(first, { ...second, resellerId: undefined })).toBe(false);
    // Neither's key known (a record from before keys were kept): no reseller told, none matched.
    const keyless = { environment: 'test', baseUrl: spec.baseUrl };
    expect(sameReseller(keyless, keyless)).toBe(false);
  });

  it('otherKeyOfReseller: another key of the same reseller, never the same key, never another reseller', () => {
    expect(otherKeyOfReseller(first, second)).toBe(true);
    expect(otherKeyOfReseller(second, first)).toBe(true);
    const sameKeyElsewhere: OrderSpec = { ...first, profile: 'ops' };
    expect(otherKeyOfReseller(first, sameKeyElsewhere)).toBe(false);
    expect(otherKeyOfReseller(first, { ...second, resellerId: 'rs_other' })).toBe(false);
    expect(otherKeyOfReseller(first, { ...second, baseUrl: 'http://127.0.0.1:4011' })).toBe(false);
  });

  it('sameResellerRequest: the same product and quantity under another key of the reseller, in another profile', async () => {
    const j = journal();
    const intent = await leftOut(j, first);
    expect(sameResellerRequest(intent, second)).toBe(true);
    expect(sameResellerRequest(intent, { ...second, quantity: 4 })).toBe(false);
    expect(sameResellerRequest(intent, { ...second, productId: 'steam-us-20' })).toBe(false);
    expect(sameResellerRequest(intent, { ...second, resellerId: undefined })).toBe(false);
    // The reseller id is kept in the intent (and its record), as login learned it.
    expect(intent.resellerId).toBe('rs_demo');
    expect((await journal().begin(spec)).intent).not.toHaveProperty('resellerId');
  });
});

describe("journal.begin: another profile's interrupted order made with another key of the same reseller", () => {
  it('is refused (exit 2), said as such, with the way to finish it with the key it was placed with', async () => {
    const j = journal();
    const left = await leftOut(j, first);
    const refused = j.begin(second);
    await expect(refused).rejects.toMatchObject({ exitCode: 2, code: 'intent_conflict' });
    await expect(refused).rejects.toThrow(
      `was started in profile "default", which holds another API key of the same reseller (rs_demo), and may have been charged; this run would place a second one beside it, so it placed nothing`,
    );
    await expect(refused).rejects.toMatchObject({
      hint: expect.stringContaining(
        `finish that one with the API key it was placed with (profile "default"'s): giftcodes order resume ${left.key}`,
      ) as unknown,
    });
    // Dropping it is said to make the next run a second order beside it, if it was placed.
    await expect(refused).rejects.toMatchObject({
      hint: expect.stringContaining(
        'if it was placed, this command run after that is a second order beside it',
      ) as unknown,
    });
    // Never resumed under the other key: the intent is still the first key's.
    expect(j.read().intents.map((i) => [i.key, i.keyId])).toEqual([[left.key, first.keyId]]);
  });

  it('not: another reseller, another server with a reseller of that id, a reseller not known on one side', async () => {
    for (const other of [
      { ...second, resellerId: 'rs_other' },
      { ...second, baseUrl: 'http://127.0.0.1:4011' },
      { ...second, resellerId: undefined },
    ]) {
      const j = journal();
      await leftOut(j, first);
      expect((await j.begin(other)).resumed, JSON.stringify(other)).toBe(false);
    }
    const before = journal();
    await leftOut(before, spec);
    expect((await before.begin(second)).resumed).toBe(false);
  });

  it("at another spelling of this machine's address: the same API, refused too", async () => {
    const j = journal();
    await leftOut(j, first);
    await expect(j.begin({ ...second, baseUrl: 'http://localhost:4010' })).rejects.toMatchObject({
      code: 'intent_conflict',
    });
  });
});

describe('recover: the rules that matched this very API key in another profile', () => {
  it('interruptedBeside names the order another key of the reseller left', async () => {
    const j = journal();
    const left = await leftOut(j, first);
    expect(interruptedBeside(j, second, 'my-key')?.key).toBe(left.key);
    expect(interruptedBeside(j, { ...second, resellerId: 'rs_other' }, 'my-key')).toBeUndefined();
  });

  it("placingNow names another key's live run of the same order", async () => {
    const j = journal();
    const live = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await leftOut(j, first, { owner: { pid: live.pid! } });
      expect(placingNow(j, second, undefined)).toBe(live.pid);
      expect(placingNow(j, { ...second, resellerId: undefined }, undefined)).toBeUndefined();
      expect(placingNow(j, { ...second, baseUrl: 'http://127.0.0.1:4011' }, undefined)).toBeUndefined();
    } finally {
      live.kill();
    }
  });

  it("ofThisRequest: another key's order of the reseller abandoned while out is said (its key not sent from here)", () => {
    const T = Date.parse('2026-06-01T12:00:00.000Z');
    const at = new Date(T - 3_600_000).toISOString();
    const j = journal();
    j.history.record(recordAt('stopped', at, { ...first, outcome: 'abandoned', sent: true }));
    j.history.mark('abandoned', T - 3_600_000);
    expect(ofThisRequest(j, second, undefined, T).abandonedElsewhere?.key).toBe('stopped');
    expect(ofThisRequest(j, second, undefined, T).abandoned).toBeUndefined();
    expect(ofThisRequest(j, { ...second, resellerId: undefined }, undefined, T).abandonedElsewhere).toBeUndefined();
  });
});

describe("underOtherScope: a plan's rows another key of the reseller sent", () => {
  it('in another profile: counted, as a key rotated in this profile is; not without the reseller known', () => {
    const plan = '/plans/restock.csv';
    const firstScope = { baseUrl: first.baseUrl, environment: first.environment, keyId: first.keyId };
    const row = (extra: Partial<OrderRecord>): OrderRecord =>
      recordAt(`plan-${planFamily(firstScope, plan, 'b1')}000000000001`, new Date().toISOString(), {
        ...first,
        productId: 'amazon-us-25',
        quantity: 3,
        ...extra,
      });
    const todo = [{ row: 2, productId: 'amazon-us-25', quantity: 3 }] as unknown as Parameters<
      typeof underOtherScope
    >[3];
    const scope = { baseUrl: second.baseUrl, environment: second.environment, keyId: second.keyId };
    expect(underOtherScope([row({})], { ...scope, resellerId: 'rs_demo' }, 'ops', todo, plan, 'b1')).toHaveLength(1);
    expect(underOtherScope([row({})], scope, 'ops', todo, plan, 'b1')).toHaveLength(0);
    expect(
      underOtherScope([row({ resellerId: undefined })], { ...scope, resellerId: 'rs_demo' }, 'ops', todo, plan, 'b1'),
    ).toHaveLength(0);
  });
});

describe('the profile keeps the reseller login learned for each key', () => {
  it('read by the quick check as zod reads it; a reseller entry missing a field goes to zod, which refuses it', () => {
    const file = {
      profiles: {
        default: {
          baseUrl: 'http://127.0.0.1:4010',
          keys: { test: 'sc_test_demo_4f3c9a1b7e2d' },
          resellers: { test: { id: 'rs_demo', keyId: 'k1', baseUrl: 'http://127.0.0.1:4010' } },
        },
      },
    };
    expect(plainConfig(file)).toEqual(file);
    expect(configSchema.safeParse(file).data).toEqual(file);
    const broken = { profiles: { default: { resellers: { test: { id: 'rs_demo' } } } } };
    expect(plainConfig(broken)).toBeUndefined();
    expect(configSchema.safeParse(broken).success).toBe(false);
  });
});

describe('ConfigStore: the reseller kept beside each key', () => {
  it('saved with the key, found by the key at the same API in any profile; replaced or dropped with the key', async () => {
    const dir = tempDir();
    const store = await ConfigStore.open(dir);
    const url = 'http://127.0.0.1:4010';
    await store.setKey('default', 'test', 'sc_test_demo_4f3c9a1b7e2d', url, {
      id: 'rs_demo',
      keyId: 'k1',
      baseUrl: url,
    });
    await store.setKey('ops', 'test', 'sc_test_demo2_aaaaaaaa', url, { id: 'rs_demo', keyId: 'k2', baseUrl: url });
    expect(store.resellerOf('k1', 'test', url, sameApi)).toBe('rs_demo');
    expect(store.resellerOf('k2', 'test', 'http://localhost:4010', sameApi)).toBe('rs_demo');
    expect(store.resellerOf('k2', 'test', 'http://127.0.0.1:4011', sameApi)).toBeUndefined();
    expect(store.resellerOf('k2', 'live', url, sameApi)).toBeUndefined();
    expect(store.resellerOf('k3', 'test', url, sameApi)).toBeUndefined();
    // Read back from the file (the quick check keeps the field).
    expect((await ConfigStore.open(dir)).resellerOf('k1', 'test', url, sameApi)).toBe('rs_demo');
    // A key saved whose ping named no reseller forgets the old key's; logout drops it with the key.
    await store.setKey('default', 'test', 'sc_test_other_bbbbbbbb', url);
    expect(store.profile('default').resellers).toBeUndefined();
    await store.removeKeys('ops', ['test']);
    expect(store.profile('ops').resellers).toBeUndefined();
  });
});
