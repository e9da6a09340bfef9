// docs/manual/ is generated from the command tree (scripts/gen-docs.mjs) and committed, as completions/ is:
// what the built command tree would write now must be what is committed, page for page, so the manual a
// reader finds on GitHub never drifts from --help. And the man page carries EXAMPLES and FILES.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/e2e.js';

const MANUAL = join(ROOT, 'docs', 'manual');
const pages = (dir: string): string[] =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .sort();

describe('docs/manual/ is in step with the command tree', () => {
  const target = tempDir('giftcodes-manual-');
  const generated = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts', 'gen-docs.mjs'), join(ROOT, 'dist', 'cli.js'), target],
    { encoding: 'utf8' },
  );

  it('the generator runs on the built tree', () => {
    expect(generated.stderr).toMatch(/wrote \d+ pages/);
    expect(generated.status).toBe(0);
  });

  it('has one page per command and the index, no more and no fewer', () => {
    expect(pages(MANUAL), 'run `npm run docs` and commit docs/manual/').toEqual(pages(target));
    expect(pages(MANUAL)).toEqual(
      expect.arrayContaining(['README.md', 'giftcodes-order-place.md', 'giftcodes-codes-get.md', 'giftcodes-serve.md']),
    );
  });

  it.each(pages(MANUAL))('%s is what the command tree writes now', (page) => {
    const committed = readFileSync(join(MANUAL, page), 'utf8');
    expect(
      committed === readFileSync(join(target, page), 'utf8'),
      `docs/manual/${page} differs from the command tree: run \`npm run docs\` and commit docs/manual/`,
    ).toBe(true);
  });

  it("a command's page holds its options and examples as --help prints them", async () => {
    const help = await runCli(['order', 'place', '--help']);
    const page = readFileSync(join(MANUAL, 'giftcodes-order-place.md'), 'utf8');
    for (const [, example] of help.stdout.matchAll(/^ {2}\$ (.+)$/gm)) expect(page).toContain(`\n${example}\n`);
    for (const flag of ['--product <id>', '--quantity <n>', '-o, --out <file>', '--plan <file.csv>'])
      expect(page).toContain(`| \`${flag}\` |`);
    expect(page).toMatch(/^## Exit codes$/m);
  });
});

describe('the man page', () => {
  const man = readFileSync(join(ROOT, 'man', 'giftcodes.1'), 'utf8');
  const section = (name: string): string => {
    const start = man.indexOf(`\n.SH ${name}\n`);
    expect(start, `no .SH ${name}`).toBeGreaterThan(0);
    return man.slice(start, man.indexOf('\n.SH ', start + 1));
  };

  it("has EXAMPLES: the program's own and each command's", () => {
    const examples = section('EXAMPLES').replace(/\\-/g, '-');
    expect(examples).toContain('giftcodes order place --product amazon-us-25 --quantity 10 --out codes.csv');
    expect(examples).toContain('.SS "giftcodes codes get"');
    expect(examples).toContain('giftcodes codes get ord_123 --out codes.csv');
  });

  it('has FILES: config, journal, history and caches, with where the config directory is and what moves it', () => {
    const files = section('FILES').replace(/\\-/g, '-');
    for (const path of [
      '<config dir>/config.json',
      '<config dir>/journal/',
      '<config dir>/history/',
      '<config dir>/catalog-cache-<hash>.json',
    ])
      expect(files).toContain(`.I ${path}`);
    for (const variable of ['$GIFTCODES_CONFIG_DIR', '$XDG_CONFIG_HOME', '%APPDATA%', '$TMPDIR'])
      expect(files).toContain(variable);
  });
});
