// runPlan's finer rules in-process against the reference server: the live plan's question and its answer,
// out files refused before anything is sent, a row resumed, the summary's status and out cells, what a row's
// failure becomes (its code and exit, the worst exit for the plan), and a plan that cannot be read.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import {
  run as runVerb,
  runPlan as runPlanVerb,
  type PlaceDeps,
  type PlaceOptions,
  type PlanRunOptions,
} from '../../src/commands/order/place.js';
import { Journal } from '../../src/journal/journal.js';
import { Io } from '../../src/output/io.js';
import { legacyRowKey, planFamily, readPlan, rowKey, type PlanResult } from '../../src/orders/plan.js';
import { type RunningServer } from '../../src/server/index.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServer, KEY } from '../helpers/inprocess.js';
import { keyIdOf, sha256 } from '../../src/journal/intent.js';
import { saveCatalogCache } from '../../src/output/catalog-cache.js';

let server: RunningServer;
beforeAll(async () => {
  server = await inProcessServer();
});
afterAll(async () => {
  await server.close();
});

function harness(
  o: {
    json?: boolean;
    environment?: 'test' | 'live';
    yes?: boolean;
    journal?: Journal;
    io?: { io: Io; out: () => string; err: () => string };
    createOrder?: () => Promise<never>;
    /** The catalog cannot be read: the rows go unchecked before sending, and an unknown product is the API's refusal. */
    catalogUnreadable?: boolean;
  } = {},
) {
  const captured = o.io ?? capturedIo({ json: o.json ?? true });
  const journal = o.journal ?? freshJournal();
  const real = clientOf(server.url);
  let posts = 0;
  const api = Object.assign(Object.create(real) as ApiClient, {
    createOrder: (body: string, key: string) => (
      posts++,
      o.createOrder ? o.createOrder() : real.createOrder(body, key)
    ),
    ...(o.catalogUnreadable ? { listProducts: () => Promise.reject(new Error('the catalog cannot be read')) } : {}),
  });
  const f = {
    io: captured.io,
    yes: o.yes ?? false,
    signal: new AbortController().signal,
    connection: () =>
      Promise.resolve({ environment: o.environment ?? 'test', profile: 'shop', baseUrl: server.url, apiKey: KEY }),
    currentTarget: () =>
      Promise.resolve({ environment: o.environment ?? 'test', profile: 'shop', baseUrl: server.url }),
    journal: () => Promise.resolve(journal),
    api: () => Promise.resolve(api),
  } as unknown as PlaceDeps & { yes: boolean };
  return { f, journal, out: captured.out, err: captured.err, posts: () => posts };
}

/** The verb with the harness's --yes, as its registration would pass it. */
function runPlan(o: PlanRunOptions, f: PlaceDeps & { yes: boolean }): Promise<void> {
  return runPlanVerb({ ...o, yes: f.yes }, f);
}

function plan(text: string): string {
  const dir = tempDir();
  const path = join(dir, `plan-${randomUUID()}.csv`);
  writeFileSync(path, text);
  return path;
}

/** An Io whose stdin and stderr are a terminal, and whose stdin types `answer` once asked. */
function terminal(answer: string): { io: Io; out: () => string; err: () => string } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => {
    err += c.toString('utf8');
    if (err.includes('LIVE') && answer) {
      const typed = answer;
      answer = '';
      setTimeout(() => stdin.write(typed), 20);
    }
  });
  return {
    io: new Io({ stdin, stdout, stderr, env: {}, stdinIsTTY: true, stdoutIsTTY: false, stderrIsTTY: true }),
    out: () => out,
    err: () => err,
  };
}

describe('a live plan', () => {
  it('asks on a terminal, counting the orders and units to place; no is exit 130 and nothing sent', async () => {
    const path = plan('amazon-us-25,2\nsteam-us-20,3\n');
    const h = harness({ environment: 'live', io: terminal('n\n') });
    const error = await runPlan({ plan: path, concurrency: 1 }, h.f).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 130, message: 'cancelled: nothing was sent' });
    // The prompt's own styling (ANSI) and wrapping aside: it breaks lines at 80 columns wherever they fall (inside the
    // plan's path too) and trims the space a line ends with, so where a break falls depends on the temporary path's
    // length. Compared without whitespace, the question must still be whole.
    const bare = (text: string) => text.replace(/\s+/g, '');
    const asked = bare(stripVTControlCharacters(h.err()));
    expect(asked).toContain(
      bare(
        `Place 2 LIVE orders (5 units, 110.00 USD in all) from ${path}? They are charged to the wallet of profile "shop".`,
      ),
    );
    expect(h.posts()).toBe(0);
  });

  it('one large row: the question says one order, and groups its units and total', async () => {
    const h = harness({ environment: 'live', io: terminal('n\n') });
    const path = plan('amazon-us-25,1500\n');
    await expect(runPlan({ plan: path, concurrency: 1 }, h.f)).rejects.toMatchObject({ exitCode: 130 });
    const bare = (text: string) => text.replace(/\s+/g, '');
    expect(bare(stripVTControlCharacters(h.err()))).toContain(
      bare(`Place 1 LIVE order (1,500 units, 37,500.00 USD in all) from ${path}?`),
    );
    expect(h.posts()).toBe(0);
  });

  it('yes on the terminal, or --yes without one, places the rows', async () => {
    const asked = harness({ environment: 'live', io: terminal('y\n') });
    await runPlan({ plan: plan('amazon-us-25,1\n'), concurrency: 1 }, asked.f);
    expect(asked.posts()).toBe(1);
    const yes = harness({ environment: 'live', yes: true });
    await runPlan({ plan: plan('amazon-us-25,1\n'), concurrency: 1 }, yes.f);
    expect(yes.posts()).toBe(1);
  });
});

describe('out files', () => {
  it('an existing out file without --force refuses the plan before anything is sent, naming the line', async () => {
    const path = plan('amazon-us-25,1\namazon-us-25,1,taken.csv\n');
    writeFileSync(join(path, '..', 'taken.csv'), 'old\n');
    const h = harness();
    const error = await runPlan({ plan: path, concurrency: 1 }, h.f).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'out_exists',
      hint: 'pass --force to overwrite it, or name another file in the out column',
    });
    expect((error as Error).message).toBe(`line 2: ${join(path, '..', 'taken.csv')} exists; nothing was ordered`);
    expect(h.posts()).toBe(0);
    const forced = harness();
    await runPlan({ plan: path, concurrency: 1, force: true }, forced.f);
    expect(forced.posts()).toBe(2);
  });

  // Broke (a reseller's walkthrough): the hints offered --out and --format, which a plan refuses.
  it('an out file whose extension names no format: the hint is the out column, never --format', async () => {
    const h = harness();
    const error = await runPlan({ plan: plan('amazon-us-25,1,codes.txt\n'), concurrency: 1 }, h.f).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'out_format_unknown',
      hint: 'name the file .csv, .json, .jsonl or .xlsx in the out column',
    });
    expect(h.posts()).toBe(0);
  });
});

// A person fixing a refused plan met one problem a run: the missing --batch, then a bad quantity, then each existing
// file, then the typo (a walkthrough, four runs for one plan). Every problem the checks can see is said at once.
describe('a refused plan names all its problems in one run', () => {
  const problemPlan = (): { path: string; taken: string[] } => {
    const path = plan('amazon-us-25,1,taken-1.csv\namazn-us-25,1\namazon-us-25,2,taken-2.csv\n');
    const taken = ['taken-1.csv', 'taken-2.csv'].map((name) => join(path, '..', name));
    for (const file of taken) writeFileSync(file, 'old\n');
    return { path, taken };
  };

  for (const dryRun of [false, true])
    it(`${dryRun ? 'a dry run' : 'a run'}: every existing out file and every unknown product, nothing sent`, async () => {
      const { path, taken } = problemPlan();
      const h = harness();
      const error = (await runPlan({ plan: path, concurrency: 1, dryRun }, h.f).catch((e: unknown) => e)) as Error;
      expect(error).toMatchObject({ exitCode: 2, code: 'bad_plan' });
      expect(error.message).toBe(
        `the plan ${path} cannot be run, nothing was ordered: line 1: ${taken[0]} exists; line 2: no product "amazn-us-25" in the catalog; did you mean amazon-us-25?; line 3: ${taken[1]} exists`,
      );
      expect(h.posts()).toBe(0);
    });

  it('a plan that does not parse names the unknown products too, from the catalog list last saved', async () => {
    const configDir = tempDir();
    const h = harness();
    saveCatalogCache(configDir, { profile: 'shop', baseUrl: server.url }, ['amazon-us-25', 'amazon-us-10']);
    const path = plan('amazon-us-25,1,a-{batch}.csv\namazn-us-10,1\namazon-us-10,x\n');
    // Through the verb's run(): its first reading of the plan is the one refused.
    const error = (await runVerb({ plan: path, concurrency: 1, yes: false, json: true } as PlaceOptions, {
      ...h.f,
      configDir,
    }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ exitCode: 2, code: 'bad_plan' });
    expect(error.message).toContain(
      `the plan ${path} has 3 bad rows, nothing was ordered: line 1: its out file names {batch}`,
    );
    expect(error.message).toContain(
      'line 2: no product "amazn-us-10" in the catalog (as catalog list last saw it); did you mean amazon-us-10?',
    );
    expect(error.message).toContain('line 3: quantity must be a whole number');
    expect(h.posts()).toBe(0);
  });

  // An adversarial review: the cache's check called an interrupted row bad (its product since withdrawn), and
  // editing that line would change its key, leaving an order that may be charged and placing another.
  it("the cached catalog never calls a product this machine ordered unknown (an interrupted or delivered row's), and reads no key", async () => {
    const configDir = tempDir();
    const journal = freshJournal();
    await journal.begin({
      key: 'plan-earlier',
      productId: 'netflix-us-30',
      quantity: 1,
      environment: 'test',
      profile: 'shop',
      baseUrl: server.url,
      keyId: keyIdOf(KEY),
    });
    // A product both cached and ordered here is suggested once (a review saw "steam-us-20 or steam-us-20").
    await journal.begin({
      key: 'plan-earlier-2',
      productId: 'amazon-us-25',
      quantity: 1,
      environment: 'test',
      profile: 'shop',
      baseUrl: server.url,
      keyId: keyIdOf(KEY),
    });
    const h = harness({ journal });
    saveCatalogCache(configDir, { profile: 'shop', baseUrl: server.url }, ['amazon-us-25']);
    const path = plan('netflix-us-30,1\namazn-us-25,1\namazon-us-25,0\n');
    const deps = {
      ...h.f,
      configDir,
      connection: () => Promise.reject(new Error('the key was read')),
      currentTarget: () => Promise.resolve({ profile: 'shop', environment: 'test' as const, baseUrl: server.url }),
    };
    const error = (await runVerb({ plan: path, concurrency: 1, yes: false, json: true } as PlaceOptions, deps).catch(
      (e: unknown) => e,
    )) as Error & { hint?: string };
    expect(error.message).toBe(
      `the plan ${path} has 2 bad rows, nothing was ordered: line 2: no product "amazn-us-25" in the catalog (as catalog list last saw it); did you mean amazon-us-25?; line 3: quantity must be a whole number from 1 to 1,000,000, got "0"`,
    );
    // The rows' own cause keeps its hint; the catalog's is said beside it.
    expect(error.hint).toBe(
      'each row is product,quantity[,out] (a header row product,quantity,out is optional); list the products with: giftcodes catalog list',
    );
  });
});

describe('a refused plan with no catalog list saved here', () => {
  // A person's day: a cron directory new that night refused a plan for its bad quantity, and only the next run for the
  // typo in a product beside it.
  it('says its product ids were not checked, and the dry run that checks them; not where there are none to check', async () => {
    const configDir = tempDir();
    const deps = {
      ...harness({ journal: freshJournal() }).f,
      configDir,
      connection: () => Promise.reject(new Error('the key was read')),
      currentTarget: () => Promise.resolve({ profile: 'shop', environment: 'test' as const, baseUrl: server.url }),
    };
    const refused = (path: string): Promise<Error & { hint?: string }> =>
      runVerb({ plan: path, concurrency: 1, yes: false, json: true } as PlaceOptions, deps).then(
        () => new Error('not refused'),
        (e: unknown) => e as Error & { hint?: string },
      );
    const path = plan('stem-us-20,1\nsteam-us-50,1.5\n');
    const error = await refused(path);
    expect(error.message).toMatch(/has 1 bad row, nothing was ordered: line 2: quantity must be a whole number/);
    expect(error.hint).toBe(
      `each row is product,quantity[,out] (a header row product,quantity,out is optional); the product ids were not checked (no catalog list saved here): giftcodes order place --plan ${path} --dry-run checks them with the rest`,
    );
    // Where the catalog list saved is at hand, it names the typo itself.
    saveCatalogCache(configDir, { profile: 'shop', baseUrl: server.url }, ['steam-us-20', 'steam-us-50']);
    expect((await refused(path)).hint).not.toContain('were not checked');
  });
});

describe('the summary', () => {
  it("text: an earlier run's rows say so; a failed row its error code; an out cell without a count when nothing was written", async () => {
    const path = plan('amazon-us-25,1,a.csv\nno-such-product,1,b.csv\n');
    const first = harness({ json: false, catalogUnreadable: true });
    await expect(runPlan({ plan: path, concurrency: 2 }, first.f)).rejects.toMatchObject({ code: 'plan_rows_failed' });
    const lines = first.out().split('\n');
    expect(lines[1]).toMatch(/ completed +plan-[0-9a-f]{24} +\S+a\.csv \(1\)$/);
    expect(lines[2]).toMatch(/^2 +no-such-product +1 +- +error: \S+ +plan-[0-9a-f]{24} +\S+b\.csv$/);
    const again = harness({ json: false, journal: first.journal, catalogUnreadable: true });
    await expect(runPlan({ plan: path, concurrency: 2 }, again.f)).rejects.toMatchObject({ code: 'plan_rows_failed' });
    // The earlier run's row names where that run wrote its codes, and says so on stderr.
    expect(again.out().split('\n')[1]).toMatch(/ earlier run: completed +plan-[0-9a-f]{24} +\S+a\.csv$/);
    expect(again.err()).toMatch(
      /row 1: delivered by an earlier run at \S+Z \(order ord_\S+, its codes in \S+a\.csv\); not ordered again/,
    );
  });

  it('a row that fails with an error of no kind is internal_error, exit 1; the plan exits with its worst row', async () => {
    const h = harness({ createOrder: () => Promise.reject(new Error('boom')) });
    const error = await runPlan({ plan: plan('amazon-us-25,1\n'), concurrency: 1 }, h.f).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 1,
      code: 'plan_rows_failed',
      message: '1 of 1 plan rows failed (first: line 1: boom)',
      hint: 'fix what failed and run the same plan again: rows already delivered are not ordered twice (giftcodes order list --since 1d)',
    });
    expect((JSON.parse(h.out()) as PlanResult[])[0]!.error).toEqual({
      code: 'internal_error',
      message: 'boom',
      exitCode: 1,
    });
    const mixed = harness({ catalogUnreadable: true });
    const worst = await runPlan({ plan: plan('amazon-us-25,1\nno-such-product,1\n'), concurrency: 1 }, mixed.f).catch(
      (e: unknown) => e,
    );
    expect(worst).toMatchObject({ code: 'plan_rows_failed' });
    const results = JSON.parse(mixed.out()) as PlanResult[];
    expect((worst as { exitCode: number }).exitCode).toBe(results[1]!.error!.exitCode);
    expect((worst as Error).message).toMatch(/^1 of 2 plan rows failed \(first: line 2: /);
  });
});

describe('resumed rows', () => {
  it('a row whose interrupted intent is in the journal is resumed with its key, and says so', async () => {
    const text = 'amazon-us-25,2\n';
    const path = plan(text);
    const h = harness({ json: false });
    const key = rowKey(planFamily({ baseUrl: server.url, environment: 'test', keyId: keyIdOf(KEY) }, path, undefined), {
      productId: 'amazon-us-25',
      quantity: 2,
      outCell: '',
      occurrence: 1,
    });
    const { intent } = await h.journal.begin({
      profile: 'shop',
      environment: 'test',
      baseUrl: server.url,
      keyId: keyIdOf(KEY),
      productId: 'amazon-us-25',
      quantity: 2,
      key,
    });
    h.journal.save({ ...intent, phase: 'sending', owner: { pid: 999_999_999 } });
    await runPlan({ plan: path, concurrency: 1 }, h.f);
    expect(h.err()).toContain(`row 1: resuming its interrupted order (key ${key})`);
    expect(h.journal.read().intents).toEqual([]);
    expect(h.journal.history.get(key, intent)).toMatchObject({ outcome: 'delivered' });
  });
});

describe('rows an older version ordered (keys from the plan bytes and line)', () => {
  it('a row delivered under its older key is read, not ordered again; an interrupted one resumes with it', async () => {
    const text = 'amazon-us-25,2\namazon-us-25,3\n';
    const path = plan(text);
    const sha = sha256(Buffer.from(text).toString('latin1'));
    const h = harness();
    const placed = await clientOf(server.url).createOrder(
      JSON.stringify({ product_id: 'amazon-us-25', quantity: 2 }),
      legacyRowKey(sha, 1),
    );
    const time = new Date().toISOString();
    // A record as versions before the key id wrote it: named by the key alone, no keyId.
    h.journal.history.record({
      key: legacyRowKey(sha, 1),
      orderId: placed.order.id,
      productId: 'amazon-us-25',
      quantity: 2,
      environment: 'test',
      profile: 'shop',
      baseUrl: server.url,
      createdAt: time,
      updatedAt: time,
      endedAt: time,
      outcome: 'delivered',
    });
    const { intent } = await h.journal.begin({
      profile: 'shop',
      environment: 'test',
      baseUrl: server.url,
      keyId: keyIdOf(KEY),
      productId: 'amazon-us-25',
      quantity: 3,
      key: legacyRowKey(sha, 2),
    });
    h.journal.save({ ...intent, phase: 'sending', owner: { pid: 999_999_999 } });
    await runPlan({ plan: path, concurrency: 1 }, h.f);
    const rows = JSON.parse(h.out()) as PlanResult[];
    expect(rows.map((r) => r.key)).toEqual([legacyRowKey(sha, 1), legacyRowKey(sha, 2)]);
    expect(rows[0]).toMatchObject({ already: true, order: { id: placed.order.id } });
    expect(h.posts()).toBe(1);
    expect(h.journal.read().intents).toEqual([]);
    // Another environment's older record is not this row's.
    const live = harness({ environment: 'live', yes: true, journal: freshJournal() });
    live.journal.history.record({
      key: legacyRowKey(sha, 1),
      orderId: placed.order.id,
      productId: 'amazon-us-25',
      quantity: 2,
      environment: 'test',
      profile: 'shop',
      baseUrl: server.url,
      createdAt: time,
      updatedAt: time,
      endedAt: time,
      outcome: 'delivered',
    });
    await runPlan({ plan: path, concurrency: 1 }, live.f).catch(() => undefined);
    expect((JSON.parse(live.out()) as PlanResult[]).map((r) => r.key)).not.toContain(legacyRowKey(sha, 1));
  });
});

describe('readPlan', () => {
  it('a path through a file, a missing file or a directory is exit 8 plan_unreadable, as docs/exit-codes.md says', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    const path = join(dir, 'file', 'plan.csv');
    expect(() => readPlan(path)).toThrow(
      expect.objectContaining({
        exitCode: 8,
        code: 'plan_unreadable',
        message: `cannot read the plan ${path} (ENOTDIR)`,
      }),
    );
    mkdirSync(join(dir, 'd.csv'));
    expect(() => readPlan(join(dir, 'd.csv'))).toThrow(
      expect.objectContaining({
        exitCode: 8,
        code: 'plan_unreadable',
        message: `cannot read the plan ${join(dir, 'd.csv')}: it is a directory`,
        hint: 'check the --plan path',
      }),
    );
    expect(() => readPlan(join(dir, 'none.csv'))).toThrow(
      expect.objectContaining({ exitCode: 8, message: `cannot read the plan ${join(dir, 'none.csv')}: no such file` }),
    );
  });
});
