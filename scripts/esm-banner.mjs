// The banner an ESM bundle for Node needs when it inlines CommonJS dependencies (undici and others call
// require() and read __filename): shared by the CLI's build and the benchmark's bare scripts.
export const ESM_REQUIRE_BANNER = [
  "import { createRequire as __gcCreateRequire } from 'node:module';",
  "import { fileURLToPath as __gcFileURLToPath } from 'node:url';",
  'const require = __gcCreateRequire(import.meta.url);',
  'const __filename = __gcFileURLToPath(import.meta.url);',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
].join(' ');
