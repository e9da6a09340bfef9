// One test per bug the fuzz suites found, each the smallest input that showed it.
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/e2e.js';
import { endingProblems } from './check.js';

describe('bugs the fuzzers found', () => {
  test('a typed value holding a line break or an escape sequence stays on the one error line, shown escaped', async () => {
    const broken = await runCli(['--retries', '1\nhint: forged', 'ping']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe(`error: option '--retries <n>' argument '1\\nhint: forged' is invalid. expected a whole number, got "1\\nhint: forged"\nhint: see --help\n`);
    const profile = await runCli(['config', 'show', '--profile', 'a\nb\rc']);
    expect(profile.code).toBe(2);
    expect(endingProblems(profile, { json: false })).toEqual([]);
    expect(profile.stderr).toContain('a\\nb\\rc');
    const escape = await runCli(['--retries', '\u001b]0;title\u0007', 'ping']);
    expect(escape.code).toBe(2);
    expect(escape.stderr).not.toContain('\u001b');
    expect(escape.stderr).toContain("argument '\\u001b]0;title\\u0007' is invalid");
    expect(endingProblems(escape, { json: false })).toEqual([]);
    // commander's own suggestion is still the hint.
    const typo = await runCli(['pingg']);
    expect(typo.stderr).toBe("error: unknown command 'pingg'\nhint: Did you mean ping?\n");
  });

  test('--json as the value of a global option, or `--` as one, is read as commander reads it', async () => {
    // `--env --json`: --json is the value of --env, so the usage error is text.
    const value = await runCli(['--env', '--json', 'ping']);
    expect(value.code).toBe(2);
    expect(value.stderr).toMatch(/^error: option '--env <test\|live>' argument '--json' is invalid/);
    // `--env --`: the `--` is a value, not a terminator, so the --json after it counts.
    const terminator = await runCli(['--env', '--', 'ping', '--json']);
    expect(terminator.code).toBe(2);
    expect(JSON.parse(terminator.stderr)).toMatchObject({ error: { code: 'usage', exitCode: 2 } });
    // A verb's option never takes --json as its value: commander gives it to the program first.
    const verbOption = await runCli(['order', 'watch', 'ord_1', '--signature-header', '--json', 'x-signature', '--api-key', 'not-a-key']);
    expect(verbOption.code).toBe(3);
    expect(JSON.parse(verbOption.stderr)).toMatchObject({ error: { code: 'invalid_api_key_format', exitCode: 3 } });
  });

  test('serve with a seed file it cannot read is a usage error (exit 2), not an internal one', async () => {
    const result = await runCli(['serve', '--port', '0', '--seed', 'no-such-seed.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: cannot start the server: cannot read seed file no-such-seed.json: ENOENT\nhint: check --seed, --host and --port\n');
  });
});
