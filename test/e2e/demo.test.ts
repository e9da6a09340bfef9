// `npm run demo` (after the build `npm test` already ran): login, ping and catalog list against an embedded server.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/e2e.js';
import { recordOutput } from '../helpers/leaks.js';

describe('scripts/demo.mjs', () => {
  it('runs every step against its own server and exits 0', () => {
    const env = { ...process.env, NO_COLOR: '1', GIFTCODES_API_KEY: 'sc_test_must_not_be_used_0000' };
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    recordOutput('scripts/demo.mjs', result.stdout, result.stderr);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('$ giftcodes ping');
    expect(result.stdout).toMatch(/^environment\s+test$/m);
    expect(result.stdout).toMatch(/^amazon-us-10\s/m);
    expect(result.stdout).toContain('demo finished: every step succeeded');
  });
});
