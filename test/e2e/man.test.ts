// The man page the build writes (man/giftcodes.1): a release date in .TH that does not move between builds,
// every environment variable that docs/environment.md and `help environment` list, and no mandoc lint error or warning.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../src/commands/environment.js';
import { ROOT, runCli, tempDir } from '../helpers/e2e.js';

const MAN = join(ROOT, 'man', 'giftcodes.1');
const page = (): string => readFileSync(MAN, 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const listed = ENVIRONMENT_VARIABLES.flatMap((variable) => variable.names).sort();

/** Runs scripts/gen-man.mjs on the built tree into a file of its own (never over the build's page). */
function generate(env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string; page: string } {
  const target = join(tempDir('giftcodes-man-'), 'giftcodes.1');
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts', 'gen-man.mjs'), join(ROOT, 'dist', 'cli.js'), target],
    {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  let text = '';
  try {
    text = readFileSync(target, 'utf8');
  } catch {
    // No page was written: the status and stderr say why.
  }
  return { status: result.status, stderr: result.stderr, page: text };
}

/** The lines of a section, from its .SH to the next. */
function section(text: string, name: string): string {
  const start = text.indexOf(`\n.SH ${name}\n`);
  expect(start, `no .SH ${name}`).toBeGreaterThan(0);
  const end = text.indexOf('\n.SH ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

const changelogDate = new RegExp(`^## ${pkg.version.replace(/\./g, '\\.')} \\((\\d{4}-\\d{2}-\\d{2})\\)$`, 'm').exec(
  readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'),
)?.[1];
const th = (date: string | undefined): string => `.TH GIFTCODES 1 ${date} "giftcodes ${pkg.version}" "User Commands"`;

describe('.TH', () => {
  it("carries the version's release date from CHANGELOG.md (or SOURCE_DATE_EPOCH's, when the build had one), not the build time", () => {
    expect(changelogDate, `CHANGELOG.md has no heading for ${pkg.version}`).toBeDefined();
    const epoch = process.env.SOURCE_DATE_EPOCH;
    expect(page().split('\n')[0]).toBe(
      th(epoch ? new Date(Number(epoch) * 1000).toISOString().slice(0, 10) : changelogDate),
    );
  });

  it('is the same page on every build; SOURCE_DATE_EPOCH sets the date when given, and a bad one fails', () => {
    expect(generate().page).toBe(page());
    expect(generate({ SOURCE_DATE_EPOCH: '' }).page.split('\n')[0]).toBe(th(changelogDate));
    const packaged = generate({ SOURCE_DATE_EPOCH: '1700000000' });
    expect(packaged.status).toBe(0);
    expect(packaged.page.split('\n')[0]).toBe(th('2023-11-14'));
    const bad = generate({ SOURCE_DATE_EPOCH: 'yesterday' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('SOURCE_DATE_EPOCH must be whole seconds');
  });
});

describe('ENVIRONMENT: one list for help environment, the man page and docs/environment.md', () => {
  it('the man page has every variable of the list, and only those', () => {
    const names = [...section(page(), 'ENVIRONMENT').matchAll(/^\.B (.+)$/gm)]
      .flatMap((m) => m[1]!.replace(/\\-/g, '-').split(', '))
      .sort();
    expect(names).toEqual(listed);
    expect(names).toEqual(expect.arrayContaining(['XDG_CONFIG_HOME', 'APPDATA']));
  });

  it("docs/environment.md's table of environment variables names the same variables", () => {
    const guide = readFileSync(join(ROOT, 'docs', 'environment.md'), 'utf8');
    expect(guide.startsWith('# Environment variables\n')).toBe(true);
    const start = guide.indexOf('\n| variable |');
    expect(start).toBeGreaterThan(0);
    const end = guide.indexOf('\n\n', start + 1);
    const table = guide.slice(start, end < 0 ? undefined : end);
    const names = table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!))
      .sort();
    expect(names).toEqual(listed);
  });

  it('help environment prints every variable of the list', async () => {
    const result = await runCli(['help', 'environment']);
    expect(result.code).toBe(0);
    for (const { names } of ENVIRONMENT_VARIABLES) expect(result.stdout).toContain(`  ${names.join(', ')}`);
  });
});

const mandoc = spawnSync('sh', ['-c', 'command -v mandoc'], { encoding: 'utf8' }).stdout.trim();

describe('mandoc -T lint', () => {
  // Skipped only where mandoc is not installed (scripts/test.mjs installs it where it can, as for tmux).
  it.skipIf(mandoc === '')('finds no error and no warning', () => {
    const lint = spawnSync(mandoc, ['-T', 'lint', '-W', 'warning', MAN], { encoding: 'utf8' });
    expect(`${lint.stdout}${lint.stderr}`).toBe('');
    expect(lint.status).toBe(0);
  });
});
