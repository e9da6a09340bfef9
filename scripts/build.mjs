// Bundles src/cli.ts into dist/ with code splitting, so each verb and each heavy dependency
// loads only when a command needs it and module resolution costs nothing at start-up.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
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
