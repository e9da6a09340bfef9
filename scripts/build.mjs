// Bundles src/cli.ts into dist/ with code splitting, so each verb and each heavy dependency
// loads only when a command needs it and module resolution costs nothing at start-up.
// The bundle is built beside dist/ and swapped in whole, so a CLI running meanwhile never sees half a build.
import { build } from 'esbuild';
import { readFile, rename, rm } from 'node:fs/promises';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));
const staging = new URL(`dist.build-${process.pid}/`, root);
const retired = new URL(`dist.old-${process.pid}/`, root);
const dist = new URL('dist/', root);

try {
  await build({
    entryPoints: [new URL('src/cli.ts', root).pathname],
    outdir: staging.pathname,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    define: { __GIFTCODES_VERSION__: JSON.stringify(pkg.version) },
    // Some dependencies are CommonJS and use require() and __filename; give the ESM bundle both.
    banner: {
      js: [
        "import { createRequire as __gcCreateRequire } from 'node:module';",
        "import { fileURLToPath as __gcFileURLToPath } from 'node:url';",
        'const require = __gcCreateRequire(import.meta.url);',
        'const __filename = __gcFileURLToPath(import.meta.url);',
        "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
      ].join(' '),
    },
  });
  await rename(dist, retired).catch((error) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(staging, dist);
} finally {
  await rm(staging, { recursive: true, force: true });
  await rm(retired, { recursive: true, force: true });
}
