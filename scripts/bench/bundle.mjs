// Bundles a bare yardstick script as scripts/build.mjs bundles the CLI (esbuild: one ESM file for Node 22.1,
// minified, with the same require/__filename banner for CommonJS dependencies such as undici), so that the
// CLI and its floor pay alike for reading and compiling their code.
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from '../esm-banner.mjs';

export async function bundleBare(root, entry, outfile) {
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.1',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: ESM_REQUIRE_BANNER },
  });
  return outfile;
}
