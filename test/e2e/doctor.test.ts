// `giftcodes doctor` as cron runs it: the built CLI with a PATH of its own, against `giftcodes serve` with a
// logged-in config dir; each failing check ends with the exit code of its kind (docs/commands.md, doctor).
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configCopy, DEMO_KEYS, loggedIn, ROOT, runCli, servedApi, tempDir, type RunOptions } from '../helpers/e2e.js';
import { startHostileServer, type HostileServer } from '../helpers/hostile-server.js';
import { storeKeptConfigDir } from '../helpers/keyring.js';
import { mountSupport, readOnlyDisk, unmountAll } from '../helpers/mounts.js';
import { freePort } from '../helpers/ports.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

/** A crontab's PATH=… line that finds this checkout's giftcodes and the node running the tests. */
const CRON_PATH = [join(ROOT, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':');
const CHECKS = ['command', 'config', 'journal', 'key', 'api', 'clock'];

interface Line {
  check: string;
  ok: boolean;
  detail: string;
  hint?: string;
}

const doctor = (args: string[], options: RunOptions) =>
  runCli(['doctor', ...args], {
    ...options,
    env: { PATH: CRON_PATH, DBUS_SESSION_BUS_ADDRESS: undefined, ...options.env },
  });
const lines = (stdout: string): Line[] => JSON.parse(stdout) as Line[];
const line = (stdout: string, check: string): Line | undefined => lines(stdout).find((l) => l.check === check);

const served = servedApi([], { login: true });
const inTerminal = giftcodesTerminals();

describe('giftcodes doctor: everything a cron job needs holds', () => {
  it('prints one line a check, the key masked, and exits 0', async () => {
    const { configDir } = served;
    const result = await doctor([], { configDir });
    expect(result.code, result.stderr).toBe(0);
    const printed = result.stdout.trimEnd().split('\n');
    expect(printed.map((l) => l.split(/\s+/).slice(0, 2))).toEqual(CHECKS.map((check) => ['ok', check]));
    expect(result.stdout).toContain(`giftcodes ${join(ROOT, 'bin', 'giftcodes')}, node v${process.versions.node}`);
    expect(result.stdout).toContain('sc_test_…7e2d (test, profile "default") from the config file');
    expect(result.stdout).toContain(`${served.url} answered ping in`);
    expect(result.stdout).toMatch(/clock +(within \d+ s of|under 1 s from) the API's clock/);
    expect(result.stdout).not.toContain('within 0 s');
    expect(result.stderr).toBe('');
  });

  // Broke: every line was printed once the API had answered, so a slow API was a blank screen for as long as it
  // took (15 s at `serve --latency 15000`), as if doctor hung.
  it('at a terminal: the local checks as they end, then a spinner naming the URL until the API answers', async () => {
    const { configDir } = served;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Holds the ping until the test lets it go, then passes it on to the reference server.
    const slow = createServer((req, res) => {
      void released
        .then(() => fetch(`${served.url}${req.url}`, { headers: { 'x-api-key': String(req.headers['x-api-key']) } }))
        .then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json', date: answer.headers.get('date') ?? '' });
          res.end(await answer.text());
        });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
      const t = inTerminal(
        ['doctor', '--base-url', slowUrl],
        configDir,
        { PATH: CRON_PATH },
        { columns: 80, rows: 24 },
      );
      const waiting = await t.waitFor(`api      asking ${slowUrl} (GET /v1/ping)`);
      expect(waiting).toMatch(/^✓ key +sc_test_…7e2d/m);
      expect(waiting).not.toMatch(/^✓ api/m);
      release();
      const done = await t.waitFor(/\[exit \d+\]/);
      expect(done).toContain('[exit 0]');
      expect(done).toMatch(/^✓ api +http:\/\/127\.0\.0\.1:\d+ answered ping in \d+ ms/m);
      expect(done).not.toContain('asking');
    } finally {
      release();
      slow.close();
    }
  });

  it('--json: an array of {check, ok, detail}; --quiet: nothing at all', async () => {
    const { configDir } = served;
    const json = await doctor(['--json'], { configDir });
    expect(json.code).toBe(0);
    expect(lines(json.stdout).map((l) => [l.check, l.ok])).toEqual(CHECKS.map((check) => [check, true]));
    const quiet = await doctor(['--quiet'], { configDir });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout + quiet.stderr).toBe('');
  });
});

describe('giftcodes doctor: the first failing check decides the exit code', () => {
  it("cron's PATH without giftcodes or node: exit 3, with the PATH= line and the absolute paths to use", async () => {
    const { configDir } = served;
    const result = await doctor([], { configDir, env: { PATH: tempDir() } });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^FAIL command +giftcodes and node not found on PATH/m);
    expect(result.stdout).toContain(`put PATH=${dirname(process.execPath)}:`);
    expect(result.stdout).toContain(
      `call both by absolute path: ${process.execPath} ${join(ROOT, 'bin', 'giftcodes')}`,
    );
    // The other checks still run and say so.
    expect(result.stdout).toMatch(/^ok +api /m);
    expect(result.stderr).toContain('error: 1 of 6 checks failed: command');
  });

  it('a group-writable config dir: exit 8 with the chmod to run; the key is not read from it', async () => {
    const dir = await loggedIn(served.server, DEMO_KEYS.test, tempDir());
    chmodSync(dir, 0o770);
    const result = await doctor(['--json'], { configDir: dir });
    expect(result.code).toBe(8);
    expect(line(result.stdout, 'config')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('can be written by other users (mode 0770)'),
      hint: `run: chmod 700 ${dir}`,
    });
    expect(line(result.stdout, 'key')).toMatchObject({ ok: false, detail: expect.stringContaining('not checked') });
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'doctor_failed', exitCode: 8 } });
  });

  const noMounts = mountSupport();
  it.skipIf(noMounts)(
    'a config dir on a read-only disk: exit 8, and the hint is to remount it, not a chmod',
    async () => {
      const logged = await loggedIn(served.server, DEMO_KEYS.test, tempDir());
      const dir = readOnlyDisk((d) => cpSync(logged, d, { recursive: true }));
      try {
        const result = await doctor(['--json'], { configDir: dir });
        expect(result.code).toBe(8);
        expect(line(result.stdout, 'config')).toMatchObject({
          ok: false,
          detail: `the config directory ${dir} is not writable (EROFS)`,
          hint: 'its file system is read-only: remount it read-write, or set GIFTCODES_CONFIG_DIR to a directory this user owns',
        });
      } finally {
        unmountAll();
      }
    },
  );

  it('an unreachable base URL: exit 5, the cause named; the clock is not compared', async () => {
    const { configDir } = served;
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await doctor(['--json', '--base-url', closed], { configDir });
    expect(result.code).toBe(5);
    const api = line(result.stdout, 'api');
    expect(api).toMatchObject({ ok: false, detail: expect.stringMatching(/ECONNREFUSED|refused/) });
    expect(line(result.stdout, 'clock')).toMatchObject({ ok: false, detail: expect.stringContaining('not checked') });
  });

  it('a key the API rejects: exit 3; no key at all: exit 3 with the login to run, the API not pinged', async () => {
    const { configDir } = served;
    const rejected = await doctor(['--json'], { configDir, env: { GIFTCODES_API_KEY: 'sc_test_unknown_0123456789' } });
    expect(rejected.code).toBe(3);
    expect(line(rejected.stdout, 'key')).toMatchObject({
      ok: true,
      detail: expect.stringContaining('from GIFTCODES_API_KEY'),
    });
    // The refused key came from GIFTCODES_API_KEY, which overrides the profile: a login would not mend it.
    expect(line(rejected.stdout, 'api')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('401'),
      hint: expect.stringMatching(/^the key in GIFTCODES_API_KEY was refused \(it overrides the profile's\)/),
    });
    const none = await doctor(['--json'], { baseUrl: served.url });
    expect(none.code).toBe(3);
    // The login it names reaches this run's config directory (a cron job's GIFTCODES_CONFIG_DIR).
    expect(line(none.stdout, 'key')).toMatchObject({
      ok: false,
      hint: expect.stringContaining(`GIFTCODES_CONFIG_DIR=${none.configDir} giftcodes login --env test`),
    });
    expect(line(none.stdout, 'api')).toMatchObject({ ok: false, detail: 'not checked: no key to ping with' });
    // Without a D-Bus session (as cron runs, on Linux) the login it names keeps the key in the config file: a login
    // into the credential store is a key the job cannot read (a review logged in as told; the job found no key).
    if (process.platform === 'linux') {
      const cron = await doctor(['--json'], { baseUrl: served.url, env: { DBUS_SESSION_BUS_ADDRESS: undefined } });
      expect(line(cron.stdout, 'key')?.hint).toContain('giftcodes login --env test --insecure-storage');
      const desktop = await doctor(['--json'], {
        baseUrl: served.url,
        env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      });
      expect(line(desktop.stdout, 'key')?.hint).not.toContain('--insecure-storage');
    }
  });

  // A person's day: a cron job's profile key revoked; the hint's login, run at a desktop, put the new key in the
  // credential store, which the job cannot read. Where this run has none, the login named keeps it in the file.
  it.runIf(process.platform === 'linux')(
    "a profile's key refused, run without a D-Bus session: the login named keeps the new key where the run reads it",
    async () => {
      const configDir = configCopy(served.configDir);
      const file = join(configDir, 'config.json');
      writeFileSync(file, readFileSync(file, 'utf8').replace(DEMO_KEYS.test, 'sc_test_revoked_0123456789ab'));
      const cron = await runCli(['ping'], { configDir, env: { DBUS_SESSION_BUS_ADDRESS: undefined } });
      expect(cron.code, cron.stderr).toBe(3);
      expect(cron.stderr).toMatch(
        /save a valid one with: GIFTCODES_CONFIG_DIR=\S+ giftcodes login --env test --insecure-storage\n/,
      );
      const desktop = await runCli(['ping'], {
        configDir,
        env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      });
      expect(desktop.code).toBe(3);
      expect(desktop.stderr).toContain('save a valid one with: ');
      expect(desktop.stderr).not.toContain('--insecure-storage');
    },
  );

  it('a key kept in the credential store, run without a D-Bus session (as cron runs): exit 8', async () => {
    const dir = storeKeptConfigDir(served.url);
    const result = await doctor(['--json'], { configDir: dir });
    expect(result.code).toBe(8);
    expect(line(result.stdout, 'key')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('D-Bus'),
      hint: expect.stringContaining('--insecure-storage'),
    });
  });

  describe('against a service whose clock is 10 minutes behind', () => {
    let skewed: HostileServer;
    beforeAll(async () => {
      skewed = await startHostileServer(() => ({
        kind: 'reply',
        status: 200,
        headers: { Date: new Date(Date.now() - 600_000).toUTCString() },
        body: JSON.stringify({ status: 'ok', environment: 'test', reseller_id: 'rs_skew' }),
      }));
    });
    afterAll(() => skewed.close());

    it('the clock check fails: exit 8, how far off and which way', async () => {
      const { configDir } = served;
      const result = await doctor([], { configDir, baseUrl: skewed.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
      expect(result.code).toBe(8);
      expect(result.stdout).toMatch(
        /^ok +api +http:\/\/127\.0\.0\.1:\d+ answered ping in \d+ ms: test, reseller rs_skew$/m,
      );
      expect(result.stdout).toMatch(/^FAIL clock +this machine's clock is (9 min 5\d|10 min \d) s ahead of the API's/m);
      expect(result.stdout).toContain('hint: set the clock');
    });
  });
});
