// The tarball a reseller installs, and its global install: `npm pack` of the checkout, then `npm install --global`
// of that tarball under a prefix of its own. test/e2e/package.test.ts tests what they make. Under `npm test`,
// scripts/test.mjs makes them once (packForRuns) for its three runs, which wait for them (packedForRuns) and each
// run the installed package on its own Node: npm is the same npm on every run (the PATH's, whatever Node the run
// uses), so packing and installing three times tested nothing more, and cost ~5 s of CPU each.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const READY = 'packed.json';
const FAILED = 'failed.txt';

/** Packs the checkout at `root` into `dir`, and installs the tarball globally under `dir/prefix`. */
export async function packAndInstall(root, dir, env) {
  // --ignore-scripts: prepack would rebuild dist/ under the test files' feet; `npm test` built it already.
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, env });
  const packed = JSON.parse(pack.stdout)[0];
  const prefix = join(dir, 'prefix');
  await run(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(dir, packed.filename),
    ],
    { cwd: dir, env },
  );
  return { filename: packed.filename, files: packed.files, prefix };
}

/** packAndInstall into `dir`, then a file there says what it made, or why it failed: what packedForRuns waits for. */
export async function packForRuns(root, dir, env) {
  mkdirSync(dir, { recursive: true });
  try {
    const made = await packAndInstall(root, dir, env);
    writeFileSync(join(dir, `${READY}.tmp`), JSON.stringify(made));
    renameSync(join(dir, `${READY}.tmp`), join(dir, READY));
  } catch (error) {
    writeFileSync(join(dir, FAILED), `${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`);
  }
}

/** What packForRuns made in `dir`, once it has; its failure, or none within `timeoutMs`, throws. */
export async function packedForRuns(dir, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(join(dir, READY))) return JSON.parse(readFileSync(join(dir, READY), 'utf8'));
    if (existsSync(join(dir, FAILED)))
      throw new Error(`npm pack or install failed (scripts/test.mjs): ${readFileSync(join(dir, FAILED), 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`scripts/test.mjs packed nothing into ${dir} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
