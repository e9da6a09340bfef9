// What `giftcodes` loads before it can answer: the output files statically imported from an entry of the
// build (esbuild's metafile, written by scripts/build.mjs), and the npm packages bundled into them.
import { readFileSync } from 'node:fs';

/** Dependencies that only some commands need: none may load at start-up (issue 6). */
export const HEAVY_PACKAGES = ['undici', 'zod', 'conf', 'ora', '@inquirer/prompts', 'ajv', 'age-encryption'];

export function readMetafile(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** { files, bytes, packages: {name: bytes}, heavy: [name] } for the static closure of `entry` (e.g. 'src/cli.ts'). */
export function startupGraph(metafile, entry) {
  const outputs = metafile.outputs;
  const first = Object.keys(outputs).find((file) => outputs[file].entryPoint === entry);
  if (!first) throw new Error(`no output for ${entry} in the metafile`);
  const files = new Set();
  const queue = [first];
  while (queue.length > 0) {
    const file = queue.pop();
    if (files.has(file)) continue;
    files.add(file);
    for (const imported of outputs[file].imports)
      if (imported.kind === 'import-statement' && !imported.external) queue.push(imported.path);
  }
  const packages = {};
  let bytes = 0;
  for (const file of files) {
    bytes += outputs[file].bytes;
    for (const [input, { bytesInOutput }] of Object.entries(outputs[file].inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (name && bytesInOutput > 0) packages[name] = (packages[name] ?? 0) + bytesInOutput;
    }
  }
  const heavy = Object.keys(packages).filter((name) => HEAVY_PACKAGES.includes(name) || name.startsWith('@inquirer/'));
  return { files: files.size, bytes, packages, heavy };
}
