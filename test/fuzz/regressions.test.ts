// One test per bug the fuzz suites found, each the smallest input that showed it.
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/e2e.js';
import { endingProblems } from './check.js';

describe('bugs the fuzzers found', () => {
  test('a typed value holding a line break or an escape sequence stays on the one error line, shown escaped', async () => {
    const broken = await runCli(['config', 'use', 'a\nhint: forged']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe('error: no profile named "a\\nhint: forged"\nhint: profiles: default; create one with: giftcodes login --profile a\\nhint: forged\n');
    const escape = await runCli(['--retries', '\u001b]0;title\u0007', 'ping']);
    expect(escape.code).toBe(2);
    expect(escape.stderr).not.toContain('\u001b');
    expect(escape.stderr).toContain("argument '\\u001b]0;title\\u0007' is invalid");
    expect(endingProblems(escape, { json: false })).toEqual([]);
    // commander's own suggestion is still the hint.
    const typo = await runCli(['pingg']);
    expect(typo.stderr).toBe("error: unknown command 'pingg'\nhint: Did you mean ping?\n");
  });
});
