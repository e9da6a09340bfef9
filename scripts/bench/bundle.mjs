// Bundles a bare yardstick script as scripts/build.mjs bundles the CLI (esbuild: one ESM file for Node 20.18,
// minified, with the same require/__filename banner for CommonJS dependencies such as undici), so that the
// CLI and its floor pay alike for reading and compiling their code.
import { build } from 'esbuild';

export async function bundleBare(root, entry, outfile) {
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
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
  return outfile;
}
