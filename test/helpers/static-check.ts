// `npm run lint` and `npm run typecheck`, inside `npm test`: CI runs only `npm test`, and a file committed
// unformatted (src/cli.ts, 0b807c5) once left `npm run lint` failing on a tree CI had passed. Each check runs the
// project's own tool from node_modules with its own configuration, as the npm scripts do. One file a check
// (test/unit/static-*.test.ts): together in one file they ran one after another, ~70 s of one worker that a fresh
// checkout (no duration cache: files ordered by size) ran last, alone.
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs a tool's script from node_modules at the project's root: '' when it passes, else what it printed. */
export async function staticCheck(script: string, args: readonly string[]): Promise<string> {
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
