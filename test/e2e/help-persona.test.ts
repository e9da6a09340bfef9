// Help a person can read, JSON a script can use: each verb's own options then one pointer to the global ones,
// commands before options, `version` as --version, --raw for a string --query picks, --jq pointed at --query,
// and a base URL ending in /v1 explained.
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, loggedIn, runCli, servedApi } from '../helpers/e2e.js';

const api = servedApi([], { login: DEMO_KEYS.test });

describe('help', () => {
  it("a verb's help shows its own options and one line pointing at giftcodes help options", async () => {
    const help = await runCli(['order', 'show', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).not.toContain('--request-timeout');
    expect(help.stdout).not.toContain('--ca-file');
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Global options (--profile, --env, --json, --query, …): giftcodes help options',
    );
    const options = await runCli(['help', 'options']);
    expect(options.code).toBe(0);
    for (const flag of [
      '--profile <name>',
      '--request-timeout <seconds>',
      '--query <expr>',
      '--raw',
      '--ca-file <path>',
    ])
      expect(options.stdout).toContain(flag);
  });

  it('the top-level help lists the commands before the options; giftcodes version agrees with --version', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout.indexOf('Set up:')).toBeGreaterThan(0);
    expect(help.stdout.indexOf('Set up:')).toBeLessThan(help.stdout.indexOf('Options:'));
    expect(help.stdout.indexOf('Tools:')).toBeLessThan(help.stdout.indexOf('Options:'));
    const [version, flag] = await Promise.all([runCli(['version']), runCli(['--version'])]);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(flag.stdout);
    // --json everywhere: the version as a document, and the Node it runs on.
    const json = await runCli(['version', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      version: flag.stdout.trim(),
      node: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
  });
});

describe('JSON for scripts', () => {
  it('--raw prints a string that --query selects as it is (jq -r); --jq is refused with a pointer to --query', async () => {
    const placed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json'], {
      configDir: api.configDir,
    });
    expect(placed.code, placed.stderr).toBe(0);
    const id = (JSON.parse(placed.stdout) as { id: string }).id;
    const raw = await runCli(['order', 'list', '--query', '[0].orderId', '--raw'], { configDir: api.configDir });
    expect(raw).toMatchObject({ code: 0, stdout: `${id}\n` });
    const quoted = await runCli(['order', 'list', '--query', '[0].orderId'], { configDir: api.configDir });
    expect(quoted.stdout).toBe(`"${id}"\n`);
    // Without --query it does nothing: said, not ignored (a person's day typed --json --raw and got JSON quotes).
    const alone = await runCli(['order', 'list', '--json', '--raw'], { configDir: api.configDir });
    expect(alone.code).toBe(0);
    expect(alone.stderr).toContain(
      "warning: --raw does nothing without --query (it prints a query's one-string answer without quotes)",
    );
    const jq = await runCli(['order', 'list', '--jq', '.[0].orderId'], { configDir: api.configDir });
    expect(jq.code).toBe(2);
    expect(jq.stderr).toContain('--query');
    expect(jq.stderr).toContain('not jq');
  });
});

describe('a base URL ending in /v1', () => {
  it('is explained: the client adds the /v1 prefix itself', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const result = await runCli(['ping', '--base-url', `${api.url}/v1`], { configDir });
    expect(result.stderr).toContain(`the client adds the /v1 prefix itself`);
    expect(result.stderr).toContain(`use --base-url ${api.url}`);
  });
});
