// `npm run lint`'s formatting check, inside `npm test` (test/helpers/static-check.ts says why).
import { expect, it } from 'vitest';
import { staticCheck } from '../helpers/static-check.js';

it('every file is formatted as Prettier formats it', { timeout: 180_000 }, async () => {
  expect(await staticCheck('prettier/bin/prettier.cjs', ['--check', '--log-level', 'warn', '.'])).toBe('');
});
