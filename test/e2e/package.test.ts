// The tarball a reseller installs: only what runs, and a working `giftcodes` on PATH after a global install.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, ROOT, servedApi, tempDir } from '../helpers/e2e.js';
import { recordOutput } from '../helpers/leaks.js';
import { MACHINE_EXTRA_CA_CERTS } from '../helpers/machine-env.js';
import { packAndInstall, packedForRuns, type Packed } from '../../scripts/pack-install.mjs';

/** Where scripts/test.mjs packed and installed the checkout for every run of `npm test`. */
const PACKED_FOR_RUNS = 'GIFTCODES_TEST_PACKED';

const run = promisify(execFile);
/** npm's environment: the machine's, with its extra CAs should npm reach for the registry. */
const npmEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  ...(MACHINE_EXTRA_CA_CERTS === undefined ? {} : { NODE_EXTRA_CA_CERTS: MACHINE_EXTRA_CA_CERTS }),
});
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

let packed: Packed;
let prefix: string;
let installed: string;
/** Runs the installed giftcodes found on PATH, with a config dir of its own and nothing of the developer's. */
let giftcodes: (args: string[], env?: NodeJS.ProcessEnv) => Promise<{ stdout: string; stderr: string }>;

beforeAll(async () => {
  const dir = tempDir('giftcodes-pack-');
  // Under `npm test` the tarball and its install are made once for its three runs (scripts/pack-install.mjs).
  const shared = process.env[PACKED_FOR_RUNS];
  const made = shared ? await packedForRuns(shared, 300_000) : await packAndInstall(ROOT, dir, npmEnv());
  packed = made;
  prefix = made.prefix;
  installed = join(prefix, 'bin', 'giftcodes');
  const configDir = tempDir();
  giftcodes = async (args, env = {}) => {
    const result = await run('giftcodes', args, {
      cwd: dir,
      env: {
        PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
        HOME: dir,
        GIFTCODES_CONFIG_DIR: configDir,
        NO_COLOR: '1',
        ...env,
      },
    });
    recordOutput(`installed giftcodes ${args.join(' ')}`, result.stdout, result.stderr);
    return result;
  };
}, 300_000);

describe('npm pack', () => {
  it('holds only what runs and what README links to: the build, bin, completions, the man page, README, docs/, LICENSE, package.json', () => {
    const paths = packed.files.map((file) => file.path).sort();
    const allowed =
      /^(dist\/([\w-]+\.js|undici\.cjs(\.cache)?)|bin\/(giftcodes|package\.json)|completions\/(giftcodes\.bash|_giftcodes|giftcodes\.fish)|man\/giftcodes\.1|docs\/[\w/-]+\.md|README\.md|CHANGELOG\.md|SECURITY\.md|LICENSE|package\.json)$/;
    expect(paths.filter((path) => !allowed.test(path))).toEqual([]);
    for (const required of [
      'dist/cli.js',
      'dist/undici.cjs',
      'dist/undici.cjs.cache',
      'bin/giftcodes',
      // The launcher is CommonJS: without it, Node would run bin/giftcodes as an ES module (the package's type).
      'bin/package.json',
      'completions/giftcodes.bash',
      'completions/_giftcodes',
      'completions/giftcodes.fish',
      'man/giftcodes.1',
      'README.md',
      'LICENSE',
      'package.json',
    ]) {
      expect(paths).toContain(required);
    }
  });

  it("every page README links to is in the package (an installed README's links are not dead)", () => {
    const paths = new Set(packed.files.map((file) => file.path));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z]+:/i.test(target))
      // Pages for whoever works on giftcodes itself, read in the repository, not in an installed copy.
      .filter(
        (target) => !['CONTRIBUTING.md', 'BENCHMARKS.md', 'openapi.yaml', 'docs/architecture.md'].includes(target),
      );
    expect(linked.length).toBeGreaterThan(5);
    expect(linked.filter((target) => !paths.has(target.replace(/^\.\//, '')))).toEqual([]);
  });
});

describe('npm install --global <tarball>', () => {
  const served = servedApi([], { bin: () => join(prefix, 'lib', 'node_modules', pkg.name, 'bin', 'giftcodes') });

  it('puts giftcodes on PATH: --version', async () => {
    const { stdout } = await giftcodes(['--version']);
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('--help shows the commands', async () => {
    const { stdout } = await giftcodes(['--help']);
    expect(stdout).toMatch(/^Usage: giftcodes /);
    expect(stdout).toContain('Set up:');
    expect(stdout).toMatch(/^ {2}login/m);
  });

  it('pings a giftcodes serve started from the same install', async () => {
    expect(installed).toMatch(/giftcodes$/);
    const { stdout } = await giftcodes(['ping', '--json', '--base-url', served.url], {
      GIFTCODES_API_KEY: DEMO_KEYS.test,
    });
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', environment: 'test', resellerId: 'rs_demo' });
  });

  it('ships completion scripts equal to what the installed command prints', async () => {
    const { stdout } = await giftcodes(['completion', 'bash']);
    expect(stdout).toBe(
      readFileSync(join(prefix, 'lib', 'node_modules', pkg.name, 'completions', 'giftcodes.bash'), 'utf8'),
    );
  });
});
