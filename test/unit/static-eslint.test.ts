// `npm run lint`'s ESLint, inside `npm test` (test/helpers/static-check.ts says why).
import { expect, it } from 'vitest';
import { staticCheck } from '../helpers/static-check.js';

it('ESLint finds nothing', { timeout: 180_000 }, async () => {
  expect(await staticCheck('eslint/bin/eslint.js', ['.'])).toBe('');
});
