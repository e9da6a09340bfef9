// `npm run lint` and `npm run typecheck`, inside `npm test`: CI runs only `npm test`, and a file committed
// unformatted (src/cli.ts, 0b807c5) once left `npm run lint` failing on a tree CI had passed. Each check runs the
// project's own tool from node_modules with its own configuration, as the npm scripts do.
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function check(script: string, args: readonly string[]): Promise<string> {
  try {
    await run(process.execPath, [join(ROOT, 'node_modules', script), ...args], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    return '';
  } catch (error) {
    const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string };
    return `${stdout ?? ''}${stderr ?? ''}` || message;
  }
}

describe('the static checks of `npm run lint` and `npm run typecheck`', () => {
  it('every file is formatted as Prettier formats it', { timeout: 180_000 }, async () => {
    expect(await check('prettier/bin/prettier.cjs', ['--check', '--log-level', 'warn', '.'])).toBe('');
  });

  it('ESLint finds nothing', { timeout: 180_000 }, async () => {
    expect(await check('eslint/bin/eslint.js', ['.'])).toBe('');
  });

  it('the TypeScript compiler finds no type error', { timeout: 180_000 }, async () => {
    expect(await check('typescript/bin/tsc', ['--noEmit', '-p', '.'])).toBe('');
  });
});
