// One test per bug the fuzz suites found, each the smallest input that showed it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_JSON_DEPTH, parseJsonBody } from '../../src/api/body.js';
import { DEMO_KEYS, runCli, tempDir, unstamped } from '../helpers/e2e.js';
import { startHostileServer, type Behaviour, type HostileServer } from '../helpers/hostile-server.js';
import { endingProblems } from './check.js';

let hostile: HostileServer;
let answer: Behaviour = { kind: 'reset' };
/** What GET /v1/orders/ord_1 answers, where a test sets it apart from `answer`. */
let orderAnswer: Behaviour | undefined;
beforeAll(async () => {
  hostile = await startHostileServer((request) =>
    orderAnswer !== undefined && request.path === '/v1/orders/ord_1' ? orderAnswer : answer,
  );
});
afterAll(() => hostile.close());

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('bugs the fuzzers found', () => {
  test('a typed value holding a line break or an escape sequence stays on the one error line, shown escaped', async () => {
    const broken = await runCli(['--retries', '1\nhint: forged', 'ping']);
    expect(broken.code).toBe(2);
    expect(unstamped(broken.stderr)).toBe(
      `error: --retries: expected a whole number from 0 to 20, got "1\\nhint: forged"\nhint: see: giftcodes help options\n`,
    );
    const profile = await runCli(['config', 'show', '--profile', 'a\nb\rc']);
    expect(profile.code).toBe(2);
    expect(endingProblems(profile, { json: false })).toEqual([]);
    expect(profile.stderr).toContain('a\\nb\\rc');
    const escape = await runCli(['--retries', '\u001b]0;title\u0007', 'ping']);
    expect(escape.code).toBe(2);
    expect(escape.stderr).not.toContain('\u001b');
    expect(escape.stderr).toContain('--retries: expected a whole number from 0 to 20, got "\\u001b]0;title\\u0007"');
    expect(endingProblems(escape, { json: false })).toEqual([]);
    // commander's own suggestion is still the hint.
    const typo = await runCli(['pingg']);
    expect(unstamped(typo.stderr)).toBe("error: unknown command 'pingg'\nhint: did you mean ping?\n");
  });

  test('--json as the value of a global option, or `--` as one, is read as commander reads it', async () => {
    // `--env --json`: --json is the value of --env, so the usage error is text.
    const value = await runCli(['--env', '--json', 'ping']);
    expect(value.code).toBe(2);
    expect(unstamped(value.stderr)).toMatch(/^error: --env: expected test or live, got "--json"/);
    // `--env --`: the `--` is a value, not a terminator, so the --json after it counts.
    const terminator = await runCli(['--env', '--', 'ping', '--json']);
    expect(terminator.code).toBe(2);
    expect(JSON.parse(terminator.stderr)).toMatchObject({ error: { code: 'usage', exitCode: 2 } });
    // A verb's option never takes --json as its value: commander gives it to the program first.
    const verbOption = await runCli([
      'order',
      'watch',
      'ord_1',
      '--signature-header',
      '--json',
      'x-signature',
      '--api-key',
      'not-a-key',
    ]);
    expect(verbOption.code).toBe(3);
    expect(JSON.parse(verbOption.stderr)).toMatchObject({ error: { code: 'invalid_api_key_format', exitCode: 3 } });
  });

  test('serve with a seed file it cannot read is a usage error (exit 2), not an internal one', async () => {
    const result = await runCli(['serve', '--port', '0', '--seed', 'no-such-seed.json']);
    expect(result.code).toBe(2);
    expect(unstamped(result.stderr)).toBe(
      'error: cannot start the server: cannot read seed file no-such-seed.json: no such file\nhint: check --seed\n',
    );
  });

  test('a successful answer nested thousands deep is exit 5 (unreadable), not a stack overflow (exit 1)', async () => {
    answer = { kind: 'reply', status: 201, body: `{"id":"ord_1","status":"completed","x":${nested(5_000)}}` };
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json', '--retries', '0'],
      {
        baseUrl: hostile.url,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      },
    );
    expect(placed.code).toBe(5);
    expect(JSON.parse(placed.stderr).error.message).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    answer = { kind: 'reply', status: 200, body: `{"data":[{"code":"A","x":${nested(5_000)}}],"has_more":false}` };
    const cwd = tempDir();
    const codes = await runCli(['codes', 'get', 'ord_1', '--out', 'codes.csv', '--retries', '0'], {
      cwd,
      baseUrl: hostile.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(codes.code).toBe(5);
    expect(endingProblems(codes, { json: false })).toEqual([]);
    expect(existsSync(join(cwd, 'codes.csv'))).toBe(false);
    // The limit leaves room for any real answer.
    expect(parseJsonBody(Buffer.from(nested(MAX_JSON_DEPTH)))).toEqual({ ok: true, value: expect.anything() });
    expect(parseJsonBody(Buffer.from(nested(MAX_JSON_DEPTH + 1)))).toMatchObject({ ok: false });
  });

  test('codes in invalid UTF-8 are exit 5, not written with replacement characters', async () => {
    answer = {
      kind: 'reply',
      status: 200,
      body: Buffer.concat([
        Buffer.from('{"data":[{"code":"AB'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('CD"}],"has_more":false}'),
      ]),
    };
    // The order, read first for its quantity (no record of it here), is sound.
    orderAnswer = {
      kind: 'reply',
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '{"id":"ord_1","status":"completed","quantity":1}',
    };
    const cwd = tempDir();
    const result = await runCli(['codes', 'get', 'ord_1', '--out', 'codes.csv', '--retries', '0'], {
      cwd,
      baseUrl: hostile.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(
      'GET /v1/orders/ord_1/codes: HTTP 200 with a body that cannot be understood (not valid UTF-8)',
    );
    expect(existsSync(join(cwd, 'codes.csv'))).toBe(false);
    orderAnswer = undefined;
    // An error body in bad UTF-8 is still shown with its status.
    answer = {
      kind: 'reply',
      status: 404,
      body: Buffer.concat([
        Buffer.from('{"error":{"code":"not_found","message":"no order '),
        Buffer.from([0xff]),
        Buffer.from('"}}'),
      ]),
    };
    const missing = await runCli(['order', 'show', 'ord_1', '--retries', '0'], {
      baseUrl: hostile.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('HTTP 404 not_found: no order');
  });

  test('a damaged journal file is reported by order pending and order resume --all, and pending never claims every order reached you', async () => {
    const configDir = tempDir();
    mkdirSync(join(configDir, 'journal'), { recursive: true, mode: 0o700 });
    const damaged = join(configDir, 'journal', `${'ab'.repeat(20)}.json`);
    writeFileSync(damaged, '{"version":1,"key":"3f1c9a9e-5d1b', { mode: 0o600 });
    const pending = await runCli(['order', 'pending'], { configDir });
    expect(pending.code).toBe(0);
    expect(pending.stdout).toBe(
      `no pending orders that can be read, but 1 journal file could not be: look at ${join(configDir, 'journal')}\n`,
    );
    expect(pending.stderr).toContain(`unreadable journal file ${damaged} (not valid JSON); it was left in place`);
    const resumed = await runCli(['order', 'resume', '--all'], {
      configDir,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`unreadable journal file ${damaged}`);
    expect(readFileSync(damaged, 'utf8')).toBe('{"version":1,"key":"3f1c9a9e-5d1b');
  });
});
