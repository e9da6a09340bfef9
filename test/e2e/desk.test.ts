// Support desk and cron (issue 14): the local order record (order list, order show <ref>), bulk restock from a
// plan, --query on every command, help topics, logs with timestamps. The built CLI against `giftcodes serve`.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run as catalogList } from '../../src/commands/catalog/list.js';
import { run as codesGet } from '../../src/commands/codes/get.js';
import { run as configList } from '../../src/commands/config/list.js';
import { run as configSet } from '../../src/commands/config/set.js';
import { run as configShow } from '../../src/commands/config/show.js';
import { run as configUse } from '../../src/commands/config/use.js';
import { run as orderList, type ListOptions } from '../../src/commands/order/list.js';
import { run as pending } from '../../src/commands/order/pending.js';
import { run as show } from '../../src/commands/order/show.js';
import { orderRefArg } from '../../src/commands/parse.js';
import { run as ping } from '../../src/commands/ping.js';
import type { Factory } from '../../src/factory.js';
import {
  BOTH_KEYS,
  DEMO_KEYS,
  ledger,
  loggedIn,
  ordersWithKeyPrefix,
  placedOnServer,
  ROOT,
  runCli,
  servedApi,
  type ServedApi,
  spawnCli,
  staleCatalog,
  tempDir,
  unstamped,
  until,
} from '../helpers/e2e.js';
import { gate, stderrShows } from '../helpers/gate.js';
import { ranHere } from '../helpers/inprocess.js';
import { listedHere } from '../helpers/order-list.js';
import { freePort } from '../helpers/ports.js';
import { webhookListener } from '../helpers/webhooks.js';

type Rec = {
  key: string;
  orderId?: string;
  productId: string;
  quantity: number;
  status?: string;
  outcome: string;
  environment: string;
  profile: string;
  amount?: { amount: number; currency: string };
};

/**
 * What `order list --json` with these filters prints, read by the verb's run in this process (listedHere): most reads
 * here only look at the record between runs. What a filter's flag reaches is still run through the CLI below (the
 * --status and --since typos, the --profile near miss, --limit, --product in the CSV, --env in the unfinished line).
 */
function list(configDir: string, options: Omit<ListOptions, 'refresh' | 'format'> = {}): Promise<Rec[]> {
  return listedHere<Rec>(configDir, options);
}

/**
 * Resolves once the server says order `id` completed (read with `key`, straight from the API): a --refresh run after
 * it has that status to read, where a loop of them (a CLI run each) waited for it.
 */
async function completedOnServer(url: string, id: string, key: string = DEMO_KEYS.test): Promise<void> {
  await until(async () => {
    const res = await fetch(`${url}/v1/orders/${id}`, { headers: { 'X-API-Key': key } });
    return ((await res.json()) as { status?: string }).status === 'completed' || undefined;
  });
}

/** `order list --json --refresh <args>` through the CLI: --refresh asks the API, which is what its tests are about. */
async function refreshed(configDir: string, ...args: string[]): Promise<Rec[]> {
  const result = await runCli(['order', 'list', '--json', '--refresh', ...args], { configDir });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Rec[];
}

// Servers the describes below share (a server started is ~0.2 s of CPU): their orders complete at once, or after
// 100 ms. A describe that logs in has a config dir of its own (ownLogin), so what one leaves there is not the other's.
const atOnce = servedApi(['--fulfil-after', '0']);
const after100 = servedApi(['--fulfil-after', '100']);

/** `api`, with a config dir of the enclosing describe's own logged in to it with the demo test key. */
function ownLogin(api: ServedApi): ServedApi {
  let configDir: string | undefined;
  beforeAll(async () => {
    configDir = await loggedIn(api.server);
  });
  return {
    get server() {
      return api.server;
    },
    get url() {
      return api.url;
    },
    get configDir() {
      if (configDir === undefined) throw new Error('ownLogin: read the config dir inside a test or a hook');
      return configDir;
    },
  };
}

// Broke: a mistyped config directory listed "no orders in the local record match" (exit 0), which a support agent
// read as the order never having happened, and made the directory and its journal/.
describe('order list where there is no order record', () => {
  it('a config directory that does not exist: says so (--json too, [] on stdout), exit 0, and makes nothing', async () => {
    const missing = join(tempDir(), 'giftcodse');
    const text = await runCli(['order', 'list'], { configDir: missing });
    expect([text.code, text.stdout]).toEqual([0, '']);
    expect(unstamped(text.stderr)).toBe(`warning: no order record: the config directory ${missing} does not exist\n`);
    const json = await runCli(['order', 'list', '--json'], { configDir: missing });
    expect([json.code, json.stdout]).toEqual([0, '[]\n']);
    expect(json.stderr).toContain(`the config directory ${missing} does not exist`);
    expect(existsSync(missing)).toBe(false);
  });

  it('a config directory that is a file: exit 8, as order pending (it was "no order record in <file> yet", exit 0)', async () => {
    const file = join(tempDir(), 'giftcodes');
    writeFileSync(file, '');
    for (const args of [
      ['order', 'list'],
      ['order', 'list', '--json'],
      ['order', 'pending'],
    ]) {
      const result = await runCli(args, { configDir: file });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(8);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`the config directory ${file} is a file, not a directory`);
    }
  });

  it('a config directory without one yet: says where it looked, and makes no journal there', async () => {
    const dir = tempDir();
    const result = await runCli(['order', 'list'], { configDir: dir });
    expect([result.code, result.stdout]).toEqual([0, '']);
    expect(unstamped(result.stderr)).toBe(
      `no order record in ${dir} yet: no order was placed or tried with this config directory\n`,
    );
    expect(existsSync(join(dir, 'journal'))).toBe(false);
  });
});

describe('order pending where the config directory does not exist', () => {
  // A weekly `order pending --json` alarm with a mistyped GIFTCODES_CONFIG_DIR printed [] from a directory it made.
  it('says so (--json too, [] on stdout), exit 0, and makes nothing', async () => {
    const missing = join(tempDir(), 'giftcodse');
    const text = await runCli(['order', 'pending'], { configDir: missing });
    expect([text.code, text.stdout]).toEqual([0, '']);
    expect(unstamped(text.stderr)).toBe(`warning: no order journal: the config directory ${missing} does not exist\n`);
    const json = await runCli(['order', 'pending', '--json'], { configDir: missing });
    expect([json.code, json.stdout]).toEqual([0, '[]\n']);
    expect(existsSync(missing)).toBe(false);
  });
});

// Broke: a nightly `order resume --all` under a mistyped GIFTCODES_CONFIG_DIR said "nothing to resume: no interrupted
// orders" (exit 0) from a directory it had just made: an all-clear for a journal it never read.
describe('order resume where the config directory does not exist', () => {
  it('--all says so (--json too, [] on stdout), exit 0, and makes nothing; a key is not found there, and nothing made', async () => {
    const missing = join(tempDir(), 'giftcodse');
    const text = await runCli(['order', 'resume', '--all'], { configDir: missing });
    expect([text.code, text.stdout]).toEqual([0, '']);
    expect(unstamped(text.stderr)).toBe(`warning: no order journal: the config directory ${missing} does not exist\n`);
    const json = await runCli(['order', 'resume', '--all', '--json'], { configDir: missing });
    expect([json.code, json.stdout]).toEqual([0, '[]\n']);
    expect(json.stderr).toContain(`the config directory ${missing} does not exist`);
    const key = await runCli(['order', 'resume', 'restock-1'], { configDir: missing });
    expect(key.code).toBe(2);
    expect(unstamped(key.stderr)).toBe(
      `error: no interrupted order with key restock-1 here: the config directory ${missing} does not exist\n` +
        'hint: set GIFTCODES_CONFIG_DIR to the directory the order was placed from\n',
    );
    expect(existsSync(missing)).toBe(false);
  });
});

// Broke: with the key in GIFTCODES_API_KEY, a support agent's order show under a mistyped GIFTCODES_CONFIG_DIR
// showed the API's order without a word that this machine's record was never read, and made <dir>/journal.
describe('order show where the config directory does not exist', () => {
  const served = atOnce;

  it("shows the API's order, says the record was not read, and makes nothing", async () => {
    const orderId = await placedOnServer(served.server);
    const missing = join(tempDir(), 'giftcodse');
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test, GIFTCODES_BASE_URL: served.url };
    const text = await runCli(['order', 'show', orderId], { configDir: missing, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^order +${orderId}$`, 'm'));
    expect(unstamped(text.stderr)).toBe(
      `warning: no order record: the config directory ${missing} does not exist; this is the API's order alone\n` +
        // Found with the run's key, which alone sees it: said (never printed), and the environment that key chose.
        `its codes: GIFTCODES_CONFIG_DIR=${missing} giftcodes codes get ${orderId} --out ${orderId}.csv --env test (with GIFTCODES_API_KEY set as here)\n`,
    );
    // --json by order show's run in this process (its document and its warning are the verb's; the exit code and
    // the streams apart are the text run's above), over the same environment.
    const json = await ranHere(missing, (deps) => show({ ref: orderId }, deps), { globals: { json: true }, env });
    expect((JSON.parse(json.out) as { id: string }).id).toBe(orderId);
    expect(json.err).toContain(`the config directory ${missing} does not exist`);
    // An id the API does not know: asked again with the other key, then refused (exit 4), and nothing made (the
    // refusal's lookup opened the journal and made it: a review).
    const unknown = await runCli(['order', 'show', 'ord_nosuchorder'], { configDir: missing, env });
    expect(unknown.code, unknown.stderr).toBe(4);
    // No order shown, so no word of "the API's order alone" before the 404 (a desk review).
    expect(unknown.stderr).not.toContain("this is the API's order alone");
    expect(existsSync(missing)).toBe(false);
    // Without a key: refused as before (the hint names the directory), and still nothing made.
    const keyless = await runCli(['order', 'show', orderId], { configDir: missing });
    expect(keyless.code).toBe(3);
    expect(keyless.stderr).toContain(`GIFTCODES_CONFIG_DIR=${missing}`);
    expect(existsSync(missing)).toBe(false);
  });

  // Reading the config made its directory: every command under a mistyped GIFTCODES_CONFIG_DIR left one behind.
  it('a command that writes nothing there (ping) makes nothing; one that saves there (catalog list, login) makes it 0700', async () => {
    const missing = join(tempDir(), 'giftcodse');
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test, GIFTCODES_BASE_URL: served.url };
    const ping = await runCli(['ping'], { configDir: missing, env });
    expect(ping.code, ping.stderr).toBe(0);
    expect(existsSync(missing)).toBe(false);
    // The catalog's cache (what completion and the near-miss product hint read) is written, its directory made.
    const catalog = await runCli(['catalog', 'list', '--json'], { configDir: missing, env });
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(readdirSync(missing).filter((name) => name.startsWith('catalog-cache-'))).toHaveLength(1);
    expect(statSync(missing).mode & 0o777).toBe(0o700);
    rmSync(missing, { recursive: true });
    const login = await runCli(['login', '--api-key-stdin', '--insecure-storage', '--base-url', served.url], {
      configDir: missing,
      input: `${DEMO_KEYS.test}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    expect(statSync(missing).mode & 0o777).toBe(0o700);
  });

  // Once reading the config stopped making its directory, login verified the key, said it was stored, then failed.
  it('login where the config directory cannot be made: exit 8 before the key is sent or said stored', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    // Without --insecure-storage: where no credential store answers (as here), login says the key is stored in the file.
    const login = await runCli(['login', '--api-key-stdin', '--base-url', served.url], {
      configDir: join(file, 'giftcodes'),
      input: `${DEMO_KEYS.test}\n`,
    });
    expect(login.code).toBe(8);
    expect(unstamped(login.stderr)).toMatch(/^error: cannot make the config directory .*\n/);
    expect(login.stderr).not.toMatch(/stored|verifying/);
  });
});

// Broke (a desk review): codes get and order watch made <dir>/journal under a mistyped GIFTCODES_CONFIG_DIR, even
// when they failed, and from then on order pending answered "every order placed from here reached you", and order list
// "no orders in the local record match", where both had said the directory does not exist.
describe('codes get and order watch where the config directory does not exist', () => {
  const served = atOnce;

  it('write the codes, say they are not recorded, and make nothing; order pending still says the directory is missing', async () => {
    const orderId = await placedOnServer(served.server);
    const missing = join(tempDir(), 'giftcodse');
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test, GIFTCODES_BASE_URL: served.url };
    const dir = tempDir();
    const got = await runCli(['codes', 'get', orderId, '--out', join(dir, 'a.csv')], { configDir: missing, env });
    expect(got.code, got.stderr).toBe(0);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toMatch(/^order_id,code/);
    expect(unstamped(got.stderr)).toContain(
      `warning: no order record: the config directory ${missing} does not exist; these codes are not recorded\n`,
    );
    const again = await runCli(['codes', 'get', orderId, '--out', join(dir, 'a.csv')], { configDir: missing, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('already holds');
    // --json to stdout by codes get's run in this process (the document is the verb's; it writes no file), over the
    // same environment: nothing made there either, checked below.
    const json = await ranHere(missing, (deps) => codesGet({ orderId, json: true }, deps), {
      globals: { json: true },
      env,
    });
    expect(JSON.parse(json.out)).toHaveLength(1);
    const watched = await runCli(['order', 'watch', orderId, '--out', join(dir, 'b.csv')], { configDir: missing, env });
    expect(watched.code, watched.stderr).toBe(0);
    expect(existsSync(join(dir, 'b.csv'))).toBe(true);
    expect(watched.stderr).toContain(`the config directory ${missing} does not exist; this order is not recorded`);
    const unknown = await runCli(['codes', 'get', 'ord_nosuchorder', '--out', join(dir, 'c.csv')], {
      configDir: missing,
      env,
    });
    expect(unknown.code).toBe(4);
    expect(existsSync(missing)).toBe(false);
    // What order pending says of it, by its run here (its exit code and streams are a CLI run's further up the file).
    const stillMissing = await ranHere(missing, (deps) => pending(deps));
    expect(stillMissing.err).toContain(`the config directory ${missing} does not exist`);
  });
});

describe('order list and order show <ref>', () => {
  const served = servedApi(['--fulfil-after', '300'], { login: true });

  // Twenty CLI runs one after another: on a loaded machine they need more than the default 30 s.
  it('records place, refusal, abandon and resume, newest first, with every filter', { timeout: 300_000 }, async () => {
    const { configDir } = served;
    const placed = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--json'], {
      configDir,
    });
    expect(placed.code, placed.stderr).toBe(0);
    const order = JSON.parse(placed.stdout) as { id: string };
    const refused = await runCli(['order', 'place', '--product', 'no-such-product', '--quantity', '1'], { configDir });
    expect(refused.code).toBe(4);
    // An order that never got an id shows its key in ORDER: at 80 columns KEY gives way first, and a row of `-`
    // left nothing to paste into order show (a support walkthrough).
    const [never] = await list(configDir, { product: 'no-such-product' });
    const tableHere = async (options: ListOptions): Promise<string> =>
      (await ranHere(configDir, (deps) => orderList({ ...options, format: 'table' }, deps))).out;
    const row = (await tableHere({ product: 'no-such-product' })).split('\n')[1];
    expect(row).toMatch(new RegExp(`^${never!.key} +no-such-product +1 `));
    // Killed right after the request went out: pending in the journal, then listed as pending.
    const killed = await runCli(['order', 'place', '--product', 'steam-us-20', '--quantity', '1'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal ?? killed.code).not.toBe(0);
    let records = await list(configDir);
    expect(records[0]).toMatchObject({ productId: 'steam-us-20', outcome: 'pending' });
    // Its row says to resume it, and so does the line under the table: a refreshed status would not finish it (the
    // line used to send it to --refresh).
    // order show says what the API cannot: this machine never finished it, and how to.
    // By order show's run in this process: what it says is the verb's (its exit codes are CLI runs' elsewhere).
    const shown = (await ranHere(configDir, (deps) => show({ ref: records[0]!.key }, deps))).out;
    expect(shown).toContain(`\nkey          ${records[0]!.key}\n`);
    // The order completes 300 ms after it was placed: by this read it may have (words for that below).
    const ended = shown.includes('\nstatus       completed\n');
    expect(shown).toContain(
      `\nhere         ${ended ? 'completed on the server; its run here ended before recording it' : 'unfinished: its run ended before the order did'}; finish it with: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order resume ${records[0]!.key}\n`,
    );
    const table = await runCli(['order', 'list', '--product', 'steam-us-20'], { configDir });
    expect(table.stdout).toContain('unfinished: resume it');
    expect(unstamped(table.stderr)).toBe(
      `1 order was left unfinished by its run: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order resume ${records[0]!.key}\n`,
    );
    const resumed = await runCli(['order', 'resume', '--all'], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    // A second interrupted one, abandoned.
    await runCli(['order', 'place', '--product', 'apple-us-25', '--quantity', '3'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'intent.written=kill' },
    });
    const pendingKey = (await list(configDir, { status: 'pending' }))[0]!.key;
    expect((await runCli(['order', 'abandon', pendingKey], { configDir })).code).toBe(0);

    records = await list(configDir);
    expect(records.map((r) => [r.productId, r.outcome])).toEqual([
      ['apple-us-25', 'abandoned'],
      ['steam-us-20', 'delivered'],
      ['no-such-product', 'refused'],
      ['amazon-us-25', 'delivered'],
    ]);
    expect(records[3]!.orderId).toBe(order.id);
    // Filters: each one alone.
    expect((await list(configDir, { status: 'refused' })).map((r) => r.productId)).toEqual(['no-such-product']);
    // A typo in --status is not "no such orders" (an exit 0 a script reads as none): refused, exit 2, with the
    // nearest word and what --status takes; nothing is asked of the API, --refresh or not.
    const typo = await runCli(['order', 'list', '--status', 'delivred', '--refresh'], { configDir });
    expect([typo.code, typo.stdout]).toEqual([2, '']);
    expect(unstamped(typo.stderr).split('\n')).toEqual([
      'error: --status "delivred" is not an outcome, a server status or a word of the OUTCOME column: did you mean delivered?',
      expect.stringMatching(/^hint: --status takes an outcome \(delivered, failed, refused, abandoned, pending\), /),
      '',
    ]);
    expect((await list(configDir, { product: 'amazon-us-25' })).map((r) => r.orderId)).toEqual([order.id]);
    expect(await list(configDir, { since: '2999-01-01' })).toEqual([]);
    expect(await list(configDir, { since: '1h' })).toHaveLength(4);
    expect(await list(configDir, { env: 'live' })).toEqual([]);
    expect(await list(configDir, { env: 'test' })).toHaveLength(4);
    expect(await list(configDir, { profile: 'other' })).toEqual([]);
    const typoProfile = await runCli(['order', 'list', '--profile', 'defualt'], { configDir });
    expect([typoProfile.code, typoProfile.stdout]).toEqual([0, '']);
    expect(unstamped(typoProfile.stderr)).toBe(
      'no order in the local record was placed with the profile "defualt": did you mean default? (profiles in the record: default)\n',
    );
    expect(await list(configDir, { profile: 'default' })).toHaveLength(4);
    // --limit through the CLI: what the flag's number reaches.
    const limited = await runCli(['order', 'list', '--json', '--limit', '2'], { configDir });
    expect(limited.code, limited.stderr).toBe(0);
    expect((JSON.parse(limited.stdout) as Rec[]).map((r) => r.productId)).toEqual(['apple-us-25', 'steam-us-20']);
    const bad = await runCli(['order', 'list', '--since', 'last tuesday'], { configDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^[\dT:.Z-]+ error: --since expects/m);

    // CSV for reconciliation: the header, one line per record.
    const csv = await runCli(['order', 'list', '--format', 'csv', '--product', 'amazon-us-25'], { configDir });
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'key,order_id,product_id,quantity,status,outcome,environment,profile,base_url,created_at,updated_at,ended_at,out,error_code,error_message,amount,currency',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]!.split(',').slice(1, 4)).toEqual([order.id, 'amazon-us-25', '2']);
    // What the API stated the order costs (2 × 25.00 USD), kept from its answer: no catalog was listed here.
    expect(lines[1]!.split(',').slice(-2)).toEqual(['50.00', 'USD']);
    expect(records[3]!.amount).toEqual({ amount: 5000, currency: 'USD' });
  });

  it('--refresh reads the status of orders in progress from the API and records it', async () => {
    const { configDir } = served;
    const placed = JSON.parse(
      (await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json'], { configDir }))
        .stdout,
    ) as { id: string; status: string };
    expect(placed.status).not.toBe('completed');
    const before = (await list(configDir, { product: 'amazon-us-10' }))[0]!;
    expect(before.status).toBe(placed.status);
    const stale = await runCli(['order', 'list', '--product', 'amazon-us-10'], { configDir });
    // Its command reaches this run's config directory, as every hint's does (a review: pasted under cron, it did not).
    expect(unstamped(stale.stderr)).toBe(
      `1 order was in progress when last checked: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order list --refresh\n`,
    );
    await completedOnServer(served.url, placed.id);
    let after = before;
    for (let i = 0; i < 50 && after.status !== 'completed'; i++) {
      after = (await refreshed(configDir, '--product', 'amazon-us-10'))[0]!;
    }
    expect(after.status).toBe('completed');
    // The table says when a status shown may be old, and how to ask again; once refreshed, it has nothing to say.
    const text = await runCli(['order', 'list', '--product', 'amazon-us-10'], { configDir });
    expect(unstamped(text.stderr)).toBe('');
    // Recorded: a plain list (no API call) now says completed.
    expect((await list(configDir, { product: 'amazon-us-10' }))[0]!.status).toBe('completed');
  });

  // A support walkthrough: order show said completed, order list --refresh still said pending, for an order whose
  // run was killed (its codes file never written). The refresh shows what it read; the row still says resume it.
  it('--refresh shows the status it read of an order its run left unfinished, which stays to resume', async () => {
    const { configDir } = served;
    const killed = await runCli(['order', 'place', '--product', 'netflix-us-30', '--quantity', '1'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal ?? killed.code).not.toBe(0);
    const [before] = await list(configDir, { product: 'netflix-us-30' });
    expect(before).toMatchObject({ outcome: 'pending', status: 'pending' });
    await completedOnServer(served.url, before!.orderId!);
    await until(async () => {
      const [after] = await refreshed(configDir, '--product', 'netflix-us-30');
      return after?.status === 'completed' ? after : undefined;
    }).then((after) => expect(after).toMatchObject({ key: before!.key, outcome: 'pending', status: 'completed' }));
    // What it read is shown, not written: the journal's intent is the run's to finish (order resume).
    const [later] = await list(configDir, { product: 'netflix-us-30' });
    expect(later).toMatchObject({ outcome: 'pending', status: 'pending' });
    expect((await runCli(['order', 'resume', before!.key], { configDir })).code).toBe(0);
  });

  // A support walkthrough: order watch of an order whose run was killed before writing its --out file ended with
  // "its codes: giftcodes codes get … --out codes.csv", a second plaintext file, while order resume writes the
  // recorded one.
  it('order watch of an order its run left unfinished names order resume and the file it writes', async () => {
    const { configDir } = served;
    const out = join(tempDir(), 'z.csv');
    const killed = await runCli(['order', 'place', '--product', 'tesco-uk-20', '--quantity', '1', '--out', out], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal ?? killed.code).not.toBe(0);
    const [left] = await list(configDir, { product: 'tesco-uk-20' });
    const watched = await runCli(['order', 'watch', left!.orderId!, '--interval', '0.1'], { configDir });
    expect(watched.code, watched.stderr).toBe(0);
    // Pinned to the run's config directory, as every next step is.
    expect(watched.stdout + watched.stderr).toContain(
      `its codes go to ${out}: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order resume ${left!.key}`,
    );
    expect(watched.stdout + watched.stderr).not.toContain('codes get');
    const resumed = await runCli(['order', 'resume', left!.key], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^order_id,code/);
    // Watched again once delivered: where its codes are, not codes get (a second plaintext copy; a review).
    const again = await runCli(['order', 'watch', left!.orderId!, '--interval', '0.1'], { configDir });
    expect(again.stdout + again.stderr).toContain(`its codes were written to ${out} here`);
    expect(again.stdout + again.stderr).not.toContain('codes get');
  });

  // A support walkthrough: order place --out interrupted while it wrote the codes of an order that had completed;
  // order show said "status completed" and "unfinished: its run ended before the order did", as if it had not ended.
  it('order show of a completed order whose codes were not written here says so, and how to finish', async () => {
    const configDir = await loggedIn(served.server);
    const out = join(tempDir(), 'partial.xlsx');
    const killed = await runCli(['order', 'place', '--product', 'apple-us-50', '--quantity', '2', '--out', out], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'codes.tmp-written=kill' },
    });
    expect(killed.signal ?? killed.code).not.toBe(0);
    const [left] = await list(configDir);
    expect(left).toMatchObject({ outcome: 'pending', status: 'completed' });
    // What order show says of it is the verb's: by its run in this process.
    const shown = (await ranHere(configDir, (deps) => show({ ref: left!.orderId! }, deps))).out;
    expect(shown).toContain('\nstatus       completed\n');
    expect(shown).toContain(
      `\nhere         completed on the server; its codes were not written here yet (${out}); finish it with: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order resume ${left!.key}\n`,
    );
    expect(shown).not.toContain('before the order did');
    expect((await runCli(['order', 'resume', left!.key], { configDir })).code).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it('--refresh reads each order with the key it was placed with; one whose key is gone is said, not read', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = async (env: string): Promise<string> => {
      const placed = await runCli(
        ['order', 'place', '--product', 'apple-us-25', '--quantity', '1', '--env', env, '--yes', '--json'],
        { configDir },
      );
      expect(placed.code, placed.stderr).toBe(0);
      return (JSON.parse(placed.stdout) as { id: string }).id;
    };
    const [test, live] = [await place('test'), await place('live')];
    const statuses = async (): Promise<Record<string, string | undefined>> =>
      Object.fromEntries((await list(configDir, { product: 'apple-us-25' })).map((r) => [r.orderId, r.status]));
    let refreshed = await runCli(['order', 'list', '--refresh', '--product', 'apple-us-25'], { configDir });
    // The current profile's key is test: the live order is read with the live key, and that is said.
    expect(unstamped(refreshed.stderr)).toContain(
      `1 order in progress of the live key of profile "default" at ${served.url}: reading there\n`,
    );
    await completedOnServer(served.url, test);
    await completedOnServer(served.url, live, DEMO_KEYS.live);
    await until(async () => {
      const now = await statuses();
      if (now[test] === 'completed' && now[live] === 'completed') return true;
      refreshed = await runCli(['order', 'list', '--refresh', '--product', 'apple-us-25'], { configDir });
      expect(refreshed.code, refreshed.stderr).toBe(0);
      return undefined;
    });

    // A live order left unfinished. A key given to the run (here the test key, in GIFTCODES_API_KEY) is sent to its
    // own target only: the live order is said, not read with it.
    const third = await place('live');
    const given = await runCli(['order', 'list', '--refresh', '--product', 'apple-us-25'], {
      configDir,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(given.code, given.stderr).toBe(0);
    expect(unstamped(given.stderr)).toContain(
      `warning: 1 order in progress of the live key of profile "default" at ${served.url} not refreshed: this run's key is for its own profile and server only\n`,
    );
    // Then the live key logged out: not read, said with the login that brings it back.
    expect((await runCli(['logout', '--env', 'live'], { configDir })).code).toBe(0);
    const keyless = await runCli(['order', 'list', '--refresh', '--product', 'apple-us-25'], { configDir });
    expect(keyless.code, keyless.stderr).toBe(0);
    expect(unstamped(keyless.stderr)).toContain(
      `warning: 1 order in progress of the live key of profile "default" at ${served.url} not refreshed: order ${third} was placed with the live key of profile "default" at ${served.url}, and that key is not at hand`,
    );
    expect(unstamped(keyless.stderr)).toContain(
      `  hint: set GIFTCODES_API_KEY to that reseller's sc_live_ key, or log in with it: GIFTCODES_CONFIG_DIR=${configDir} giftcodes login --profile default --env live --base-url ${served.url}`,
    );
    expect((await statuses())[third]).toBe('pending');
  });

  // Broke (review): an order of the run's own profile and environment whose key was not at hand failed the whole
  // list, exit 3 and no table: the test key logged out, or a profile holding only its live key (its default
  // environment still test) beside a test order placed with GIFTCODES_API_KEY. docs/support-desk.md: left as it is,
  // with a warning naming the login, then the table.
  it('--refresh leaves an order of its own target whose key is gone as it is, and lists', async () => {
    const loggedOut = await loggedIn(served.server);
    const placed = await runCli(['order', 'place', '--product', 'apple-us-25', '--quantity', '1', '--yes', '--json'], {
      configDir: loggedOut,
    });
    expect(placed.code, placed.stderr).toBe(0);
    expect((await runCli(['logout', '--env', 'test'], { configDir: loggedOut })).code).toBe(0);
    const liveOnly = await loggedIn(served.server, DEMO_KEYS.live);
    const given = await runCli(['order', 'place', '--product', 'apple-us-25', '--quantity', '1', '--yes', '--json'], {
      configDir: liveOnly,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(given.code, given.stderr).toBe(0);
    for (const [configDir, result] of [
      [loggedOut, placed],
      [liveOnly, given],
    ] as const) {
      const id = (JSON.parse(result.stdout) as { id: string }).id;
      const refreshed = await runCli(['order', 'list', '--refresh'], { configDir });
      expect(refreshed.code, refreshed.stderr).toBe(0);
      expect(refreshed.stdout).toContain(id);
      expect(unstamped(refreshed.stderr)).toContain(
        `warning: 1 order in progress of the test key of profile "default" at ${served.url} not refreshed: order ${id} was placed with the test key of profile "default" at ${served.url}, and that key is not at hand`,
      );
      expect(unstamped(refreshed.stderr)).toContain(
        `  hint: set GIFTCODES_API_KEY to that reseller's sc_test_ key, or log in with it: GIFTCODES_CONFIG_DIR=${configDir} giftcodes login --profile default --env test --base-url ${served.url}`,
      );
    }
  });

  // Broke (review): the line named `order resume --all`, which takes up every interrupted order, so a support agent
  // looking at `--env test` resumed a live order that was never sent.
  it('orders their run left unfinished: one listed is named by its key; several point to order pending', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const killed = async (env: string, failpoint: string): Promise<void> => {
      const run = await runCli(
        ['--env', env, 'order', 'place', '--product', 'apple-us-25', '--quantity', '1', '--yes'],
        {
          configDir,
          env: { GIFTCODES_FAILPOINTS: `${failpoint}=kill` },
        },
      );
      expect(run.signal).toBe('SIGKILL');
    };
    await killed('live', 'intent.written');
    await killed('test', 'order.accepted');
    const testKey = (await list(configDir, { env: 'test' }))[0]!.key;
    const testOnly = await runCli(['order', 'list', '--env', 'test'], { configDir });
    expect(unstamped(testOnly.stderr)).toBe(
      `1 order was left unfinished by its run: GIFTCODES_CONFIG_DIR=${configDir} giftcodes order resume ${testKey}\n`,
    );
    const both = await runCli(['order', 'list'], { configDir });
    expect(unstamped(both.stderr)).toBe(
      `2 orders were left unfinished by their run: see GIFTCODES_CONFIG_DIR=${configDir} giftcodes order pending\n`,
    );
  });

  it('order show takes an id, a key, or a unique prefix; an ambiguous prefix lists the candidates (exit 2)', async () => {
    const { configDir } = served;
    const records = (await list(configDir)).filter((r) => r.orderId);
    const one = records[0]!;
    // Which order a ref names is order show's own rule: read by its run in this process (what the CLI runs, but for
    // the process), each ref as the command line's argument parser hands it over; the exit codes stay CLI runs below.
    const shownHere = async (ref: string): Promise<{ id: string }> => {
      const shown = await ranHere(configDir, (deps) => show({ ref: orderRefArg(ref) }, deps), {
        globals: { json: true },
      });
      return JSON.parse(shown.out) as { id: string };
    };
    for (const ref of [one.orderId!, one.key, one.orderId!.slice(0, 14), one.key.slice(0, 12)])
      expect((await shownHere(ref)).id, ref).toBe(one.orderId);
    const ambiguous = await runCli(['order', 'show', 'ord_'], { configDir });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^[\dT:.Z-]+ error: "ord_" matches \d+ orders: /m);
    for (const r of records) expect(ambiguous.stderr).toContain(r.orderId!);
    // Unknown locally: asked of the API as an id (another machine's order, placed straight on the server).
    const elsewhere = await placedOnServer(served.server, 'amazon-us-10', 1);
    expect((await shownHere(elsewhere)).id).toBe(elsewhere);
    const missing = await runCli(['order', 'show', 'ord_nothing_like_it'], { configDir });
    expect(missing.code).toBe(4);
  });
});

describe('order place --plan', () => {
  const served = ownLogin(after100);

  it('first run orders every row; the same plan again orders nothing more; --dry-run sends nothing', async () => {
    const { server, configDir } = served;
    const dir = tempDir();
    const plan = join(dir, 'restock.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-25,2\nsteam-us-20,1,steam.csv\napple-us-25,3\n');
    const dry = await runCli(['order', 'place', '--plan', plan, '--dry-run', '--json'], { configDir });
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout) as { row: number; key: string }[];
    expect(planned.map((r) => r.row)).toEqual([2, 3, 4]);
    // The fields docs/cron-and-plans.md gives a plan's --json, not the row's inner ones (legacyKey, batched: a review).
    for (const r of planned) {
      expect(r).not.toHaveProperty('legacyKey');
      expect(r).not.toHaveProperty('batched');
    }
    const prefix = planned[0]!.key.slice(0, 17);
    expect(await ordersWithKeyPrefix(server, prefix)).toEqual([]);

    const first = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    const rows = JSON.parse(first.stdout) as {
      row: number;
      productId: string;
      quantity: number;
      key: string;
      order: { id: string };
      out?: string;
    }[];
    expect(rows.map((r) => [r.row, r.productId, r.quantity])).toEqual([
      [2, 'amazon-us-25', 2],
      [3, 'steam-us-20', 1],
      [4, 'apple-us-25', 3],
    ]);
    expect(rows.map((r) => r.key)).toEqual(planned.map((r) => r.key));
    expect(rows[1]!.out).toBe(join(dir, 'steam.csv'));
    expect(readFileSync(join(dir, 'steam.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(2);
    expect(await ordersWithKeyPrefix(server, prefix)).toHaveLength(3);

    const second = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as { order: { id: string } }[]).map((r) => r.order.id)).toEqual(
      rows.map((r) => r.order.id),
    );
    expect(await ordersWithKeyPrefix(server, prefix)).toHaveLength(3);
    const table = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ROW +PRODUCT +QTY +ORDER/);
    for (const r of rows) expect(table.stdout).toContain(r.order.id);
  });

  it('a run killed half way, run again, orders exactly the missing rows', async () => {
    const { server, configDir } = served;
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, Array.from({ length: 6 }, (_, i) => `amazon-us-10,${i + 1}`).join('\n'));
    // The rows' keys first: a dry run started beside the plan could, on a loaded machine, end after all 6 rows.
    const dry = JSON.parse(
      (await runCli(['order', 'place', '--plan', plan, '--dry-run', '--json'], { configDir })).stdout,
    ) as { key: string }[];
    const prefix = dry[0]!.key.slice(0, 17);
    // The first row is held at request.sent (its POST answered) until the kill, before the worker may take the
    // next one (src/orders/plan.ts moves on once a POST is answered; a hold at order.accepted would not hold it).
    // A hold, not a pause: on a loaded machine a pause could run out and let every row through before the kill.
    const { proc, result } = spawnCli(['order', 'place', '--plan', plan, '--concurrency', '1'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: gate().at('request.sent') },
    });
    await stderrShows(proc, 'failpoint request.sent');
    proc.kill('SIGKILL');
    await result;
    const partial = await ordersWithKeyPrefix(server, prefix);
    expect(partial).toHaveLength(1);
    const again = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    const after = await ordersWithKeyPrefix(server, prefix);
    expect(after).toHaveLength(6);
    expect(new Set(after.map((o) => o.idempotency_key)).size).toBe(6);
    expect(after.map((o) => o.quantity).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    // The earlier orders are the same orders, not new ones.
    for (const o of partial)
      expect(after.find((a) => a.idempotency_key === o.idempotency_key)!.order_id).toBe(o.order_id);
  });

  it('bad rows are reported with their line numbers and nothing is ordered', async () => {
    const { configDir } = served;
    const dir = tempDir();
    const plan = join(dir, 'bad.csv');
    writeFileSync(plan, 'amazon-us-10,1\namazon-us-10,zero\n\namazon-us-10\namazon-us-10,0\n');
    const before = (await ledger(served.server)).orders.length;
    const result = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has 3 bad rows, nothing was ordered: line 2: .*; line 4: .*; line 5: /);
    expect((await ledger(served.server)).orders.length).toBe(before);
    const missing = await runCli(['order', 'place', '--plan', join(dir, 'nope.csv')], { configDir });
    expect(missing.code, missing.stderr).toBe(8);
    const both = await runCli(['order', 'place', '--plan', plan, '--product', 'x'], { configDir });
    expect(both.code).toBe(2);
  });

  it('a row the API refuses fails that row only: exit status of the worst row', async () => {
    const { configDir } = served;
    const dir = tempDir();
    const plan = join(dir, 'mixed.csv');
    writeFileSync(plan, 'amazon-us-10,1\nno-such-product,1\n');
    // A product the catalog listed when last read, dropped since: past the check, refused by the API.
    await staleCatalog(configDir, ['no-such-product']);
    const result = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(result.code).toBe(4);
    const rows = JSON.parse(result.stdout) as { row: number; order?: { id: string }; error?: { code: string } }[];
    expect(rows[0]!.order?.id).toMatch(/^ord_/);
    expect(rows[1]!.error).toBeDefined();
    expect(JSON.parse(result.stderr).error.code).toBe('plan_rows_failed');
  });

  // A review: the public contract says README lists the field names of a plan's --json; only
  // docs/cron-and-plans.md did. Every field a plan's rows print (a dry run, a delivered row with its file, a
  // refused row, and rows delivered by an earlier run) is named in README's paragraph on plans.
  it("README names every field of a plan's --json rows", async () => {
    const { configDir } = served;
    const dir = tempDir();
    const plan = join(dir, 'fields.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,1,codes.csv\nno-such-product,1\n');
    // A dry run asks the catalog, which refuses the dropped product: it rehearses the plan's first row alone.
    const rehearsed = join(dir, 'rehearsed.csv');
    writeFileSync(rehearsed, 'product,quantity\namazon-us-10,1\n');
    await staleCatalog(configDir, ['no-such-product']);
    const fields = new Set<string>();
    const errorFields = new Set<string>();
    for (const args of [[rehearsed, '--dry-run'], [plan], [plan]]) {
      const result = await runCli(['order', 'place', '--json', '--plan', ...args], { configDir });
      expect(result.stdout, result.stderr).not.toBe('');
      for (const row of JSON.parse(result.stdout) as Record<string, unknown>[]) {
        for (const name of Object.keys(row)) fields.add(name);
        for (const name of Object.keys((row.error as object | undefined) ?? {})) errorFields.add(name);
      }
    }
    for (const name of ['dryRun', 'price', 'order', 'out', 'count', 'already', 'error']) expect(fields).toContain(name);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const listed = /`\{row, ([^}]*)\}`/.exec(readme);
    expect(listed, "README lists a plan row's --json fields as `{row, …}`").not.toBeNull();
    const said = readme.slice(listed!.index, listed!.index + 900);
    for (const name of fields) expect(said, name).toMatch(new RegExp(`\\b${name}\\b`));
    for (const name of errorFields) expect(said, `error.${name}`).toMatch(new RegExp(`\\b${name}\\b`));
  });
});

describe('--query on every command, help, logs', () => {
  const served = ownLogin(after100);

  // About 25 CLI runs one after the other: on a loaded machine they passed the default 30 s.
  it("applies the expression to each command's JSON document", { timeout: 300_000 }, async () => {
    const { configDir } = served;
    const q = async (args: string[], expr: string): Promise<unknown> => {
      const result = await runCli([...args, '--json', '--query', expr], { configDir });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      return JSON.parse(result.stdout);
    };
    // A command that neither places, waits nor resumes, nor writes a codes file, is run by its run in this process,
    // the expression compiled as the CLI's hook compiles it (ranHere): the document it is applied to is the verb's.
    // The others stay CLI runs, and so does what the hook does in a process (--query implying --json, below).
    const qHere = async (verb: (deps: Factory) => Promise<void>, expr: string): Promise<unknown> =>
      JSON.parse((await ranHere(configDir, verb, { globals: { query: expr } })).out);
    expect(await qHere(ping, 'environment')).toBe('test');
    expect(await qHere((deps) => catalogList({}, deps), "[?id=='amazon-us-25'].id | [0]")).toBe('amazon-us-25');
    expect(await qHere(configList, '[0].profile')).toBe('default');
    expect(await qHere((deps) => configShow({}, deps), 'type(@)')).toBe('object');
    const id = (await q(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1'], 'id')) as string;
    expect(id).toMatch(/^ord_/);
    expect(await qHere((deps) => show({ ref: id }, deps), 'id')).toBe(id);
    expect(await q(['order', 'watch', id, '--interval', '0.1'], 'status')).toBe('completed');
    expect(await qHere((deps) => orderList({}, deps), '[0].orderId')).toBe(id);
    expect(await qHere((deps) => pending(deps), 'length(@)')).toBe(0);
    expect(await q(['order', 'resume', '--all'], 'length(@)')).toBe(0);
    expect(await qHere((deps) => configSet({ field: 'default-env', value: 'test' }, deps), 'value')).toBe('test');
    expect(await qHere((deps) => configUse({ profile: 'default' }, deps), 'defaultProfile')).toBe('default');
    // --out F --json: the order, and where its codes went.
    const file = join(tempDir(), 'codes.csv');
    const written = await q(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--out', file, '--interval', '0.1'],
      '[status, written]',
    );
    expect(written).toEqual(['completed', { path: file, count: 2, format: 'csv' }]);
    expect(await q(['codes', 'get', id, '--out', join(tempDir(), 'c.json')], 'count')).toBe(1);
    // To stdout the codes stream; --query gathers them and applies to the array (it was ignored before).
    const many = (await q(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--wait', '--interval', '0.1'],
      'id',
    )) as string;
    const codes = (await qHere((deps) => codesGet({ orderId: many, json: true }, deps), '[*].code')) as string[];
    expect(codes).toHaveLength(3);
    for (const code of codes) expect(typeof code).toBe('string');
    expect(await qHere((deps) => codesGet({ orderId: many, json: true }, deps), 'length(@)')).toBe(3);
    const csv = await runCli(['codes', 'get', many, '--format', 'csv', '--query', '[0]', '-v'], { configDir });
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('--format csv cannot go to stdout');
    expect(unstamped(csv.stderr)).not.toMatch(/^GET /m);
    // --query implies --json.
    const implied = await runCli(['ping', '--query', 'status'], { configDir });
    expect(implied.code, implied.stderr).toBe(0);
    expect(JSON.parse(implied.stdout)).toBe('ok');
    // A field the document does not have: null, as jq prints it, and stderr names the fields there are.
    const missed = await runCli(['ping', '--query', 'orderId'], { configDir });
    expect(missed.code, missed.stderr).toBe(0);
    expect(missed.stdout).toBe('null\n');
    expect(unstamped(missed.stderr)).toMatch(
      /^warning: --query "orderId" gave null \(no such field: orderId\); its fields: status, /,
    );
  });

  it('a bad expression exits 2 before anything is sent', async () => {
    const { configDir } = served;
    const before = (await ledger(served.server)).orders.length;
    const result = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--json', '--query', '[[id'],
      { configDir },
    );
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr).error).toMatchObject({ code: 'bad_query', exitCode: 2 });
    expect((await ledger(served.server)).orders.length).toBe(before);
    expect((await list(configDir)).filter((r) => r.outcome === 'pending')).toEqual([]);
  });

  // A review: `order list --query '[0].orderId' --raw --format csv` printed the query's answer and dropped the CSV
  // without a word. --format csv beside the one JSON document of --json or --query is refused, as codes get does.
  it('order list --format csv with --query or --json is refused (exit 2), naming the flag typed', async () => {
    const { configDir } = served;
    for (const [flags, jsonFlag, wanted] of [
      [['--query', '[0].orderId', '--raw'], '--query', 'the query'],
      [['--json'], '--json', 'the JSON'],
    ] as const) {
      const result = await runCli(['order', 'list', ...flags, '--format', 'csv'], { configDir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(JSON.parse(result.stderr).error).toMatchObject({
        message: `${jsonFlag} prints one JSON document; --format csv cannot go to stdout with it`,
        hint: `drop ${jsonFlag} for the CSV, or --format csv for ${wanted}`,
        exitCode: 2,
      });
    }
    // codes get names the flag typed too (it said --json for a --query).
    for (const jsonFlag of ['--query', '--json']) {
      const args = jsonFlag === '--query' ? ['--query', 'length(@)'] : ['--json'];
      const codes = await runCli(['codes', 'get', 'ord_x', ...args, '--format', 'csv'], { configDir });
      expect(codes.code, codes.stderr).toBe(2);
      expect(JSON.parse(codes.stderr).error.message).toBe(
        `${jsonFlag} prints one JSON document; --format csv cannot go to stdout with it`,
      );
    }
    // Each alone, and --format table (the default) with --query, still answer.
    expect((await runCli(['order', 'list', '--format', 'csv'], { configDir })).code).toBe(0);
    expect((await runCli(['order', 'list', '--query', 'length(@)', '--format', 'table'], { configDir })).code).toBe(0);
  });

  it("help environment, help exit-codes, help options, and a pointer to it in every verb's help", async () => {
    const env = await runCli(['help', 'environment']);
    expect(env.code).toBe(0);
    for (const name of ['GIFTCODES_CONFIG_DIR', 'GIFTCODES_API_KEY', 'GIFTCODES_PAGER', 'NO_PROXY'])
      expect(env.stdout).toContain(name);
    const codes = await runCli(['help', 'exit-codes']);
    expect(codes.code).toBe(0);
    expect(codes.stdout).toMatch(/^ {2}8 {4}a local resource failed/m);
    expect(codes.stdout).toMatch(/^ {2}130 {2}interrupted/m);
    // The global options are listed once, by `help options`; each verb's help points there instead of repeating them.
    const verb = await runCli(['order', 'list', '--help']);
    expect(verb.stdout).not.toContain('--query <expr>');
    expect(verb.stdout).toContain('giftcodes help options');
    const global = (await runCli(['help', 'options'])).stdout;
    for (const flag of ['--query <expr>', '--profile <name>', '--json', '--no-pager']) expect(global).toContain(flag);
    // Read off a terminal (a pipe, a file), each topic is laid out for 80 columns, as every command's --help is.
    for (const text of [env.stdout, codes.stdout, global])
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('the build writes man/giftcodes.1 from the command tree', () => {
    const man = readFileSync(join(ROOT, 'man', 'giftcodes.1'), 'utf8');
    expect(man).toMatch(/^\.TH GIFTCODES 1 /);
    for (const text of [
      'giftcodes order list',
      '\\-\\-plan <file.csv>',
      '\\-\\-query <expr>',
      'GIFTCODES_CONFIG_DIR',
      'a local resource failed',
    ])
      expect(man).toContain(text);
  });

  it('notices carry an ISO 8601 time when stderr is not a terminal; --quiet leaves only data', async () => {
    const { configDir } = served;
    const result = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--wait', '--interval', '0.1'],
      { configDir },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z /);
    const quiet = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--wait', '--interval', '0.1', '--quiet'],
      { configDir },
    );
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('config set refuses an unknown field or a bad value (exit 2) and writes nothing', async () => {
    const { configDir } = served;
    const file = join(configDir, 'config.json');
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    // Through the CLI once: the refusal's exit code and its stamped hint line.
    const result = await runCli(['config', 'set', 'colour', 'red'], { configDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^[\dT:.Z-]+ hint: /m);
    // Each other bad value is refused by config set's own check, in this process: an error of exit code 2 with a hint,
    // which the CLI prints as above (a CLI run each cost ~0.1 s of CPU).
    for (const [field, value] of [
      ['base-url', 'not a url'],
      ['base-url', 'ftp://x'],
      ['default-env', 'prod'],
      ['base-url', ' '],
      ['history-days', 'ten'],
      ['history-days', '0'],
      ['history-days', '-5'],
    ] as const) {
      const set = ranHere(configDir, (deps) => configSet({ field, value }, deps));
      await expect(set, `${field} ${value}`).rejects.toMatchObject({ exitCode: 2, hint: expect.stringMatching(/\S/) });
    }
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe(before);
  });

  it('a live plan off a terminal needs --yes and sends nothing', async () => {
    const { server } = served;
    const live = await loggedIn(server, DEMO_KEYS.live, tempDir());
    const plan = join(tempDir(), 'live.csv');
    writeFileSync(plan, 'amazon-us-10,1\n');
    const before = (await ledger(server)).orders.length;
    const result = await runCli(['order', 'place', '--plan', plan, '--env', 'live'], { configDir: live });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--yes');
    expect((await ledger(server)).orders.length).toBe(before);
  });
});

describe('hints name what fixes this cause', () => {
  it("a bad flag of a verb points at that verb's help", async () => {
    const result = await runCli(['order', 'place', '--quantity', 'x', '--product', 'p']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('hint: see: giftcodes order place --help\n');
  });

  it('a wrong port never suggests login', async () => {
    const result = await runCli(['ping', '--base-url', 'http://127.0.0.1:9', '--retries', '0'], {
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^[\dT:.Z-]+ hint: /m);
    expect(result.stderr).not.toContain('login');
  });
});

describe('webhook listen --query', () => {
  it('applies the expression to each event line', async () => {
    const { createHmac } = await import('node:crypto');
    const secret = 'whsec_desk_test';
    const listener = await webhookListener(await freePort(), ['--query', 'data.order.id'], {
      GIFTCODES_WEBHOOK_SECRET: secret,
    });
    const url = `${listener.url}/hook`;
    const body = JSON.stringify({
      id: 'evt_desk1',
      type: 'order.fulfilled',
      created: Math.floor(Date.now() / 1000),
      data: { order: { id: 'ord_desk1', status: 'completed' } },
    });
    const t = Math.floor(Date.now() / 1000);
    const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Giftcodes-Signature': signature },
      body,
    });
    expect(res.status).toBe(200);
    await until(() => listener.stdout().includes('\n') || undefined);
    await listener.stop();
    expect(listener.stdout()).toBe('"ord_desk1"\n');
  });
});
