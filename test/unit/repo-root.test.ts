// The repository's top level holds what a clone needs and nothing a run left behind: a config directory's path
// and one run's stdout and stderr were once committed beside package.json. A new top-level file is added to
// the list below on purpose; anything .gitignore names (node_modules, dist, reports, …) is left alone.
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

const KNOWN = new Set([
  '.ci',
  '.git',
  '.gitignore',
  '.prettierignore',
  '.prettierrc.json',
  'BENCHMARKS.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  'LICENSE',
  'README.md',
  'SECURITY.md',
  'bin',
  'completions',
  'docs',
  'eslint.config.js',
  'openapi.yaml',
  'package-lock.json',
  'package.json',
  'scripts',
  'src',
  'stryker.config.json',
  'test',
  'tsconfig.json',
  'vitest.config.ts',
  'vitest.mutation.config.ts',
]);

/** Whether a top-level name matches a line of .gitignore (a name, a name/, or a * glob). */
function ignored(name: string, lines: readonly string[]): boolean {
  return lines.some((line) => {
    const pattern = line.trim().replace(/^\//, '').replace(/\/$/, '');
    if (pattern === '' || pattern.startsWith('#')) return false;
    const glob = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    return glob.test(name);
  });
}

describe('the repository root', () => {
  it('reads .gitignore lines as names, directories and globs', () => {
    const lines = ['node_modules/', '*.tgz', 'dist.build-*/', '# a comment', ''];
    expect(ignored('node_modules', lines)).toBe(true);
    expect(ignored('giftcodes-0.1.0.tgz', lines)).toBe(true);
    expect(ignored('dist.build-123', lines)).toBe(true);
    expect(ignored('dist', lines)).toBe(false);
    expect(ignored('o1.out', lines)).toBe(false);
  });

  it('holds only the files a clone needs, or what .gitignore names', () => {
    const lines = readFileSync(resolve(ROOT, '.gitignore'), 'utf8').split('\n');
    const stray = readdirSync(ROOT).filter((name) => !KNOWN.has(name) && !ignored(name, lines));
    expect(stray).toEqual([]);
  });
});
