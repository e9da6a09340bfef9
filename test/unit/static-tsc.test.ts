// `npm run typecheck`, inside `npm test` (test/helpers/static-check.ts says why). TypeScript 7 checks (the
// `typescript-7` dev dependency: the compiler's native port, the same checks as 5.9 on this tree in 3.9 s of CPU
// against 20.6 s); 5.9 stays for what reads TypeScript's JS API (typescript-eslint's parser, scripts/build.mjs).
// One thread: inside `npm test` the cores are already busy, and its threads cost CPU the rest of the suite wants.
import { expect, it } from 'vitest';
import { staticCheck } from '../helpers/static-check.js';

it('the TypeScript compiler finds no type error', { timeout: 180_000 }, async () => {
  expect(await staticCheck('typescript-7/bin/tsc', ['--noEmit', '-p', '.', '--singleThreaded'])).toBe('');
});
