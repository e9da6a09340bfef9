// `npm run typecheck`, inside `npm test` (test/helpers/static-check.ts says why).
import { expect, it } from 'vitest';
import { staticCheck } from '../helpers/static-check.js';

it('the TypeScript compiler finds no type error', { timeout: 180_000 }, async () => {
  expect(await staticCheck('typescript/bin/tsc', ['--noEmit', '-p', '.'])).toBe('');
});
