// A plan's start reads each record's plan directory against its own (orders/plan.ts samePlanDirAs): a history
// holds the same few directories in every record, and 90,000 records of another shop's folder were 90,000
// realpath walks, 1.3 s (BENCHMARKS.md, thirty-sixth round). Each directory is resolved once, to the same answer.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const hooks = { realpaths: 0 };
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const realpathSync = ((...args: unknown[]) => {
    hooks.realpaths++;
    return (fs.realpathSync as (...a: unknown[]) => unknown)(...args);
  }) as typeof fs.realpathSync;
  return { ...fs, default: { ...fs, realpathSync }, realpathSync };
});

const { samePlanDir, samePlanDirAs } = await import('../../src/orders/plan.js');
const { tempDir } = await import('../helpers/e2e.js');
const { realPath } = await import('../../src/files/real-path.js');

describe("a plan's directory against many records' (samePlanDirAs)", () => {
  it('answers as samePlanDir does, resolving each noted directory once', () => {
    const root = tempDir();
    const here = join(root, 'shop-a');
    const other = join(root, 'shop-b');
    mkdirSync(here);
    mkdirSync(other);
    symlinkSync(here, join(root, 'link-to-a'));
    const realHere = realPath(here);
    const noted = [undefined, realHere, join(root, 'link-to-a'), other, join(root, 'gone')];
    const expected = noted.map((dir) => samePlanDir(dir, realHere));
    expect(expected).toEqual([true, true, true, false, false]);
    const inPlanDir = samePlanDirAs(realHere);
    hooks.realpaths = 0;
    for (let i = 0; i < 1_000; i++) expect(noted.map(inPlanDir)).toEqual(expected);
    // The link, the other shop's folder and the gone one: once each, not 1,000 times.
    expect(hooks.realpaths).toBe(3);
    expect(samePlanDirAs(undefined)(other)).toBe(true);
  });
});
